"""libringsim through ctypes: finding the library, its struct layouts, errors and parsing.

The structs are built at import from the library's own description of them (rs_abi_fields(),
studies/binding.h: field names, offsets, sizes and kinds from the C compiler), so this package holds
no second copy of any layout; an offset that ctypes would place differently is an ImportError.
"""
import ctypes
import ctypes.util
import glob
import numbers
import os

from ._version import __version__


class RingsimError(ValueError):
    """A message from libringsim: the parameter or file, the value and the accepted range."""


def _candidates():
    env = os.environ.get("RINGSIM_LIB")
    if env:
        return [env]  # the caller's choice only: no silent fallback to another library
    here = os.path.dirname(os.path.abspath(__file__))
    found = sorted(glob.glob(os.path.join(here, "libringsim.so*")))
    major, minor = __version__.split(".")[:2]
    soname = "libringsim.so.%s" % (major if major != "0" else "%s.%s" % (major, minor))
    system = ctypes.util.find_library("ringsim")
    return found + [soname] + ([system] if system else []) + ["libringsim.so"]


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("ringsim: libringsim.so not found; set RINGSIM_LIB=/path/to/libringsim.so. Tried: "
                      + "; ".join(tried))


lib, lib_path = _load()

lib.rs_version.restype = ctypes.c_char_p
library_version = lib.rs_version().decode()
if library_version.split(".")[:2] != __version__.split(".")[:2]:
    raise ImportError("ringsim %s: %s is libringsim %s (the major and minor versions must agree)"
                      % (__version__, lib_path, library_version))


class _AbiRow(ctypes.Structure):
    _fields_ = [("type", ctypes.c_char_p), ("field", ctypes.c_char_p), ("offset", ctypes.c_size_t),
                ("size", ctypes.c_size_t), ("kind", ctypes.c_char), ("sub", ctypes.c_char_p)]


_SCALARS = {b"q": ctypes.c_int64, b"Q": ctypes.c_uint64, b"i": ctypes.c_int32, b"I": ctypes.c_uint32,
            b"d": ctypes.c_double, b"?": ctypes.c_bool, b"p": ctypes.c_char_p}

lib.rs_abi_fields.restype = ctypes.POINTER(_AbiRow)


def _read_table():
    """{type: (size, [(field, offset, size, kind, sub)])} in the table's order."""
    rows, types = lib.rs_abi_fields(), {}
    i = 0
    while rows[i].type:
        r = rows[i]
        t = r.type.decode()
        if r.field is None:
            types[t] = (r.size, [])
        else:
            types[t][1].append((r.field.decode(), r.offset, r.size, r.kind, r.sub.decode() if r.sub else None))
        i += 1
    return types


def _ctype(size, kind, sub, structs):
    if kind == b"s" or kind == b"x":
        return ctypes.c_char * size
    elem = structs[sub] if kind == b"T" else _SCALARS[kind]
    n = size // ctypes.sizeof(elem)
    return elem if n == 1 and size == ctypes.sizeof(elem) and kind != b"s" else elem * n


def _build(types):
    structs, layout = {}, {}
    for name, (size, fields) in types.items():
        spec, pos = [], 0
        for i, (f, off, sz, kind, sub) in enumerate(sorted(fields, key=lambda x: x[1])):
            if off > pos:
                spec.append(("_pad%d" % i, ctypes.c_char * (off - pos)))
            spec.append((f, _ctype(sz, kind, sub, structs)))
            pos = off + sz
        if size > pos:
            spec.append(("_pad_end", ctypes.c_char * (size - pos)))
        cls = type(name, (ctypes.Structure,), {"_fields_": spec})
        for f, off, sz, kind, sub in fields:  # ctypes must place every field where the compiler did
            got = getattr(cls, f)
            if got.offset != off or got.size != sz:
                raise ImportError("ringsim: %s.%s at %d (%d bytes) in ctypes, %d (%d bytes) in %s"
                                  % (name, f, got.offset, got.size, off, sz, lib_path))
        if ctypes.sizeof(cls) != size:
            raise ImportError("ringsim: sizeof(%s) %d in ctypes, %d in %s" % (name, ctypes.sizeof(cls), size, lib_path))
        structs[name] = cls
        layout[name] = (size, fields)
    return structs, layout


ABI = _read_table()
S, _layout = _build(ABI)
Err = S["rs_err_t"]


