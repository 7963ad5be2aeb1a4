/* cmd_validate.c - `ringsim validate`: calibrate this machine, then for a sweep of B across the
 * overlap threshold predict (the model's critical-path walk, and the SimGrid simulator when built)
 * and measure (the CPU executor over MPI) the same schedule, and compare them (traces/compare.h):
 * per B the typical T_comp, T_comm, T_step and the makespan; over the sweep the per-(rank, step)
 * errors (median, p95, max) and the crossover B where T_comm overtakes T_comp, predicted vs
 * measured. Runs as one MPI job (it re-starts itself under mpirun), so calibration and measurement
 * see the same processes, cores and transport. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#ifdef RINGSIM_HAVE_EXEC
#include "study_validate.h"
#include "output.h"
#include "subprocess.h"

static int parse_blocks(void *dst, const char *arg, rs_err_t *err) {
    rs_validate_in_t *j = dst;
    return rs_cli_parse_sizes(&(rs_cli_sizes_t){"--blocks", RS_CLI_BLOCK_RANGE, 2, RS_VALIDATE_MAX_B}, arg, j->b, &j->n_b, err);
}

static int parse_timeout(void *dst, const char *arg, rs_err_t *err) {
    rs_validate_in_t *j = dst;
    if (rs_parse_double("--timeout", arg, 0.001, 1e6, &j->exec.timeout_s, err) < 0) return -1;
    j->calib.timeout_s = j->exec.timeout_s; /* calibration's waits too */
    return 0;
}

static int parse_ranks_list(void *dst, const char *arg, rs_err_t *err) {
    rs_validate_in_t *j = dst;
    return rs_cli_parse_sizes(&(rs_cli_sizes_t){"--ranks-list", 2, 4096, 1, 8}, arg, j->ranks_list, &j->n_ranks_list, err);
}

static int parse_mask(void *dst, const char *arg, rs_err_t *err) {
    rs_validate_in_t *j = dst;
    if (!strcmp(arg, "full")) j->n_masks = 1, j->masks_causal[0] = false;
    else if (!strcmp(arg, "causal")) j->n_masks = 1, j->masks_causal[0] = true;
    else if (!strcmp(arg, "both")) j->n_masks = 2, j->masks_causal[0] = false, j->masks_causal[1] = true;
    else return rs_errf(err, "--mask %s: expected full, causal or both", arg);
    return 0;
}

#define O(field) offsetof(rs_validate_in_t, field)
static const rs_opt_t own_opts[] = {
    {"blocks", 0, "LIST", "8,16,...,1024", "B sweep, comma list (K suffix)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_blocks,
     "Validation:"},
    {"calibrated", 0, "FILE", "calibrate now", "use this calibrated profile instead of calibrating now", RS_ARG_IN,
     O(calibrated), 0, 0, NULL, NULL, NULL},
    {"save-profile", 0, "FILE", "none", "write the profile the predictions used", RS_ARG_OUT, O(save_profile), 0, 0, NULL,
     NULL, NULL},
    {"min-time", 0, "S", "0.05", "calibration time per block size", RS_ARG_DOUBLE, O(calib.min_time_s), 0, 60, NULL, NULL,
     NULL},
    {"rounds", 0, "R", "5",
     "rounds over the sweep; each B is measured --reps times per\nround and the medians are taken over all rounds, so a burst "
     "of\nload elsewhere hits every B a little",
     RS_ARG_INT, O(rounds), 1, 1000, NULL, NULL, NULL},
    {"reps", 0, "N", "7", "measured repetitions per B and round", RS_ARG_INT, O(exec.reps), 1, 10000, NULL, NULL, NULL},
    {"warmup", 0, "N", "1", "unmeasured repetitions per B", RS_ARG_INT, O(exec.warmup), 0, 10000, NULL, NULL, NULL},
    {"no-sim", 0, NULL, "sim when built", "skip the simulator", RS_ARG_TRUE, O(no_sim), 0, 0, NULL, NULL, NULL},
    {"csv", 0, "FILE", "none", "per-(configuration, B) rows as CSV", RS_ARG_OUT, O(csv), 0, 0, NULL, NULL, NULL},
    {"mask", 0, "M", "--causal's", "full | causal | both: the masks to validate (overrides --causal)", RS_ARG_CUSTOM, 0, 0, 0,
     NULL, parse_mask, NULL},
    {"ranks-list", 0, "LIST", "--ranks", "validate at each N of the list (e.g. 2,3,4), one job per N, each calibrated\non its "
     "own ranks; one held-out table of all at the end", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_ranks_list, NULL},
    {"summary", 0, "FILE", "none", "the held-out table (one row per configuration) as CSV", RS_ARG_OUT, O(summary_csv), 0,
     0, NULL, NULL, NULL},
    {"trace-dir", 0, "DIR", "none", "write measured and predicted traces per B", RS_ARG_OUTDIR, O(trace_dir), 0, 0, NULL, NULL,
     NULL},
    {"timeout", 0, "S", "60", "give up a wait after S seconds", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_timeout, NULL},
    {"from-trace", 0, "FILE", "measure", "predict this trace and the FILEs after the options\n(ringsim traces, e.g. from ringsim "
     "import) instead", RS_ARG_STRING, O(from_trace), 0, 0, NULL, NULL, NULL},
};
#undef O

