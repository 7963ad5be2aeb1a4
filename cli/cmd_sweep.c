/* cmd_sweep.c - `ringsim sweep`: the model, the simulator and (when asked) the real execution over
 * ranges of B, N, S, layouts, passes and hardware profiles; one CSV (the sweep study,
 * studies/study_sweep.h). With fabric knobs (--nics, --oversub, --fabric, --order, --tp ...) every
 * such point is a job of concurrent rings simulated over the knobs' lists instead (the contention
 * study, studies/study_contention.h), with its figure (--figure). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>

#include "cli.h"
#include "exec_launch.h"
#include "study_sweep.h"
#ifdef RINGSIM_HAVE_SIM
#include "job_opts.h"
#endif

static int parse_block(void *dst, const char *arg, rs_err_t *err) {
    rs_sweep_spec_t *s = &((rs_cli_sweep_t *)dst)->spec;
    return (s->n_blocks = rs_sweep_parse_range("--block", arg, 1, (int64_t)UINT32_MAX, s->blocks, RS_SWEEP_MAX_VALUES, err)) < 0 ? -1 : 0;
}

static int parse_ranks(void *dst, const char *arg, rs_err_t *err) {
    rs_sweep_spec_t *s = &((rs_cli_sweep_t *)dst)->spec;
    return (s->n_ranks = rs_sweep_parse_range("--ranks", arg, 1, INT32_MAX, s->ranks, RS_SWEEP_MAX_VALUES, err)) < 0 ? -1 : 0;
}

static int parse_seq(void *dst, const char *arg, rs_err_t *err) {
    rs_sweep_spec_t *s = &((rs_cli_sweep_t *)dst)->spec;
    return (s->n_seqs = rs_sweep_parse_range("--seq", arg, 1, (int64_t)UINT32_MAX, s->seqs, RS_SWEEP_MAX_VALUES, err)) < 0 ? -1 : 0;
}

static int parse_profiles(void *dst, const char *arg, rs_err_t *err) {
    rs_sweep_spec_t *spec = &((rs_cli_sweep_t *)dst)->spec;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", arg);
    spec->n_profiles = 0;
    for (char *s = buf, *e; s; s = e) {
        e = strchr(s, ',');
        if (e) *e++ = 0;
        if (!*s || spec->n_profiles == RS_SWEEP_MAX_PROFILES)
            return rs_errf(err, "--profile %s: expected 1 to %d comma-separated names", arg, RS_SWEEP_MAX_PROFILES);
        snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%.511s", s);
    }
    return 0;
}

#define O(field) offsetof(rs_cli_sweep_t, field)
static const rs_opt_t own_opts[] = {
    {"output", 'o', "FILE", "-", "the CSV (written atomically; \"-\" = stdout)", RS_ARG_OUT, O(out_path), 0, 0, NULL, NULL,
     "Sweep:"},
    {"block", 0, "RANGE", "none", "B = tokens per rank; S = B * N (excludes --seq ranges)", RS_ARG_CUSTOM, 0, 0, 0, NULL,
     parse_block, NULL},
    {"ranks", 'N', "RANGE", "8", "ring sizes", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_ranks, NULL},
    {"seq", 'S', "RANGE", "128K", "total tokens (with --block: not allowed)", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_seq, NULL},
    {"profile", 'p', "A,B,C", "h100-sxm",
     "hardware profiles, one series each; NAME:gG sets G devices\nper node (h100-sxm:g1: every hop over the inter-node tier)",
     RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_profiles, NULL},
    {"sim", 0, NULL, "--sim", "simulate each point with SimGrid (when built)", RS_ARG_TRUE, O(spec.run_sim), 0, 0, NULL, NULL,
     NULL},
    {"no-sim", 0, NULL, NULL, "do not simulate", RS_ARG_FALSE, O(spec.run_sim), 0, 0, NULL, NULL, NULL},
    {"exec", 0, NULL, "off", "also run `ringsim exec` per point (a subprocess)", RS_ARG_TRUE, O(spec.run_exec), 0, 0, NULL,
     NULL, NULL},
    {"exec-launch", 0, "L", "mpirun", "how ringsim exec starts its ranks", RS_ARG_CHOICE, O(spec.exec_launch), 0, 0,
     "mpirun|threads", NULL, NULL},
    {"exec-bin", 0, "PATH", "this one", "the ringsim binary for --exec", RS_ARG_STRING, O(spec.exec_cmd), 0, 0, NULL, NULL,
     NULL},
    {"exec-max-ranks", 0, "N", "8", "skip --exec points with more ranks", RS_ARG_SIZE, O(spec.exec_max_ranks), 1, 1024, NULL,
     NULL, NULL},
    {"quiet", 'q', NULL, "off", "no progress on stderr (it shows only on a terminal)", RS_ARG_TRUE, O(quiet), 0, 0, NULL, NULL, NULL},
    {"figure", 0, "FILE", "none", "with fabric knobs: efficiency vs NICs per node (or ratio),\n.png/.pdf/.svg (needs -o FILE.csv)",
     RS_ARG_OUT, O(figure), 0, 0, NULL, NULL, NULL},
};
#undef O



#ifdef RINGSIM_HAVE_SIM
/* Every sweep point a case, the job's knobs swept on each: the contention study. Returns an exit code. */
static int sweep_jobs(rs_cli_sweep_t *so, const char *cmdline, rs_err_t *err) {
    rs_cli_job_t *jo = &so->job;
    rs_sweep_spec_t *spec = &so->spec;
    if (spec->run_exec) return rs_errf(err, "--exec runs one ring: not with fabric knobs"), RS_EXIT_USAGE;
    const size_t n = rs_sweep_count(spec);
    rs_sweep_point_t *pts = calloc(n, sizeof *pts);
    rs_contention_case_t *cases = calloc(n, sizeof *cases);
    int rc = pts && cases ? RS_EXIT_OK : (rs_errf(err, "out of memory"), RS_EXIT_FAIL);
    if (rc == RS_EXIT_OK && rs_sweep_points_setup(spec, pts, err) != 0) rc = RS_EXIT_USAGE;
    for (size_t i = 0; rc == RS_EXIT_OK && i < n; i++) {
        snprintf(cases[i].profile, sizeof cases[i].profile, "%s", pts[i].profile);
        cases[i].problem = pts[i].problem;
        cases[i].machine = pts[i].machine;
    }
    if (rc == RS_EXIT_OK && rs_cli_job_background(jo, &cases[0].problem, err) != 0) rc = RS_EXIT_USAGE;
    if (rc == RS_EXIT_OK) {
        rs_contention_in_t in = {cases, n, &jo->k, so->out_path, so->figure, cmdline, !so->quiet, true};
        rs_contention_out_t out = {NULL, 0, 0, false};
        rs_estimate_t e; /* every job point, one after the other, against --max-time and --max-memory */
        if (rs_contention_estimate(&in, &e, err) != 0 || rs_limits_check("this sweep", &e, &spec->common.limits, err) != 0)
            rc = RS_EXIT_USAGE;
        else
            rc = rs_study_contention(&in, &out, err) == 0 ? RS_EXIT_OK : rs_err_exit_code(err);
        if (rc == RS_EXIT_OK && !so->quiet && !out.worker && strcmp(so->out_path, "-") != 0)
            fprintf(stderr, "ringsim sweep: %zu job points written to %s%s%s\n", out.done, so->out_path,
                    so->figure ? ", figure " : "", so->figure ? so->figure : "");
        free(out.points);
    }
    free(pts);
    free(cases);
    return rc;
}
#endif

