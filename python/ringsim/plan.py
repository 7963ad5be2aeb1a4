"""Memory per device and capacity planning (libringsim's model/5-plan: the same functions as
`ringsim memory` and `ringsim plan`)."""
import ctypes

from ._lib import (S, Err, P, RingsimError, _layout, c_char_p, c_int, check, ckpt_of, cstr, fn, layout_of,
                   precision_of, real, record, runtime_of, size)

_transformer_load = fn("rs_transformer_load", c_int, c_char_p, P(S["rs_transformer_t"]), P(Err))
_mem_config_default = fn("rs_mem_config_default", None, P(S["rs_mem_config_t"]))
_sp_memory = fn("rs_sp_memory", c_int, P(S["rs_transformer_t"]), P(S["rs_mem_config_t"]), P(S["rs_mem_t"]), P(Err))
_plan_config_default = fn("rs_plan_config_default", None, P(S["rs_plan_config_t"]))
_plan_config_validate = fn("rs_plan_config_validate", c_int, P(S["rs_plan_config_t"]), P(Err))
_plan_candidate = fn("rs_plan_candidate", c_int, P(S["rs_plan_candidate_spec_t"]), ctypes.c_void_p, ctypes.c_void_p, P(Err))
_plan_choose = fn("rs_plan_choose", c_int, P(S["rs_plan_config_t"]), ctypes.c_void_p, ctypes.c_void_p,
                  P(S["rs_plan_result_t"]), P(Err))
_plan_estimate = fn("rs_plan_estimate", None, P(S["rs_plan_config_t"]), ctypes.c_void_p, P(S["rs_plan_result_t"]),
                    P(S["rs_estimate_t"]))
_limits_check = fn("rs_limits_check", c_int, c_char_p, P(S["rs_estimate_t"]), P(S["rs_limits_t"]), P(Err))
_plan_run = fn("rs_plan_run", c_int, P(S["rs_plan_config_t"]), ctypes.c_void_p, ctypes.c_void_p, P(S["rs_plan_result_t"]),
               P(Err))


def transformer(model):
    """A model preset ("llama3-8b") or JSON file as a Record of rs_transformer_t's fields."""
    t, err = S["rs_transformer_t"](), Err()
    check(_transformer_load(cstr("model", model), ctypes.byref(t), ctypes.byref(err)), err)
    return t


def memory(model, seq_tokens="128K", sp_degree=8, ulysses_degree=1, batch=1, shard_devices=None, precision="mixed",
           ckpt="full", chunk_tokens=2048, loss_chunk_tokens=None, tp_degree=1, runtime="pytorch"):
    """Memory per device of training with ring attention (Ulysses/USP with ulysses_degree > 1):
    rs_mem_t's terms in bytes (memory.h, docs/memory.md), the runtime's included (runtime "none": the
    tensors alone). shard_devices defaults to sp_degree and loss_chunk_tokens to chunk_tokens ("none":
    unchunked), as in `ringsim memory`."""
    t = transformer(model)
    c = S["rs_mem_config_t"]()
    _mem_config_default(ctypes.byref(c))
    c.seq_tokens = size("seq_tokens", seq_tokens, 1, 1 << 40)
    c.sp_degree = size("sp_degree", sp_degree, 1, 1 << 24)
    c.ulysses_degree = size("ulysses_degree", ulysses_degree, 1, 1 << 24)
    c.batch = size("batch", batch, 1, 1 << 20)
    c.shard_devices = c.sp_degree if shard_devices is None else size("shard_devices", shard_devices, 1, 1 << 30)
    c.precision = precision_of(precision)
    c.ckpt = ckpt_of(ckpt)
    c.chunk_tokens = size("chunk_tokens", chunk_tokens, 1, 1 << 30)
    c.loss_chunk_tokens = _loss_chunk(loss_chunk_tokens, c.chunk_tokens)
    c.tp_degree = size("tp_degree", tp_degree, 1, 1 << 20)
    c.runtime = runtime_of(runtime)
    out, err = S["rs_mem_t"](), Err()
    check(_sp_memory(ctypes.byref(t), ctypes.byref(c), ctypes.byref(out), ctypes.byref(err)), err)
    m = record(out, "rs_mem_t")
    m["model"] = record(t, "rs_transformer_t")
    return m


def _loss_chunk(loss_chunk_tokens, chunk_tokens):
    if loss_chunk_tokens is None:
        return chunk_tokens
    return 0 if loss_chunk_tokens == "none" else size("loss_chunk_tokens", loss_chunk_tokens, 1, 1 << 30)