/* PATH with "-N<n>" before its extension (a per-N output of --ranks-list). */
static void per_n_path(const char *path, int64_t n, char *buf, size_t len) {
    const char *dot = strrchr(path, '.'), *sl = strrchr(path, '/');
    if (!dot || (sl && dot < sl)) dot = path + strlen(path);
    snprintf(buf, len, "%.*s-N%lld%s", (int)(dot - path), path, (long long)n, dot);
}

/* The per-N outputs of one child of --ranks-list, held by this process until the run ends: --csv and
 * --save-profile reserved beside their targets (rs_file_reserve: the child writes the temporary, this
 * run commits it), --trace-dir a folder staged beside its target (rs_out_stage_dir). All are
 * committed together by rs_out_finish, or removed when the run fails or a signal ends it. */
typedef struct {
    rs_file_t csv, profile;
    char stage[1200];
} per_n_t;

/* A run of --ranks-list: what every child's command line repeats, and where the children's held-out
 * rows gather. */
typedef struct {
    const rs_validate_in_t *j;      /* the study as parsed */
    int argc;                       /* this command's line: the child repeats its options */
    char **argv;
    char self[1024];                /* this executable */
    char dir[1024];                 /* the run's temporary folder: the children's --summary files */
    rs_validate_row_t *rows;        /* the held-out rows of the children so far */
    int max_rows, n_rows;
} ranks_run_t;

/* The child's command line for N: this command's options, then --ranks N, the temporary --summary
 * in r->dir and the per-N outputs' temporaries (they come last: the child's values). Returns 0 or -1
 * with err. */
static int child_args(const ranks_run_t *r, int64_t n, char **args, char extra[6][1300], per_n_t *o, rs_err_t *err) {
    const rs_validate_in_t *j = r->j;
    const char *dir = r->dir;
    int a = 0, x = 0;
    char path[1200];
    args[a++] = (char *)r->self, args[a++] = "validate";
    for (int q = 1; q < r->argc; q++) args[a++] = r->argv[q];
    snprintf(extra[x], sizeof extra[0], "--ranks-list=%lld", (long long)n), args[a++] = extra[x++];
    snprintf(extra[x], sizeof extra[0], "--ranks=%lld", (long long)n), args[a++] = extra[x++];
    snprintf(extra[x], sizeof extra[0], "--summary=%s/N%lld.csv", dir, (long long)n), args[a++] = extra[x++];
    if (j->csv) {
        per_n_path(j->csv, n, path, sizeof path);
        if (rs_file_reserve(&o->csv, path, err) != 0) return -1;
        snprintf(extra[x], sizeof extra[0], "--csv=%s", o->csv.tmp_path), args[a++] = extra[x++];
    }
    if (j->save_profile) {
        per_n_path(j->save_profile, n, path, sizeof path);
        if (rs_file_reserve(&o->profile, path, err) != 0) return -1;
        snprintf(extra[x], sizeof extra[0], "--save-profile=%s", o->profile.tmp_path), args[a++] = extra[x++];
    }
    if (j->trace_dir) {
        snprintf(path, sizeof path, "%.1000s/N%lld", j->trace_dir, (long long)n);
        if (rs_out_stage_dir(path, o->stage, sizeof o->stage, err) != 0) return -1;
        snprintf(extra[x], sizeof extra[0], "--trace-dir=%s", o->stage), args[a++] = extra[x++];
    }
    args[a] = NULL;
    return 0;
}

