#!/usr/bin/env python3
"""bench/published/validate.py - ringsim against public GPU measurements (bench/published/README.md).

Runs the built ringsim on every case of bench/published/*.csv, computing each prediction as its source
defines the quantity, and writes RESULTS (default OUT/results.csv: case,source,quantity,unit,published,
predicted,predicted_low,predicted_high,error,role). Modes:

  validate.py [--ringsim BIN] [--out DIR]      run every case, write DIR/results.csv, print the summary
  validate.py --check                          also compare each case with bench/published/baseline.csv:
                                               exit 1 naming every case whose |log(predicted/published)|
                                               grew by more than --tolerance (a case may get better)
  validate.py --update-baseline                write bench/published/baseline.csv from this run
  validate.py --markdown summary|cases|rfa     print a Markdown table (docs/validation.md's blocks;
                                               --from RESULTS reads a previous run instead of running)
  validate.py --figure FILE                    draw predicted against published (ringsim plot validation,
                                               else gnuplot with bench/published/validation.gp)
  validate.py --docs                           all of it for docs/: results, docs/validation.svg, and
                                               scripts/docs-update docs/validation.md

Only the standard library; ringsim is run as a user would type it (model, plan, plan --inference).
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
BASELINE = os.path.join(HERE, "baseline.csv")
FIELDS = ["case", "source", "quantity", "unit", "published", "predicted", "predicted_low", "predicted_high",
          "error", "role"]
# Source files, in the order the page lists them, and the short name each case carries (the figure's marker).
SOURCES = [
    ("flash-attention-2.csv", "fa2-paper"),
    ("flash-attention-3.csv", "fa3-paper"),
    ("cudnn-frontend.csv", "cudnn-frontend"),
    ("ring-flash-attention.csv", "ring-flash-attn"),
    ("long-context-attention.csv", "usp-readme"),
    ("cp-inference.csv", "meta-cp-infer"),
    ("ring-attention-maxctx.csv", "ring-attn-maxctx"),
]
WITHIN = 0.10          # "within 10%": |predicted / published - 1| <= 0.10
FAR = 1.5              # "off by more than 1.5x": max(ratio, 1 / ratio) > 1.5
COMMAND_TIMEOUT_S = 120  # one ringsim command (each takes well under a second)


class CaseError(Exception):
    pass


def read_cases(name):
    """The rows of a source CSV ('#' lines are its header comments)."""
    with open(os.path.join(HERE, name), newline="") as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    return list(csv.DictReader(lines))


def tokens(n):
    """An integer token count as ringsim takes it (K = 1024 where it divides)."""
    n = int(n)
    return "%dK" % (n // 1024) if n % 1024 == 0 and n >= 1024 else str(n)


class Ringsim:
    """Runs ringsim commands once each (a command shared by several cases runs once), in parallel."""

    def __init__(self, binary, scratch):
        self.binary, self.scratch, self.out = binary, scratch, {}

    def run_all(self, argvs, jobs):
        todo = sorted({tuple(a) for a in argvs} - set(self.out))

        def one(argv):
            try:
                p = subprocess.run([self.binary] + list(argv), cwd=self.scratch, capture_output=True, text=True,
                                   timeout=COMMAND_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                return argv, -1, "", "did not finish in %d s" % COMMAND_TIMEOUT_S
            return argv, p.returncode, p.stdout, p.stderr

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            for argv, rc, out, err in ex.map(one, todo):
                self.out[argv] = (rc, out, err)

    def get(self, argv):
        rc, out, err = self.out[tuple(argv)]
        if rc != 0:
            lines = [ln for ln in err.splitlines() if ln.strip()]
            raise CaseError("ringsim %s: exit %d: %s" % (" ".join(argv), rc, lines[-1] if lines else ""))
        return out

    def json_entries(self, argv):
        return json.loads(self.get(argv))["entries"]

    def csv_rows(self, argv):
        return list(csv.DictReader([ln for ln in self.get(argv).splitlines() if not ln.startswith("#")]))


def value(row, field):
    """(value, low, high) of a field; low/high from FIELD_low / FIELD_high where ringsim gives a range."""
    def num(k):
        v = row.get(k)
        return None if v in (None, "", "nan") else float(v)
    v = num(field)
    if v is None or not math.isfinite(v):
        raise CaseError("ringsim gave no %s" % field)
    return v, num(field + "_low"), num(field + "_high")


def combine(parts, f):
    """f over the values of parts (each (value, low, high)). Where every part has a range, the result's is
    the least and greatest f over the corners of the parts' ranges (exact for an f monotone in each part,
    increasing in some and decreasing in others: a rate over a time, a ratio of two times)."""
    v = f(*[p[0] for p in parts])
    if not all(p[1] is not None and p[2] is not None for p in parts):
        return v, None, None
    corners = [f(*[p[1 + ((i >> j) & 1)] for j, p in enumerate(parts)]) for i in range(1 << len(parts))]
    return v, min(corners), max(corners)


# ---- single attention calls: the kernel model's time of one call (local_calls_s of a one-rank problem) -------------

def profile_json(device):
    with open(os.path.join(SRC, "profiles", "devices", device + ".json")) as f:
        return json.load(f)


def curve_point_role(device, kernel, pass_, mask, head_dim, dtype, seqlen, published_tflops, cite):
    """'input' when the device profile's curve for this call cites the case's source (cite: a string its
    source names, e.g. the arXiv number) and holds this very point: the case checks the curve's round trip.
    Else 'held-out'."""
    for k in profile_json(device).get("kernels", {}).get("list", []):
        if k["name"] != kernel:
            continue
        for c in k["curves"]:
            if (c["head_dim"] == head_dim and c["pass"] == pass_ and c["mask"] == mask and dtype in c["dtype"]
                    and cite in c.get("source", "")):
                for q, kv, rate in c["points"]:
                    if q == kv == seqlen and abs(rate / 1e12 - published_tflops) < 0.5:
                        return "input"
    return "held-out"


IMPL_OF_KERNEL = {"flash-attn-2": "flash-attn", "flash-attn-3": "flash-attn", "cudnn": "te"}


def has_kernel(device, kernel):
    """The profile runs the kernel: one of its own list, or of the preset its kernels come from ("from")."""
    kernels = profile_json(device).get("kernels", {})
    return any(k["name"] == kernel for k in kernels.get("list", [])) or \
        ("from" in kernels and has_kernel(kernels["from"], kernel))


def call_argv(device, kernel, seqlen, batch, heads, kv_heads, head_dim, causal, dtype):
    """One call of the kernel at its curves; on a profile without that kernel, the dense model (--impl none),
    as ringsim offers it there."""
    impl = ["--impl", IMPL_OF_KERNEL.get(kernel, "flash-attn"), "--kernel", kernel] if has_kernel(device, kernel) \
        else ["--impl", "none"]
    return ["model", "-N", "1", "-S", tokens(seqlen), "--batch", str(batch), "--heads", str(heads),
            "--kv-heads", str(kv_heads), "--head-dim", str(head_dim), "--dtype", dtype,
            "--causal" if causal else "--no-causal", "-L", "contiguous", "-P", "both", "-p", device] + impl + [
            "--json", "-", "-q"]


def call_times(rs, argv):
    """{'forward': (t, lo, hi), 'backward': ...}: the predicted time of the one call each pass makes."""
    return {e["pass"]: value(e, "local_calls_s") for e in rs.json_entries(argv)}


def fa_flops(row, causal):
    """The FlashAttention benchmarks' forward count: 4 batch seqlen^2 heads d, halved when causal."""
    f = 4.0 * int(row["batch"]) * int(row["seqlen"]) ** 2 * int(row["heads"]) * int(row["head_dim"])
    return f / 2 if causal else f