def check(rc, err):
    """Raise RingsimError with err's message when rc is not 0."""
    if rc != 0:
        raise RingsimError(err.msg.decode(errors="replace") or "libringsim failed (rc %d)" % rc)


lib.rs_locale_c_enter.restype = ctypes.c_void_p
lib.rs_locale_c_enter.argtypes = []
lib.rs_locale_c_leave.restype = None
lib.rs_locale_c_leave.argtypes = [ctypes.c_void_p]


def fn(name, restype, *argtypes):
    """The library's function name, called in the "C" locale (rs_locale_c_enter): numbers are read
    and printed with '.' whatever locale.setlocale the caller chose."""
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    enter, leave = lib.rs_locale_c_enter, lib.rs_locale_c_leave

    def call(*args):
        old = enter()
        try:
            return f(*args)
        finally:
            leave(old)

    call.__name__ = name
    return call


P = ctypes.POINTER
c_int, c_int64, c_double, c_char_p, c_size_t = ctypes.c_int, ctypes.c_int64, ctypes.c_double, ctypes.c_char_p, ctypes.c_size_t

_machine_range = fn("rs_binding_machine_range", c_int, c_char_p, P(c_double), P(c_double))
_input_check = fn("rs_input_check", c_int, c_char_p, c_char_p, ctypes.c_uint64, ctypes.c_bool, P(Err))


def cstr(name, value):
    """value as the bytes a C string of the library holds: text (or a path) with no NUL byte, which C
    would read as the end (so '128K\\x00junk' would be taken as 128K)."""
    if isinstance(value, bytes):
        raw = value
    elif isinstance(value, (str, os.PathLike)):
        raw = os.fsencode(value)
    else:
        raise RingsimError("%s %r: expected text, not %s" % (name, value, type(value).__name__))
    if b"\0" in raw:
        raise RingsimError("%s %r: contains a NUL byte" % (name, value))
    return raw


def machine_range(field):
    """(min, max) of the machine's field as the command line accepts it (rs_binding_machine_range,
    model/3-machine/ranges.h: one table for both)."""
    lo, hi = c_double(), c_double()
    if _machine_range(field.encode(), ctypes.byref(lo), ctypes.byref(hi)) != 0:
        raise RingsimError("%s: not a machine field with a range" % field)
    return lo.value, hi.value


def input_check(path, what, max_bytes):
    """The check every C reader makes before it opens a file (rs_input_check): a regular file of at
    most max_bytes; a directory, a device (/dev/zero), a socket or a FIFO is refused."""
    err = Err()
    check(_input_check(cstr("path", path), what.encode(), max_bytes, False, ctypes.byref(err)), err)


_parse_size = fn("rs_parse_size", c_int, c_char_p, c_char_p, c_int64, c_int64, P(c_int64), P(Err))
_field_range = fn("rs_problem_field_range", c_int, c_char_p, P(c_int64), P(c_int64))
_parse_double = fn("rs_parse_double", c_int, c_char_p, c_char_p, c_double, c_double, P(c_double), P(Err))


def field_range(field):
    """(min, max) of rs_problem_t's integer field, from the schedule's one table (rs_problem_field_range)."""
    lo, hi = c_int64(), c_int64()
    if _field_range(field.encode(), ctypes.byref(lo), ctypes.byref(hi)) != 0:
        raise RingsimError("%s: not an integer field of the problem" % field)
    return lo.value, hi.value


def size(name, value, lo=0, hi=(1 << 62)):
    """An integer, or a size with a K/M/G/T suffix (powers of 1024): "128K" -> 131072."""
    if isinstance(value, bool):
        raise RingsimError("%s %r: expected an integer" % (name, value))
    if isinstance(value, numbers.Integral):  # numpy's integers too
        value = int(value)
        if not lo <= value <= hi:
            raise RingsimError("%s %d: expected %d..%d" % (name, value, lo, hi))
        return value
    if not isinstance(value, (str, bytes)):
        raise RingsimError("%s %r: expected an integer or a size such as 128K, not %s" % (name, value, type(value).__name__))
    out, err = c_int64(), Err()
    check(_parse_size(name.encode(), cstr(name, value), lo, hi, ctypes.byref(out), ctypes.byref(err)), err)
    return out.value


