"""The Python package against the ringsim command for the same inputs: every result the package gives
(problem, closed form, walk and its per-(rank, step) arrays, memory, plan, the trace and sweep
readers, error messages) equals what `ringsim model --json`, `--trace`, `memory --csv`, `plan --csv`
and `sweep -o` print (they print %.17g: the comparisons are exact).

Run by CTest (tests/python/CMakeLists.txt) with RINGSIM_LIB and RINGSIM_BIN set; by hand:
    RINGSIM_LIB=build/lib/libringsim.so RINGSIM_BIN=build/bin/ringsim PYTHONPATH=python \\
        python3 -m unittest discover -s python/tests -v
"""
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

import ringsim

BIN = os.environ.get("RINGSIM_BIN") or shutil.which("ringsim")


def cli(*args, ok=True):
    """Run the command; its stdout (ok: exit 0 required), or (code, stdout, stderr)."""
    r = subprocess.run([BIN] + [str(a) for a in args], capture_output=True, text=True, timeout=300)
    if ok:
        if r.returncode != 0:
            raise AssertionError("ringsim %s: exit %d: %s" % (" ".join(map(str, args)), r.returncode, r.stderr))
        return r.stdout
    return r.returncode, r.stdout, r.stderr


def same(a, b):
    """Equal, NaN included."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def num(text):
    return float(text) if text not in ("nan", "-nan") else math.nan


# (CLI options, Problem kwargs, Machine kwargs): the same inputs both ways
CASES = [
    ([], {}, {}),
    (["-S", "64K", "-N", "16", "--no-causal"], {"seq_tokens": "64K", "n_ranks": 16, "causal": False}, {}),
    (["-S", "32K", "-N", "4", "--heads", "8", "--kv-heads", "2", "--head-dim", "64", "--dtype", "fp16", "--tile", "64x32"],
     {"seq_tokens": "32K", "n_ranks": 4, "q_heads": 8, "kv_heads": 2, "head_dim": 64, "dtype": "fp16", "tile": "64x32"},
     {}),
    (["-p", "mi300x", "-N", "32", "-S", "256K", "--bw", "50G", "--latency", "5e-6", "--overlap", "0.5"],
     {"n_ranks": 32, "seq_tokens": "256K"}, {"profile": "mi300x", "bw": "50G", "latency": 5e-6, "overlap": 0.5}),
    (["-N", "16", "--gpus-per-node", "4", "--inter", "ib-ndr", "--straggler", "3:1.5", "--degrade", "5:2", "--jitter",
      "0.1", "--seed", "7", "--launch-overhead", "2e-6"],
     {"n_ranks": 16}, {"gpus_per_node": 4, "inter": "ib-ndr", "stragglers": [(3, 1.5)], "degraded": [(5, 2)],
                       "jitter": 0.1, "seed": 7, "launch": 2e-6}),
]


class TestVersionAndLayouts(unittest.TestCase):
    def test_versions_agree(self):
        self.assertEqual(ringsim.library_version, ringsim.__version__)
        self.assertEqual(cli("--version").strip(), "ringsim " + ringsim.__version__)

    def test_every_field_of_a_described_struct_is_described(self):
        """A field added to a struct and not to binding.c's table leaves a gap of >= 8 bytes."""
        from ringsim._lib import ABI
        for name, (size, fields) in ABI.items():
            pos, last = 0, None
            for f, off, sz, _k, _s in sorted(fields, key=lambda x: x[1]):
                self.assertLess(off - pos, 8, "%s: bytes %d..%d after %s are not in studies/binding.c's table"
                                % (name, pos, off, last))
                pos, last = off + sz, f
            self.assertLess(size - pos, 8, "%s: its last %d bytes are not in the table" % (name, size - pos))