def _opaque(field):
    """A buffer of the size of rs_setup_t's field (rs_hw_t hw, rs_machine_t machine), aligned for it."""
    for f, _off, sz, _kind, _sub in _layout["rs_setup_t"][1]:
        if f == field:
            return (ctypes.c_double * ((sz + 7) // 8))()
    raise RingsimError("no field %s in rs_setup_t" % field)


def plan(model, profile="h100-sxm", seq_tokens="128K", global_batch=1, dp=None, n_ranks=None, max_sp=4096,
         precision="mixed", ckpt="full", chunk_tokens=2048, causal=True, layout="zigzag", tile=128, usable_frac=None,
         linear_eff=None, alternatives=True, gpus_per_node=None, inter=None, price=None, impl=None, kernel=None, tp=1,
         dtype="bf16", loss_chunk_tokens=None, runtime="pytorch", attn_eff=None, max_time=None, max_memory=None):
    """The capacity plan on one candidate (plan.h rs_plan_run, as `ringsim plan -p PROFILE`): the
    smallest N that fits (or n_ranks), memory, times per layer and step, MFU, cost; options holds
    Ring, then the Ulysses/USP splits, each with its attention cost (attn); best, why. seq_tokens
    "max": the longest context that fits. impl, kernel: the implementation preset and kernel costing
    attention (--impl, --kernel; None: the profile's); attn_eff: attention at this x peak instead
    (user-given). usable_frac None: the runtime's; linear_eff None: GEMMs by shape and dtype (dtype
    "bf16" or "fp8"). Its walks are estimated first and refused above max_time seconds / max_memory
    bytes (None: the command's defaults, 600 s and half this machine's memory), as `ringsim plan
    --max-time --max-memory` does."""
    c = S["rs_plan_config_t"]()
    _plan_config_default(ctypes.byref(c))
    err = Err()
    check(_transformer_load(cstr("model", model), ctypes.byref(c.model), ctypes.byref(err)), err)
    c.seq_tokens = 0 if seq_tokens == "max" else size("seq_tokens", seq_tokens, 1, 1 << 36)
    c.global_batch = size("global_batch", global_batch, 1, 1 << 24)
    c.dp = 0 if dp is None else size("dp", dp, 1, 1 << 24)
    c.fixed_sp = 0 if n_ranks is None else size("n_ranks", n_ranks, 1, 1 << 20)
    c.max_sp = size("max_sp", max_sp, 1, 1 << 20)
    c.precision = precision_of(precision)
    c.ckpt = ckpt_of(ckpt)
    c.chunk_tokens = size("chunk_tokens", chunk_tokens, 1, 1 << 30)
    c.causal = bool(causal)
    c.layout = layout_of(layout)
    c.tile = size("tile", tile, 1, 65536)
    c.usable_frac = 0 if usable_frac is None else real("usable_frac", usable_frac, 1e-6, 1)
    c.linear_eff = 0 if linear_eff is None else real("linear_eff", linear_eff, 1e-6, 1)
    c.alternatives = bool(alternatives)
    c.tp = size("tp", tp, 1, 1 << 20)
    if dtype not in ("bf16", "fp8"):
        raise RingsimError("dtype %s: expected bf16 or fp8" % dtype)
    c.fp8_linear = dtype == "fp8"
    c.loss_chunk_tokens = _loss_chunk(loss_chunk_tokens, c.chunk_tokens)
    c.runtime = runtime_of(runtime)
    check(_plan_config_validate(ctypes.byref(c), ctypes.byref(err)), err)
    hw, m = _opaque("hw"), _opaque("machine")
    gpn = -1 if gpus_per_node is None else size("gpus_per_node", gpus_per_node, 0, 1 << 20)
    usd = -1.0 if price is None else real("price", price, 0, 1e6)
    ae = 0.0 if attn_eff is None else real("attn_eff", attn_eff, 1e-6, 1)
    pc = S["rs_plan_candidate_spec_t"](profile=cstr("profile", profile), precision=c.precision, gpus_per_node=gpn,
                                  inter=cstr("inter", inter) if inter else None, price=usd,
                                  impl=cstr("impl", impl) if impl else None, kernel=cstr("kernel", kernel) if kernel else None,
                                  attn_eff=ae)
    check(_plan_candidate(ctypes.byref(pc), hw, m, ctypes.byref(err)), err)
    limits = S["rs_limits_t"](max_time_s=0 if max_time is None else real("max_time", max_time, 1e-3, 1e12),
                              max_mem_bytes=0 if max_memory is None else size("max_memory", max_memory, 1 << 20, (1 << 63) - 1))
    chosen, est = S["rs_plan_result_t"](), S["rs_estimate_t"]()
    check(_plan_choose(ctypes.byref(c), hw, m, ctypes.byref(chosen), ctypes.byref(err)), err)
    _plan_estimate(ctypes.byref(c), m, ctypes.byref(chosen), ctypes.byref(est))
    check(_limits_check(b"this plan", ctypes.byref(est), ctypes.byref(limits), ctypes.byref(err)), err)
    out = S["rs_plan_result_t"]()
    check(_plan_run(ctypes.byref(c), hw, m, ctypes.byref(out), ctypes.byref(err)), err)
    r = record(out, "rs_plan_result_t")
    r["options"] = r["options"][:out.n_options]
    r["config"] = record(c, "rs_plan_config_t")
    return r
