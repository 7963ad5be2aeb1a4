/* study_report.c - the report study (study_report.h): one directory with traces, sweeps, figures and
 * report.md / report.html stating the findings in numbers (docs/report.md). In phases, each a
 * function over one state (report_t): the entries (every layout x pass), their data files, the
 * sweeps, the real execution, the figures, then the document section by section. */
#include "study_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "registry.h"
#include "compare.h"
#include "doc.h"
#include "exec.h"
#include "kernel.h"
#include "meter.h"
#include "cost.h"
#include "output.h"
#include "study_sweep.h"
#ifdef RINGSIM_HAVE_SIM
#include "study_contention.h"
#endif
#include "subprocess.h"
#include "plot.h"
#include "trace.h"

void rs_report_setup_default(rs_setup_t *setup) {
    rs_setup_default(setup);
    setup->n_layouts = RS_LAYOUT_COUNT;
    for (int i = 0; i < RS_LAYOUT_COUNT; i++) setup->layouts[i] = (rs_layout_t)i;
    setup->n_passes = RS_PASS_COUNT;
    for (int i = 0; i < RS_PASS_COUNT; i++) setup->passes[i] = (rs_pass_t)i;
}

void rs_report_defaults(rs_report_in_t *in) {
    memset(in, 0, sizeof *in);
    in->dir = "ringsim-report";
    in->exec_timeout_s = 240;
    in->command = "ringsim report";
}

/* ------------------------------------------------------------------------------------------------
 * State
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    rs_problem_t problem;     /* layout x pass */
    rs_closed_t closed;       /* closed form */
    rs_run_summary_t walk;    /* critical-path walk (the model backend) */
    double *busy_s;           /* [N] per-rank compute time (walk) */
    bool has_sim;             /* simulated */
    double sim_makespan_s;    /* simulated makespan */
    rs_compare_t cmp;         /* sim (reference) vs model */
} entry_t;

typedef struct {
    rs_sweep_point_t *pts;    /* run points (owned) */
    size_t n;
} sweep_t;

typedef struct {
    const rs_report_in_t *in;
    const rs_setup_t *c;               /* problem, layouts, passes, machine */
    const rs_machine_t *m;
    const rs_problem_t *p0;
    const char *dir;
    double t_start;
    const rs_backend_ops_t *sim;       /* the simulator when it runs */
    char sim_why[400];                 /* why it does not (its rule) */
    int ne;                            /* entries: layouts x passes */
    entry_t *es;
    bool have_busy[RS_PASS_COUNT];     /* data/busy-PASS.csv written */
    rs_sweep_spec_t *spec;             /* the sweeps (the scaling profiles stay in it) */
    sweep_t sb, sbc, sn, sbb, sv;      /* B full, B causal, N scaling, B scaling, validate's B sweep */
    char exec_note[1536];              /* what the real execution did */
    rs_table_t heldout;                /* validate's held-out table (validation/heldout.csv) */
    bool have_heldout;
    bool have_val, have_val_cmp;       /* data/validation-b.csv, data/compare-exec.csv */
    double val_x_meas, val_x_model;    /* validate's crossover at the seed's threshold (the fitted configuration) */
    rs_compare_t vcmp;                 /* measured vs model traces at one B of it */
    long long vcmp_b;
    char fig_why[1200];                /* the first figure that failed and why */
    bool f_vb, f_vpvm, f_tb, f_tbc, f_tl, f_tlc, f_pvm, f_busy, f_sn, f_sb; /* figures rendered */
    bool have_cont, f_cont;            /* data/contention.csv written, its figure rendered */
    char cont_note[900];               /* what the contention figure shows (its numbers), or why there is none */
    rs_meter_t meter;                  /* on a terminal: "report [2/6] sweeps", nested meters after it */
    char path[2048], path2[2048];      /* scratch */
    char stage[1024];                  /* the folder written: DIR's stage until the run ends (output.h) */
} report_t;

static const char *fmt_t(double t, char *buf, size_t n) { return rs_fmt_time(t, buf, n); }

#define RS_REPORT_PHASES 6
/* The phase k (1..RS_REPORT_PHASES) begins: the meter says so (a terminal only; nothing in logs). */
static void phase(report_t *r, int k, const char *what) { rs_meter_update(&r->meter, 0, "[%d/%d] %s", k, RS_REPORT_PHASES, what); }

static int mkdir_p(const char *path, rs_err_t *err) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return rs_errf(err, "%s: cannot create: %s", path, strerror(errno));
    return 0;
}