/* One child of --ranks-list: `ringsim validate` at N, its held-out rows appended to r's. Returns the
 * exit code (the child's when it failed; its message is its own). */
static int validate_one_n(ranks_run_t *r, int64_t n) {
    char **args = calloc((size_t)r->argc + 10, sizeof *args);
    static char extra[6][1300];
    per_n_t o;
    memset(&o, 0, sizeof o);
    rs_err_t err = {0};
    int rc = args ? RS_EXIT_OK : (rs_errf(&err, "out of memory"), RS_EXIT_FAIL);
    if (rc == RS_EXIT_OK && child_args(r, n, args, extra, &o, &err) != 0) rc = RS_EXIT_FAIL;
    if (rc == RS_EXIT_OK) {
        rs_spawn_t sp;
        rs_spawn_init(&sp);
        sp.argv = args;
        rs_child_status_t st;
        char path[1200];
        snprintf(path, sizeof path, "%s/N%lld.csv", r->dir, (long long)n);
        if (rs_spawn_run(&sp, "ringsim validate", 0, &st, &err) != 0) rc = RS_EXIT_FAIL;
        else if (st.exit_code != 0) rc = st.exit_code > 0 ? st.exit_code : RS_EXIT_FAIL, err.msg[0] = 0;
        else if (rs_validate_read_summary_csv(path, r->rows, r->max_rows, &r->n_rows, &err) < 0) rc = RS_EXIT_FAIL;
    }
    /* committed with the run (rs_out_finish), or removed: the reserved files on failure here, all else by the run */
    if (o.csv.tmp_path && (rc != RS_EXIT_OK ? (rs_file_abort(&o.csv), 0) : rs_file_commit(&o.csv, &err)) != 0) rc = RS_EXIT_FAIL;
    if (o.profile.tmp_path && (rc != RS_EXIT_OK ? (rs_file_abort(&o.profile), 0) : rs_file_commit(&o.profile, &err)) != 0)
        rc = RS_EXIT_FAIL;
    if (err.msg[0]) fprintf(stderr, "ringsim validate: %s\n", err.msg);
    free(args);
    return rc;
}

/* --ranks-list: `ringsim validate` once per N as a subprocess (its own job: mpirun or threads, its own
 * calibration on its ranks), the same options plus --ranks N and a --summary in a temporary folder of
 * this run (output.h: named with the PID, removed with the run, on a signal, or by a later run once
 * this PID is gone); per-N outputs (--csv, --save-profile: "-N3" before the extension; --trace-dir: a
 * sub-directory N3) committed together at the end, none when any N fails; then one held-out table of
 * every N (and --summary). Returns the exit code. */
