/* study_sweep.c - the sweep study (study_sweep.h): points of a range of B, N, S, layouts, passes and
 * profiles, each run by the model, the simulator and (when asked) the CPU executor through the one
 * backend interface, in one process or divided over a launcher's; one CSV (its format:
 * study_sweep_csv.c). */
#include "study_sweep.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "registry.h"
#include "compare.h"
#include "meter.h"
#include "trace.h"
#include "output.h"
#include "spread.h"

/* ------------------------------------------------------------------------------------------------
 * Ranges
 * ---------------------------------------------------------------------------------------------- */
/* One part (what: "START", "STOP", "STEP", "value") of a range option's value text, in [r->min,
 * r->max], the message quoting the whole value: "--block 64:1K:x1: STEP 1: must be in [2, ...]".
 * Returns 0 or -1 with err (bad input). */
static int range_part(const rs_sweep_range_t *r, const char *text, const char *what, const char *part, int64_t *out,
                      rs_err_t *err) {
    rs_err_t e;
    if (rs_parse_size(r->name, part, r->min, r->max, out, &e) == 0) return 0;
    const size_t k = strlen(r->name);
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: %s %s", r->name, text, what,
                   strncmp(e.msg, r->name, k) == 0 && e.msg[k] == ' ' ? e.msg + k + 1 : e.msg);
}

int rs_sweep_range_parse(const rs_sweep_range_t *r, const char *text, rs_err_t *err) {
    const char *name = r->name;
    char buf[256];
    if (strlen(text) >= sizeof buf) return rs_errc(err, RS_ERR_BAD_INPUT, "%s: value too long", name);
    snprintf(buf, sizeof buf, "%s", text);
    if (strchr(buf, ',')) { /* list */
        int n = 0;
        for (char *s = buf, *e; s; s = e) {
            e = strchr(s, ',');
            if (e) *e++ = 0;
            if (n == r->max_out) return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: at most %d values", name, text, r->max_out);
            if (range_part(r, text, "value", s, &r->out[n], err) != 0) return -1;
            n++;
        }
        return n;
    }
    char *c1 = strchr(buf, ':');
    if (!c1) /* the whole value already */
        return rs_parse_size(name, buf, r->min, r->max, &r->out[0], err) ? rs_err_mark(err, RS_ERR_BAD_INPUT) : 1;
    *c1++ = 0;
    char *c2 = strchr(c1, ':');
    if (!c2)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: expected START:STOP:STEP (e.g. 256:64K:x2 or 1K:8K:+1K) or a,b,c", name,
                       text);
    *c2++ = 0;
    int64_t a, b, step;
    if (range_part(r, text, "START", buf, &a, err) || range_part(r, text, "STOP", c1, &b, err)) return -1;
    if (b < a) return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: STOP must be >= START", name, text);
    bool geo = *c2 == 'x' || *c2 == '*';
    if (*c2 == 'x' || *c2 == '*' || *c2 == '+') c2++;
    const rs_sweep_range_t steps = {name, geo ? 2 : 1, INT64_MAX / 4, NULL, 0}; /* a factor of 2 or more, a step of 1 */
    if (range_part(&steps, text, "STEP", c2, &step, err) != 0) return -1;
    int n = 0;
    for (int64_t v = a; v <= b; v = geo ? v * step : v + step) {
        if (n == r->max_out) return rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: more than %d values", name, text, r->max_out);
        r->out[n++] = v;
        if ((geo && v > INT64_MAX / step) || (!geo && v > INT64_MAX - step)) break;
    }
    return n;
}

/* ------------------------------------------------------------------------------------------------
 * Points
 * ---------------------------------------------------------------------------------------------- */
static int n_profiles(const rs_sweep_spec_t *s) { return s->n_profiles ? s->n_profiles : 1; }
static int n_ranks(const rs_sweep_spec_t *s) { return s->n_ranks ? s->n_ranks : 1; }
static int n_sizes(const rs_sweep_spec_t *s) {
    return s->n_blocks ? s->n_blocks : (s->n_seqs ? s->n_seqs : 1);
}

size_t rs_sweep_count(const rs_sweep_spec_t *s) {
    return (size_t)n_profiles(s) * (size_t)s->common.n_layouts * (size_t)s->common.n_passes *
           (size_t)n_ranks(s) * (size_t)n_sizes(s);
}

