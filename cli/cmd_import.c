/* cmd_import.c - `ringsim import`: PyTorch-profiler (Kineto) and Nsight Systems traces of a real
 * ring-attention run -> ringsim's trace schema (traces/import.h); and `--export-kineto`, the other
 * direction for a ringsim trace. Rules and capture commands: docs/import.md. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "import.h"
#include "trace.h"

/* import's own options. */
typedef struct {
    rs_import_opts_t o;                     /* how to read */
    const char *csv, *chrome, *kernels;     /* outputs */
    const char *export_dir;                 /* --export-kineto */
    bool quiet;                             /* -q */
} import_cli_t;

static int parse_format(void *dst, const char *arg, rs_err_t *err) {
    rs_import_opts_t *o = &((import_cli_t *)dst)->o;
    if (!strcmp(arg, "auto")) o->format = RS_IMPORT_AUTO;
    else if (!strcmp(arg, "kineto")) o->format = RS_IMPORT_KINETO;
    else if (!strcmp(arg, "nsys")) o->format = RS_IMPORT_NSYS;
    else return rs_errf(err, "--format %s: expected auto, kineto or nsys", arg);
    return 0;
}

#define O(field) offsetof(import_cli_t, field)
static const rs_opt_t own_opts[] = {
    {"trace", 'o', "FILE", "required", "the imported trace, CSV (with --pass both: FILE-LAYOUT-PASS.csv)", RS_ARG_OUT,
     O(csv), 0, 0, NULL, NULL, "options:"},
    {"chrome", 0, "FILE", "none", "also as Chrome/Perfetto JSON", RS_ARG_OUT, O(chrome), 0, 0, NULL, NULL, NULL},
    {"kernels", 0, "FILE", "none", "the kernels behind every event, CSV", RS_ARG_OUT, O(kernels), 0, 0, NULL, NULL, NULL},
    {"format", 0, "F", "auto", "auto, kineto or nsys", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_format, NULL},
    {"kernel-regex", 0, "RE", "none",
     "more attention kernels (POSIX ERE on the demangled name;\nbackward when the name has bwd/backward/bprop/grad)",
     RS_ARG_STRING, O(o.kernel_regex), 0, 0, NULL, NULL, NULL},
    {"step-regex", 0, "RE", RS_IMPORT_STEP_REGEX,
     "step ranges: NVTX / record_function names, case-insensitive,\nlast group = step number", RS_ARG_STRING,
     O(o.step_regex), 0, 0, NULL, NULL, NULL},
    {"no-ranges", 0, NULL, NULL, "ignore step ranges; steps from the launch order", RS_ARG_FALSE, O(o.use_ranges), 0, 0, NULL,
     NULL, NULL},
    {"occurrence", 0, "K", "0", "which ring pass of each kind, 0 = the first", RS_ARG_INT, O(o.occurrence), 0, 1 << 20, NULL,
     NULL, NULL},
    {"export-kineto", 0, "DIR", NULL,
     "instead: write the ringsim CSV trace given as\nDIR/rankR.pt.trace.json (Kineto JSON, as torch.profiler writes it)",
     RS_ARG_OUTDIR, O(export_dir), 0, 0, NULL, NULL, NULL},
    {"quiet", 'q', NULL, NULL, "no summary on stdout", RS_ARG_TRUE, O(quiet), 0, 0, NULL, NULL, NULL},
};
#undef O


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

/* The input files (directories expanded) and, with im, the output paths of every trace into io. */
static void io_files(rs_io_plan_t *io, const rs_import_t *im, const char *const base[3], char **args, int n_args) {
    char **ins = NULL;
    rs_err_t err;
    const long n_in = rs_import_list_files((const char *const *)args, (size_t)n_args, &ins, &err);
    for (long k = 0; k < n_in; k++) rs_io_input(io, "TRACE", ins[k], false), free(ins[k]);
    free(ins);
    static const char *const what[3] = {"--trace", "--chrome", "--kernels"};
    for (size_t i = 0; im && i < rs_import_n_traces(im); i++) {
        char path[3][4096];
        output_paths(im, i, base, path);
        for (int j = 0; j < 3; j++)
            if (path[j][0]) rs_io_output(io, what[j], path[j]);
    }
}

/* Before the import: the options' outputs and the inputs; after it (im): the outputs of every
 * trace (--pass both: FILE-LAYOUT-PASS.csv). Returns -1 to go on or RS_EXIT_USAGE. */
static int check_files(const rs_opt_group_t *groups, const rs_import_t *im, const char *const base[3], char **args, int n_args) {
    rs_io_plan_t io;
    rs_io_init(&io);
    io_files(&io, im, base, args, n_args);
    return rs_cli_check_files("import", groups, im ? 0 : 2, &io, NULL, true);
}

static int export_kineto(const char *dir, int argc, char **argv) {
    if (argc != 1) {
        fprintf(stderr, "ringsim import: --export-kineto takes one ringsim CSV trace, got %d files\n", argc);
        return RS_EXIT_USAGE;
    }
    rs_err_t err = {0};
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

int rs_cmd_import(int argc, char **argv) {
    rs_setup_t c;
    rs_setup_default(&c);
    import_cli_t ic = {0};
    rs_import_opts_default(&ic.o);
    rs_opt_group_t groups[] = {RS_OPT_GROUP(own_opts, &ic), rs_cli_problem_group(&c)};
    int rc = rs_cli_run_parse("import", argc, argv, groups, 2, true);
    if (rc >= 0) return rc;
    rc = RS_EXIT_OK;
    rs_import_opts_t o = ic.o;
    const char *csv = ic.csv, *chrome = ic.chrome, *kernels = ic.kernels, *export_dir = ic.export_dir;
    const bool quiet = ic.quiet, pass_given = rs_cli_given(&groups[1], "pass");
    o.check_ranks = rs_cli_given(&groups[1], "ranks");
    rs_err_t err = {0};
    const char *const base[3] = {csv, chrome, kernels};
    if ((rc = check_files(groups, NULL, base, argv + optind, argc - optind)) >= 0) return rc;
    rc = RS_EXIT_OK;
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
    if ((rc = check_files(groups, im, base, argv + optind, argc - optind)) >= 0) {
        rs_import_free(im);
        return rc;
    }
    rc = RS_EXIT_OK;
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
