/* cmd_import.c - `ringsim import`: PyTorch-profiler (Kineto) and Nsight Systems traces of a real
 * ring-attention run -> ringsim's trace schema (traces/import.h); and `--export-kineto`, the other
 * direction for a ringsim trace. Rules and capture commands: docs/import.md. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "import.h"
#include "trace.h"

enum { OPT_CHROME = 2000, OPT_KERNELS, OPT_FORMAT, OPT_KREGEX, OPT_SREGEX, OPT_NO_RANGES, OPT_OCC, OPT_EXPORT };

static const struct option own_opts[] = {
    {"trace", required_argument, NULL, 'o'},
    {"chrome", required_argument, NULL, OPT_CHROME},
    {"kernels", required_argument, NULL, OPT_KERNELS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"kernel-regex", required_argument, NULL, OPT_KREGEX},
    {"step-regex", required_argument, NULL, OPT_SREGEX},
    {"no-ranges", no_argument, NULL, OPT_NO_RANGES},
    {"occurrence", required_argument, NULL, OPT_OCC},
    {"export-kineto", required_argument, NULL, OPT_EXPORT},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
};

/* The shared options that describe the problem (the machine options mean nothing here). */
static bool problem_opt(int v) {
    switch (v) {
    case RS_OPT_SEQ: case RS_OPT_RANKS: case RS_OPT_BATCH: case RS_OPT_HEADS: case RS_OPT_KV_HEADS:
    case RS_OPT_HEAD_DIM: case RS_OPT_DTYPE: case RS_OPT_GRAD_BYTES: case RS_OPT_CAUSAL: case RS_OPT_NO_CAUSAL:
    case RS_OPT_LAYOUT: case RS_OPT_PASS: case RS_OPT_TILE:
        return true;
    default:
        return false;
    }
}

static void help(FILE *out) {
    fprintf(out,
            "usage: ringsim import [options] -o OUT.csv TRACE...\n"
            "       ringsim import --export-kineto DIR RINGSIM.csv\n"
            "\n"
            "Read the per-rank GPU traces of a ring-attention run and write ringsim's trace schema: per\n"
            "(rank, step) one compute event (first to last attention kernel), send and recv events (the\n"
            "step's NCCL SendRecv kernels) and a step event. TRACE: PyTorch profiler / Kineto JSON files\n"
            "(one per rank, .json or .json.gz), Nsight Systems SQLite exports (nsys export --type sqlite;\n"
            "one file may hold every rank), or directories of them. N comes from the trace; give the\n"
            "problem (--seq, --heads, --kv-heads, --head-dim, --dtype, --layout, --causal, --tile): it goes\n"
            "into the header and the schedule checks every step. See docs/import.md.\n"
            "\n"
            "options:\n"
            "  -o, --trace FILE          the imported trace, CSV (with --pass both: FILE-LAYOUT-PASS.csv)\n"
            "      --chrome FILE         also as Chrome/Perfetto JSON                  [none]\n"
            "      --kernels FILE        the kernels behind every event, CSV           [none]\n"
            "      --format F            auto, kineto or nsys                          [auto]\n"
            "      --kernel-regex RE     more attention kernels (POSIX ERE on the demangled name;\n"
            "                            backward when the name has bwd/backward/bprop/grad) [none]\n"
            "      --step-regex RE       step ranges: NVTX / record_function names, case-insensitive,\n"
            "                            last group = step number     [%s]\n"
            "      --no-ranges           ignore step ranges; steps from the launch order\n"
            "      --occurrence K        which ring pass of each kind, 0 = the first   [0]\n"
            "  -P, --pass P              forward, backward or both                     [every pass found]\n"
            "  -N, --ranks N             check the trace has N ranks                   [inferred]\n"
            "      --export-kineto DIR   instead: write the ringsim CSV trace given as DIR/rankR.pt.trace.json\n"
            "                            (Kineto JSON, as torch.profiler writes it)\n"
            "  -q, --quiet               no summary on stdout\n"
            "  -h, --help                this help\n"
            "\n"
            "problem options (as for ringsim model): -S/--seq, --batch, --heads, --kv-heads, --head-dim,\n"
            "--dtype, --grad-bytes, --causal/--no-causal, -L/--layout (one), --tile.\n",
            RS_IMPORT_STEP_REGEX);
}