static int validate_ranks_list(const rs_validate_in_t *j, int argc, char **argv) {
    static rs_validate_row_t rows[8 * RS_VALIDATE_MAX_CFG];
    ranks_run_t r = {.j = j, .argc = argc, .argv = argv, .rows = rows, .max_rows = 8 * RS_VALIDATE_MAX_CFG};
    rs_err_t err = {0};
    const ssize_t k = readlink("/proc/self/exe", r.self, sizeof r.self - 1);
    if (k <= 0) rs_errf(&err, "--ranks-list: cannot find this executable (/proc/self/exe)");
    else r.self[k] = 0;
    if (k <= 0 || rs_out_tmpdir("validate", r.dir, sizeof r.dir, &err) != 0)
        return fprintf(stderr, "ringsim validate: %s\n", err.msg), RS_EXIT_FAIL;
    int rc = RS_EXIT_OK;
    for (int i = 0; i < j->n_ranks_list && rc == RS_EXIT_OK; i++) rc = validate_one_n(&r, j->ranks_list[i]);
    rs_out_tmpdir_remove(r.dir);
    if (rc != RS_EXIT_OK) return rc;
    printf("# ringsim validate --ranks-list: every N\n");
    rs_validate_print_summary(stdout, rows, r.n_rows);
    rs_file_t f;
    if (j->summary_csv) {
        if (rs_file_open(&f, j->summary_csv, &err) != 0) return fprintf(stderr, "ringsim validate: %s\n", err.msg), RS_EXIT_FAIL;
        rs_validate_write_summary_csv(f.fp, rows, r.n_rows);
        if (rs_file_commit(&f, &err) < 0) return fprintf(stderr, "ringsim validate: %s\n", err.msg), RS_EXIT_FAIL;
    }
    return RS_EXIT_OK;
}

int rs_cmd_validate(int argc, char **argv) {
    rs_cli_exec_cmd_t e;
    rs_validate_in_t j;
    rs_validate_defaults(&j);
    j.n_masks = 0; /* --mask, or the problem's --causal after parsing */
    int rc = rs_cli_exec_parse("validate", argc, argv, RS_OPT_GROUP(own_opts, &j),
                               (rs_cli_measure_t){&j.backend, &j.problem, &j.dtype, &j.job}, &e);
    if (rc >= 0) return rc;
    rs_err_t err = {0};
    if (j.from_trace) {
        const char *paths[RS_TFIT_MAX_TRACES];
        rs_tfit_opts_t o;
        if (rs_cli_from_trace_opts(&e, j.from_trace, "calibrated,save-profile,trace-dir", paths, &o, &err) < 0)
            return rs_cli_usage("validate", true, &err);
        if ((rc = rs_cli_check_trace_inputs("validate", &e, &o)) >= 0) return rc;
        if (rs_study_validate_from_trace(&(rs_tval_in_t){&o, j.calibrated, j.save_profile, j.trace_dir, stdout}, &err) == 0)
            return RS_EXIT_OK;
        fprintf(stderr, "ringsim validate: %s\n", err.msg);
        return rs_err_exit_code(&err);
    }
    if (optind < argc) {
        rs_errf(&err, "unexpected argument '%s' (trace files go with --from-trace)", argv[optind]);
        return rs_cli_usage("validate", e.loud, &err);
    }
    /* the configurations: every layout x pass asked for (--layout all, --pass both) */
    j.n_layouts = e.c.n_layouts, j.n_passes = e.c.n_passes;
    if (j.n_masks == 0) j.n_masks = 1, j.masks_causal[0] = e.c.problem.causal;
    if (j.n_ranks_list >= 1 && e.launcher_size <= 0) e.c.problem.n_ranks = j.ranks_list[0]; /* (under a launcher: its size) */
    memcpy(j.layouts, e.c.layouts, sizeof j.layouts);
    memcpy(j.passes, e.c.passes, sizeof j.passes);
    /* the problem and the hardware options: every B valid before any rank starts */
    if (!err.msg[0] && (rc = rs_cli_check_files("validate", e.groups, 3, &(rs_io_plan_t){0}, NULL, e.loud)) >= 0) return rc;
    if (err.msg[0] || rs_cli_exec_finish(&e, j.b, j.n_b, &err) < 0 ||
        rs_validate_finish(&j, &err) < 0)
        return rs_cli_usage("validate", e.loud, &err);
    if (j.n_ranks_list > 1 && e.launcher_size <= 0) return validate_ranks_list(&j, argc, argv);
    return rs_study_validate(&j, &err) == 0 ? RS_EXIT_OK : rs_err_exit_code(&err); /* the ranks printed what failed */
}

#endif
