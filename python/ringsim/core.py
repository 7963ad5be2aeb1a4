"""The problem, the machine, the closed form and the critical-path walk (libringsim's model/4-cost,
through studies/setup.h: the same path as `ringsim model`)."""
import ctypes
import warnings

from . import _arrays
from ._lib import (S, Err, P, Record, RingsimError, _layout, c_int, c_size_t, check, cstr, dtype_of, event_kind_name,
                   fn, layout_of, field_range, layout_name, machine_range, pass_of, pass_name, real, record, size)

_setup_default = fn("rs_setup_default", None, P(S["rs_setup_t"]))
_setup_dtype = fn("rs_setup_dtype", None, P(S["rs_setup_t"]), ctypes.c_uint32)
_setup_finish = fn("rs_setup_finish", c_int, P(S["rs_setup_t"]), P(Err))
_binding_problem = fn("rs_binding_problem", None, P(S["rs_setup_t"]), c_int, c_int, P(S["rs_problem_t"]))
_binding_closed = fn("rs_binding_closed", c_int, P(S["rs_setup_t"]), c_int, c_int, P(S["rs_closed_t"]), P(Err))
_binding_walk_events = fn("rs_binding_walk_events", c_size_t, P(S["rs_setup_t"]), c_int, c_int)
_binding_walk = fn("rs_binding_walk", c_int, P(S["rs_setup_t"]), P(S["rs_binding_walk_in_t"]), P(S["rs_event_t"]),
                   P(c_size_t), P(S["rs_walk_t"]), P(Err))
_binding_rate = fn("rs_binding_rate", c_int, P(S["rs_setup_t"]), c_int, P(S["rs_rate_source_t"]), P(ctypes.c_bool), P(Err))
_binding_rate_count = fn("rs_binding_rate_count", c_int)
_rate_name = fn("rs_rate_name", ctypes.c_char_p, ctypes.c_uint32)
_rate_kind_name = fn("rs_rate_kind_name", ctypes.c_char_p, ctypes.c_uint32)

_SIZES = ("seq_tokens", "n_ranks", "batch", "q_heads", "kv_heads", "head_dim", "grad_bytes")


class Problem:
    """A Ring Attention problem: rs_problem_t's fields (schedule.h), defaults rs_problem_default's
    (S 128K, N 8, 32/8 heads, d 128, bf16, causal, zigzag, forward, tile 128).

    Sizes take K/M/G suffixes ("128K"); dtype (fp32, tf32, bf16, fp16, fp8) sets the activations'
    bytes and the peak rate used, as --dtype does; tile is T or "TQxTK"; pass_ is the pass."""

    def __init__(self, seq_tokens=None, n_ranks=None, batch=None, q_heads=None, kv_heads=None, head_dim=None,
                 dtype="bf16", grad_bytes=None, causal=True, layout="zigzag", pass_="forward", tile=None):
        given = dict(seq_tokens=seq_tokens, n_ranks=n_ranks, batch=batch, q_heads=q_heads, kv_heads=kv_heads,
                     head_dim=head_dim, grad_bytes=grad_bytes)
        self.sizes = {k: size(k, v, *field_range(k)) for k, v in given.items() if v is not None}
        self.dtype = dtype_of(dtype)
        self.causal = bool(causal)
        self.layout = layout_of(layout)
        self.pass_ = pass_of(pass_)
        self.tile = None
        if tile is not None:
            q, _, k = str(tile).partition("x")
            self.tile = (size("tile", q, *field_range("tile_q")), size("tile", k or q, *field_range("tile_k")))

    def _apply(self, s):
        p = s.problem
        for k, v in self.sizes.items():
            setattr(p, k, v)
        s.grad_bytes_given = "grad_bytes" in self.sizes  # else the preset's dK,dV dtype, as --grad-bytes
        p.causal = self.causal
        if self.tile:
            p.tile_q, p.tile_k = self.tile

    def __repr__(self):
        return "Problem(%s, dtype=%d, causal=%s, layout=%s, pass_=%s)" % (
            ", ".join("%s=%s" % kv for kv in self.sizes.items()), self.dtype, self.causal,
            layout_name(self.layout), pass_name(self.pass_))