def real(name, value, lo=-1e300, hi=1e300):
    """A finite number, or text with an SI suffix: "450G" -> 450e9."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            value = repr(float(value))
        except OverflowError:
            raise RingsimError("%s %d: must be in [%g, %g]" % (name, value, lo, hi)) from None
    elif not isinstance(value, (str, bytes)):
        raise RingsimError("%s %r: expected a number, not %s" % (name, value, type(value).__name__))
    out, err = c_double(), Err()
    check(_parse_double(name.encode(), cstr(name, value), lo, hi, ctypes.byref(out), ctypes.byref(err)), err)
    return out.value


def _enum(parse, name_of, what, choices):
    p = fn(parse, c_int, c_char_p, P(ctypes.c_uint32))
    n = fn(name_of, c_char_p, ctypes.c_uint32)

    def parse_value(text):
        out = ctypes.c_uint32()
        if isinstance(text, bool) or not isinstance(text, (int, str)):
            raise RingsimError("%s %r: expected %s" % (what, text, choices))
        if isinstance(text, int):
            if n(text) == b"?":
                raise RingsimError("%s %d: expected %s" % (what, text, choices))
            return text
        if p(cstr(what, text), ctypes.byref(out)) != 0:
            raise RingsimError("%s %s: expected %s" % (what, text, choices))
        return out.value

    return parse_value, lambda v: n(v).decode()


layout_of, layout_name = _enum("rs_layout_parse", "rs_layout_name", "layout", "contiguous, striped or zigzag")
pass_of, pass_name = _enum("rs_pass_parse", "rs_pass_name", "pass", "forward or backward")
ring_of, ring_name = _enum("rs_ring_parse", "rs_ring_name", "ring", "pass-kv or pass-q")
dtype_of, dtype_name = _enum("rs_dtype_parse", "rs_dtype_name", "dtype", "fp32, tf32, bf16, fp16 or fp8")
precision_of, precision_name = _enum("rs_precision_parse", "rs_precision_name", "precision", "mixed or fp32")
ckpt_of, ckpt_name = _enum("rs_ckpt_parse", "rs_ckpt_name", "ckpt", "none, selective or full")
_, event_kind_name = _enum("rs_event_kind_parse", "rs_event_kind_name", "kind", "compute, send, recv or step")
_, sp_kind_name = _enum("rs_layout_parse", "rs_sp_kind_name", "split", "ring, ulysses or usp")
_, ffn_kind_name = _enum("rs_ffn_kind_parse", "rs_ffn_kind_name", "ffn kind", "swiglu or gelu")
runtime_of, runtime_name = _enum("rs_runtime_parse", "rs_runtime_name", "runtime", "pytorch, jax-gpu, jax-tpu or none")

# enum fields shown by name in records: (struct, field) -> name function
ENUM_NAMES = {("rs_problem_t", "layout"): layout_name, ("rs_problem_t", "pass"): pass_name,
              ("rs_problem_t", "ring"): ring_name,
              ("rs_machine_spec_t", "dtype"): dtype_name, ("rs_mem_config_t", "precision"): precision_name,
              ("rs_mem_config_t", "ckpt"): ckpt_name, ("rs_plan_config_t", "precision"): precision_name,
              ("rs_plan_config_t", "ckpt"): ckpt_name, ("rs_plan_config_t", "layout"): layout_name,
              ("rs_event_t", "pass"): pass_name, ("rs_event_t", "kind"): event_kind_name,
              ("rs_sp_cost_t", "kind"): sp_kind_name, ("rs_plan_option_t", "kind"): sp_kind_name,
              ("rs_transformer_t", "ffn_kind"): ffn_kind_name, ("rs_mem_config_t", "runtime"): runtime_name,
              ("rs_plan_config_t", "runtime"): runtime_name, ("rs_plan_option_t", "layout"): layout_name}


class Record(dict):
    """A C struct as a dict with attribute access: r.makespan_s == r["makespan_s"]."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def record(value, type_name):
    """A ctypes struct of a described type as a Record (nested structs and arrays as Records and
    lists, strings decoded, enums by name); opaque bytes are left out."""
    out = Record()
    for f, _off, _sz, kind, sub in _layout[type_name][1]:
        v = getattr(value, f)
        if kind == b"x":
            continue
        if kind == b"s":
            v = v.decode(errors="replace")
        elif kind == b"T":
            v = [record(x, sub) for x in v] if isinstance(v, ctypes.Array) else record(v, sub)
        elif isinstance(v, ctypes.Array):
            v = list(v)
        if (type_name, f) in ENUM_NAMES and not isinstance(v, list):
            v = ENUM_NAMES[(type_name, f)](v)
        out[f] = v
    return out