def kernel_cases(name, source, cite, dtype, passes_of, flops_of=None):
    """Single-call cases: TFLOP/s = the source's FLOP count (flops_of(row, pass); FlashAttention's by default)
    over the predicted time of the call(s)."""
    rows = read_cases(name)
    plans = []
    for r in rows:
        causal = r["mask"] == "causal"
        argv = call_argv(r["device"], r["kernel"], r["seqlen"], r["batch"], r["heads"], r.get("kv_heads", r["heads"]),
                         r["head_dim"], causal, dtype)
        plans.append((r, argv))

    def finish(rs):
        out = []
        for r, argv in plans:
            causal = r["mask"] == "causal"
            passes = passes_of(r)
            if flops_of:
                flops = flops_of(r, passes)
            else:
                flops = {"forward": 1.0, "backward": 2.5, "both": 3.5}[passes] * fa_flops(r, causal)

            def predict():
                t = call_times(rs, argv)
                parts = [t["forward"], t["backward"]] if passes == "both" else [t[passes]]
                return combine(parts, lambda *ts: flops / sum(ts) / 1e12)
            role = "held-out"
            if passes != "both":
                role = curve_point_role(r["device"], r["kernel"], passes, r["mask"], int(r["head_dim"]), dtype,
                                        int(r["seqlen"]), float(r["published"]), cite)
            q = "%s %s %s d%s" % (r["kernel"], passes if passes != "both" else "fwd+bwd", r["mask"], r["head_dim"])
            if not has_kernel(r["device"], r["kernel"]):
                q += " (dense model: the profile has no %s curve)" % r["kernel"]
            out.append(result(r, source, q, predict, role))
        return out
    return [a for _, a in plans], finish