class Machine:
    """The machine as asked for: rs_machine_spec_t's fields (machine.h) - a profile (preset name or
    JSON file) and what changes on it; None keeps the profile's value. Rates take SI suffixes
    ("450G"); stragglers and degraded are lists of (rank or hop, factor); impl (ringsim, flash-attn,
    te, none) and kernel as --impl and --kernel; allow_implausible as --allow-implausible (a figure
    above its device's datasheet is a warning, not a RingsimError)."""

    _REALS = ("flops", "bw", "inter_bw", "latency", "launch", "host_call", "overlap", "slowdown", "host_xfer", "host_byte",
              "jitter")

    _IMPLS = ("none", "ringsim", "flash-attn", "te")  # rs_impl_t (kernel_table.h)

    def __init__(self, profile="h100-sxm", inter=None, gpus_per_node=None, flops=None, bw=None, inter_bw=None,
                 latency=None, launch=None, host_call=None, overlap=None, slowdown=None, host_xfer=None, host_byte=None,
                 jitter=None,
                 seed=None, stragglers=(), degraded=(), impl=None, kernel=None, allow_implausible=False):
        # the texts and the numbers checked as the command line checks them: no NUL byte, the option's range
        self.profile = cstr("profile", str(profile) if not isinstance(profile, (str, bytes)) else profile).decode()
        self.inter = None if inter is None else cstr("inter", inter).decode()
        self.allow_implausible = bool(allow_implausible)
        if impl is not None and impl not in self._IMPLS:
            raise RingsimError("impl %s: expected ringsim, flash-attn, te or none" % impl)
        self.impl = impl
        self.kernel = None if kernel is None else cstr("kernel", kernel).decode()
        self.gpus_per_node = None if gpus_per_node is None else size("gpus_per_node", gpus_per_node,
                                                                      *map(int, machine_range("gpus_per_node")))
        self.reals = {}
        for k in self._REALS:
            v = locals()[k]
            if v is not None:
                self.reals[k] = real(k, v, *machine_range(k))
        self.seed = None if seed is None else size("seed", seed)
        factor = machine_range("factor")
        self.stragglers = [(size("stragglers", r), real("stragglers", f, *factor)) for r, f in stragglers]
        self.degraded = [(size("degraded", h), real("degraded", f, *factor)) for h, f in degraded]

    def _apply(self, spec):
        for name, value in (("profile", self.profile), ("inter", self.inter or ""), ("kernel", self.kernel or "")):
            raw = value.encode()
            if len(raw) >= getattr(type(spec), name).size:
                raise RingsimError("%s %s: at most %d characters" % (name, value, getattr(type(spec), name).size - 1))
            setattr(spec, name, raw)
        if self.impl is not None:
            spec.impl = self._IMPLS.index(self.impl)
        if self.gpus_per_node is not None:
            spec.gpus_per_node = self.gpus_per_node
        for k, v in self.reals.items():
            setattr(spec, k, v)
        if self.seed is not None:
            spec.seed = self.seed
        spec.allow_implausible = self.allow_implausible
        q = spec.perturb
        for r, f in self.stragglers:
            q.straggler_rank[q.n_stragglers], q.straggler_factor[q.n_stragglers] = r, f
            q.n_stragglers += 1
        for h, f in self.degraded:
            q.degraded_hop[q.n_degraded], q.degraded_factor[q.n_degraded] = h, f
            q.n_degraded += 1

    def __repr__(self):
        return "Machine(profile=%r%s)" % (self.profile, "".join(", %s=%g" % kv for kv in self.reals.items()))


def setup(problem=None, machine=None):
    """The rs_setup_t of one (layout, pass) entry, finished (profile loaded, machine built, problem
    validated): what `ringsim model` computes on. Raises RingsimError on bad input."""
    problem = problem or Problem()
    machine = machine or Machine()
    s = S["rs_setup_t"]()
    _setup_default(ctypes.byref(s))
    problem._apply(s)
    machine._apply(s.spec)
    _setup_dtype(ctypes.byref(s), problem.dtype)
    s.n_layouts, s.layouts[0] = 1, problem.layout
    s.n_passes, s.passes[0] = 1, problem.pass_
    err = Err()
    check(_setup_finish(ctypes.byref(s), ctypes.byref(err)), err)
    if s.warning:  # figures taken as given with allow_implausible
        warnings.warn("ringsim: " + s.warning.decode(), stacklevel=2)
    return s


def problem_of(problem=None, machine=None):
    """The validated problem as a Record of rs_problem_t's fields (layout and pass by name)."""
    s = setup(problem, machine)
    p = S["rs_problem_t"]()
    _binding_problem(ctypes.byref(s), 0, 0, ctypes.byref(p))
    return record(p, "rs_problem_t")