class TestModel(unittest.TestCase):
    """closed_form and walk against `ringsim model --json -` for every layout and pass."""

    def test_closed_form_and_walk_equal_model_json(self):
        for opts, pkw, mkw in CASES:
            doc = json.loads(cli("model", "--json", "-", *opts))
            self.assertEqual(len(doc["entries"]), 6)
            for e in doc["entries"]:
                with self.subTest(opts=opts, layout=e["layout"], pass_=e["pass"]):
                    p = ringsim.Problem(layout=e["layout"], pass_=e["pass"], **pkw)
                    m = ringsim.Machine(**mkw)
                    cf, w = ringsim.closed_form(p, m), ringsim.walk(p, m, events=False)
                    prob = ringsim.problem_of(p, m)
                    for k in ("seq_tokens", "n_ranks", "causal"):
                        self.assertEqual(prob[k], e[k], k)
                    self.assertEqual(cf.block_tokens, e["block_tokens"])
                    for k in ("t_comp_s", "t_comm_s", "t_step_s", "b_min_tokens"):
                        self.assertEqual(cf[k], e[k], k)
                    self.assertEqual(cf.makespan_s, e["closed_makespan_s"])
                    self.assertEqual(-1.0 if math.isnan(cf.b_star_tokens) else cf.b_star_tokens, e["b_star_tokens"])
                    self.assertEqual("comm" if cf.comm_bound else "compute", e["bound"])
                    for k in ("makespan_s", "balance_efficiency", "fraction_of_peak", "peak_flops_per_s", "busy_max_s"):
                        self.assertEqual(w[k], e[k], k)
                    self.assertEqual(doc["flops_per_s"], cf.f_peak_per_s)

    def test_walk_arrays_equal_the_model_trace(self):
        """Per (rank, step): the walk's arrays, the command's trace (read with csv), and that trace
        read back by ringsim.read_trace, all equal."""
        with tempfile.TemporaryDirectory() as d:
            for pass_ in ("forward", "backward"):
                path = os.path.join(d, "t-%s.csv" % pass_)
                cli("model", "-N", "6", "-S", "24K", "-L", "striped", "-P", pass_, "--straggler", "2:1.3", "--trace", path)
                w = ringsim.walk(ringsim.Problem(n_ranks=6, seq_tokens="24K", layout="striped", pass_=pass_),
                                 ringsim.Machine(stragglers=[(2, 1.3)]))
                self.assertEqual((w.n_ranks, w.n_steps), (6, 6 if pass_ == "forward" else 7))
                with open(path) as f:
                    rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
                rows = [r for r in rows if r.get("role", "-") == "-"]  # the events; role rows (version 2) are the model's roles
                self.assertEqual(len(rows), len(w.events))
                for r in rows:
                    rank, step, kind = int(r["rank"]), int(r["step"]), r["kind"]
                    self.assertEqual(r["pass"], pass_)
                    for what in ("start_s", "end_s"):
                        self.assertEqual(w["%s_%s" % (kind, what)][rank][step], float(r[what]), (rank, step, kind))
                    if kind == "compute":
                        self.assertEqual(w.flops[rank][step], float(r["flops"]))
                    if kind in ("send", "recv"):
                        self.assertEqual(w[kind + "_bytes"][rank][step], float(r["bytes"]))
                t = ringsim.read_trace(path)
                self.assertEqual(t.source, "model")
                self.assertEqual(t.meta["n_ranks"], "6")
                self.assertEqual(t.meta["layout"], "striped")
                a = t.arrays(pass_)
                for name in ("compute_start_s", "compute_end_s", "send_end_s", "recv_end_s", "step_end_s", "flops"):
                    for rank in range(6):
                        for step in range(w.n_steps):
                            self.assertTrue(same(a[name][rank][step], w[name][rank][step]), (name, rank, step))
                if pass_ == "backward":  # the tail step computes nothing: no compute event there
                    self.assertTrue(all(v is None or math.isnan(v) for v in [w.compute_end_s[r][6] for r in range(6)]))

    def test_arrays_are_numpy_when_numpy_is_there(self):
        want = os.environ.get("RINGSIM_EXPECT_NUMPY")  # CTest says which variant it runs
        if want is not None:
            self.assertEqual(ringsim.HAVE_NUMPY, want == "1", "RINGSIM_EXPECT_NUMPY=%s, ringsim.HAVE_NUMPY=%s"
                             % (want, ringsim.HAVE_NUMPY))
        w = ringsim.walk(ringsim.Problem(n_ranks=4, seq_tokens="8K"))
        if ringsim.HAVE_NUMPY:
            import numpy
            self.assertIsInstance(w.step_end_s, numpy.ndarray)
            self.assertEqual(w.step_end_s.shape, (4, 4))
            self.assertEqual(float(numpy.nanmax(w.step_end_s)), w.makespan_s)
        else:
            self.assertIsInstance(w.step_end_s, list)
            self.assertEqual(max(max(r) for r in w.step_end_s), w.makespan_s)

    def test_bad_input_gives_the_commands_message(self):
        cases = [(["--seq", "12Q"], {"seq_tokens": "12Q"}, {}),
                 (["-S", "1000", "-N", "8"], {"seq_tokens": 1000, "n_ranks": 8}, {}),
                 (["-p", "no-such-gpu"], {}, {"profile": "no-such-gpu"}),
                 (["--kv-heads", "3"], {"kv_heads": 3}, {}),
                 (["--flops", "2000T"], {}, {"flops": "2000T"})]  # above h100-sxm's 989 TFLOP/s x 1.05
        for opts, pkw, mkw in cases:
            code, _out, err = cli("model", "-L", "zigzag", "-P", "forward", *opts, ok=False)
            self.assertEqual(code, 2)
            with self.assertRaises(ringsim.RingsimError) as ctx:
                ringsim.closed_form(ringsim.Problem(**pkw), ringsim.Machine(**mkw))
            # the same message; Python names its own parameter (seq_tokens) where the command names --seq
            self.assertEqual(str(ctx.exception).split(" ", 1)[1], err.strip().split(" ", 3)[3])

    def test_allow_implausible_warns_with_the_figure_and_its_bound(self):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            c = ringsim.closed_form(ringsim.Problem(), ringsim.Machine(flops="2000T", allow_implausible=True))
        self.assertEqual(len(got), 1)
        self.assertIn("--flops 2e+15: above H100-SXM's datasheet bf16 peak x 1.05 (1.038e+15 FLOP/s); taken as given",
                      str(got[0].message))
        self.assertEqual(c.f_peak_per_s, 2e15)


