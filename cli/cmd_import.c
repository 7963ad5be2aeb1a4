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
#include "stats.h"
#include "trace.h"

/* import's own options. */
typedef struct {
    rs_import_opts_t o;                     /* how to read */
    const char *csv, *chrome, *kernels;     /* outputs */
    const char *export_dir;                 /* --export-kineto */
    bool quiet;                             /* -q */
    char role_re[RS_ROLE_COUNT][2048];      /* --role-regex ROLE=RE, several joined with | */
} import_cli_t;

/* --role-regex ROLE=RE (repeatable): RE added to ROLE's names. */
static int parse_role_regex(void *dst, const char *arg, rs_err_t *err) {
    import_cli_t *ic = dst;
    const char *eq = strchr(arg, '=');
    char role[16];
    rs_role_t r;
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof role || !eq[1])
        return rs_errf(err, "--role-regex %s: expected ROLE=RE with ROLE attn, merge, cast or other", arg);
    memcpy(role, arg, (size_t)(eq - arg));
    role[eq - arg] = '\0';
    if (rs_role_parse(role, &r) != 0) return rs_errf(err, "--role-regex %s: expected ROLE attn, merge, cast or other, got '%s'", arg, role);
    char *b = ic->role_re[r];
    const size_t used = strlen(b), need = strlen(eq + 1) + (used ? used + 5 : 0);
    if (need >= sizeof ic->role_re[r]) return rs_errf(err, "--role-regex %s: the patterns of role %s exceed %zu characters", arg, role, sizeof ic->role_re[r] - 1);
    if (used) { /* "(A)|(B)" in place: the check above keeps it inside the buffer */
        const size_t add = strlen(eq + 1);
        memmove(b + 1, b, used);
        b[0] = '(';
        memcpy(b + 1 + used, ")|(", 3);
        memcpy(b + 4 + used, eq + 1, add);
        memcpy(b + 4 + used + add, ")", 2);
    } else {
        memcpy(b, eq + 1, strlen(eq + 1) + 1);
    }
    ic->o.role_regex[r] = b;
    return 0;
}

/* --window T0:T1 (seconds from the traces' first kernel). */
static int parse_window(void *dst, const char *arg, rs_err_t *err) {
    rs_import_opts_t *o = &((import_cli_t *)dst)->o;
    const char *c = strchr(arg, ':');
    char a[64];
    if (!c || c == arg || (size_t)(c - arg) >= sizeof a)
        return rs_errf(err, "--window %s: expected T0:T1, seconds from the traces' first kernel (e.g. 0.5:0.75)", arg);
    memcpy(a, arg, (size_t)(c - arg));
    a[c - arg] = '\0';
    if (rs_parse_double("--window T0", a, 0, 1e9, &o->window_s[0], err) != 0 || rs_parse_double("--window T1", c + 1, 0, 1e9, &o->window_s[1], err) != 0)
        return -1;
    if (o->window_s[1] <= o->window_s[0]) return rs_errf(err, "--window %s: expected T0 < T1", arg);
    return 0;
}

static int parse_format(void *dst, const char *arg, rs_err_t *err) {
    rs_import_opts_t *o = &((import_cli_t *)dst)->o;
    if (!strcmp(arg, "auto")) o->format = RS_IMPORT_AUTO;
    else if (!strcmp(arg, "kineto")) o->format = RS_IMPORT_KINETO;
    else if (!strcmp(arg, "nsys")) o->format = RS_IMPORT_NSYS;
    else if (!strcmp(arg, "rocprof")) o->format = RS_IMPORT_ROCPROF;
    else return rs_errf(err, "--format %s: expected auto, kineto, nsys or rocprof", arg);
    return 0;
}