/* Run a sweep spec into path; the points (run) come back in *out. Returns 0 or -1. */
static int run_sweep(rs_sweep_spec_t *spec, const char *path, const char *label, sweep_t *out, rs_err_t *err) {
    rs_sweep_in_t in = {spec, path, label, true, false, false, false}; /* its meter nests in the report's */
    rs_sweep_out_t o;
    if (rs_study_sweep(&in, &o, err) != 0) {
        free(o.points);
        return -1;
    }
    out->pts = o.points;
    out->n = o.n;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * 1. every layout x pass: closed form, walk, traces, sim, compare
 * ---------------------------------------------------------------------------------------------- */
/* The simulated side of one entry: its traces and its comparison with the model's trace t. */
static int entry_sim(report_t *r, entry_t *e, const rs_schedule_t *s, const rs_trace_t *t, rs_err_t *err) {
    const rs_problem_t *p = &e->problem;
    const char *lay = rs_layout_name(p->layout), *pass = rs_pass_name(p->pass);
    rs_run_summary_t sum;
    rs_trace_t *st = rs_trace_create(r->sim->source);
    int rc = 0;
    if (!st || r->sim->run(s, r->m, NULL, st, &sum, err) != 0) {
        rc = -1;
    } else {
        rs_trace_sort(st);
        e->has_sim = true;
        e->sim_makespan_s = sum.makespan_s;
        snprintf(r->path, sizeof r->path, "%s/traces/sim-%s-%s.csv", r->dir, lay, pass);
        snprintf(r->path2, sizeof r->path2, "%s/traces/sim-%s-%s.json", r->dir, lay, pass);
        if (rs_trace_write_csv(st, r->path, err) != 0 || rs_trace_write_chrome(st, r->path2, err) != 0 ||
            rs_compare_traces(st, t, &e->cmp, err) != 0)
            rc = -1;
        snprintf(r->path, sizeof r->path, "%s/data/compare-%s-%s.csv", r->dir, lay, pass);
        char na[200], nb[200];
        snprintf(na, sizeof na, "sim-%s-%s.csv (sim)", lay, pass);
        snprintf(nb, sizeof nb, "model-%s-%s.csv (model)", lay, pass);
        if (rc == 0 && rs_compare_write_csv(&e->cmp, na, nb, r->path, err) != 0) rc = -1;
    }
    rs_trace_free(st);
    return rc;
}

/* One entry: the closed form, the walk (per-rank busy time), its traces, the simulator's. */
static int report_entry(report_t *r, entry_t *e, rs_err_t *err) {
    const rs_problem_t *p = &e->problem;
    e->busy_s = calloc((size_t)p->n_ranks, sizeof *e->busy_s);
    rs_schedule_t *s = rs_schedule_create(p, err);
    rs_trace_t *t = rs_trace_create("model");
    rs_backend_opts_t bo;
    rs_backend_opts_default(&bo);
    bo.rank_busy_s = e->busy_s;
    int rc = 0;
    if (!e->busy_s || !s || !t || rs_model_b_star(p, r->m, &e->closed, err) != 0 ||
        rs_walk_backend.run(s, r->m, &bo, t, &e->walk, err) != 0)
        rc = -1;
    if (rc == 0) {
        rs_trace_sort(t);
        snprintf(r->path, sizeof r->path, "%s/traces/model-%s-%s.csv", r->dir, rs_layout_name(p->layout), rs_pass_name(p->pass));
        snprintf(r->path2, sizeof r->path2, "%s/traces/model-%s-%s.json", r->dir, rs_layout_name(p->layout),
                 rs_pass_name(p->pass));
        if (rs_trace_write_csv(t, r->path, err) != 0 || rs_trace_write_chrome(t, r->path2, err) != 0) rc = -1;
    }
    if (rc == 0 && r->sim) rc = entry_sim(r, e, s, t, err);
    rs_trace_free(t);
    rs_schedule_free(s);
    return rc;
}

/* Per-rank busy time, one file per pass (all three layouts needed). */
static int report_busy(report_t *r, rs_err_t *err) {
    const rs_setup_t *c = r->c;
    for (int j = 0; j < c->n_passes; j++) {
        const entry_t *byl[RS_LAYOUT_COUNT] = {NULL, NULL, NULL};
        for (int i = 0; i < c->n_layouts; i++) byl[r->es[j * c->n_layouts + i].problem.layout] = &r->es[j * c->n_layouts + i];
        if (!byl[0] || !byl[1] || !byl[2]) continue;
        snprintf(r->path, sizeof r->path, "%s/data/busy-%s.csv", r->dir, rs_pass_name(c->passes[j]));
        rs_file_t f;
        if (rs_file_open(&f, r->path, err) != 0) return -1;
        fprintf(f.fp, "# per-rank compute (busy) time of the model's critical-path walk, seconds; %s pass, %s\n",
                rs_pass_name(c->passes[j]), r->p0->causal ? "causal" : "non-causal");
        fprintf(f.fp, "rank,contiguous,striped,zigzag\n");
        for (int64_t k = 0; k < r->p0->n_ranks; k++)
            fprintf(f.fp, "%lld,%.17g,%.17g,%.17g\n", (long long)k, byl[0]->busy_s[k], byl[1]->busy_s[k], byl[2]->busy_s[k]);
        if (rs_file_commit(&f, err) != 0) return -1;
        r->have_busy[c->passes[j]] = true;
    }
    return 0;
}

/* summary.csv: the numbers the report states, at full precision (tests compare them to the model). */
static int report_summary(report_t *r, rs_err_t *err) {
    snprintf(r->path, sizeof r->path, "%s/summary.csv", r->dir);
    rs_file_t f;
    if (rs_file_open(&f, r->path, err) != 0) return -1;
    fprintf(f.fp, "# ringsim report summary: closed form and critical-path walk per layout and pass\n"
                  "layout,pass,block_tokens,b_min_tokens,b_star_tokens,t_comp_s,t_comm_s,t_step_s,bound,makespan_s,"
                  "ideal_s,efficiency,busy_max_s,busy_mean_s,comm_bound_steps,rank_steps,sim_makespan_s\n");
    for (int k = 0; k < r->ne; k++) {
        const entry_t *e = &r->es[k];
        fprintf(f.fp, "%s,%s,%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%lld,%lld,",
                rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass), (long long)e->closed.block_tokens,
                e->closed.b_min_tokens, e->closed.b_star_tokens, e->closed.t_comp_s, e->closed.t_comm_s, e->closed.t_step_s,
                e->closed.comm_bound ? "comm" : "compute", e->walk.makespan_s, e->walk.ideal_s, e->walk.efficiency,
                e->walk.busy_max_s, e->walk.busy_mean_s, (long long)e->walk.comm_bound_steps, (long long)e->walk.rank_steps);
        if (e->has_sim) fprintf(f.fp, "%.17g\n", e->sim_makespan_s);
        else fprintf(f.fp, "nan\n");
    }
    return rs_file_commit(&f, err);
}

