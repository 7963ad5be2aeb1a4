/* commands.c - the subcommands as data (commands.h): name, summary, entry point, and the text of
 * `ringsim NAME --help` around its option tables. One table, so that `ringsim --help`, every
 * command's help, the man pages and the shell completion (docgen.h) come from the same place. */
#include "cli.h"

#include <string.h>

/* What this build lacks has no entry point; `missing` says why. */
#ifndef RINGSIM_HAVE_EXEC
#define rs_cmd_exec NULL
#define rs_cmd_calibrate NULL
#define rs_cmd_validate NULL
#endif
#ifndef RINGSIM_HAVE_SIM
#define rs_cmd_sim NULL
#endif
#ifndef RINGSIM_HAVE_PLOTS
#define rs_cmd_plot NULL
#endif

const char rs_cli_about[] = "predicts, simulates and measures Ring Attention";

const char rs_cli_description[] =
    "ringsim builds the ring schedule of Ring Attention once (who holds which key/value block at each\n"
    "step, what each rank computes and sends) and runs that identical schedule three ways: an analytic\n"
    "model with a critical-path walk, a SimGrid simulation, and a real execution (CPU: MPI + OpenBLAS;\n"
    "GPU: NCCL + CUDA). All of them write one trace schema, which ringsim compares, sweeps, plots with\n"
    "gnuplot and writes into a report; memory and plan answer the capacity-planning questions.\n"
    "\n"
    "Every command has --help listing each option with its default. Sizes take K/M/G suffixes (powers\n"
    "of 1024), rates take SI suffixes (450G = 450e9). Bad input gets one line on stderr naming the\n"
    "parameter, exit code 2 and no output file; a runtime failure exits 1. Progress shows on stderr\n"
    "when it is a terminal (-q: none).\n";

const rs_cli_env_t rs_cli_environment[] = {
    {"RINGSIM_PLOTS_DIR", "directory of the gnuplot scripts to use instead of the installed or built-in ones"},
    {"RINGSIM_GNUPLOT", "the gnuplot program to run"},
    {"RINGSIM_PROGRESS_US", "exec: how often the MPI progress thread polls, microseconds (default 20)"},
    {"RINGSIM_CPU_KERNEL", "exec: the CPU attention kernel, auto, plain, avx2 or avx512f (default auto)"},
    {"TMPDIR", "where simulation platforms and extracted plot scripts are written for a run"},
    {NULL, NULL},
};

const char rs_cli_files[] =
    "An installation keeps its data in share/ringsim/ beside its bin/ (found at run time):\n"
    "  profiles/devices, profiles/links, profiles/models   hardware, interconnect and model presets\n"
    "                  (the same presets are built into ringsim; a file here replaces or adds one)\n"
    "  plots/          the gnuplot scripts of ringsim plot and the report\n";