int rs_cli_sweep_groups(rs_cli_sweep_t *so, rs_opt_group_t *groups) {
    memset(so, 0, sizeof *so);
    rs_sweep_spec_t *spec = &so->spec;
    rs_setup_default(&spec->common);
    spec->run_sim = true;
    spec->exec_max_ranks = 8;
    so->out_path = "-";
    int n = 0;
    groups[n++] = RS_OPT_GROUP(own_opts, so);
#ifdef RINGSIM_HAVE_SIM
    rs_cli_job_init(&so->job);
    groups[n++] = rs_cli_job_group(&so->job, "cp");
#endif
    groups[n++] = rs_cli_shared_group(&spec->common, "seq,ranks,profile");
    return n;
}

int rs_cmd_sweep(int argc, char **argv) {
    rs_cli_sweep_t *so = malloc(sizeof *so);
    if (!so) return RS_EXIT_FAIL;
    rs_sweep_spec_t *spec = &so->spec;
    rs_opt_group_t groups[RS_CLI_SWEEP_GROUPS];
    const int n_groups = rs_cli_sweep_groups(so, groups);
    int rc = rs_cli_run_parse("sweep", argc, argv, groups, n_groups, true);
    if (rc >= 0) {
        free(so);
        return rc;
    }
    rc = RS_EXIT_OK;
    rs_err_t err = {0};
    rs_sweep_point_t *pts = NULL;
    const char *out_path = so->out_path;
    const bool quiet = so->quiet;
    char cmdline[2048];
    rs_cli_command_line(cmdline, sizeof cmdline, argc, argv);
    rs_io_plan_t io;
    rs_io_init(&io);
    for (int i = 0; i < spec->n_profiles; i++) { /* NAME or FILE, maybe with :gG */
        const char *pr = spec->profiles[i], *colon = strrchr(pr, ':');
        rs_io_input(&io, "--profile", pr, false);
        if (colon) {
            char head[sizeof spec->profiles[0]];
            snprintf(head, sizeof head, "%.*s", (int)(colon - pr), pr);
            rs_io_input(&io, "--profile", head, false);
        }
    }
    if ((rc = rs_cli_check_files("sweep", groups, n_groups, &io, NULL, rs_exec_env_rank() <= 0)) >= 0) goto done;
    rc = RS_EXIT_OK;
    if (spec->n_blocks && spec->n_seqs) {
        fprintf(stderr, "ringsim sweep: --block and --seq: give one (S = B * N)\n");
        rc = RS_EXIT_USAGE;
        goto done;
    }
#ifdef RINGSIM_HAVE_SIM
    if (groups[1].seen) {
        rc = sweep_jobs(so, cmdline, &err);
        if (rc != RS_EXIT_OK && rs_exec_env_rank() <= 0) fprintf(stderr, "ringsim sweep: %s\n", err.msg);
        goto done;
    }
#endif
    if (so->figure) {
        fprintf(stderr, "ringsim sweep: --figure draws a sweep of fabric knobs (--nics, --oversub, --fabric, --order, --tp)\n");
        rc = RS_EXIT_USAGE;
        goto done;
    }
    rs_sweep_in_t in = {spec, out_path, cmdline, !quiet, true, true, true};
    rs_sweep_out_t out;
    rc = rs_study_sweep(&in, &out, &err) == 0 ? RS_EXIT_OK : rs_err_exit_code(&err);
    pts = out.points;
    if (rc != RS_EXIT_OK && err.msg[0] && rs_exec_env_rank() <= 0) fprintf(stderr, "ringsim sweep: %s\n", err.msg);
    if (out.worker) goto done; /* rank 0 wrote the CSV and reports */
    const bool to_file = strcmp(out_path, "-") != 0;
    if ((out.interrupted || rc == RS_EXIT_FAIL) && out.kept[0] && strcmp(out.kept, out_path) != 0) /* beside it */
        fprintf(stderr, "ringsim sweep: %s: %zu of %zu points kept in %s (%s is left as it was)\n",
                out.interrupted ? "interrupted" : "failed", out.done, out.n, out.kept, out_path);
    else if (out.interrupted && (!to_file || out.kept[0])) /* (none kept: the commit's refusal said why) */
        fprintf(stderr, "ringsim sweep: interrupted: %zu of %zu points kept%s%s\n", out.done, out.n, to_file ? " in " : "",
                to_file ? out_path : "");
    if (!quiet && rc == RS_EXIT_OK) {
        for (size_t i = 0; i < out.done; i++) {
            bool first = true;
            for (size_t j = 0; j < i; j++)
                if (!strcmp(pts[j].series, pts[i].series)) first = false;
            if (!first) continue;
            double bp = rs_sweep_crossover(pts, out.done, pts[i].series, 0);
            double bs = rs_sweep_crossover(pts, out.done, pts[i].series, 1);
            double be = rs_sweep_crossover(pts, out.done, pts[i].series, 2);
            char c[5][24]; /* "-": not run, or no crossing in the swept range */
            fprintf(stderr, "%s: B_min = %s, B* = %s, crossover in the data (tokens; '-': not run or not reached): model %s, "
                            "sim %s, exec %s\n",
                    pts[i].series, rs_fmt_num(pts[i].closed.b_min_tokens, "%.1f", c[0], 24),
                    rs_fmt_num(pts[i].closed.b_star_tokens, "%.1f", c[1], 24), rs_fmt_num(bp, "%.1f", c[2], 24),
                    rs_fmt_num(bs, "%.1f", c[3], 24), rs_fmt_num(be, "%.1f", c[4], 24));
        }
        if (to_file) fprintf(stderr, "ringsim sweep: %zu points written to %s\n", out.done, out_path);
    }
done:
    free(pts);
    free(so);
    return rc;
}