static int report_entries(report_t *r, rs_err_t *err) {
    const rs_setup_t *c = r->c;
    r->ne = c->n_layouts * c->n_passes;
    r->es = calloc((size_t)r->ne, sizeof *r->es);
    if (!r->es) return rs_errf(err, "out of memory");
    rs_meter_t m;
    rs_meter_start(&m, "entries", r->ne, "layout x pass");
    for (int j = 0; j < c->n_passes; j++)
        for (int i = 0; i < c->n_layouts; i++) {
            entry_t *e = &r->es[j * c->n_layouts + i];
            e->problem = rs_setup_problem(c, i, j);
            if (report_entry(r, e, err) != 0) return rs_meter_end(&m), -1;
            rs_meter_update(&m, j * c->n_layouts + i + 1, NULL);
        }
    rs_meter_end(&m);
    if (report_busy(r, err) != 0 || report_summary(r, err) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * 2. sweeps
 * ---------------------------------------------------------------------------------------------- */
/* One scaling sweep: N at the report's S (over_n), or B at its N. */
static int scaling(report_t *r, rs_sweep_spec_t *spec, bool over_n, bool quick, sweep_t *out, rs_err_t *err) {
    const char *range = over_n ? (quick ? "2:16:x2" : "2:128:x2") : (quick ? "256:16K:x4" : "256:64K:x2");
    const int n = rs_sweep_parse_range(over_n ? "--ranks" : "--block", range, 1, INT32_MAX, over_n ? spec->ranks : spec->blocks,
                                       RS_SWEEP_MAX_VALUES, err);
    spec->n_seqs = over_n ? 1 : 0;
    spec->seqs[0] = r->p0->seq_tokens;
    spec->n_blocks = over_n ? 0 : n;
    spec->n_ranks = over_n ? n : 1;
    if (!over_n) spec->ranks[0] = r->p0->n_ranks;
    snprintf(r->path, sizeof r->path, "%s/data/scaling-%s.csv", r->dir, over_n ? "n" : "b");
    return run_sweep(spec, r->path, over_n ? "ringsim report (N scaling at fixed S)" : "ringsim report (B scaling at fixed N)",
                     out, err);
}

static int report_sweeps(report_t *r, rs_err_t *err) {
    rs_sweep_spec_t *spec = r->spec;
    const rs_setup_t *c = r->c;
    const bool quick = r->in->quick;
    phase(r, 2, "sweeps");
    spec->common = *c;
    spec->common.n_layouts = 1;
    spec->common.layouts[0] = RS_LAYOUT_ZIGZAG;
    spec->common.n_passes = 1;
    spec->common.passes[0] = RS_PASS_FORWARD;
    spec->run_sim = r->sim != NULL;
    spec->run_exec = false;
    spec->n_blocks = rs_sweep_parse_range("--block", quick ? "256:16K:x4" : "64:64K:x2", 1, INT32_MAX, spec->blocks,
                                          RS_SWEEP_MAX_VALUES, err);
    spec->common.problem.causal = false;
    snprintf(r->path, sizeof r->path, "%s/data/sweep-b.csv", r->dir);
    if (run_sweep(spec, r->path, "ringsim report (B sweep, full blocks)", &r->sb, err) != 0) return -1;
    spec->common.problem.causal = true;
    snprintf(r->path, sizeof r->path, "%s/data/sweep-b-causal.csv", r->dir);
    if (run_sweep(spec, r->path, "ringsim report (B sweep, causal)", &r->sbc, err) != 0) return -1;
    /* scaling: N at fixed S, and B at fixed N, for three machines: the report's profile, the same
     * devices one per node (every hop over its inter-node tier, when it has one), and a third
     * vendor: h100-sxm, h100-sxm:g1, mi300x by default */
    spec->common.problem.causal = r->p0->causal;
    spec->n_profiles = 0;
    snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%.500s", c->spec.profile);
    if (c->hw.has_inter && !strchr(c->spec.profile, ':'))
        snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%.500s:g1", c->spec.profile);
    snprintf(spec->profiles[spec->n_profiles++], sizeof spec->profiles[0], "%s",
             strcmp(c->spec.profile, "mi300x") == 0 ? "h100-sxm" : "mi300x");
    spec->common.spec.flops = spec->common.spec.bw = spec->common.spec.inter_bw = 0;
    if (scaling(r, spec, true, quick, &r->sn, err) != 0) return -1;
    return scaling(r, spec, false, quick, &r->sbb, err);
}

/* ------------------------------------------------------------------------------------------------
 * 2b. contention: the report's ring as a job of TP = G concurrent rings (one per device of a node,
 *     every hop across nodes), over NICs per node and a 1:1 or 2:1 spine (one node per leaf)
 * ---------------------------------------------------------------------------------------------- */
#ifdef RINGSIM_HAVE_SIM
/* One sentence from the points: efficiency at K = 1 and K = G for each ratio. */
static void contention_note(report_t *r, const rs_contention_out_t *o, int64_t g, int64_t n, int64_t b) {
    char *s = r->cont_note;
    const size_t len = sizeof r->cont_note;
    snprintf(s, len,
             "%lld rings (TP %lld fills each node) of N = %lld ranks, B = %lld, zigzag forward, every hop across nodes, one "
             "node per leaf (data/contention.csv): efficiency",
             (long long)g, (long long)g, (long long)n, (long long)b);
    bool first = true;
    for (size_t i = 0; i < o->done; i++) {
        const rs_contention_point_t *pt = &o->points[i];
        if (pt->pick.nics != 1 && pt->pick.nics != g) continue;
        snprintf(s + strlen(s), len - strlen(s), "%s %.3f with %lld NIC%s per node at %.3g:1", first ? "" : ";", pt->efficiency,
                 (long long)pt->pick.nics, pt->pick.nics == 1 ? "" : "s", pt->pick.oversub);
        first = false;
    }
    snprintf(s + strlen(s), len - strlen(s), " (%.3f without contention).", o->done ? o->points[0].efficiency_free : 0.0);
}
#endif

static void report_contention(report_t *r) {
#ifdef RINGSIM_HAVE_SIM
    const int64_t g = r->m->devices_per_node;
    if (!r->sim) return (void)snprintf(r->cont_note, sizeof r->cont_note, "No contention figure: %s.", r->sim_why[0] ? r->sim_why : "the simulator does not run");
    if (g < 2 || !r->c->hw.has_inter)
        return (void)snprintf(r->cont_note, sizeof r->cont_note, "No contention figure: the machine has %s.",
                              g < 2 ? "one device per node" : "no inter-node tier");
    phase(r, 3, "contention");
    rs_contention_case_t cs;
    memset(&cs, 0, sizeof cs);
    snprintf(cs.profile, sizeof cs.profile, "%s", r->c->spec.profile);
    cs.problem = *r->p0;
    cs.problem.layout = RS_LAYOUT_ZIGZAG;
    cs.problem.pass = RS_PASS_FORWARD;
    const int64_t b = rs_problem_block(r->p0);
    while (cs.problem.n_ranks > 2 && cs.problem.n_ranks * g > 256) cs.problem.n_ranks /= 2; /* at most 256 devices */
    cs.problem.seq_tokens = b * cs.problem.n_ranks;
    cs.machine = *r->m;
    rs_contention_knobs_t k;
    rs_contention_knobs_default(&k);
    k.tp = g;
    k.fabrics[0] = RS_FABRIC_LEAF_SPINE;
    k.nodes_per_leaf = 1;
    k.n_nics = 0;
    for (int64_t n = 1; n < g && k.n_nics < RS_CONT_MAX_VALUES - 1; n *= 2) k.nics[k.n_nics++] = n;
    k.nics[k.n_nics++] = g;
    k.n_oversubs = 2;
    k.oversubs[1] = 2;
    snprintf(r->path, sizeof r->path, "%s/data/contention.csv", r->dir);
    rs_contention_in_t in = {&cs, 1, &k, r->path, NULL, "ringsim report (concurrent rings over NICs per node and spine)", true};
    rs_contention_out_t o;
    rs_err_t e;
    if (rs_problem_validate(&cs.problem, &e) != 0 || rs_study_contention(&in, &o, &e) != 0) {
        snprintf(r->cont_note, sizeof r->cont_note, "No contention figure: %.800s", e.msg);
    } else {
        r->have_cont = true;
        contention_note(r, &o, g, cs.problem.n_ranks, b);
    }
    free(o.points);
#else
    snprintf(r->cont_note, sizeof r->cont_note, "No contention figure: this build has no simulator.");
#endif
}

/* ------------------------------------------------------------------------------------------------
 * 3. real CPU execution: `ringsim validate` as a subprocess with a watchdog
 * ---------------------------------------------------------------------------------------------- */
/* The last 4 non-empty lines of a text file into buf, joined by "; ". */
static void file_tail(const char *path, char *buf, size_t len) {
    buf[0] = 0;
    FILE *fp = fopen(path, "r");
    if (!fp) return;
    char line[512];
    char last[4][512] = {{0}};
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0]) continue;
        snprintf(last[n % 4], sizeof last[0], "%s", line);
        n++;
    }
    fclose(fp);
    for (int i = n > 4 ? n - 4 : 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", strlen(buf) ? "; " : "", last[i % 4]);
}

/* The configuration the calibration is fitted on, whose rows feed the measured-vs-model figure. */
#define VAL_FIT_TAG "contiguous-forward-full"

/* Run `self validate` on the measurement problem (rs_setup_measure_problem, spelled out) for every
 * layout, both passes and both masks (the held-out table) into vdir, B = 8..512, 2 rounds of 3
 * repetitions (12 configurations: a shorter sweep than validate's own); its output goes to log.
 * Returns its exit status, -1 if it could not start, -2 on timeout. */
static int run_validate(const char *self, const char *vdir, const char *log, int64_t timeout_s) {
    rs_problem_t p;
    rs_setup_measure_problem(&p);
    char a[15][1400];
    snprintf(a[0], sizeof a[0], "--csv=%s/validate.csv", vdir);
    snprintf(a[1], sizeof a[1], "--trace-dir=%s/traces", vdir);
    snprintf(a[2], sizeof a[2], "--save-profile=%s/calibrated.json", vdir);
    snprintf(a[3], sizeof a[3], "--ranks=%lld", (long long)p.n_ranks);
    snprintf(a[4], sizeof a[4], "--heads=%lld", (long long)p.q_heads);
    snprintf(a[5], sizeof a[5], "--kv-heads=%lld", (long long)p.kv_heads);
    snprintf(a[6], sizeof a[6], "--head-dim=%lld", (long long)p.head_dim);
    snprintf(a[7], sizeof a[7], "--dtype=%s", p.act_bytes == 4 ? "fp32" : "bf16");
    snprintf(a[8], sizeof a[8], "--mask=both");
    snprintf(a[9], sizeof a[9], "--layout=all");
    snprintf(a[10], sizeof a[10], "--pass=both");
    snprintf(a[11], sizeof a[11], "--summary=%s/heldout.csv", vdir);
    snprintf(a[12], sizeof a[12], "--rounds=2");
    snprintf(a[13], sizeof a[13], "--reps=3");
    snprintf(a[14], sizeof a[14], "--blocks=8,16,32,64,128,256,512");
    char *args[] = {(char *)self, "validate", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
                    a[13], a[14], NULL};
    rs_spawn_t sp;
    rs_spawn_init(&sp);
    sp.argv = args;
    sp.output_path = log;
    sp.stdin_fd = RS_SPAWN_NULL;
    sp.new_group = true; /* a timeout ends mpirun and its ranks together */
    rs_child_status_t st;
    rs_err_t err;
    if (rs_spawn_run(&sp, "ringsim validate", (double)timeout_s, &st, &err) != 0) return -1;
    if (st.timed_out) return -2;
    return st.exit_code;
}