def result(row, source, quantity, predict, role):
    res = {"case": row["case"], "source": source, "quantity": quantity, "unit": row["unit"],
           "published": float(row["published"]), "role": role, "predicted": None, "predicted_low": None,
           "predicted_high": None, "failure": None}
    try:
        v, lo, hi = predict()
        res.update(predicted=v, predicted_low=lo, predicted_high=hi)
    except CaseError as e:
        res["failure"] = str(e)
    return res


def fa2_paper():
    return kernel_cases("flash-attention-2.csv", "fa2-paper", "2307.08691", "fp16", lambda r: "both")


def fa3_paper():
    return kernel_cases("flash-attention-3.csv", "fa3-paper", "2407.08608", "bf16", lambda r: r["pass"])


def cudnn_flops(r, passes):
    """cudnn-frontend's count: 2 batch heads pairs (d_qk + d_vo), x 5/2 backward; pairs S(S+1)/2 causal."""
    s = int(r["seqlen"])
    pairs = s * (s + 1) // 2 if r["mask"] == "causal" else s * s
    f = 2.0 * int(r["batch"]) * int(r["heads"]) * pairs * 2 * int(r["head_dim"])
    return f * 2.5 if passes == "backward" else f


def cudnn_frontend():
    return kernel_cases("cudnn-frontend.csv", "cudnn-frontend", "cudnn-frontend", "bf16", lambda r: r["pass"],
                        cudnn_flops)


# ---- ring-flash-attention's README: the local call's rate and the ring's efficiency ---------------------------

RFA_LOCAL_TOKENS, RFA_RANKS = 8192, 8


def rfa_local_argv(device):
    return call_argv(device, "flash-attn-2", RFA_LOCAL_TOKENS, 1, 32, 8, 128, True, "bf16")


def rfa_ring_argv(device):
    return ["model", "-p", device, "--impl", "flash-attn", "-S", tokens(RFA_LOCAL_TOKENS * RFA_RANKS), "-N",
            str(RFA_RANKS), "--heads", "32", "--kv-heads", "8", "--head-dim", "128", "--layout", "all", "--pass",
            "both", "--json", "-", "-q"]


def rfa_local_role(device, passes):
    """'input' when the device's profile (or the one it takes its kernels from) rates one of the local call's
    passes - flash-attn-2, head_dim 128, causal, 8K x 8K - at a point its source says was read off
    ring-flash-attention's own table: the case then checks that point's round trip. Else 'held-out'."""
    prof = profile_json(device)
    while "list" not in prof.get("kernels", {}) and "from" in prof.get("kernels", {}):
        prof = profile_json(prof["kernels"]["from"])
    for k in prof.get("kernels", {}).get("list", []):
        if k["name"] != "flash-attn-2":
            continue
        for c in k["curves"]:
            if (c["head_dim"] == 128 and c["mask"] == "causal" and c["pass"] in passes
                    and "ring-flash-attention" in c.get("source", "")
                    and any(pt[0] == pt[1] == RFA_LOCAL_TOKENS for pt in c["points"])):
                return "input"
    return "held-out"


