"""Lists or numpy arrays: numpy when it is installed (and RINGSIM_NUMPY is not 0), else lists."""
import math
import os

try:
    if os.environ.get("RINGSIM_NUMPY", "1") == "0":
        raise ImportError("RINGSIM_NUMPY=0")
    import numpy as np
except ImportError:
    np = None

HAVE_NUMPY = np is not None

# per-(rank, step) arrays from the events: name -> (event kind, what)
EVENT_ARRAYS = (("compute_start_s", "compute", "start_s"), ("compute_end_s", "compute", "end_s"),
                ("flops", "compute", "flops"), ("send_start_s", "send", "start_s"), ("send_end_s", "send", "end_s"),
                ("send_bytes", "send", "bytes"), ("recv_start_s", "recv", "start_s"), ("recv_end_s", "recv", "end_s"),
                ("recv_bytes", "recv", "bytes"), ("step_start_s", "step", "start_s"), ("step_end_s", "step", "end_s"))


def grid(n_ranks, n_steps):
    """An n_ranks x n_steps array of NaN (numpy) or of None (lists)."""
    if np is not None:
        return np.full((n_ranks, n_steps), math.nan)
    return [[None] * n_steps for _ in range(n_ranks)]


def column(values):
    """One column: a numpy array when numpy is there, else the list itself."""
    return np.asarray(values) if np is not None else list(values)


def event_arrays(events, n_ranks, n_steps):
    """{name: [rank][step]} for EVENT_ARRAYS from events (dicts or a numpy record array with rank,
    step, kind (name), start_s, end_s, flops, bytes); missing (rank, step) stay NaN / None."""
    out = {name: grid(n_ranks, n_steps) for name, _, _ in EVENT_ARRAYS}
    if np is not None and isinstance(events, np.ndarray):
        for name, kind, what in EVENT_ARRAYS:
            sel = events[events["kind"] == kind]
            out[name][sel["rank"], sel["step"]] = sel[what]
        return out
    for ev in events:
        for name, kind, what in EVENT_ARRAYS:
            if ev["kind"] == kind:
                out[name][ev["rank"]][ev["step"]] = ev[what]
    return out