/* validate's held-out table, and the fitted configuration's crossover at the seed's threshold from it. */
static void read_heldout(report_t *r, const char *vdir) {
    rs_err_t e2;
    snprintf(r->path, sizeof r->path, "%s/heldout.csv", vdir);
    if (rs_table_read(r->path, &r->heldout, &e2) != 0) return;
    r->have_heldout = true;
    const int l = rs_table_col(&r->heldout, "layout"), p = rs_table_col(&r->heldout, "pass"), m = rs_table_col(&r->heldout, "mask"),
              xm = rs_table_col(&r->heldout, "crossover_meas"), xp = rs_table_col(&r->heldout, "crossover_model");
    for (size_t i = 0; l >= 0 && p >= 0 && m >= 0 && xm >= 0 && xp >= 0 && i < r->heldout.n_rows; i++) {
        char **c = r->heldout.cells[i];
        if (strcmp(c[l], "contiguous") || strcmp(c[p], "forward") || strcmp(c[m], "full")) continue;
        r->val_x_meas = c[xm][0] ? strtod(c[xm], NULL) : NAN;
        r->val_x_model = c[xp][0] ? strtod(c[xp], NULL) : NAN;
    }
}

/* Points whose exec columns are validate's measured rows of table vt (rows[k]: the fitted
 * configuration's k-th row; col: the columns found). */
static void fill_measured(sweep_t *sv, const rs_table_t *vt, const size_t *rows, const int *col) {
    for (size_t k = 0; k < sv->n; k++) {
        rs_trace_summary_t *x = &sv->pts[k].exec;
        char **c = vt->cells[rows[k]];
        sv->pts[k].has_exec = true;
        x->t_comp_s = strtod(c[col[1]], NULL);
        x->t_comm_s = strtod(c[col[2]], NULL);
        x->t_step_s = strtod(c[col[3]], NULL);
        x->makespan_s = strtod(c[col[4]], NULL);
        x->n_comp = x->n_comm = x->n_step = 1;
    }
}

/* The measured B sweep of the fitted configuration (contiguous forward, full blocks) in the sweep
 * format: the model (walk on the calibrated forward profile) and the measured rows of validate.csv,
 * into data/validation-b.csv. */
static void validation_sweep(report_t *r, const char *vdir) {
    rs_table_t vt;
    rs_err_t e2;
    snprintf(r->path, sizeof r->path, "%s/validate.csv", vdir);
    if (rs_table_read(r->path, &vt, &e2) != 0) return;
    static const char *const names[8] = {"B", "t_comp_meas_s", "t_comm_meas_s", "t_step_meas_s", "makespan_meas_s", "layout", "pass", "mask"};
    int col[8], ok = vt.n_rows > 0;
    for (int i = 0; i < 8; i++) ok &= (col[i] = rs_table_col(&vt, names[i])) >= 0;
    size_t rows[RS_SWEEP_MAX_VALUES], nr = 0;
    for (size_t k = 0; ok && k < vt.n_rows && nr < RS_SWEEP_MAX_VALUES; k++)
        if (!strcmp(vt.cells[k][col[5]], "contiguous") && !strcmp(vt.cells[k][col[6]], "forward") && !strcmp(vt.cells[k][col[7]], "full"))
            rows[nr++] = k;
    rs_sweep_spec_t *vs = nr > 0 ? calloc(1, sizeof *vs) : NULL;
    if (vs) {
        const char *label = "ringsim report (ringsim validate's B sweep: calibrated model + measured)";
        rs_setup_default(&vs->common);
        snprintf(vs->common.spec.profile, sizeof vs->common.spec.profile, "%.480s/calibrated-forward.json", vdir);
        rs_setup_measure_problem(&vs->common.problem);
        rs_setup_dtype(&vs->common, RS_DTYPE_FP32);
        vs->common.layouts[0] = vs->common.problem.layout;
        vs->common.passes[0] = vs->common.problem.pass;
        for (size_t k = 0; k < nr; k++) vs->blocks[vs->n_blocks++] = strtoll(vt.cells[rows[k]][col[0]], NULL, 10);
        snprintf(r->path, sizeof r->path, "%s/data/validation-b.csv", r->dir);
        if (run_sweep(vs, r->path, label, &r->sv, &e2) == 0 && r->sv.n == nr) {
            fill_measured(&r->sv, &vt, rows, col);
            rs_file_t f;
            if (rs_file_open(&f, r->path, &e2) == 0) {
                rs_sweep_write_header(f.fp, vs, label);
                for (size_t k = 0; k < r->sv.n; k++) rs_sweep_write_row(f.fp, k, &r->sv.pts[k]);
                rs_sweep_write_crossovers(f.fp, r->sv.pts, r->sv.n);
                r->have_val = rs_file_commit(&f, &e2) == 0;
            }
        }
    }
    free(vs);
    rs_table_free(&vt);
}

/* Per-step comparison at the B nearest the measured crossover's upper side: data/compare-exec.csv. */
static void validation_compare(report_t *r, const char *vdir) {
    const sweep_t *sv = &r->sv;
    for (size_t k = 0; k < sv->n && !r->have_val_cmp; k++) {
        long long b = (long long)rs_problem_block(&sv->pts[k].problem);
        if (sv->pts[k].exec.t_comp_s < sv->pts[k].exec.t_comm_s && k + 1 < sv->n) continue;
        char ta[1600], tb[1600];
        snprintf(ta, sizeof ta, "%s/traces/validate-" VAL_FIT_TAG "-B%lld-exec.csv", vdir, b);
        snprintf(tb, sizeof tb, "%s/traces/validate-" VAL_FIT_TAG "-B%lld-model.csv", vdir, b);
        rs_err_t e2;
        rs_trace_t *xa = rs_trace_read_csv(ta, &e2), *xb = xa ? rs_trace_read_csv(tb, &e2) : NULL;
        if (xa && xb && rs_compare_traces(xa, xb, &r->vcmp, &e2) == 0) {
            char na[200], nb[200];
            snprintf(na, sizeof na, "validate-" VAL_FIT_TAG "-B%lld-exec.csv (measured, CPU)", b);
            snprintf(nb, sizeof nb, "validate-" VAL_FIT_TAG "-B%lld-model.csv (model, calibrated)", b);
            snprintf(r->path, sizeof r->path, "%s/data/compare-exec.csv", r->dir);
            r->have_val_cmp = rs_compare_write_csv(&r->vcmp, na, nb, r->path, &e2) == 0;
            r->vcmp_b = b;
        }
        rs_trace_free(xa);
        rs_trace_free(xb);
        if (!r->have_val_cmp) break;
    }
}