def _rates_of(s):
    """{rate name: Record(kind, source, used)} of a finished setup (rate_source.h): where each rate the
    machine is costed at comes from - kind measured / published / estimated / user-given, its source,
    and whether the setup's ring uses it."""
    out = {}
    for r in range(_binding_rate_count()):
        src, skipped, err = S["rs_rate_source_t"](), ctypes.c_bool(False), Err()
        check(_binding_rate(ctypes.byref(s), r, ctypes.byref(src), ctypes.byref(skipped), ctypes.byref(err)), err)
        out[_rate_name(r).decode()] = Record(kind=_rate_kind_name(src.kind).decode(), source=src.source.decode(), used=not skipped.value)
    return out


def rates(problem=None, machine=None):
    """Where each rate of the machine comes from: {"attention", "merge_bw", "intra_bw", "inter_bw",
    "latency", "launch"} -> Record(kind, source, used) (the same records `ringsim model` prints)."""
    return _rates_of(setup(problem, machine))


def closed_form(problem=None, machine=None):
    """The closed form (cost.h rs_closed_t): block_tokens, t_comp_s, t_comm_s, t_step_s, makespan_s,
    b_min_tokens, b_star_tokens (NaN when none), comm_bound, ..., and rates (where each rate comes
    from: rates())."""
    s = setup(problem, machine)
    out, err = S["rs_closed_t"](), Err()
    check(_binding_closed(ctypes.byref(s), 0, 0, ctypes.byref(out), ctypes.byref(err)), err)
    c = record(out, "rs_closed_t")
    c["rates"] = _rates_of(s)
    return c


def _event_records(events, n):
    """The first n rs_event_t of a ctypes array: a numpy record array (pass and kind by name) when
    numpy is there, else a list of Records."""
    np = _arrays.np
    if np is None:
        return [record(events[i], "rs_event_t") for i in range(n)]
    codes = {b"i": "<i4", b"I": "<u4", b"d": "<f8", b"q": "<i8", b"Q": "<u8"}
    fields = _layout["rs_event_t"][1]
    raw = np.frombuffer(events, dtype=np.dtype({"names": [f[0] for f in fields], "formats": [codes[f[3]] for f in fields],
                                                "offsets": [f[1] for f in fields],
                                                "itemsize": ctypes.sizeof(S["rs_event_t"])}), count=n)
    out = np.zeros(n, dtype=[("rank", "<i4"), ("step", "<i4"), ("pass", "U8"), ("kind", "U8"), ("peer", "<i4"),
                             ("start_s", "<f8"), ("end_s", "<f8"), ("flops", "<f8"), ("bytes", "<f8")])
    for f in ("rank", "step", "peer", "start_s", "end_s", "flops", "bytes"):
        out[f] = raw[f]
    for f, name_of in (("pass", pass_name), ("kind", event_kind_name)):
        for v in np.unique(raw[f]):
            out[f][raw[f] == v] = name_of(int(v))
    return out


def walk(problem=None, machine=None, events=True):
    """The critical-path walk (cost.h rs_model_walk): its figures (rs_walk_t: makespan_s,
    balance_efficiency, fraction_of_peak, peak_flops_per_s, busy_max_s, ...; the metrics of
    docs/model.md "Metrics", each in [0, 1]) and, with events, per-(rank, step) arrays n_ranks x n_steps -
    compute_start_s, compute_end_s, flops, send_start_s, send_end_s, send_bytes, recv_start_s,
    recv_end_s, recv_bytes, step_start_s, step_end_s (numpy arrays with NaN where a step has no such
    event, or lists with None) - and the events themselves (walk.events)."""
    s = setup(problem, machine)
    out, err, n = S["rs_walk_t"](), Err(), c_size_t(0)
    cap = _binding_walk_events(ctypes.byref(s), 0, 0) if events else 0
    buf = (S["rs_event_t"] * cap)() if events else None
    wi = S["rs_binding_walk_in_t"](layout_i=0, pass_j=0, cap=cap)
    check(_binding_walk(ctypes.byref(s), ctypes.byref(wi), buf, ctypes.byref(n), ctypes.byref(out), ctypes.byref(err)), err)
    w = record(out, "rs_walk_t")
    p = S["rs_problem_t"]()
    _binding_problem(ctypes.byref(s), 0, 0, ctypes.byref(p))
    w["problem"] = record(p, "rs_problem_t")
    w["n_ranks"] = p.n_ranks
    w["n_steps"] = out.rank_steps // p.n_ranks  # the walk visits every (rank, step) once
    w["rates"] = _rates_of(s)
    if events:
        w["events"] = _event_records(buf, n.value)
        w.update(_arrays.event_arrays(w["events"], w["n_ranks"], w["n_steps"]))
    return w
