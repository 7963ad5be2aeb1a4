"""ringsim: Ring Attention's model from Python, over libringsim.so (ctypes; docs/python.md).

    import ringsim
    p = ringsim.Problem(seq_tokens="128K", n_ranks=8, layout="zigzag", pass_="forward")
    m = ringsim.Machine("h100-sxm")
    ringsim.closed_form(p, m).t_comp_s         # the seed's T_comp, calibrated
    w = ringsim.walk(p, m)                      # w.makespan_s, w.compute_end_s[rank][step], ...
    ringsim.rates(p, m)["attention"].kind      # "published": where each rate comes from (also w.rates)
    ringsim.memory("llama3-8b", seq_tokens="1M", sp_degree=32).total_bytes
    ringsim.plan("llama3-8b", profile="h200").options[0].t_step_s
    ringsim.read_trace("sim.csv").arrays()["step_end_s"]
    ringsim.read_sweep("sweep.csv").column("t_comm_s")

Results are Records (dicts with attribute access) named as the C structs' fields; arrays are numpy
arrays when numpy is installed (RINGSIM_NUMPY=0: lists), else lists. Bad input raises RingsimError
(a ValueError) with libringsim's one-line message.
"""
from ._arrays import HAVE_NUMPY
from ._lib import RingsimError, Record, lib_path, library_version
from ._version import __version__
from .core import Machine, Problem, closed_form, problem_of, rates, walk
from .io import read_sweep, read_trace
from .plan import memory, plan, transformer

__all__ = ["HAVE_NUMPY", "Machine", "Problem", "Record", "RingsimError", "closed_form", "lib_path", "library_version",
           "memory", "plan", "problem_of", "rates", "read_sweep", "read_trace", "transformer", "walk", "__version__"]