static void report_exec(report_t *r) {
    const int64_t timeout = r->in->exec_timeout_s;
    if (r->in->no_exec) {
        snprintf(r->exec_note, sizeof r->exec_note, "skipped (--no-exec).");
        return;
    }
    char self[1024];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        snprintf(r->exec_note, sizeof r->exec_note, "the ringsim binary could not be located; no real execution.");
        return;
    }
    self[k] = 0;
    char vdir[1200], log[1300];
    rs_err_t err;
    snprintf(vdir, sizeof vdir, "%s/validation", r->dir);
    snprintf(r->path, sizeof r->path, "%s/traces", vdir);
    mkdir_p(vdir, &err);
    mkdir_p(r->path, &err);
    snprintf(log, sizeof log, "%s/validate.log", vdir);
    phase(r, 4, "real CPU execution");
    rs_meter_t m; /* the child's output goes to its log: its time, against the limit */
    char what[64], lim[32];
    snprintf(what, sizeof what, "ringsim validate (up to %s)", rs_meter_duration((double)timeout, lim, sizeof lim));
    rs_meter_start(&m, what, 0, NULL);
    const int status = run_validate(self, vdir, log, timeout);
    rs_meter_end(&m);
    char tail[700];
    file_tail(log, tail, sizeof tail);
    if (status == 0)
        snprintf(r->exec_note, sizeof r->exec_note, "ringsim validate calibrated this machine once per pass (one full block "
                 "with the pass's own transfers, contiguous, non-causal) and measured a B sweep of every layout, pass and mask "
                 "on 2 MPI ranks (validation/: validate.log, validate.csv, heldout.csv, calibrated-PASS.json, traces/).");
    else if (status == -2)
        snprintf(r->exec_note, sizeof r->exec_note, "ringsim validate did not finish within %lld s and was stopped "
                 "(validation/validate.log).", (long long)timeout);
    else
        snprintf(r->exec_note, sizeof r->exec_note, "ringsim validate is not available or failed (exit %d): %s", status,
                 tail[0] ? tail : "no output");
    if (status != 0) return;
    char why[512]; /* the child ran this process's OpenBLAS, in its environment */
    if (rs_exec_blas_core_note(why, sizeof why))
        snprintf(r->exec_note + strlen(r->exec_note), sizeof r->exec_note - strlen(r->exec_note), " Warning: %s.", why);
    read_heldout(r, vdir);
    validation_sweep(r, vdir);
    validation_compare(r, vdir);
}

/* ------------------------------------------------------------------------------------------------
 * 4. figures
 * ---------------------------------------------------------------------------------------------- */
/* Render one figure in PNG, SVG and PDF. Returns true when all three exist. */
static bool render(report_t *r, rs_plot_kind_t kind, const char *data, const char *name, const char *title,
                   const char *x) {
    static const char *const ext[3] = {"png", "svg", "pdf"};
    rs_plot_opts_t o;
    memset(&o, 0, sizeof o);
    o.title = title;
    o.x = x;
    for (int i = 0; i < 3; i++) {
        char out[1200];
        snprintf(out, sizeof out, "%s/figures/%s.%s", r->dir, name, ext[i]);
        rs_err_t err;
        if (rs_plot_render(kind, data, out, &o, &err) != 0) {
            if (!r->fig_why[0]) snprintf(r->fig_why, sizeof r->fig_why, "%s: %s", name, err.msg);
            return false;
        }
    }
    return true;
}

/* regenerate.sh: the same figures from the data, with the (editable) copied scripts. */
static void write_regenerate(report_t *r) {
    rs_err_t err;
    snprintf(r->path, sizeof r->path, "%s/figures/regenerate.sh", r->dir);
    rs_file_t f;
    if (rs_file_open(&f, r->path, &err) != 0) return;
    const char *simtr = r->sim ? "sim" : "model";
    fprintf(f.fp,
            "#!/bin/sh\n# Re-render the report's figures from its data with the scripts in figures/scripts/\n"
            "# (edit them freely; plots/style.gp is the shared look). Run from the report directory.\n"
            "set -e\ncd \"$(dirname \"$0\")/..\"\nRINGSIM=${RINGSIM:-ringsim}\n"
            "export RINGSIM_PLOTS_DIR=\"$PWD/figures/scripts\"\n"
            "for ext in png svg pdf; do\n"
            "  $RINGSIM plot tcomm-vs-b data/sweep-b.csv -o figures/tcomm-vs-b.$ext\n"
            "  $RINGSIM plot tcomm-vs-b data/sweep-b-causal.csv -o figures/tcomm-vs-b-causal.$ext\n"
            "  $RINGSIM plot timeline traces/%s-zigzag-forward.csv -o figures/timeline-zigzag-forward.$ext\n"
            "  $RINGSIM plot timeline traces/%s-contiguous-forward.csv -o figures/timeline-contiguous-forward.$ext\n"
            "  [ -f data/compare-zigzag-forward.csv ] && $RINGSIM plot pred-vs-meas data/compare-zigzag-forward.csv "
            "--title 'Model vs SimGrid, per step (zigzag, forward)' -o figures/pred-vs-meas.$ext\n"
            "  $RINGSIM plot layout-busy data/busy-forward.csv -o figures/layout-busy.$ext\n"
            "  $RINGSIM plot scaling data/scaling-n.csv --x n_ranks -o figures/scaling-n.$ext\n"
            "  $RINGSIM plot scaling data/scaling-b.csv --x block_tokens -o figures/scaling-b.$ext\n"
            "  [ -f data/contention.csv ] && $RINGSIM plot contention data/contention.csv --x nics -o figures/contention.$ext\n"
            "done\n",
            simtr, simtr);
    if (rs_file_commit(&f, &err) == 0) chmod(r->path, 0755);
}

/* The figure data file "DIR/REL" into r->path; returns r->path. */
static const char *data_path(report_t *r, const char *rel) {
    snprintf(r->path, sizeof r->path, "%s/%s", r->dir, rel);
    return r->path;
}