MEM_TERMS = {"weights": "weights_bytes", "gradients": "grads_bytes", "optimizer": "optim_bytes",
             "fsdp_unit": "fsdp_unit_bytes", "activations_saved": "act_saved_bytes", "layer_working_set": "layer_work_bytes",
             "ring_forward": "ring_fwd_bytes", "ring_backward": "ring_bwd_bytes", "ring": "ring_bytes",
             "all_to_all_staging": "a2a_bytes", "ffn_chunk": "ffn_chunk_bytes", "logits_chunk": "logits_chunk_bytes",
             "total": "total_bytes"}


class TestMemoryAndPlan(unittest.TestCase):
    def test_memory_equals_memory_csv(self):
        cases = [(["-m", "llama3-8b"], {}),
                 (["-m", "llama3-70b", "-S", "1M", "-N", "64", "--ckpt", "selective", "--batch", "2"],
                  {"seq_tokens": "1M", "sp_degree": 64, "ckpt": "selective", "batch": 2}),
                 (["-m", "llama2-7b", "-S", "256K", "-N", "16", "--ulysses", "4", "--precision", "fp32", "--shard", "64"],
                  {"seq_tokens": "256K", "sp_degree": 16, "ulysses_degree": 4, "precision": "fp32", "shard_devices": 64})]
        for opts, kw in cases:
            with self.subTest(opts=opts):
                rows = dict(r for r in csv.reader(cli("memory", "--csv", "-", *opts).splitlines()[1:]))
                m = ringsim.memory(opts[1], **kw)
                for term, field in MEM_TERMS.items():
                    self.assertEqual("%.0f" % m[field], rows[term], term)
                self.assertEqual("%.0f" % (0.0 - m.ring_shared_bytes), rows["ring_shared_with_saved"])
        code, _o, err = cli("memory", "-m", "llama3-8b", "-N", "16", "--ulysses", "16", ok=False)
        self.assertEqual(code, 2)
        with self.assertRaises(ringsim.RingsimError) as ctx:
            ringsim.memory("llama3-8b", sp_degree=16, ulysses_degree=16)
        self.assertEqual("ringsim memory: " + str(ctx.exception), err.strip())

    def test_plan_equals_plan_csv(self):
        cases = [(["-m", "llama3-8b", "-p", "h200"], {"profile": "h200"}),
                 (["-m", "llama3-70b", "-p", "mi300x", "-S", "512K", "--global-batch", "8", "--price", "2.5"],
                  {"profile": "mi300x", "seq_tokens": "512K", "global_batch": 8, "price": 2.5}),
                 (["-m", "llama3-8b", "-p", "h100-sxm", "-N", "16", "--gpus-per-node", "4", "--inter", "ib-ndr",
                   "--ckpt", "selective", "-L", "striped"],
                  {"profile": "h100-sxm", "n_ranks": 16, "gpus_per_node": 4, "inter": "ib-ndr", "ckpt": "selective",
                   "layout": "striped"}),
                 (["-m", "llama3-8b", "-p", "h200", "-S", "max", "-N", "8", "--no-alternatives"],
                  {"profile": "h200", "seq_tokens": "max", "n_ranks": 8, "alternatives": False}),
                 (["-m", "llama3-8b", "-p", "h100-sxm", "-N", "16", "--tp", "2", "--dtype", "fp8", "--runtime", "jax-gpu",
                   "--loss-chunk", "none"],
                  {"profile": "h100-sxm", "n_ranks": 16, "tp": 2, "dtype": "fp8", "runtime": "jax-gpu",
                   "loss_chunk_tokens": "none"})]
        for opts, kw in cases:
            with self.subTest(opts=opts):
                rows = list(csv.DictReader(cli("plan", "--csv", "-", *opts).splitlines()))
                r = ringsim.plan(opts[1], **kw)
                self.assertEqual(len(rows), len(r.options))
                for j, (row, o) in enumerate(zip(rows, r.options)):
                    self.assertEqual(row["profile"], r.hw_name)
                    self.assertEqual(int(row["seq_tokens"]), r.seq_tokens)
                    if kw.get("seq_tokens") == "max":  # the longest context's range (docs/plan.md)
                        self.assertEqual((int(row["seq_tokens_low"]), int(row["seq_tokens_high"])),
                                         (r.seq_tokens_low, r.seq_tokens_high))
                        self.assertTrue(0 < r.seq_tokens_low < r.seq_tokens < r.seq_tokens_high)
                    else:
                        self.assertEqual((row["seq_tokens_low"], row["seq_tokens_high"]), ("", ""))
                    self.assertEqual(int(row["n_ranks"]), o.ulysses * o.ring)
                    self.assertEqual(row["split"], o.kind)
                    self.assertEqual(int(row["best"]), int(j == r.best))
                    self.assertEqual(int(row["fits"]), int(o.fits))
                    self.assertEqual((int(row["dp"]), int(row["accum"])), (r.dp, r.accum))
                    for col, v in (("mem_bytes", o.mem_bytes), ("usable_bytes", r.usable_bytes),
                                   ("attn_fwd_s", o.attn.attn_fwd_s), ("a2a_bwd_s", o.attn.a2a_bwd_s),
                                   ("attn_layer_s", o.t_attn_layer_s), ("layer_s", o.t_layer_s), ("step_s", o.t_step_s),
                                   ("ring_b_star_tokens", o.attn.ring_b_star_tokens), ("mfu", o.mfu),
                                   ("usd_per_step", o.cost_per_step), ("usd_per_mtok", o.cost_per_mtok)):
                        self.assertTrue(same(num(row[col]), v), (col, row[col], v))

    def test_plan_bad_input(self):
        code, _o, err = cli("plan", "-m", "llama3-8b", "-p", "nope", ok=False)
        self.assertEqual(code, 2)
        with self.assertRaises(ringsim.RingsimError) as ctx:
            ringsim.plan("llama3-8b", profile="nope")
        self.assertEqual("ringsim plan: " + str(ctx.exception), err.strip())