def ring_flash_attention():
    rows = read_cases("ring-flash-attention.csv")
    argvs = []
    for r in rows:
        argvs.append(rfa_local_argv(r["device"]))
        if r["quantity"] == "efficiency":
            argvs.append(rfa_ring_argv(r["device"]))

    def finish(rs):
        out = []
        for r in rows:
            passes = ["forward", "backward"] if r["pass"] == "both" else ["forward"]

            def local_s():
                t = call_times(rs, rfa_local_argv(r["device"]))
                return [t[p] for p in passes]

            if r["quantity"] == "local_rate":
                def predict():
                    return combine(local_s(), lambda *ts: 1.0 / sum(ts))
                q = "flash_attn_kvpacked_func on 8K local tokens, %s" % ("fwd+bwd" if len(passes) == 2 else "fwd")
            else:
                def predict():
                    mk = {(e["layout"], e["pass"]): value(e, "makespan_s") for e in rs.json_entries(rfa_ring_argv(
                        r["device"]))}
                    parts = local_s() + [mk[(r["layout"], p)] for p in passes]
                    n = len(passes)
                    # the README's efficiency: ring iter/s over (local iter/s / 8) = 8 t_local / t_ring
                    return combine(parts, lambda *x: RFA_RANKS * sum(x[:n]) / sum(x[n:]))
                q = "ring/local speed ratio (the README's efficiency) %s %s" % (r["layout"],
                                                                                "fwd+bwd" if len(passes) == 2 else "fwd")
            role = rfa_local_role(r["device"], passes) if r["quantity"] == "local_rate" else "held-out"
            out.append(result(r, "ring-flash-attn", q, predict, role))
        return out
    return argvs, finish


# ---- long-context-attention (USP): Ulysses x ring forward on one node --------------------------------------

def usp_model_file(scratch, r):
    """An attention-only transformer for the planner: batch 2 of H heads is costed as batch 1 of 2H heads (the
    same FLOPs, bytes and CTAs: the planner runs one sequence per micro-batch)."""
    b, h, g, d = int(r["batch"]), int(r["heads"]), int(r["group_num"]), int(r["head_dim"])
    name = "usp-b%d-h%d-g%d-d%d" % (b, h, g, d)
    path = os.path.join(scratch, name + ".json")
    if not os.path.exists(path):
        t = {"name": name, "layers": 1, "hidden": h * d, "q_heads": b * h, "kv_heads": b * h // g, "head_dim": d,
             "ffn": 4 * h * d, "ffn_kind": "swiglu", "vocab": 32000}
        with open(path, "w") as f:
            json.dump({"transformer": t, "source": "bench/published/long-context-attention.csv's attention shape"}, f)
    return path


def usp_argv(scratch, r):
    return ["plan", "-m", usp_model_file(scratch, r), "-S", tokens(r["seqlen"]), "-N", r["ranks"], "-p", r["device"],
            "-L", r["layout"], "--csv", "-", "-q"]