static void report_figures(report_t *r) {
    if (r->in->no_figures) {
        snprintf(r->fig_why, sizeof r->fig_why, "figures skipped (--no-figures)");
        return;
    }
    phase(r, 5, "figures");
    const char *tr = r->sim ? "sim" : "model";
    char rel[64];
    r->f_tb = render(r, RS_PLOT_TCOMM_VS_B, data_path(r, "data/sweep-b.csv"), "tcomm-vs-b", NULL, NULL);
    r->f_tbc = render(r, RS_PLOT_TCOMM_VS_B, data_path(r, "data/sweep-b-causal.csv"), "tcomm-vs-b-causal", NULL, NULL);
    snprintf(rel, sizeof rel, "traces/%s-zigzag-forward.csv", tr);
    if (access(data_path(r, rel), R_OK) == 0) r->f_tl = render(r, RS_PLOT_TIMELINE, r->path, "timeline-zigzag-forward", NULL, NULL);
    snprintf(rel, sizeof rel, "traces/%s-contiguous-forward.csv", tr);
    if (access(data_path(r, rel), R_OK) == 0)
        r->f_tlc = render(r, RS_PLOT_TIMELINE, r->path, "timeline-contiguous-forward", NULL, NULL);
    if (access(data_path(r, "data/compare-zigzag-forward.csv"), R_OK) == 0)
        r->f_pvm = render(r, RS_PLOT_PRED_VS_MEAS, r->path, "pred-vs-meas", "Model vs SimGrid, per step (zigzag, forward)", NULL);
    if (r->have_busy[RS_PASS_FORWARD])
        r->f_busy = render(r, RS_PLOT_LAYOUT_BUSY, data_path(r, "data/busy-forward.csv"), "layout-busy",
                           r->p0->causal ? "Per-rank compute time by layout (causal, forward)"
                                         : "Per-rank compute time by layout (forward)",
                           NULL);
    if (r->have_val)
        r->f_vb = render(r, RS_PLOT_TCOMM_VS_B, data_path(r, "data/validation-b.csv"), "tcomm-vs-b-measured",
                         "Measured on this CPU (2 MPI ranks) vs the calibrated model", NULL);
    if (r->have_val_cmp)
        r->f_vpvm = render(r, RS_PLOT_PRED_VS_MEAS, data_path(r, "data/compare-exec.csv"), "pred-vs-meas-exec",
                           "Calibrated model vs CPU measurement, per (rank, step)", NULL);
    r->f_sn = render(r, RS_PLOT_SCALING, data_path(r, "data/scaling-n.csv"), "scaling-n", NULL, "n_ranks");
    r->f_sb = render(r, RS_PLOT_SCALING, data_path(r, "data/scaling-b.csv"), "scaling-b", NULL, "block_tokens");
    if (r->have_cont) r->f_cont = render(r, RS_PLOT_CONTENTION, data_path(r, "data/contention.csv"), "contention", NULL, "nics");
    rs_err_t e2;
    if (rs_plot_copy_scripts(data_path(r, "figures/scripts"), &e2) != 0 && !r->fig_why[0])
        snprintf(r->fig_why, sizeof r->fig_why, "%s", e2.msg);
    write_regenerate(r);
}

/* ------------------------------------------------------------------------------------------------
 * 5. the document: report.md and report.html
 * ---------------------------------------------------------------------------------------------- */
static void doc_problem(report_t *r, rs_doc_t *d) {
    const rs_problem_t *p0 = r->p0;
    const rs_machine_t *m = r->m;
    const rs_dtype_t dtype = r->c->spec.dtype;
    char a1[32];
    rs_doc_h(d, 1, "Ring Attention report");
    rs_doc_p(d, "Problem: S = %lld tokens over N = %lld ranks (B = %lld tokens per rank), batch %lld, %lld query heads, "
                "%lld KV heads, head_dim %lld, %s activations (%lld bytes), dK/dV in flight %lld bytes, %s mask, tile %lldx%lld.",
             (long long)p0->seq_tokens, (long long)p0->n_ranks, (long long)rs_problem_block(p0), (long long)p0->batch,
             (long long)p0->q_heads, (long long)p0->kv_heads, (long long)p0->head_dim, rs_dtype_name(dtype),
             (long long)p0->act_bytes, (long long)p0->grad_bytes, p0->causal ? "causal" : "no", (long long)p0->tile_q,
             (long long)p0->tile_k);
    rs_doc_p(d, "Hardware: %s, F = %.1f TFLOP/s (%s), ring hop %s W = %.1f GB/s per direction, latency %s%s.", m->hw_name,
             m->flops_per_s / 1e12, rs_dtype_name(dtype), m->intra.name, m->intra.bw_bytes_per_s / 1e9,
             fmt_t(m->intra.latency_s, a1, sizeof a1),
             m->devices_per_node > 0 && m->devices_per_node < p0->n_ranks ? " (nodes cross over the inter-node tier)" : "");
    char kd[256];
    rs_doc_p(d, "Compute: the attention steps are costed %s (docs/model.md section 3a; --impl, --kernel, --flops change it).",
             rs_kernel_describe(m, kd, sizeof kd));
}

/* Per pass: the overlap threshold, and which layout wins and by how much. */
static void doc_pass(report_t *r, rs_doc_t *d, int j) {
    const int nl = r->c->n_layouts;
    const entry_t *es = &r->es[j * nl];
    char a1[32], a2[32], line[1200];
    rs_report_finding_threshold(&es[0].closed, es[0].problem.pass, es[0].problem.layout, line, sizeof line);
    rs_doc_li(d, "%s", line);
    int best = 0, worst = 0;
    for (int i = 1; i < nl; i++) {
        if (es[i].walk.makespan_s < es[best].walk.makespan_s) best = i;
        if (es[i].walk.makespan_s > es[worst].walk.makespan_s) worst = i;
    }
    const entry_t *eb = &es[best], *ew = &es[worst];
    char tie[256] = "";
    bool tied[RS_LAYOUT_COUNT + 1] = {false};
    for (int i = 0; i < nl && i <= RS_LAYOUT_COUNT; i++) /* layouts within 0.5% of the best tie with it */
        if (i != best && es[i].walk.makespan_s <= 1.005 * eb->walk.makespan_s) {
            tied[i] = true;
            snprintf(tie + strlen(tie), sizeof tie - strlen(tie), " and %s (+%.2f%%)", rs_layout_name(es[i].problem.layout),
                     100.0 * (es[i].walk.makespan_s / eb->walk.makespan_s - 1));
        }
    if (nl <= 1) return;
    char others[1024] = "";
    for (int i = 0; i < nl; i++) {
        if (i == best || (i <= RS_LAYOUT_COUNT && tied[i])) continue;
        const entry_t *e = &es[i];
        snprintf(others + strlen(others), sizeof others - strlen(others), "%s%s %s (%.2fx, +%.2f%%)", others[0] ? ", " : "",
                 rs_layout_name(e->problem.layout), fmt_t(e->walk.makespan_s, a1, sizeof a1),
                 e->walk.makespan_s / eb->walk.makespan_s, 100.0 * (e->walk.makespan_s / eb->walk.makespan_s - 1));
    }
    rs_doc_li(d, "**%s: %s%s %s** with a makespan of %s (efficiency %.1f%% of perfect balance)%s%s. The worst, %s, "
                 "leaves its busiest rank computing %.2fx the mean.",
              rs_pass_name(eb->problem.pass), rs_layout_name(eb->problem.layout), tie, tie[0] ? "tie (within 0.5%)" : "wins",
              fmt_t(eb->walk.makespan_s, a2, sizeof a2), 100 * eb->walk.efficiency, others[0] ? "; " : "", others,
              rs_layout_name(ew->problem.layout),
              ew->walk.busy_mean_s > 0 ? ew->walk.busy_max_s / ew->walk.busy_mean_s : 1.0);
}

/* Per profile of the N scaling: how far the ring keeps its transfers hidden at the problem's S (the
 * scaling-n figure's rows). */
static void doc_scaling(report_t *r, rs_doc_t *d) {
    const rs_sweep_spec_t *spec = r->spec;
    char line[1200];
    for (int pr = 0; pr < spec->n_profiles; pr++) {
        rs_report_finding_scaling(r->sn.pts, r->sn.n, spec->profiles[pr], 0.9, line, sizeof line);
        rs_doc_li(d, "%s", line);
    }
}

