"""Readers: ringsim traces (the library's own CSV reader, traces/trace.h) and sweep CSVs
(`ringsim sweep -o`, docs/report.md), to lists or numpy arrays."""
import csv
import ctypes
import os
import stat

from . import _arrays
from ._lib import S, Err, P, Record, RingsimError, c_char_p, c_size_t, cstr, fn, input_check, record
from .core import _event_records

_read_csv = fn("rs_trace_read_csv", ctypes.c_void_p, c_char_p, P(Err))
_free = fn("rs_trace_free", None, ctypes.c_void_p)
_source = fn("rs_trace_source", c_char_p, ctypes.c_void_p)
_count = fn("rs_trace_count", c_size_t, ctypes.c_void_p)
_events = fn("rs_trace_events", P(S["rs_event_t"]), ctypes.c_void_p)
_meta_count = fn("rs_trace_meta_count", c_size_t, ctypes.c_void_p)
_meta_at = fn("rs_trace_meta_at", None, ctypes.c_void_p, c_size_t, P(c_char_p), P(c_char_p))


class Trace(Record):
    """A ringsim trace: source, meta (the header's key=value pairs, as strings), events (a numpy
    record array, or a list of Records: rank, step, pass, kind, peer, start_s, end_s, flops, bytes).
    arrays(pass_) gives the per-(rank, step) arrays of one pass, as ringsim.walk() does."""

    def arrays(self, pass_=None):
        evs = self.events
        passes = sorted({str(e["pass"]) for e in evs}) if not _arrays.HAVE_NUMPY else sorted(set(evs["pass"].tolist()))
        want = pass_ or (passes[0] if passes else "forward")
        if _arrays.HAVE_NUMPY:
            sel = evs[evs["pass"] == want]
            n_ranks, n_steps = int(sel["rank"].max()) + 1, int(sel["step"].max()) + 1
        else:
            sel = [e for e in evs if e["pass"] == want]
            n_ranks, n_steps = max(e["rank"] for e in sel) + 1, max(e["step"] for e in sel) + 1
        return _arrays.event_arrays(sel, n_ranks, n_steps)


def read_trace(path):
    """Read a ringsim trace CSV (any backend's: model, sim, exec-cpu, exec-gpu, imported). Malformed
    input: RingsimError "path:line: expected ..."."""
    err = Err()
    t = _read_csv(cstr("path", path), ctypes.byref(err))
    if not t:
        raise RingsimError(err.msg.decode(errors="replace"))
    try:
        meta = {}
        for i in range(_meta_count(t)):
            k, v = c_char_p(), c_char_p()
            _meta_at(t, i, ctypes.byref(k), ctypes.byref(v))
            meta[k.value.decode()] = v.value.decode()
        n = _count(t)
        buf = (S["rs_event_t"] * n)()
        if n:
            ctypes.memmove(buf, _events(t), ctypes.sizeof(buf))
        return Trace(source=_source(t).decode(), meta=meta, events=_event_records(buf, n))
    finally:
        _free(t)


def _number(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


class Sweep(Record):
    """A sweep CSV: notes (the '#' lines without '#'), columns, rows (Records, numbers converted) and
    column(name): that column as a numpy array or a list."""

    def column(self, name):
        if name not in self.columns:
            raise RingsimError("%s: no column %r (columns: %s)" % (self.path, name, ", ".join(self.columns)))
        return _arrays.column([r[name] for r in self.rows])


_SWEEP_MAX_BYTES = 1 << 30  # 100000 points (rs_study_sweep's cap) of about 600 bytes each, with room


def read_sweep(path):
    """Read `ringsim sweep -o FILE.csv` (or any ringsim CSV with '#' notes and one header line). A
    path that is not a regular file of at most 1 GiB (a device such as /dev/zero, a FIFO, a folder) is
    refused before it is opened, by the check the C readers make (rs_input_check)."""
    input_check(path, "ringsim sweep CSV", _SWEEP_MAX_BYTES)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # replaced by a FIFO since the check: no blocking open
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RingsimError("%s: not a regular file: not a ringsim sweep CSV" % path)
    notes, lines = [], []
    with os.fdopen(fd, newline="") as f:
        for line in f:
            (notes.append(line[1:].strip()) if line.startswith("#") else lines.append(line))
    rows = list(csv.reader(lines))
    if not rows:
        raise RingsimError("%s: no header line" % path)
    header = rows[0]
    out = []
    for i, r in enumerate(rows[1:], 2):
        if len(r) != len(header):
            raise RingsimError("%s: row %d has %d columns, the header %d" % (path, i, len(r), len(header)))
        out.append(Record(zip(header, map(_number, r))))
    return Sweep(path=str(path), notes=notes, columns=header, rows=out)