/* The machine of one profile entry: the shared options with this profile, loaded and built as
 * rs_setup_finish does ("NAME:gG" = the profile with G devices per node, e.g. h100-sxm:g1: every hop
 * crosses nodes); n_max is the largest N of the sweep (perturbation ranks are checked against it). */
static int machine_for(const rs_sweep_spec_t *spec, const char *profile, int64_t n_max, rs_setup_t *c,
                       rs_err_t *err) {
    *c = spec->common;
    snprintf(c->spec.profile, sizeof c->spec.profile, "%s", profile);
    char *g = strstr(c->spec.profile, ":g");
    int rc = 0;
    if (g) {
        *g = 0;
        rs_err_t e;
        if (rs_parse_size("--profile", g + 2, 0, INT32_MAX, &c->spec.gpus_per_node, &e) != 0)
            rc = rs_errf(err, "--profile %s: NAME:gG sets G devices per node, an integer in [0, %d]; got '%s'", profile, INT32_MAX,
                         g + 2);
    }
    c->problem.n_ranks = n_max;
    c->problem.seq_tokens = 2 * n_max * (c->problem.tile_q > c->problem.tile_k ? c->problem.tile_q : c->problem.tile_k);
    c->n_layouts = 1;
    c->layouts[0] = RS_LAYOUT_CONTIGUOUS;
    c->n_passes = 1;
    c->passes[0] = RS_PASS_FORWARD;
    if (rc == 0 && rs_setup_finish(c, err) == 0) {
        if (c->warning[0]) fprintf(stderr, "ringsim sweep: warning: %s\n", c->warning); /* each time its machine is made */
        return 0;
    }
    char list[RS_SWEEP_MAX_PROFILES * 513] = ""; /* -p as given: its entries joined */
    for (int i = 0; i < spec->n_profiles; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "", spec->profiles[i]);
    rs_setup_list_err(err, "--profile", rc ? profile : c->spec.profile, spec->n_profiles ? list : profile);
    return -1;
}

/* Point i on the machine of its profile (c, from machine_for). */
static int point_setup(const rs_sweep_spec_t *spec, size_t i, const rs_setup_t *c, rs_sweep_point_t *pt,
                       rs_err_t *err) {
    memset(pt, 0, sizeof *pt);
    size_t ns = (size_t)n_sizes(spec), nn = (size_t)n_ranks(spec);
    size_t np = (size_t)spec->common.n_passes, nl = (size_t)spec->common.n_layouts;
    size_t is = i % ns, in = (i / ns) % nn, ip = (i / ns / nn) % np, il = (i / ns / nn / np) % nl;
    size_t ipr = i / ns / nn / np / nl;
    const char *profile = spec->n_profiles ? spec->profiles[ipr] : spec->common.spec.profile;
    rs_problem_t p = spec->common.problem;
    p.layout = spec->common.layouts[il];
    p.pass = spec->common.passes[ip];
    p.n_ranks = spec->n_ranks ? spec->ranks[in] : p.n_ranks;
    if (spec->n_blocks) {
        if (spec->blocks[is] > INT64_MAX / p.n_ranks) return rs_errf(err, "--block %lld x N %lld overflows", (long long)spec->blocks[is], (long long)p.n_ranks);
        p = rs_problem_with_block(&p, spec->blocks[is]);
    } else if (spec->n_seqs) {
        p.seq_tokens = spec->seqs[is];
    }
    char what[800];
    snprintf(what, sizeof what, "point %zu (profile %s, %s, %s, N=%lld, S=%lld)", i, profile, rs_layout_name(p.layout),
             rs_pass_name(p.pass), (long long)p.n_ranks, (long long)p.seq_tokens);
    rs_err_t e;
    if (rs_problem_validate(&p, &e) != 0) return rs_errc(err, e.code, "%s: %s", what, e.msg);
    rs_machine_t m = c->machine;
    if (m.devices_per_node > 0 && m.devices_per_node < p.n_ranks && !c->hw.has_inter)
        return rs_errf(err, "%s: N exceeds the profile's %lld devices per node and it has no inter-node tier "
                            "(give --inter TIER or --gpus-per-node 0)",
                       what, (long long)m.devices_per_node);
    if (rs_setup_check_perturb(c, p.n_ranks, &e) != 0 || rs_machine_validate(&m, p.n_ranks, &e) != 0)
        return rs_errc(err, e.code, "%s: %s", what, e.msg);
    snprintf(pt->profile, sizeof pt->profile, "%s", profile);
    snprintf(pt->series, sizeof pt->series, "%s/%s/%s/%s/N=%lld", profile, rs_layout_name(p.layout),
             rs_pass_name(p.pass), p.causal ? "causal" : "full", (long long)p.n_ranks);
    pt->problem = p;
    pt->machine = m;
    return 0;
}