static void doc_findings(report_t *r, rs_doc_t *d) {
    const rs_setup_t *c = r->c;
    rs_doc_h(d, 2, "Findings");
    for (int j = 0; j < c->n_passes; j++) doc_pass(r, d, j);
    for (int k = 0; k < r->ne; k++) { /* bound by what */
        const entry_t *e = &r->es[k];
        double frac = e->walk.rank_steps ? (double)e->walk.comm_bound_steps / (double)e->walk.rank_steps : 0;
        double imb = e->walk.busy_mean_s > 0 ? e->walk.busy_max_s / e->walk.busy_mean_s : 1;
        const char *what = frac > 0.5 ? "the transfers" : (imb > 1.1 ? "load imbalance" : "compute");
        rs_doc_li(d, "%s %s is bound by **%s**: %.0f%% of (rank, step) wait on a transfer, busiest rank %.2fx the mean, "
                     "efficiency %.1f%%.",
                  rs_layout_name(e->problem.layout), rs_pass_name(e->problem.pass), what, 100 * frac, imb, 100 * e->walk.efficiency);
    }
    char line[1200];
    rs_report_finding_crossover(r->sb.pts, r->sb.n, r->sbc.pts, r->sbc.n, r->sim ? 1 : 0, r->sim ? "SimGrid" : "model walk",
                                r->p0->n_ranks, line, sizeof line);
    rs_doc_li(d, "%s", line);
    doc_scaling(r, d);
    rs_doc_end_list(d);
    if (r->spec->n_profiles == 3)
        rs_doc_p(d, "%s is %s with one device per node: every ring hop crosses the inter-node tier (%s, %.0f GB/s per "
                    "direction) instead of %s.",
                 r->spec->profiles[1], c->spec.profile, c->hw.inter.name, c->hw.inter.bw_bytes_per_s / 1e9, c->hw.intra.name);
}

/* The table per layout and pass, and how far SimGrid is from the model. */
static void doc_entries(report_t *r, rs_doc_t *d) {
    enum { MAXR = 1 + RS_LAYOUT_COUNT * RS_PASS_COUNT };
    char rows[MAXR][512], a1[32], a2[32], a3[32], a4[32];
    const char *rp[MAXR];
    const int ne = r->ne;
    rs_doc_h(d, 2, "Per layout and pass");
    snprintf(rows[0], sizeof rows[0],
             "layout|pass|makespan (model)|makespan (sim)|efficiency|busiest/mean|comm-bound steps|T_comp (step)|T_comm|bound|B*");
    for (int k = 0; k < ne && k + 1 < MAXR; k++) {
        const entry_t *e = &r->es[k];
        snprintf(rows[k + 1], sizeof rows[0], "%s|%s|%s|%s|%.1f%%|%.2f|%lld / %lld|%s|%s|%s|%.0f", rs_layout_name(e->problem.layout),
                 rs_pass_name(e->problem.pass), fmt_t(e->walk.makespan_s, a1, sizeof a1),
                 e->has_sim ? fmt_t(e->sim_makespan_s, a2, sizeof a2) : "-", 100 * e->walk.efficiency,
                 e->walk.busy_mean_s > 0 ? e->walk.busy_max_s / e->walk.busy_mean_s : 1.0, (long long)e->walk.comm_bound_steps,
                 (long long)e->walk.rank_steps, fmt_t(e->closed.t_comp_s, a3, sizeof a3), fmt_t(e->closed.t_comm_s, a4, sizeof a4),
                 e->closed.comm_bound ? "transfer" : "compute", e->closed.b_star_tokens);
    }
    for (int k = 0; k <= ne && k < MAXR; k++) rp[k] = rows[k];
    rs_doc_table(d, rp, ne + 1 < MAXR ? ne + 1 : MAXR);
    rs_doc_p(d, "Efficiency = ideal / makespan, ideal = total useful FLOPs / (N x the kernel's rate on one B x B call of the "
                "problem's mask; F_eff(B) without kernel curves). T_comp (step), T_comm, the bound and B* are the closed form's "
                "for the layout's middle step (the step class that paces the ring: a causal zigzag step computes about half a "
                "block). Exact values: summary.csv.");
    if (!r->sim) {
        rs_doc_p(d, "SimGrid: not run (%s).", r->in->no_sim ? "--no-sim" : r->sim_why[0] ? r->sim_why : "not built");
        return;
    }
    double worst = 0, worst_ms = 0;
    for (int k = 0; k < ne; k++) {
        if (!r->es[k].has_sim) continue;
        for (int mm = 0; mm < RS_CMP_METRIC_COUNT; mm++)
            if (r->es[k].cmp.stats[mm].n && r->es[k].cmp.stats[mm].max_abs > worst) worst = r->es[k].cmp.stats[mm].max_abs;
        if (fabs(r->es[k].cmp.makespan_rel) > worst_ms) worst_ms = fabs(r->es[k].cmp.makespan_rel);
    }
    rs_doc_p(d, "SimGrid against the model: largest per-step error %.3g%%, largest makespan error %.3g%% over all layouts "
                "and passes (data/compare-*.csv; `ringsim compare` reproduces them).",
             100 * worst, 100 * worst_ms);
}

static void doc_figures(report_t *r, rs_doc_t *d) {
    rs_doc_h(d, 2, "Figures");
    if (r->fig_why[0]) rs_doc_p(d, "Note: %s", r->fig_why);
    rs_doc_fig(d, "tcomm-vs-b", "T_comp and T_comm per ring step against B (full blocks): predicted lines, simulated points", r->f_tb);
    rs_doc_fig(d, "tcomm-vs-b-causal", "The same under the causal mask (zigzag): the crossover moves to about 2 B*", r->f_tbc);
    rs_doc_fig(d, "timeline-zigzag-forward", "Timeline of the zigzag forward pass: compute, send and recv per rank and step", r->f_tl);
    rs_doc_fig(d, "timeline-contiguous-forward", "Timeline of the contiguous forward pass: the causal mask idles early ranks",
               r->f_tlc);
    rs_doc_fig(d, "layout-busy", "Per-rank compute time of the three layouts", r->f_busy);
    rs_doc_fig(d, "pred-vs-meas", "Model against SimGrid per (rank, step), y = x with a +-10% band", r->f_pvm);
    rs_doc_fig(d, "scaling-n", "Step time and overlap efficiency against N at fixed S, three machines", r->f_sn);
    rs_doc_fig(d, "scaling-b", "Step time and overlap efficiency against B at fixed N, three machines", r->f_sb);
    rs_doc_p(d, "%s", r->cont_note);
    rs_doc_fig(d, "contention", "Concurrent rings: efficiency against NICs per node, non-blocking and 2:1 spine (dashed: "
                                "without contention)", r->f_cont);
}

/* The held-out table and its sentence, from validate's heldout.csv. */
static void doc_heldout(report_t *r, rs_doc_t *d) {
    enum { MAXR = 1 + 4 * RS_LAYOUT_COUNT * RS_PASS_COUNT };
    static char rows[MAXR][512];
    const char *rp[MAXR];
    int n = 0;
    char line[1400];
    rs_report_heldout_rows(&r->heldout, rows, MAXR, &n);
    for (int k = 0; k < n; k++) rp[k] = rows[k];
    rs_doc_p(d, "Held-out validation (validation/heldout.csv; |error| = |model - measured| / measured per (rank, step), "
                "medians and p95 over the B sweep; crossover B at the seed's threshold, '-' where the sweep does not reach it "
                "or no step computes without a transfer):");
    rs_doc_table(d, rp, n);
    rs_report_finding_heldout(&r->heldout, 0.10, line, sizeof line);
    rs_doc_p(d, "%s", line);
}