class TestSweep(unittest.TestCase):
    def test_sweep_rows_equal_the_model(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.csv")
            cli("sweep", "--block", "256:4K:x4", "-N", "2,8", "-L", "zigzag,contiguous", "-P", "both", "--no-sim", "-q",
                "-o", path)
            s = ringsim.read_sweep(path)
            self.assertEqual(len(s.rows), 3 * 2 * 2 * 2)
            self.assertTrue(s.notes[0].startswith("ringsim-sweep="))
            col = s.column("block_tokens")
            self.assertEqual(list(col), [r.block_tokens for r in s.rows])
            for r in s.rows:
                p = ringsim.Problem(seq_tokens=r.seq_tokens, n_ranks=r.n_ranks, layout=r.layout, pass_=r["pass"],
                                    causal=bool(r.causal))
                m = ringsim.Machine(r.profile)
                cf, w = ringsim.closed_form(p, m), ringsim.walk(p, m, events=False)
                self.assertEqual(cf.block_tokens, r.block_tokens)
                for col_name, v in (("closed_t_comp_s", cf.t_comp_s), ("closed_t_comm_s", cf.t_comm_s),
                                    ("closed_t_step_s", cf.t_step_s), ("b_min_tokens", cf.b_min_tokens),
                                    ("pred_makespan_s", w.makespan_s)):
                    self.assertEqual(float(r[col_name]), v, col_name)
                # the sweep walks with a trace, this walk without: the per-rank sums round alike to 1e-12
                self.assertTrue(math.isclose(float(r["pred_balance_efficiency"]), w.balance_efficiency, rel_tol=1e-12))
                self.assertTrue(0 < w.balance_efficiency <= 1 and 0 < w.fraction_of_peak <= 1)

    def test_readers_refuse_bad_files(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.csv")
            with open(bad, "w") as f:
                f.write("# ringsim-trace=1\n# source=model\nsource,rank,step,pass,kind,start_s,end_s,flops,bytes,peer\n"
                        "model,0,0,sideways,compute,0,1,0,0,-1\n")
            with self.assertRaises(ringsim.RingsimError) as ctx:
                ringsim.read_trace(bad)
            self.assertIn("bad.csv:4", str(ctx.exception))
            with open(bad, "w") as f:
                f.write("a,b\n1,2,3\n")
            with self.assertRaises(ringsim.RingsimError):
                ringsim.read_sweep(bad)

    def test_readers_refuse_devices_and_fifos(self):
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "points.csv")
            os.mkfifo(fifo)
            for path, kind in (("/dev/zero", "character device"), (fifo, "FIFO"), (d, "directory")):
                with self.assertRaises(ringsim.RingsimError) as ctx:  # at once: no read to the end, no blocking open
                    ringsim.read_sweep(path)
                self.assertIn("%s: is a %s, not a ringsim sweep CSV" % (path, kind), str(ctx.exception))


class TestInputChecks(unittest.TestCase):
    """The package refuses what the command refuses, with the same ranges (one table in the library)."""

    def test_nul_bytes_are_refused(self):
        for make in (lambda: ringsim.Problem(seq_tokens="128K\x00junk"), lambda: ringsim.Problem(dtype="bf16\x00x"),
                     lambda: ringsim.Machine(profile="h100-sxm\x00x"), lambda: ringsim.Machine(flops="1e12\x00"),
                     lambda: ringsim.memory("llama3-8b\x00junk"), lambda: ringsim.read_trace("t.csv\x00x")):
            with self.assertRaises(ringsim.RingsimError) as ctx:
                make()
            self.assertIn("contains a NUL byte", str(ctx.exception))

    def test_machine_ranges_are_the_commands(self):
        for field, value, opt in (("flops", -1, "--flops"), ("flops", 0, "--flops"), ("flops", 2 ** 70, "--flops"),
                                  ("bw", 0, "--bw"), ("latency", -1, "--latency"), ("overlap", 1.5, "--overlap"),
                                  ("jitter", 1, "--jitter"), ("host_call", -1, "--host-call"), ("host_call", 11, "--host-call")):
            code, _out, err = cli("model", opt, value, ok=False)
            self.assertEqual(code, 2, (opt, value))
            rng = err.strip().rsplit("must be in ", 1)[1]  # the command's range
            with self.assertRaises(ringsim.RingsimError) as ctx:
                ringsim.Machine(**{field: value})
            self.assertTrue(str(ctx.exception).endswith("must be in " + rng), (str(ctx.exception), rng))

    def test_host_call_costs_the_steps_as_the_command(self):
        # --host-call 0 removes the preset's host time per call: the same step time as the command's
        p = ringsim.Problem(seq_tokens="1K", n_ranks=8, layout="zigzag", pass_="forward")
        steps = []
        for h in (None, 0):
            cf = ringsim.closed_form(p, ringsim.Machine(impl="flash-attn", host_call=h))
            out = cli("model", "--impl", "flash-attn", *(("--host-call", h) if h is not None else ()), "-S", "1K", "-N", 8,
                      "-L", "zigzag", "-P", "forward", "--csv", "-")
            rows = [r for r in csv.DictReader(l for l in out.splitlines() if not l.startswith("#"))]
            self.assertEqual(float(rows[0]["t_step_s"]), cf.t_step_s)
            steps.append(cf.t_step_s)
        self.assertGreater(steps[0], 5 * steps[1])  # B = 64: the preset's host calls pace the step
        self.assertIn("launch", ringsim.rates())  # every rate the library has, its count from the library

    def test_plan_is_estimated_before_it_runs(self):
        code, _out, err = cli("plan", "-m", "llama3-8b", "--ranks", 1 << 20, "-S", "1G", ok=False)
        self.assertEqual(code, 2)
        with self.assertRaises(ringsim.RingsimError) as ctx:  # at once, from the estimate: not after minutes of walks
            ringsim.plan("llama3-8b", seq_tokens="1G", n_ranks=1 << 20)
        self.assertIn("this plan: an estimated", str(ctx.exception))
        self.assertEqual(str(ctx.exception), err.strip().split(": ", 1)[1])
        with self.assertRaises(ringsim.RingsimError) as ctx:
            ringsim.plan("llama3-8b", seq_tokens="4M", n_ranks=16384, alternatives=False, max_time=1)
        self.assertIn("(above --max-time 1 s: give --max-time to allow more)", str(ctx.exception))

    def test_types_are_checked(self):
        for kw in (dict(flops=[1]), dict(bw={}), dict(seed=1.5)):
            with self.assertRaises(ringsim.RingsimError):
                ringsim.Machine(**kw)
        with self.assertRaises(ringsim.RingsimError):
            ringsim.Problem(n_ranks=True)
        with self.assertRaises(ringsim.RingsimError):
            ringsim.Problem(layout=7)


class TestLocale(unittest.TestCase):
    """The library reads and prints numbers with '.' whatever locale.setlocale the caller chose."""

    def test_comma_locale(self):
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ)
            if subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", os.path.join(d, "de_DE.UTF-8")],
                              capture_output=True).returncode != 0:
                self.skipTest("no de_DE locale source (localedef)")
            env["LOCPATH"] = d
            code = ("import locale, ringsim\n"
                    "locale.setlocale(locale.LC_ALL, 'de_DE.UTF-8')\n"
                    "assert locale.localeconv()['decimal_point'] == ','\n"
                    "c = ringsim.closed_form(ringsim.Problem(seq_tokens='64K'), ringsim.Machine(flops='4.5e11', overlap=0.5))\n"
                    "p = ringsim.plan('llama3-8b', seq_tokens='128K')\n"
                    "print(repr(c.t_comp_s), repr(p.usable_bytes), repr(p.sp))\n")
            got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
            self.assertEqual(got.returncode, 0, got.stderr)
            c = ringsim.closed_form(ringsim.Problem(seq_tokens="64K"), ringsim.Machine(flops="4.5e11", overlap=0.5))
            p = ringsim.plan("llama3-8b", seq_tokens="128K")
            self.assertEqual(got.stdout.split(), [repr(c.t_comp_s), repr(p.usable_bytes), repr(p.sp)])


if __name__ == "__main__":
    unittest.main()