def long_context_attention(scratch):
    rows = read_cases("long-context-attention.csv")

    def finish(rs):
        out = []
        for r in rows:
            def predict():
                for o in rs.csv_rows(usp_argv(scratch, r)):
                    if int(o["ulysses"]) == int(r["ulysses"]):
                        return combine([value(o, "attn_fwd_s"), value(o, "a2a_fwd_s")], lambda a, b: 1.0 / (a + b))
                raise CaseError("the planner has no split with Ulysses degree %s" % r["ulysses"])
            q = "USP forward U=%s x R=%d %s" % (r["ulysses"], int(r["ranks"]) // int(r["ulysses"]), r["layout"])
            out.append(result(r, "usp-readme", q, predict, "held-out"))
        return out
    return [usp_argv(scratch, r) for r in rows], finish


# ---- Meta's context-parallel inference: TTFT of a full prefill --------------------------------------------

CP_QUANTITY = {"ttft_pass_kv_s": "TTFT pass-KV", "ttft_pass_q_s": "TTFT pass-Q", "decode_step_s": "TTIT decode"}


def cp_argv(r):
    a = ["plan", "--inference", "-m", r["model"], "--linear-dtype", r["linear_dtype"], "-p", r["device"], "--nodes",
         r["nodes"], "-S", tokens(r["new_tokens"]), "--csv", "-", "-q"]
    if int(r["cached_tokens"]):
        a += ["--cached", tokens(r["cached_tokens"])]
    if r["quantity"] == "decode_step_s":
        a += ["--decode-batch", "1"]
    return a


def cp_inference():
    rows = read_cases("cp-inference.csv")

    def finish(rs):
        out = []
        for r in rows:
            def predict(r=r):
                return value(rs.csv_rows(cp_argv(r))[0], r["quantity"])
            what = CP_QUANTITY[r["quantity"]]
            if r["quantity"] == "decode_step_s":
                what += " at %s cached" % tokens(r["cached_tokens"])
            elif int(r["cached_tokens"]):
                what += " T=%s P=%s" % (tokens(r["new_tokens"]), tokens(r["cached_tokens"]))
            out.append(result(r, "meta-cp-infer", "%s %s nodes" % (what, r["nodes"]), predict, "held-out"))
        return out
    return [cp_argv(r) for r in rows], finish


# ---- the Ring Attention paper's longest context ------------------------------------------------------------

def pow2_floor(x):
    """The largest power of two at or below x (0 below 1)."""
    return float(1 << (int(x).bit_length() - 1)) if x >= 1 else 0.0


def maxctx_argv(r):
    m = int(r["sequences"])
    return ["plan", "-m", r["model"], "-S", "max", "-N", str(int(r["devices"]) // m), "--global-batch", str(m),
            "-p", r["device"], "--precision", r["precision"], "--ckpt", "full", "--no-alternatives", "--csv", "-",
            "-q"]


def ring_attention_maxctx():
    rows = read_cases("ring-attention-maxctx.csv")

    def finish(rs):
        out = []
        for r in rows:
            longest = []

            def predict():
                # Table 3 reports the longest power-of-two context that ran (every entry is 2^k x 1024 tokens):
                # the prediction is the largest power of two at or below ringsim's longest context.
                s = value(rs.csv_rows(maxctx_argv(r))[0], "seq_tokens")
                longest.append(s[0])
                return combine([s], pow2_floor)
            res = result(r, "ring-attn-maxctx", "", predict, "held-out")
            res["quantity"] = "longest power-of-two context, %s on %s x %s%s" % (
                r["model"], r["devices"], r["device"], " (ringsim's longest: %d)" % longest[0] if longest else "")
            out.append(res)
        return out
    return [maxctx_argv(r) for r in rows], finish


# ---- running, errors, summary ---------------------------------------------------------------------------------

def run_cases(binary, jobs):
    with tempfile.TemporaryDirectory(prefix="ringsim-validate.") as scratch:
        rs = Ringsim(binary, scratch)
        makers = [fa2_paper(), fa3_paper(), cudnn_frontend(), ring_flash_attention(), long_context_attention(scratch), cp_inference(),
                  ring_attention_maxctx()]
        rs.run_all([a for argvs, _ in makers for a in argvs], jobs)
        results = []
        for _, finish in makers:
            results += finish(rs)
    for r in results:
        p = r["predicted"]
        r["error"] = p / r["published"] - 1 if p is not None and p > 0 else None
    return results


def fmt(v):
    return "" if v is None else "%.10g" % v


def text(s):
    """A text field of the results CSV: no commas (simple CSV readers, gnuplot, split them)."""
    return s.replace(",", ";")


def write_results(path, results):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(FIELDS)
        for r in results:
            w.writerow([text(r["case"]), text(r["source"]), text(r["quantity"]), text(r["unit"]), fmt(r["published"]),
                        fmt(r["predicted"]), fmt(r["predicted_low"]), fmt(r["predicted_high"]), fmt(r["error"]),
                        text(r["role"])])
    os.replace(tmp, path)


def read_results(path):
    out = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            r = dict(row)
            for k in ("published", "predicted", "predicted_low", "predicted_high", "error"):
                r[k] = float(r[k]) if r[k] not in ("", None) else None
            r["failure"] = None if r["predicted"] is not None else "no prediction"
            out.append(r)
    return out


def log_err(r):
    return abs(math.log(r["predicted"] / r["published"])) if r["predicted"] else None


def ratio_far(r):
    x = r["predicted"] / r["published"]
    return max(x, 1 / x)


def stats(rs):
    ok = [r for r in rs if r["predicted"]]
    within = [r for r in ok if abs(r["error"]) <= WITHIN]
    far = [r for r in ok if ratio_far(r) > FAR]
    worst = max(ok, key=log_err) if ok else None
    errs = sorted(abs(r["error"]) for r in ok)
    n = len(errs)
    median = (errs[n // 2] if n % 2 else (errs[n // 2 - 1] + errs[n // 2]) / 2) if n else None
    return {"n": len(rs), "failed": len(rs) - len(ok), "within": len(within), "far": len(far), "worst": worst,
            "median": median}


def rfa_points(results):
    """ring-flash-attention's efficiencies: model - published in points, by device."""
    by = {}
    for r in results:
        if r["source"] == "ring-flash-attn" and r["unit"] == "ratio" and r["predicted"] is not None:
            dev = r["case"].split("-")[1]
            by.setdefault(dev, []).append(100 * (r["predicted"] - r["published"]))
    return by


def summary_line(results):
    s, ind = stats(results), stats([r for r in results if r["role"] != "input"])
    w = s["worst"]
    txt = "validation: %d cases (%d held out), %d within 10%% (%d of the held out), %d off by more than %.1fx" % (
        s["n"], ind["n"], s["within"], ind["within"], s["far"], FAR)
    if w:
        txt += ", worst %s (predicted/published %.3g)" % (w["case"], w["predicted"] / w["published"])
    for dev, pts in sorted(rfa_points(results).items()):
        txt += "; ring-flash-attn %s 'efficiency' off by up to %.1f points" % (dev.upper(), max(abs(p) for p in pts))
    if s["failed"]:
        txt += "; %d without a prediction" % s["failed"]
    return txt


# ---- Markdown (docs/validation.md's generated blocks) -----------------------------------------------------

def md_num(v):
    return "-" if v is None else "%.4g" % v


def md_summary(results):
    lines = ["| source | cases | held out | no prediction | within 10% | off by > 1.5x | median \\|error\\| | worst case (predicted / published) |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    groups = [(src, [r for r in results if r["source"] == src]) for _, src in SOURCES] + [("**all**", results)]
    for src, rs in groups:
        if not rs:
            continue
        s = stats(rs)
        ind = sum(1 for r in rs if r["role"] != "input")
        w = s["worst"]
        worst = "%s (%.3g)" % (w["case"], w["predicted"] / w["published"]) if w else "-"
        lines.append("| %s | %d | %d | %d | %d | %d | %s | %s |" % (src, s["n"], ind, s["failed"], s["within"], s["far"],
                                                             "%.1f%%" % (100 * s["median"]) if s["median"] is not None
                                                             else "-", worst))
    ind = [r for r in results if r["role"] != "input"]
    s = stats(ind)
    lines.append("| **held out only** | %d | %d | %d | %d | %d | %s | %s |" % (
        s["n"], s["n"], s["failed"], s["within"], s["far"], "%.1f%%" % (100 * s["median"]) if s["median"] is not None else "-",
        "%s (%.3g)" % (s["worst"]["case"], s["worst"]["predicted"] / s["worst"]["published"]) if s["worst"] else "-"))
    return lines


def md_cases(results):
    lines = ["| case | source | quantity | published | predicted | error | range |", "|---|---|---|---:|---:|---:|---|"]
    for r in results:
        rng = "-"
        if r["predicted_low"] is not None and r["predicted_high"] is not None:
            rng = "%s - %s" % (md_num(r["predicted_low"]), md_num(r["predicted_high"]))
        err = "%+.1f%%" % (100 * r["error"]) if r["error"] is not None else "no prediction"
        mark = " (input)" if r["role"] == "input" else ""
        lines.append("| %s%s | %s | %s | %s %s | %s | %s | %s |" % (
            r["case"], mark, r["source"], r["quantity"], md_num(r["published"]), r["unit"], md_num(r["predicted"]), err,
            rng))
    return lines


def md_rfa(results):
    rows = {r["case"]: r for r in results if r["source"] == "ring-flash-attn" and r["unit"] == "ratio"}
    lines = ["| node | layout | published fwd | model fwd | published fwd+bwd | model fwd+bwd | model - published (points) |",
             "|---|---|---:|---:|---:|---:|---|"]
    names = {"ring": "contiguous (ring_attn)", "zigzag": "zigzag (zigzag_ring)", "stripe": "striped (stripe_attn)"}
    for dev in ("h800", "a100"):
        for lay in ("ring", "zigzag", "stripe"):
            f, b = rows.get("rfa-%s-%s-fwd" % (dev, lay)), rows.get("rfa-%s-%s-fwdbwd" % (dev, lay))
            if not f or not b:
                continue

            def pct(v):
                return "%.1f%%" % (100 * v) if v is not None else "-"

            def diff(r):
                return "%+.1f" % (100 * (r["predicted"] - r["published"])) if r["predicted"] is not None else "-"
            lines.append("| 8 x %s | %s | %s | %s | %s | %s | %s / %s |" % (
                dev.upper(), names[lay], pct(f["published"]), pct(f["predicted"]), pct(b["published"]),
                pct(b["predicted"]), diff(f), diff(b)))
    return lines


# ---- baseline ------------------------------------------------------------------------------------------------

def read_baseline(path):
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        rows = csv.DictReader(ln for ln in f if not ln.startswith("#"))
        return {r["case"]: None if r["abs_log_error"] == "none" else float(r["abs_log_error"]) for r in rows}


def write_baseline(path, results):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        f.write("# Each case's |ln(predicted / published)| when it was last locked in (validate.py --update-baseline;\n"
                "# 'none': ringsim gave no prediction then). CTest validation_published fails when a case's error\n"
                "# grows past it by more than the tolerance, or a case that had a prediction has none.\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["case", "abs_log_error"])
        for r in results:
            w.writerow([r["case"], "%.6f" % log_err(r) if r["predicted"] else "none"])
    os.replace(tmp, path)


def check_baseline(results, path, tol):
    base = read_baseline(path)
    worse, better, new = [], [], []
    for r in results:
        if r["case"] not in base:
            new.append(r["case"])
            continue
        b = base[r["case"]]
        if not r["predicted"]:
            if b is not None:
                worse.append("%s: no prediction (%s)" % (r["case"], r["failure"]))
            continue
        if b is None:
            better.append(r["case"])
            continue
        e = log_err(r)
        if e > b + tol:
            worse.append("%s: |ln(predicted/published)| %.3f, was %.3f (predicted %.4g, published %.4g %s)" % (
                r["case"], e, b, r["predicted"], r["published"], r["unit"]))
        elif e < b - tol:
            better.append(r["case"])
    gone = sorted(set(base) - {r["case"] for r in results})
    worse += ["%s: in the baseline but no longer a case" % c for c in gone]
    return worse, better, new


# ---- figure --------------------------------------------------------------------------------------------------

def draw(binary, results_csv, figure):
    if os.access(binary, os.X_OK):
        p = subprocess.run([binary, "plot", "validation", results_csv, "-o", figure], capture_output=True, text=True)
        if p.returncode == 0:
            return "ringsim plot validation"
        msg = (p.stderr.strip().splitlines() or ["?"])[-1]
    else:
        msg = "no ringsim at %s" % binary
    ext = os.path.splitext(figure)[1].lstrip(".")
    term = {"svg": "svg size 900,700 dynamic", "png": "pngcairo size 900,700", "pdf": "pdfcairo size 9in,7in"}.get(ext)
    if term is None:
        raise SystemExit("validate.py: --figure %s: expected .svg, .png or .pdf" % figure)
    srcs = " ".join(s for _, s in SOURCES)
    g = subprocess.run(["gnuplot", "-e", "data='%s'; out='%s'; term='%s'; sources='%s'" % (results_csv, figure, term, srcs),
                        os.path.join(HERE, "validation.gp")], capture_output=True, text=True)
    if g.returncode != 0:
        raise SystemExit("validate.py: gnuplot failed: %s" % g.stderr.strip())
    return "gnuplot bench/published/validation.gp (ringsim plot has no 'validation' kind here: %s)" % msg


# ---- main ----------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ringsim", default=os.environ.get("RINGSIM", os.path.join(SRC, "build", "bin", "ringsim")))
    ap.add_argument("--out", default=None, help="directory of results.csv [build/validation under the tree]")
    ap.add_argument("--results", default=None, help="the results CSV to write [OUT/results.csv]")
    ap.add_argument("--from", dest="from_", default=None, help="read a previous run's results CSV instead of running")
    ap.add_argument("--check", action="store_true", help="compare with bench/published/baseline.csv")
    ap.add_argument("--tolerance", type=float, default=0.01, help="allowed growth of |ln(pred/pub)| [0.01]")
    ap.add_argument("--update-baseline", action="store_true")
    ap.add_argument("--baseline", default=BASELINE, help="the baseline CSV [bench/published/baseline.csv]")
    ap.add_argument("--markdown", choices=["summary", "cases", "rfa"])
    ap.add_argument("--figure", default=None)
    ap.add_argument("--docs", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args()

    if a.from_:
        results = read_results(a.from_)
        results_csv = a.from_
    else:
        if not os.access(a.ringsim, os.X_OK):
            raise SystemExit("validate.py: --ringsim %s: no executable there (build ringsim first)" % a.ringsim)
        results = run_cases(os.path.abspath(a.ringsim), max(1, a.jobs))
        results_csv = a.results or os.path.join(a.out or os.path.join(SRC, "build", "validation"), "results.csv")
        os.makedirs(os.path.dirname(os.path.abspath(results_csv)), exist_ok=True)
        write_results(results_csv, results)

    if a.markdown:
        print("\n".join({"summary": md_summary, "cases": md_cases, "rfa": md_rfa}[a.markdown](results)))
        return 0
    failures = [r for r in results if r["failure"]]
    if not a.quiet:
        print(summary_line(results))
        for r in failures:
            print("validate.py: %s: %s" % (r["case"], r["failure"]))
        print("results: %s" % results_csv)
    rc = 0
    if a.check:
        worse, better, new = check_baseline(results, a.baseline, a.tolerance)
        for w in worse:
            print("worse than the baseline: %s" % w)
        if better:
            print("better than the baseline (lock them in with --update-baseline): %s" % ", ".join(better))
        if new:
            print("not in the baseline yet (add them with --update-baseline): %s" % ", ".join(new))
        rc = 1 if worse else 0
    if a.update_baseline:
        write_baseline(a.baseline, results)
        print("baseline: %s" % a.baseline)
    figure = a.figure or (os.path.join(SRC, "docs", "validation.svg") if a.docs else None)
    if figure:
        how = draw(os.path.abspath(a.ringsim), results_csv, figure)
        print("figure: %s (%s)" % (figure, how))
    if a.docs:
        p = subprocess.run(["bash", os.path.join(SRC, "scripts", "docs-update"), "--ringsim", os.path.abspath(a.ringsim),
                            os.path.join(SRC, "docs", "validation.md")])
        rc = rc or p.returncode
    return rc


if __name__ == "__main__":
    sys.exit(main())