static void doc_exec(report_t *r, rs_doc_t *d) {
    rs_doc_h(d, 2, "Real execution (CPU)");
    rs_doc_p(d, "%s", r->exec_note);
    if (r->have_heldout) doc_heldout(r, d);
    if (r->have_val) {
        char line[1400];
        rs_report_finding_measured_crossover(r->sv.pts, r->sv.n, r->val_x_meas, r->val_x_model, line, sizeof line);
        rs_doc_p(d, "%s", line);
        rs_doc_fig(d, "tcomm-vs-b-measured", "T_comp and T_comm measured on this CPU (points) against the calibrated model (lines)",
                   r->f_vb);
    }
    if (r->have_val_cmp) {
        const rs_cmp_stats_t *s0 = &r->vcmp.stats[RS_CMP_STEP];
        char m1[16], m2[16], m3[16], m4[16];
        rs_doc_p(d, "Per (rank, step) at B = %lld: T_step error median %s%%, p95 %s%%, max %s%% (worst at rank %d, step %d); "
                    "makespan error %s%% (data/compare-exec.csv; error = (model - measured) / measured).",
                 r->vcmp_b, rs_fmt_num(100 * s0->median_abs, "%.1f", m1, sizeof m1), rs_fmt_num(100 * s0->p95_abs, "%.1f", m2, sizeof m2),
                 rs_fmt_num(100 * s0->max_abs, "%.1f", m3, sizeof m3), (int)s0->worst.rank, (int)s0->worst.step,
                 rs_fmt_num(100 * r->vcmp.makespan_rel, "%+.1f", m4, sizeof m4));
        rs_doc_fig(d, "pred-vs-meas-exec", "Calibrated model against the CPU measurement per (rank, step), y = x with a +-10% band",
                   r->f_vpvm);
    }
}

static void doc_files(report_t *r, rs_doc_t *d) {
    rs_doc_h(d, 2, "Files");
    rs_doc_li(d, "traces/: model-LAYOUT-PASS.csv and .json (Chrome/Perfetto: open in ui.perfetto.dev)%s",
              r->sim ? ", sim-LAYOUT-PASS.*" : "");
    rs_doc_li(d, "data/: sweep-b.csv, sweep-b-causal.csv, scaling-n.csv, scaling-b.csv (ringsim sweep format), busy-*.csv, compare-*.csv%s",
              r->have_cont ? ", contention.csv (the contention study's format, docs/sim.md)" : "");
    rs_doc_li(d, "figures/: PNG, SVG and PDF; figures/scripts/ holds the gnuplot scripts, figures/regenerate.sh re-renders them");
    rs_doc_li(d, "summary.csv: every number of the table above at full precision");
    rs_doc_end_list(d);
    rs_doc_p(d, "Generated by `%s` (ringsim %s) in %.1f s.", r->in->command, RINGSIM_VERSION, rs_now_s() - r->t_start);
}

static int report_doc(report_t *r, rs_err_t *err) {
    rs_file_t fmd = {0}, fhtml = {0};
    snprintf(r->path, sizeof r->path, "%s/report.md", r->dir);
    snprintf(r->path2, sizeof r->path2, "%s/report.html", r->dir);
    if (rs_file_open(&fmd, r->path, err) != 0 || rs_file_open(&fhtml, r->path2, err) != 0) {
        if (fmd.fp) rs_file_abort(&fmd);
        return -1;
    }
    rs_doc_t d = {fmd.fp, fhtml.fp};
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ringsim report</title>\n<style>\n"
          "body{font-family:'DejaVu Sans',sans-serif;max-width:1000px;margin:2em auto;line-height:1.45;color:#222}\n"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\n"
          "th{background:#f3f3f3}figure{margin:1.5em 0}figcaption{font-style:italic;color:#444}\n"
          "</style></head><body>\n",
          d.html);
    doc_problem(r, &d);
    doc_findings(r, &d);
    doc_entries(r, &d);
    doc_figures(r, &d);
    doc_exec(r, &d);
    doc_files(r, &d);
    fputs("</body></html>\n", d.html);
    if (rs_file_commit(&fhtml, err) != 0 || rs_file_commit(&fmd, err) != 0) {
        if (fmd.fp) rs_file_abort(&fmd);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * The study
 * ---------------------------------------------------------------------------------------------- */
/* The directory's stage (output.h: the report becomes DIR when the run ends well, nothing of it
 * stays otherwise) and its sub-directories into stage. Returns 0, or -1 with err (bad input: DIR
 * exists without --force, or cannot be made). */
static int report_dirs(const rs_report_in_t *in, char *stage, size_t len, rs_err_t *err) {
    if (strlen(in->dir) > 400) return rs_errc(err, RS_ERR_BAD_INPUT, "-o: at most 400 characters");
    struct stat st;
    if (stat(in->dir, &st) == 0 && !in->force)
        return rs_errc(err, RS_ERR_BAD_INPUT, "-o %s: exists; give --force to write into it, or another directory", in->dir);
    if (stat(in->dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return rs_errc(err, RS_ERR_BAD_INPUT, "-o %s: exists and is not a folder", in->dir);
    if (rs_out_stage_dir(in->dir, stage, len, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    const char *subs[] = {"/traces", "/data", "/figures", "/figures/scripts"};
    char path[1200];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s%s", stage, subs[i]);
        if (mkdir_p(path, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    }
    return 0;
}

static void report_free(report_t *r) {
    for (int k = 0; r->es && k < r->ne; k++) {
        free(r->es[k].busy_s);
        rs_compare_free(&r->es[k].cmp);
    }
    free(r->es);
    free(r->sb.pts), free(r->sbc.pts), free(r->sn.pts), free(r->sbb.pts), free(r->sv.pts);
    if (r->have_heldout) rs_table_free(&r->heldout);
    rs_compare_free(&r->vcmp);
    free(r->spec);
    free(r);
}

int rs_study_report(const rs_report_in_t *in, rs_err_t *err) {
    report_t *r = calloc(1, sizeof *r);
    if (!r || !(r->spec = calloc(1, sizeof *r->spec))) {
        free(r);
        return rs_errc(err, RS_ERR_RUNTIME, "out of memory");
    }
    if (report_dirs(in, r->stage, sizeof r->stage, err) != 0) {
        report_free(r);
        return -1;
    }
    r->in = in, r->c = in->setup, r->m = &in->setup->machine, r->p0 = &in->setup->problem, r->dir = r->stage;
    r->t_start = rs_now_s();
    r->val_x_meas = r->val_x_model = NAN;
    /* the simulator, when built, not refused (--no-sim) and its can_run rule allows the machine */
    r->sim = in->no_sim ? NULL : rs_backend_find("sim");
    for (int i = 0; r->sim && i < r->c->n_layouts; i++) {
        rs_err_t why;
        rs_problem_t p = rs_setup_problem(r->c, i, 0);
        if (r->sim->can_run(&p, r->m, &why) != 0) snprintf(r->sim_why, sizeof r->sim_why, "%.390s", why.msg), r->sim = NULL;
    }
    rs_meter_start(&r->meter, "report", 0, NULL);
    phase(r, 1, r->sim ? "model and sim" : "model");
    int rc = report_entries(r, err) == 0 && report_sweeps(r, err) == 0 ? 0 : rs_err_mark(err, RS_ERR_RUNTIME);
    if (rc == 0) {
        report_contention(r);
        report_exec(r);
        report_figures(r);
        phase(r, 6, "report.md and report.html");
        if (report_doc(r, err) != 0) rc = rs_err_mark(err, RS_ERR_RUNTIME);
    }
    rs_meter_end(&r->meter);
    if (rc == 0)
        printf("ringsim report: written to %s/report.md (and %s/report.html) in %.1f s\n", in->dir, in->dir, rs_now_s() - r->t_start);
    report_free(r);
    return rc;
}