const rs_command_t rs_commands[] = {
    {"model", "analytic model: T_comp, T_comm, threshold, critical-path makespan", rs_cmd_model, NULL, 0,
     "usage: ringsim model [options]\n\n"
     "The analytic model: per layout and pass, the seed's per-step T_comp = c_f B^2 / F and\n"
     "T_comm = c_b B / W (calibrated: latency, F_eff(B), launch, overlap), the overlap threshold\n"
     "B_min = F c_b / (W c_f) and B* (solved with latency and efficiency), and the critical-path\n"
     "walk's makespan, and the metrics, each in [0, 1]: overlap efficiency, balance efficiency,\n"
     "fraction of peak, load balance (docs/model.md \"Metrics\"). See docs/model.md.\n\n",
     "Defaults here: --layout all --pass both.\n"},
    {"sim", "simulate the schedule in SimGrid and write its trace", rs_cmd_sim,
     "this build has no SimGrid backend (install libsimgrid-dev and reconfigure)", 0,
     "usage: ringsim sim [options]\n\n"
     "Simulate the ring schedule in SimGrid: one actor per rank, each step an async exec of\n"
     "the step's compute and async put/get of its transfers, on a platform generated from the\n"
     "hardware profile (flat ring, or nodes of G devices with one NIC per device) or your own\n"
     "SimGrid platform. The default network model (CM02, TCP-gamma 0, no cross-traffic) is exact:\n"
     "the makespan equals the critical-path walk's (column rel_diff). See docs/sim.md.\n"
     "Concurrent rings (--tp, --dp, --map, --fabric ...) run R rings at once on a generated fabric\n"
     "(NICs per node, leaf-spine oversubscription, rails) with optional background collectives,\n"
     "and report per ring the slowdown against its contention-free walk, per hop the achieved\n"
     "bandwidth, per link the load and the link that saturates (docs/sim.md, \"Contention\").\n\n",
     "Realism flags keep the walk's meaning (model/4-cost/cost.h) and are all simulated: --latency,\n"
     "--launch-overhead, --jitter/--seed, --straggler, --degrade, nodes of --gpus-per-node, --slowdown\n"
     "(exec rate / sigma while a hop of the rank is in flight) and --overlap (the hop's bottleneck\n"
     "link at eta x bandwidth while the sender computes; generated platforms only).\n"
     "Defaults here: --layout zigzag --pass forward.\n"},
    {"exec", "execute the schedule for real (CPU: MPI + OpenBLAS; GPU: NCCL + CUDA)", rs_cmd_exec,
     "this build has no CPU executor (needs OpenBLAS)", 0,
     "usage: ringsim exec [options]      (or: mpirun -np N ringsim exec [options])\n\n"
     "Execute the ring schedule for real: every step posts the K,V (and, backward, dK,dV) transfers\n"
     "to p+1 / from p-1, runs the step's blockwise attention, waits, and records timestamps.\n"
     "Per (rank, step): compute, transfer (post to completion) and step time, medians over --reps\n"
     "after --warmup. CPU: fp32, OpenBLAS sgemm + online softmax, one core per rank. The progress\n"
     "thread polls every RINGSIM_PROGRESS_US (20 us, backing off); --loopback refuses --check.\n\n",
     "Defaults here: --seq 4K --ranks 4 (under mpirun: its -np) --heads 2 --kv-heads 2 --dtype fp32\n"
     "--layout zigzag --pass forward --causal. The hardware options are ignored (nothing is predicted).\n"},
    {"calibrate", "measure F_eff(B), transport alpha-beta and overlap; write a profile", rs_cmd_calibrate,
     "this build has no CPU executor (needs OpenBLAS)", -1,
     "usage: ringsim calibrate --out FILE [options]\n"
     "       ringsim calibrate --out FILE --from-trace TRACE.csv [TRACE.csv...] [problem options]\n\n"
     "Measure this machine with the real kernel and transport of an executor (--backend cpu: OpenBLAS +\n"
     "MPI; gpu: CUDA + NCCL; exec/calibrate.h): F_eff(B) of a full B x B block step, the ring exchange's\n"
     "latency and bandwidth (alpha-beta fit over message sizes), the host cost of a transfer and the\n"
     "overlap curve eta(bytes), and write a profile JSON for `ringsim model|sim --profile FILE`.\n"
     "--from-trace: fit the same from traces of a run instead (ringsim import's, at one or more B):\n"
     "F_eff(B) from the compute events, alpha-beta from the transfers, host cost and overlap where\n"
     "identifiable; the problem from the headers (docs/import.md section 9).\n\n",
     "Defaults here: --ranks 2 (under mpirun: its -np) --heads 2 --kv-heads 2 --head-dim 128 --dtype fp32\n"
     "(gpu: bf16) --pass forward. Only the shape options matter (heads, head-dim, batch, pass, tile).\n"
     "With --from-trace: the problem options fill what a header lacks (defaults as for ringsim import) and\n"
     "must agree with every header when given; --latency L fixes L (W fitted alone); --dtype picks the\n"
     "peak's dtype (default: from the activations' bytes).\n"},
    {"validate", "calibrate, then predict (model, sim) and measure (exec) a B sweep", rs_cmd_validate,
     "this build has no CPU executor (needs OpenBLAS)", -1,
     "usage: ringsim validate [options]\n"
     "       ringsim validate --from-trace TRACE.csv [TRACE.csv...] [--calibrated P.json] [--trace-dir DIR]\n\n"
     "Calibrate (ringsim calibrate), then for every B of a sweep across the overlap threshold: predict\n"
     "(critical-path walk; SimGrid when built and its rule allows the machine) and measure (the executor:\n"
     "--backend cpu or gpu) the same schedule; print per-B T_comp, T_comm, T_step and makespan, predicted vs\n"
     "measured, the per-(rank, step) errors over the sweep (median, p95, max) and the crossover B where\n"
     "T_comm overtakes T_comp. One MPI job: re-started under mpirun when not already.\n"
     "--from-trace: predict traced runs instead (the walk, with --calibrated P.json or the profile\n"
     "ringsim calibrate --from-trace fits from the same traces) and compare per (rank, step) as ringsim\n"
     "compare does: T_comp, T_comm, T_step median / p95 errors and the makespan error per trace;\n"
     "--trace-dir DIR: predicted traces, per-step CSVs and pred-vs-meas figures (docs/import.md).\n\n",
     "Defaults here: --ranks 2 (under mpirun: its -np) --heads 2 --kv-heads 2 --head-dim 128 --dtype fp32 (gpu: bf16)\n"
     "--no-causal --layout contiguous --pass forward (the seed's full-block analysis). S = N * B.\n"
     "With --from-trace: the problem comes from the headers (as for calibrate --from-trace).\n"},
    {"compare", "per-step and makespan errors between two traces", rs_cmd_compare, NULL, -1,
     "usage: ringsim compare [options] REF.csv OTHER.csv\n"
     "\n"
     "Align two traces of the same problem by (rank, step, pass, kind) and report the relative\n"
     "errors (other - ref) / ref of T_comp (compute), T_comm (longer of send/recv, post to\n"
     "completion) and T_step per (rank, step, pass): median, p95, max and the worst step; and\n"
     "the makespan error. Traces of different problems are refused (exit 2).\n"
     "\n",
     NULL},
    {"import", "read PyTorch-profiler (Kineto) / Nsight Systems traces into ringsim's schema", rs_cmd_import, NULL, -1,
     "usage: ringsim import [options] -o OUT.csv TRACE...\n"
     "       ringsim import --export-kineto DIR RINGSIM.csv\n"
     "\n"
     "Read the per-rank GPU traces of a ring-attention run and write ringsim's trace schema: per\n"
     "(rank, step) one compute event (first to last compute kernel of the step: attention, merges,\n"
     "casts, other work, each also a role event with its busy time), send and recv events (the\n"
     "step's point-to-point kernels in the ring's process group) and a step event. TRACE: PyTorch\n"
     "profiler / Kineto JSON files (one per rank, .json or .json.gz), Nsight Systems SQLite exports\n"
     "(nsys export --type sqlite; one file may hold every rank), or directories of them (searched\n"
     "recursively; other files skipped with a note). N is the ring group's size; give the problem\n"
     "(--seq, --heads, --kv-heads, --head-dim, --dtype, --layout, --causal, --tile): it goes into\n"
     "the header, and the schedule and what the trace shows (message bytes, kernel grids, world\n"
     "size, GPU) check it. -N checks the ring has N ranks (default: inferred); -P picks passes\n"
     "(default: every pass found); -L is the one layout the traced run used. See docs/import.md.\n"
     "\n",
     NULL},
    {"sweep", "sweep B, N, S, layout, pass, profile; write one CSV", rs_cmd_sweep, NULL, 0,
     "usage: ringsim sweep [options] -o FILE.csv\n\n"
     "Run the model (closed form + critical-path walk), the SimGrid simulator and, with --exec, the\n"
     "real CPU execution over ranges of B, N, S, layouts, passes and profiles; write one CSV row per\n"
     "point (columns: docs/report.md) and, at the end, '# crossover' lines: the B where T_comm\n"
     "crosses T_comp in the predicted, simulated and measured data (interpolated in log-log).\n"
     "Ranges: START:STOP:xF (geometric), START:STOP:+D (arithmetic), a,b,c, or one value; K/M/G.\n"
     "Ctrl-C stops after the current point and keeps the finished points in a valid file\n"
     "beside the output (out.partial.csv for -o out.csv; a previous out.csv stays as it was).\n"
     "Under mpirun or srun the points are divided over the ranks; rank 0 writes the CSV.\n"
     "With fabric knobs (--nics 1,2,4,8 --oversub 1,2 --fabric ... --order ... --tp T --dp P) every\n"
     "point is a job of T x P concurrent rings simulated on each fabric instead: one row per point\n"
     "and knob value (efficiency, slowdown, saturated link: docs/sim.md \"Contention\").\n\n",
     "Defaults here: --layout zigzag --pass forward.\n"},
    {"plot", "render a figure with gnuplot (PNG, PDF, SVG)", rs_cmd_plot,
     "not built (the rs_plots library is missing)", -1,
     "usage: ringsim plot KIND DATA -o FILE.{png,pdf,svg,tex} [options]\n"
     "\n"
     "Render a figure with gnuplot; the format follows FILE's extension (PNG for screens, PDF and\n"
     "SVG for papers, .tex for LaTeX: its text set in the document's font, FILE.pdf beside it). The\n"
     "text scales with the size (8.5 pt at --size column). The scripts are plots/*.gp (one style:\n"
     "plots/style.gp) and can be edited.\n"
     "\n"
     "kinds and their DATA:\n"
     "  tcomm-vs-b    T_comp, T_comm vs B, log-log, predicted lines, measured points,\n"
     "                B_min = F/W and the measured crossover marked     DATA: ringsim sweep CSV\n"
     "  timeline      Gantt chart: compute/send/recv per rank and step DATA: a trace CSV\n"
     "  pred-vs-meas  predicted vs measured per step, y = x, +-10% band DATA: ringsim compare --csv\n"
     "  layout-busy   per-rank busy time of the three layouts         DATA: CSV rank,contiguous,striped,zigzag\n"
     "  scaling       step time and overlap efficiency vs N or B per series  DATA: ringsim sweep CSV\n"
     "  maxctx        longest context that fits vs N per profile  DATA: ringsim plan --maxctx-csv CSV\n"
     "  contention    concurrent rings: balance efficiency vs NICs per node or oversubscription (--x nics|oversub)\n"
     "                                DATA: ringsim sweep -o CSV with fabric knobs, plan --contention-csv\n"
     "  ttft          time to first token vs context length per variant  DATA: ringsim plan --inference --csv\n"
     "  pass-boundary pass-KV/pass-Q crossing T against P   DATA: ringsim plan --inference --boundary-csv\n"
     "  validation    predicted vs published per case, y = x, +-10% band, one marker per source\n"
     "                DATA: CSV case,source,published,predicted[,predicted_low,predicted_high]\n"
     "\n",
     "gnuplot: the one found at build time, else PATH; RINGSIM_GNUPLOT overrides. Scripts:\n"
     "$RINGSIM_PLOTS_DIR, else the installed share/ringsim/plots (beside the binary), else the source\n"
     "tree's plots/, else the copies built into ringsim.\n"},
    {"report", "the main job: traces, sweeps, figures and report.md/html", rs_cmd_report, NULL, 0,
     "usage: ringsim report [options]\n\n"
     "The main job: model, simulate and (where available) execute Ring Attention for one problem,\n"
     "sweep B across the overlap threshold and N across hardware, and write a directory with the\n"
     "traces (CSV + Chrome JSON), the data, the figures (PNG, SVG, PDF) and report.md / report.html\n"
     "stating the findings in numbers. See docs/report.md.\n\n"
     "Default problem: 8 x H100-SXM over NVLink, Llama-3-8B attention (32 q heads, 8 kv heads,\n"
     "head_dim 128), S = 128K, causal, bf16, all layouts, forward and backward.\n\n",
     "Defaults here: --layout all --pass both.\n"},
    {"memory", "per-device memory breakdown for training with ring attention", rs_cmd_memory, NULL, 0,
     "usage: ringsim memory --model NAME|FILE [options]\n\n"
     "Per-device memory of training with ring attention (Ulysses/USP with --ulysses): weights,\n"
     "gradients and optimizer state sharded by ZeRO-3/FSDP, saved activations by checkpointing\n"
     "mode, the ring's buffers, chunked FFN and loss. Formulas: docs/memory.md.\n\n",
     NULL},
    {"plan", "capacity planning: smallest N, step time, cost; Ring vs Ulysses vs USP", rs_cmd_plan, NULL, 0,
     "usage: ringsim plan --model NAME|FILE [options]\n\n"
     "Capacity planning: per candidate hardware, the smallest sequence-parallel N that fits memory\n"
     "(ZeRO-3 over all devices), the predicted attention time (the ring walk of `ringsim model`)\n"
     "and whole-layer time, whether the ring's transfers hide at B = S/N, MFU and cost; Ring vs\n"
     "Ulysses vs USP at that N and which wins and why. Assumptions: docs/plan.md.\n"
     "With --sim and fabric knobs (--nics 1,2,4,8 --oversub 1,2 --fabric ... --order ...) the ring split\n"
     "also runs as a job of its replicas on each fabric, with ZeRO-3's collectives when\n"
     "--background fsdp (docs/sim.md \"Contention\").\n"
     "With --inference: inference planning instead (TTFT of T new tokens on P cached, KV cache per\n"
     "device, decode step; pass-KV vs pass-Q vs Ulysses vs USP, TP in a node and CP across nodes;\n"
     "ringsim plan --inference --help lists its options; docs/inference.md).\n\n",
     NULL},
    {"profiles", "list or print the shipped hardware profiles", rs_cmd_profiles, NULL, -1,
     "usage: ringsim profiles [options] [NAME | FILE]\n"
     "\n"
     "  (no argument)  list the device presets (peak BF16 rate, devices per node, ring tiers and\n"
     "                 the overlap threshold F/W) and the interconnect tier presets\n"
     "  NAME           print the JSON of a device or tier preset (case-insensitive)\n"
     "  FILE           (contains '/' or ends in .json) validate a device profile and print a summary;\n"
     "                 errors name file:line:column and the key\n"
     "\n",
     NULL},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL},
};

const rs_command_t *rs_cli_command(const char *name) {
    for (const rs_command_t *c = rs_commands; c->name; c++)
        if (strcmp(c->name, name) == 0) return c;
    return NULL;
}