int rs_sweep_points_setup(const rs_sweep_spec_t *spec, rs_sweep_point_t *pts, rs_err_t *err) {
    int64_t n_max = spec->common.problem.n_ranks;
    for (int k = 0; k < spec->n_ranks; k++)
        if (k == 0 || spec->ranks[k] > n_max) n_max = spec->ranks[k];
    const size_t n = rs_sweep_count(spec), per_profile = n / (size_t)n_profiles(spec);
    rs_setup_t *c = malloc(sizeof *c);
    if (!c) return rs_errf(err, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        /* points are profile-major: each profile's machine is made (its JSON read) once */
        if (i % per_profile == 0) {
            const char *profile = spec->n_profiles ? spec->profiles[i / per_profile] : spec->common.spec.profile;
            rc = machine_for(spec, profile, n_max, c, err);
        }
        if (rc == 0) rc = point_setup(spec, i, c, &pts[i], err);
    }
    free(c);
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * Running a point: every backend through the one interface (backend.h)
 * ---------------------------------------------------------------------------------------------- */
/* The point being run: its schedule, its problem and machine, the backends' options. */
typedef struct {
    const rs_schedule_t *s;
    const rs_sweep_point_t *pt;
    const rs_backend_opts_t *o;
} point_run_t;

/* Run backend be on the point into a fresh trace and summarize it into *sum (and the run's figures
 * into *run when non-NULL); *keep receives the trace (sorted) when asked. Returns 0 or -1 with err. */
static int run_backend(const rs_backend_ops_t *be, const point_run_t *x, rs_trace_t **keep, rs_trace_summary_t *sum,
                       rs_run_summary_t *run, rs_err_t *err) {
    rs_run_summary_t tmp;
    rs_trace_t *t = rs_trace_create(be->source);
    int rc = t ? be->run(x->s, &x->pt->machine, x->o, t, run ? run : &tmp, err) : rs_errf(err, "out of memory");
    if (rc == 0) rc = rs_trace_summarize(t, x->pt->problem.pass, sum, err);
    if (rc == 0 && keep) {
        rs_trace_sort(t);
        *keep = t;
        t = NULL;
    }
    rs_trace_free(t);
    return rc;
}

/* The note of a backend that did not run at this point ("" = it may run): not built, or its
 * can_run rule's reason. */
static const rs_backend_ops_t *backend_for(const char *name, const char *what, const rs_sweep_point_t *pt, char *note,
                                           size_t len) {
    const rs_backend_ops_t *be = rs_backend_find(name);
    rs_err_t why;
    if (!be) snprintf(note, len, "%s not built (%s)", what, !strcmp(name, "sim") ? "SimGrid not found" : "no CPU executor");
    else if (be->can_run(&pt->problem, &pt->machine, &why) != 0) snprintf(note, len, "%s skipped: %.200s", what, why.msg);
    else return be;
    return NULL;
}

int rs_sweep_point_run(const rs_sweep_spec_t *spec, rs_sweep_point_t *pt, rs_trace_t **traces, rs_err_t *err) {
    if (traces) traces[0] = traces[1] = NULL;
    if (rs_model_b_star(&pt->problem, &pt->machine, &pt->closed, err) != 0) return -1;
    const rs_closed_t *cl = &pt->closed;
    pt->seed_t_comp_s = rs_seed_t_comp_s((double)cl->block_tokens, cl->flops_per_pair, cl->f_peak_per_s);
    pt->seed_t_comm_s = rs_seed_t_comm_s((double)cl->block_tokens, cl->bytes_per_token, cl->w_bytes_per_s);
    rs_schedule_t *s = rs_schedule_create(&pt->problem, err);
    if (!s) return -1;
    rs_backend_opts_t o;
    rs_backend_opts_default(&o);
    o.exec_bin = spec->exec_cmd;
    o.exec_launch = spec->exec_launch;
    const point_run_t x = {s, pt, &o};
    int rc = run_backend(&rs_walk_backend, &x, traces ? &traces[0] : NULL, &pt->pred, &pt->walk, err);
    pt->note[0] = 0;
    if (rc == 0 && spec->run_sim) {
        const rs_backend_ops_t *sim = backend_for("sim", "sim", pt, pt->note, sizeof pt->note);
        if (sim && run_backend(sim, &x, traces ? &traces[1] : NULL, &pt->sim, &pt->sim_run, err) != 0) rc = -1;
        pt->has_sim = sim && rc == 0;
    }
    if (rc == 0 && spec->run_exec) {
        char note[256] = "";
        rs_err_t e;
        const rs_backend_ops_t *cpu = NULL;
        if (spec->exec_max_ranks > 0 && pt->problem.n_ranks > spec->exec_max_ranks)
            snprintf(note, sizeof note, "exec skipped: N = %lld > --exec-max-ranks %lld", (long long)pt->problem.n_ranks,
                     (long long)spec->exec_max_ranks);
        else if ((cpu = backend_for("cpu", "exec", pt, note, sizeof note)) &&
                 run_backend(cpu, &x, NULL, &pt->exec, NULL, &e) != 0)
            snprintf(note, sizeof note, "%.255s", e.msg);
        pt->has_exec = !note[0];
        if (note[0] && !pt->note[0]) snprintf(pt->note, sizeof pt->note, "%s", note);
    }
    rs_schedule_free(s);
    if (rc != 0 && traces) {
        rs_trace_free(traces[0]);
        rs_trace_free(traces[1]);
        traces[0] = traces[1] = NULL;
    }
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * The study
 * ---------------------------------------------------------------------------------------------- */
static volatile sig_atomic_t interrupted = 0;
static void on_sigint(int sig) {
    (void)sig;
    interrupted = 1;
}

/* Run point i (pt). Testing: RINGSIM_SWEEP_FAIL_POINT=i makes it fail as a runtime error would. */
static int run_point(const rs_sweep_in_t *in, rs_sweep_point_t *pt, size_t i, rs_err_t *err) {
    if (rs_spread_test_failure(i, err) != 0) return -1;
    return rs_sweep_point_run(in->spec, pt, NULL, err);
}

/* Run the points in order into fp (header, rows, crossovers). Returns 0, or -1 with err: a point
 * failed ("point 3: ...", a runtime failure), or Ctrl-C stopped the sweep (err empty). */
static int run_points(const rs_sweep_in_t *in, FILE *fp, rs_sweep_out_t *out, rs_err_t *err) {
    rs_meter_t meter; /* "sweep 3/11 points (27%), 2 s left" on a terminal */
    if (in->progress) rs_meter_start(&meter, "sweep", (double)out->n, "points");
    int rc = 0;
    rs_sweep_write_header(fp, in->spec, in->command, out->points, out->n);
    for (size_t i = 0; i < out->n && !(in->interruptible && interrupted); i++) {
        rs_err_t e;
        if (run_point(in, &out->points[i], i, &e) != 0) {
            if (in->interruptible && interrupted) break; /* Ctrl-C reached the point's simulation too: not an error */
            rc = rs_errc(err, RS_ERR_RUNTIME, "point %zu: %s", i, e.msg);
            break;
        }
        rs_sweep_write_row(fp, i, &out->points[i]);
        out->done++;
        if (in->progress) rs_meter_update(&meter, (double)out->done, NULL);
    }
    if (in->progress) rs_meter_end(&meter);
    rs_sweep_write_crossovers(fp, out->points, out->done);
    out->interrupted = in->interruptible && interrupted;
    if (out->interrupted) {
        fprintf(fp, "# interrupted after %zu of %zu points\n", out->done, out->n);
        if (rc == 0) rs_err_clear(err); /* not an error: out->interrupted says it */
        rc = -1;
    }
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * Distributed: the points divided over the processes of a launcher (mpirun, srun; spread.h)
 * ---------------------------------------------------------------------------------------------- */
/* Write the points (all run) as one single-process sweep would: header, rows, crossovers. Returns 0
 * or -1 with err (a runtime failure). */
static int write_all(const rs_sweep_in_t *in, rs_sweep_out_t *out, rs_err_t *err) {
    rs_file_t f = {0};
    const bool to_file = strcmp(in->out_path, "-") != 0;
    if (to_file && rs_file_open(&f, in->out_path, err) != 0) return rs_err_mark(err, RS_ERR_RUNTIME);
    FILE *fp = to_file ? f.fp : stdout;
    rs_sweep_write_header(fp, in->spec, in->command, out->points, out->n);
    for (size_t i = 0; i < out->n; i++) rs_sweep_write_row(fp, i, &out->points[i]);
    rs_sweep_write_crossovers(fp, out->points, out->n);
    out->done = out->n;
    if (!to_file) return fflush(stdout), 0;
    return rs_file_commit(&f, err) == 0 ? 0 : rs_err_mark(err, RS_ERR_RUNTIME);
}

/* One point of a rank's share (spread.h's run; ctx: the sweep's input): "point 5: ..." on failure
 * (runtime). */
static int spread_point(const void *ctx, size_t i, void *pt, rs_err_t *err) {
    rs_err_t e;
    return run_point(ctx, pt, i, &e) == 0 ? 0 : rs_errc(err, RS_ERR_RUNTIME, "point %zu: %s", i, e.msg);
}

/* The sweep over the launcher's processes: every rank runs its share, rank 0 gathers them and writes
 * the one CSV. Returns 0, or -1 with err: a failed point on any rank (no file, the failure named on
 * rank 0), the transport, a build without MPI (bad input). */
static int run_distributed(const rs_sweep_in_t *in, rs_sweep_out_t *out, rs_err_t *err) {
    const rs_spread_t sp = {"points", "sweep (rank 0's share)", out->n, sizeof *out->points, out->points, spread_point, in,
                            in->progress};
    if (rs_spread_run(&sp, &out->worker, err) != 0) return -1;
    return out->worker ? 0 : write_all(in, out, err);
}

/* Every point's runs (the walk, the simulator, the executor as asked for), one after the other,
 * against the limits (estimate.h). Returns 0 or -1 with err. */
static int check_estimate(const rs_sweep_spec_t *spec, const rs_sweep_point_t *pts, size_t n, rs_err_t *err) {
    rs_estimate_t sum = {0, 0, 0}, e;
    const char *names[3] = {"model", spec->run_sim ? "sim" : NULL, spec->run_exec ? "cpu" : NULL};
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            const rs_backend_ops_t *be = names[k] ? rs_backend_find(names[k]) : NULL;
            if (!be || !be->estimate || (k == 2 && spec->exec_max_ranks > 0 && pts[i].problem.n_ranks > spec->exec_max_ranks))
                continue;
            be->estimate(&pts[i].problem, &pts[i].machine, RS_EST_TRACE, &e);
            rs_estimate_then(&sum, &e);
        }
    return rs_limits_check("this sweep", &sum, &spec->common.limits, err);
}

int rs_study_sweep(const rs_sweep_in_t *in, rs_sweep_out_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    err->msg[0] = 0;
    out->n = rs_sweep_count(in->spec);
    if (out->n > 100000) return rs_errc(err, RS_ERR_BAD_INPUT, "%zu points: at most 100000", out->n);
    out->points = calloc(out->n ? out->n : 1, sizeof *out->points);
    if (!out->points) return rs_errc(err, RS_ERR_RUNTIME, "out of memory");
    /* validate everything before running anything */
    if (rs_sweep_points_setup(in->spec, out->points, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (check_estimate(in->spec, out->points, out->n, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (in->distribute && rs_spread_ranks() > 1) return run_distributed(in, out, err);
    rs_file_t f = {0};
    FILE *fp = stdout;
    const bool to_file = strcmp(in->out_path, "-") != 0;
    if (to_file) {
        if (rs_file_open(&f, in->out_path, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
        fp = f.fp;
    }
    struct sigaction sa, old;
    if (in->interruptible) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old);
        interrupted = 0;
    }
    int rc = run_points(in, fp, out, err);
    if (to_file) {
        rs_err_t ce;
        if (rc != 0 && (out->done == 0 || !in->keep_partial)) {
            rs_file_abort(&f);
        } else {
            if (rc != 0) rs_file_partial_path(&f, out->kept, sizeof out->kept); /* beside the output, never over it */
            if ((rc == 0 ? rs_file_commit(&f, &ce) : rs_file_commit_partial(&f, &ce)) != 0) {
                out->kept[0] = 0;
                *err = ce;
                rc = rs_err_mark(err, RS_ERR_RUNTIME);
            }
        }
    } else {
        fflush(stdout);
    }
    if (in->interruptible) sigaction(SIGINT, &old, NULL);
    return rc;
}