/* An output must not be one of the inputs. */
static int same_file(const char *a, const char *b) {
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* The paths trace i is written to (csv, chrome, kernels; NULL when not asked for). */
static void output_paths(const rs_import_t *im, size_t i, const char *const base[3], char path[3][4096]) {
    rs_problem_t p;
    rs_err_t err;
    rs_trace_problem(rs_import_trace(im, i), &p, &err); /* the import wrote these keys */
    for (int j = 0; j < 3; j++) {
        path[j][0] = 0;
        if (base[j]) rs_cli_entry_path(path[j], sizeof path[j], base[j], &p, rs_import_n_traces(im) > 1);
    }
}

static int check_outputs(const rs_import_t *im, const char *const base[3], char **args, int n_args) {
    char **ins = NULL;
    rs_err_t err;
    long n_in = rs_import_list_files((const char *const *)args, (size_t)n_args, &ins, &err);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < rs_import_n_traces(im); i++) {
        char path[3][4096];
        output_paths(im, i, base, path);
        for (int j = 0; rc == 0 && j < 3; j++)
            for (long k = 0; rc == 0 && path[j][0] && k < n_in; k++)
                if (same_file(path[j], ins[k])) {
                    fprintf(stderr, "ringsim import: output %s is the input %s: an output never replaces an input\n", path[j], ins[k]);
                    rc = -1;
                }
    }
    for (long k = 0; k < n_in; k++) free(ins[k]);
    free(ins);
    return rc;
}