#define O(field) offsetof(import_cli_t, field)
static const rs_opt_t own_opts[] = {
    {"trace", 'o', "FILE", "required", "the imported trace, CSV (with --pass both: FILE-LAYOUT-PASS.csv)", RS_ARG_OUT,
     O(csv), 0, 0, NULL, NULL, "options:"},
    {"chrome", 0, "FILE", "none", "also as Chrome/Perfetto JSON", RS_ARG_OUT, O(chrome), 0, 0, NULL, NULL, NULL},
    {"kernels", 0, "FILE", "none", "the kernels behind every event, CSV", RS_ARG_OUT, O(kernels), 0, 0, NULL, NULL, NULL},
    {"format", 0, "F", "auto", "auto, kineto, nsys or rocprof", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_format, NULL},
    {"kernel-regex", 0, "RE", "none",
     "more attention kernels (POSIX ERE on the demangled name;\nbackward when the name has bwd/backward/bprop/grad)",
     RS_ARG_STRING, O(o.kernel_regex), 0, 0, NULL, NULL, NULL},
    {"role-regex", 0, "ROLE=RE", "none",
     "more kernels of ROLE (attn, merge, cast, other), POSIX ERE;\nrepeatable", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_role_regex, NULL},
    {"group", 0, "G", "the p2p one", "the ring's process group: its name or ranks (0,2,4,6 or 0-7);\ndefault the group with the most p2p kernels",
     RS_ARG_STRING, O(o.group), 0, 0, NULL, NULL, NULL},
    {"profiler-step", 0, "N", "all", "only kernels launched in ProfilerStep#N", RS_ARG_INT, O(o.profiler_step), 0, 1 << 30, NULL, NULL, NULL},
    {"window", 0, "T0:T1", "all", "only kernels starting T0..T1 s after the first kernel", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_window, NULL},
    {"layer", 0, "K", "none", "the K-th ring pass of each kind inside the profiler step\n(--profiler-step, else the first holding attention)",
     RS_ARG_INT, O(o.layer), 0, 1 << 20, NULL, NULL, NULL},
    {"step-regex", 0, "RE", RS_IMPORT_STEP_REGEX,
     "step ranges: NVTX / record_function names, case-insensitive,\nlast group = step number", RS_ARG_STRING,
     O(o.step_regex), 0, 0, NULL, NULL, NULL},
    {"no-ranges", 0, NULL, NULL, "ignore step ranges; steps from the launch order", RS_ARG_FALSE, O(o.use_ranges), 0, 0, NULL,
     NULL, NULL},
    {"occurrence", 0, "K", "0", "which ring pass of each kind over the whole trace,\n0 = the first (layers x iterations)", RS_ARG_INT,
     O(o.occurrence), 0, 1 << 20, NULL, NULL, NULL},
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

/* Per step of trace t (N ranks): the medians over its ranks of each role's busy time and of the
 * compute and step events. */
static void print_roles(const rs_trace_t *t, int n_ranks) {
    rs_problem_t p;
    rs_err_t err;
    if (rs_trace_problem(t, &p, &err) != 0 || rs_trace_role_count(t) == 0) return;
    const int n_steps = p.pass == RS_PASS_BACKWARD ? n_ranks + 1 : n_ranks;
    double v[RS_ROLE_COUNT + 2][1024];
    printf("    %4s %10s %10s %10s %10s %10s %10s   (busy time per role; medians over the %d ranks)\n", "step", "attn", "merge", "cast", "other",
           "compute", "step", n_ranks);
    for (int k = 0; k < n_steps; k++) {
        int m = 0;
        for (int r = 0; r < n_ranks && m < 1024; r++, m++) {
            for (int x = 0; x < RS_ROLE_COUNT; x++) {
                const double b = rs_trace_role_busy(t, r, k, p.pass, (rs_role_t)x);
                v[x][m] = b > 0 ? b : 0;
            }
            const long c = rs_trace_find(t, r, k, p.pass, RS_EV_COMPUTE), st = rs_trace_find(t, r, k, p.pass, RS_EV_STEP);
            const rs_event_t *e = rs_trace_events(t);
            v[RS_ROLE_COUNT][m] = c >= 0 ? e[c].end_s - e[c].start_s : 0;
            v[RS_ROLE_COUNT + 1][m] = st >= 0 ? e[st].end_s - e[st].start_s : 0;
        }
        char b[RS_ROLE_COUNT + 2][32];
        for (int x = 0; x < RS_ROLE_COUNT + 2; x++) rs_fmt_time(rs_median(v[x], (size_t)m), b[x], sizeof b[x]);
        printf("    %4d %10s %10s %10s %10s %10s %10s\n", k, b[0], b[1], b[2], b[3], b[4], b[5]);
    }
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
    for (size_t i = 0; rc == RS_EXIT_OK && i < info->n_notes; i++) fprintf(stderr, "ringsim: note: %s\n", info->notes[i]);
    if (rc == RS_EXIT_OK && !quiet) {
        printf("ringsim import: %s, %zu file(s), N = %d ranks%s%s%s%s; ring passes found: %d forward, %d backward; steps from %s\n",
               rs_import_format_name(info->format), info->n_files, info->n_ranks, info->group[0] ? ", group " : "", info->group,
               info->gpu_name[0] ? ", GPU " : "", info->gpu_name, info->occurrences[RS_PASS_FORWARD], info->occurrences[RS_PASS_BACKWARD],
               info->ranges ? "step ranges" : "the launch order");
        for (size_t i = 0; i < n; i++) {
            const rs_trace_t *t = rs_import_trace(im, i);
            char path[4096], buf[32];
            rs_problem_t p;
            if (rs_trace_problem(t, &p, &err) != 0) continue;
            rs_cli_entry_path(path, sizeof path, csv, &p, n > 1);
            printf("  %s ring pass %d: %zu events, %s kernels, makespan %s -> %s\n", rs_pass_name(p.pass), info->occurrence,
                   rs_trace_count(t), rs_trace_get_meta(t, "import.kernels"), rs_fmt_time(rs_trace_makespan(t), buf, sizeof buf), path);
            print_roles(t, info->n_ranks);
        }
    }
    rs_import_free(im);
    return rc;
}