static int export_kineto(const char *dir, int argc, char **argv) {
    if (argc != 1) {
        fprintf(stderr, "ringsim import: --export-kineto takes one ringsim CSV trace, got %d files\n", argc);
        return RS_EXIT_USAGE;
    }
    rs_err_t err = {{0}};
    rs_trace_t *t = rs_trace_read_csv(argv[0], &err);
    if (!t) {
        fprintf(stderr, "ringsim import: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    int rc = rs_import_export_kineto(t, dir, &err) == 0 ? RS_EXIT_OK : RS_EXIT_FAIL;
    if (rc) fprintf(stderr, "ringsim import: %s\n", err.msg);
    rs_trace_free(t);
    return rc;
}

/* Write the outputs of trace i. */
static int write_outputs(const rs_import_t *im, size_t i, const char *const base[3], rs_err_t *err) {
    const rs_trace_t *t = rs_import_trace(im, i);
    char path[3][4096];
    output_paths(im, i, base, path);
    if (rs_trace_write_csv(t, path[0], err) != 0) return -1;
    if (path[1][0] && rs_trace_write_chrome(t, path[1], err) != 0) return -1;
    if (path[2][0] && rs_import_write_kernels_csv(im, i, path[2], err) != 0) return -1;
    return 0;
}

/* getopt table: own options + the shared problem options. */
static struct option *import_longopts(void) {
    int n_own = (int)(sizeof own_opts / sizeof own_opts[0]), n = 0;
    struct option *all = calloc((size_t)(n_own + rs_cli_common_n_longopts + 1), sizeof *all);
    if (!all) return NULL;
    for (int i = 0; i < n_own; i++) all[n++] = own_opts[i];
    for (int i = 0; i < rs_cli_common_n_longopts; i++)
        if (problem_opt(rs_cli_common_longopts[i].val)) all[n++] = rs_cli_common_longopts[i];
    return all; /* zero terminator from calloc */
}

int rs_cmd_import(int argc, char **argv) {
    struct option *all = import_longopts();
    if (!all) {
        fprintf(stderr, "ringsim import: out of memory\n");
        return RS_EXIT_FAIL;
    }
    rs_cli_common_t c;
    rs_cli_common_init(&c);
    rs_import_opts_t o;
    rs_import_opts_default(&o);
    const char *csv = NULL, *chrome = NULL, *kernels = NULL, *export_dir = NULL;
    bool quiet = false, pass_given = false;
    rs_err_t err = {{0}};
    int opt, rc = RS_EXIT_OK;
    rs_cli_getopt_reset();
    while (rc == RS_EXIT_OK && (opt = getopt_long(argc, argv, "o:qhS:N:L:P:", all, NULL)) != -1) {
        int64_t v;
        switch (opt) {
        case 'o': csv = optarg; break;
        case OPT_CHROME: chrome = optarg; break;
        case OPT_KERNELS: kernels = optarg; break;
        case OPT_FORMAT:
            if (!strcmp(optarg, "auto")) o.format = RS_IMPORT_AUTO;
            else if (!strcmp(optarg, "kineto")) o.format = RS_IMPORT_KINETO;
            else if (!strcmp(optarg, "nsys")) o.format = RS_IMPORT_NSYS;
            else rc = (fprintf(stderr, "ringsim import: --format %s: expected auto, kineto or nsys\n", optarg), RS_EXIT_USAGE);
            break;
        case OPT_KREGEX: o.kernel_regex = optarg; break;
        case OPT_SREGEX: o.step_regex = optarg; break;
        case OPT_NO_RANGES: o.use_ranges = false; break;
        case OPT_OCC:
            if (rs_parse_size("--occurrence", optarg, 0, 1 << 20, &v, &err) != 0) rc = RS_EXIT_USAGE;
            o.occurrence = (int)v;
            break;
        case OPT_EXPORT: export_dir = optarg; break;
        case 'q': quiet = true; break;
        case 'h': help(stdout); free(all); return RS_EXIT_OK;
        default: {
            bool known = opt == 'S' || opt == 'N' || opt == 'L' || opt == 'P' || problem_opt(opt);
            int r = known ? rs_cli_common_opt(&c, opt, optarg, &err) : 0;
            if (r < 0) rc = RS_EXIT_USAGE;
            else if (r == 0) rc = (fprintf(stderr, "ringsim import: unknown option '%s' or missing value (see ringsim import --help)\n",
                                           argv[optind - 1]), RS_EXIT_USAGE);
            if (opt == 'N' || opt == RS_OPT_RANKS) o.check_ranks = true;
            if (opt == 'P' || opt == RS_OPT_PASS) pass_given = true;
        }
        }
    }
    free(all);
    if (rc != RS_EXIT_OK) {
        if (err.msg[0]) fprintf(stderr, "ringsim import: %s\n", err.msg);
        return rc;
    }
    if (export_dir) return export_kineto(export_dir, argc - optind, argv + optind);
    if (optind >= argc) {
        fprintf(stderr, "ringsim import: expected trace files or directories (see ringsim import --help)\n");
        return RS_EXIT_USAGE;
    }
    if (!csv) {
        fprintf(stderr, "ringsim import: -o/--trace FILE is required (the imported trace, CSV)\n");
        return RS_EXIT_USAGE;
    }
    if (c.n_layouts != 1) {
        fprintf(stderr, "ringsim import: --layout: give the one layout the traced run used\n");
        return RS_EXIT_USAGE;
    }
    o.problem = c.problem;
    o.problem.layout = c.layouts[0];
    if (pass_given) {
        o.n_passes = c.n_passes;
        for (int i = 0; i < c.n_passes; i++) o.passes[i] = c.passes[i];
    }
    rs_import_t *im = rs_import_read((const char *const *)(argv + optind), (size_t)(argc - optind), &o, &err);
    if (!im) {
        fprintf(stderr, "ringsim import: %s\n", err.msg);
        return RS_EXIT_USAGE;
    }
    const char *const base[3] = {csv, chrome, kernels};
    if (check_outputs(im, base, argv + optind, argc - optind) != 0) {
        rs_import_free(im);
        return RS_EXIT_USAGE;
    }
    size_t n = rs_import_n_traces(im);
    for (size_t i = 0; i < n && rc == RS_EXIT_OK; i++)
        if (write_outputs(im, i, base, &err) != 0) {
            fprintf(stderr, "ringsim import: %s\n", err.msg);
            rc = RS_EXIT_FAIL;
        }
    const rs_import_info_t *info = rs_import_info(im);
    if (rc == RS_EXIT_OK && !quiet) {
        printf("ringsim import: %s, %zu file(s), N = %d ranks%s%s; ring passes found: %d forward, %d backward; steps from %s\n",
               rs_import_format_name(info->format), info->n_files, info->n_ranks, info->gpu_name[0] ? ", GPU " : "",
               info->gpu_name, info->occurrences[RS_PASS_FORWARD], info->occurrences[RS_PASS_BACKWARD],
               info->ranges ? "step ranges" : "the launch order");
        for (size_t i = 0; i < n; i++) {
            const rs_trace_t *t = rs_import_trace(im, i);
            char path[4096], buf[32];
            rs_problem_t p;
            if (rs_trace_problem(t, &p, &err) != 0) continue;
            rs_cli_entry_path(path, sizeof path, csv, &p, n > 1);
            printf("  %s ring pass %d: %zu events, %s kernels, makespan %s -> %s\n", rs_pass_name(p.pass), o.occurrence,
                   rs_trace_count(t), rs_trace_get_meta(t, "import.kernels"), rs_fmt_time(rs_trace_makespan(t), buf, sizeof buf), path);
        }
    }
    rs_import_free(im);
    return rc;
}
