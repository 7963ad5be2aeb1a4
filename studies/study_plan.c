/* study_plan.c - the capacity-planning study (study_plan.h). */
#include "study_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "setup.h"
#include "study_csv.h"
#include "study_plan_budget.h"

#ifdef RINGSIM_HAVE_PLOTS
#include "meter.h"
#include "output.h"
#include "plot.h"
#endif
#ifdef RINGSIM_HAVE_SIM
#include "sim_alt.h" /* Ulysses and USP splits in SimGrid: not ring schedules, so not a backend's run() */
#include "study_contention.h"
#endif

typedef rs_plan_candidate_t cand_t;

void rs_plan_defaults(rs_plan_in_t *in) {
    memset(in, 0, sizeof *in);
    rs_plan_config_default(&in->config);
    in->profiles = "h100-sxm";
    in->gpus_per_node = -1;
    in->out = stdout;
}

/* The layouts of the study: in->layouts, or the configuration's one. */
static int study_layouts(const rs_plan_in_t *in, rs_layout_t out[RS_LAYOUT_COUNT]) {
    if (in->n_layouts <= 0) return out[0] = in->config.layout, 1;
    for (int i = 0; i < in->n_layouts; i++) out[i] = in->layouts[i];
    return in->n_layouts;
}

/* The configuration of candidate k: the study's, at k's layout. */
static rs_plan_config_t cand_config(const rs_plan_in_t *in, const cand_t *k) {
    rs_plan_config_t c = in->config;
    c.layout = k->layout;
    return c;
}

static const char *gib(char *buf, size_t len, double bytes) {
    snprintf(buf, len, "%.1f", bytes / 1073741824.0);
    return buf;
}

/* The header lines of the candidates: what rates their attention and their GEMMs, and what memory fits. */
void rs_plan_print_headers(FILE *out, const rs_plan_config_t *c, const cand_t *cands, int n) {
    char lchunk[32];
    if (c->loss_chunk_tokens > 0) snprintf(lchunk, sizeof lchunk, "%lld", (long long)c->loss_chunk_tokens);
    else snprintf(lchunk, sizeof lchunk, "none");
    fprintf(out, "# model=%s seq=%s global_batch=%lld precision=%s gemm=%s ckpt=%s loss_chunk=%s causal=%d runtime=%s usable=%.2f\n",
            c->model.name, c->seq_tokens ? "given" : "max", (long long)c->global_batch, rs_precision_name(c->precision),
            c->fp8_linear ? "fp8" : (c->precision == RS_PREC_FP32 ? "fp32" : "bf16"), rs_ckpt_name(c->ckpt), lchunk, c->causal,
            rs_runtime_name(c->runtime), rs_plan_usable(c));
    for (int i = 0; i < n; i++) {
        if (i > 0 && !strcmp(cands[i].spec, cands[i - 1].spec)) continue; /* the same candidate, another layout */
        char kd[256], gd[320];
        const rs_machine_t *m = &cands[i].machine;
        rs_gemm_t g;
        rs_err_t e;
        if (rs_gemm_model(&cands[i].hw, c->fp8_linear ? RS_DTYPE_FP8 : m->dtype, c->linear_eff, &g, &e)) snprintf(gd, sizeof gd, "%.300s", e.msg);
        else rs_gemm_describe(&g, gd, sizeof gd);
        if (m->kernel == 0 && m->cal.n_eff == 1 && m->cal.eff[0].block_tokens == 1) /* rs_plan_candidate's --attn-eff */
            snprintf(kd, sizeof kd, "at %.2f x the dense peak %.4g TFLOP/s (--attn-eff, user-given)", m->cal.eff[0].efficiency,
                     m->flops_per_s / 1e12);
        else rs_kernel_describe(m, kd, sizeof kd);
        fprintf(out, "# %s: attention %s; %s\n", cands[i].hw.name, kd, gd);
        if (cands[i].warning[0]) fprintf(out, "# %s: warning: %s\n", cands[i].hw.name, cands[i].warning);
        char notes[1536]; /* the curves' fallbacks, as model says them */
        if (rs_machine_kernel_notes(m, c->model.head_dim, notes, sizeof notes)[0]) fprintf(out, "# %s: note: %s\n", cands[i].hw.name, notes);
    }
}

static void print_table(FILE *out, const rs_plan_config_t *c, const cand_t *cands, int n) {
    bool several = false; /* layouts: each candidate's why line names its layout */
    for (int i = 1; i < n; i++) several |= cands[i].layout != cands[0].layout;
    rs_plan_print_headers(out, c, cands, n);
    fprintf(out, "# %-10s %3s %3s %9s %5s %3s %-10s %-9s %4s %7s %9s %9s %9s %8s %7s %9s %9s %9s %6s %9s %9s\n", "profile", "G", "tp",
            "seq", "N", "dp", "layout", "split", "fits", "mem_GiB", "attn_ms", "sim_ms", "a2a_ms", "tp_ms", "hidden", "B_tokens",
            "layer_ms", "step_s", "MFU", "usd_step", "usd_Mtok");
    for (int i = 0; i < n; i++) {
        const rs_plan_result_t *r = &cands[i].res;
        for (int j = 0; j < r->n_options; j++) {
            const rs_plan_option_t *o = &r->options[j];
            char sp[32], mem[32], hid[8], cl[9][24]; /* a number not computed (no --sim, no price) is "-" */
            snprintf(hid, sizeof hid, "%s/%s", o->ring > 1 ? (o->attn.ring_hidden_fwd ? "y" : "n") : "-",
                     o->ring > 1 ? (o->attn.ring_hidden_bwd ? "y" : "n") : "-");
            fprintf(out, "%c %-10.10s %3lld %3lld %9lld %5lld %3lld %-10s %-9s %4s %7s %9s %9s %9s %8s %7s %9lld %9s %9s %6s %9s %9s\n",
                    j == r->best ? '*' : ' ', r->hw_name, (long long)r->devices_per_node, (long long)o->tp, (long long)r->seq_tokens,
                    (long long)(o->ulysses * o->ring), (long long)r->dp, rs_layout_name(o->layout), rs_plan_split_name(sp, sizeof sp, o),
                    o->fits ? "yes" : "no", gib(mem, sizeof mem, o->mem_bytes), rs_fmt_num(o->t_attn_layer_s * 1e3, "%.3f", cl[0], 24),
                    rs_fmt_num(cands[i].sim_attn_s[j] * 1e3, "%.3f", cl[1], 24),
                    rs_fmt_num((o->attn.a2a_fwd_s + o->attn.a2a_bwd_s) * 1e3, "%.3f", cl[2], 24),
                    rs_fmt_num(o->t_tp_layer_s * 1e3, "%.3f", cl[8], 24), hid, (long long)o->attn.ring_block_tokens,
                    rs_fmt_num(o->t_layer_s * 1e3, "%.3f", cl[3], 24), rs_fmt_num(o->t_step_s, "%.3f", cl[4], 24),
                    rs_fmt_num(o->mfu, "%.3f", cl[5], 24), rs_fmt_num(o->cost_per_step, "%.4g", cl[6], 24),
                    rs_fmt_num(o->cost_per_mtok, "%.4g", cl[7], 24));
        }
        if (c->seq_tokens == 0 && (r->fits || r->seq_tokens_high > 0)) /* "max": the longest S at each end of the memory range */
            fprintf(out, "# %s: longest context %lld, range %lld .. %lld (fragmentation %.0f%% .. 0%%, docs/memory.md 3.6)\n",
                    r->hw_name, (long long)(r->fits ? r->seq_tokens : 0), (long long)r->seq_tokens_low, (long long)r->seq_tokens_high,
                    100 * rs_runtime_fragmentation(c->runtime, true));
        if (!r->fits) {
            char a[32], b[32], sh[32];
            fprintf(out, "# %s: does not fit at N=%lld: %s GiB per device, %s usable (short by %s GiB)\n", r->hw_name,
                    (long long)r->sp, gib(a, sizeof a, r->mem.total_bytes), gib(b, sizeof b, r->usable_bytes),
                    gib(sh, sizeof sh, r->shortfall_bytes));
        }
        fprintf(out, "# %s%s%s: %s\n", r->hw_name, several ? " " : "", several ? rs_layout_name(cands[i].layout) : "", r->why);
    }
    fprintf(out, "# '*' = fastest split that fits; hidden = every ring transfer hides behind compute, fwd/bwd "
                 "(the layout's middle step computes at least as long as its transfers take, model/4-cost/kernel.h); times per "
                 "layer include recompute (ckpt); tp_ms: TP all-reduces; MFU: model FLOPs at each part's datasheet peak (GEMMs' dtype, attention's) / (devices x step)\n");
}

static const char CSV_HEADER[] =
    "profile,devices_per_node,seq_tokens,n_ranks,ulysses,ring,dp,accum,split,best,fits,mem_bytes,usable_bytes,attn_fwd_s,"
    "attn_bwd_s,a2a_fwd_s,a2a_bwd_s,attn_layer_s,linear_layer_s,layer_s,head_s,step_s,block_tokens,ring_b_star_tokens,"
    "ring_hidden_fwd,ring_hidden_bwd,a2a_inter,ring_inter,mfu,usd_per_step,usd_per_mtok,sim_attn_layer_s,tp,layout,tp_layer_s,"
    "linear_eff,bound,seq_tokens_low,seq_tokens_high\n";

/* The CSV rows of candidate i: one per split. */
static void csv_rows(FILE *fp, const void *items, size_t i) {
    const cand_t *k = &((const cand_t *)items)[i];
    const rs_plan_result_t *r = &k->res;
    for (int j = 0; j < r->n_options; j++) {
        const rs_plan_option_t *o = &r->options[j];
        fprintf(fp, "%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%s,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                    "%.17g,%.17g,%.17g,%.17g,%lld,%.17g,%d,%d,%d,%d,%.17g,%.17g,%.17g,%.17g,%lld,%s,%.17g,%.17g,%s",
                r->hw_name, (long long)r->devices_per_node, (long long)r->seq_tokens, (long long)(o->ulysses * o->ring),
                (long long)o->ulysses, (long long)o->ring, (long long)r->dp, (long long)r->accum, rs_sp_kind_name(o->kind),
                j == r->best, o->fits, o->mem_bytes, r->usable_bytes, o->attn.attn_fwd_s, o->attn.attn_bwd_s,
                o->attn.a2a_fwd_s, o->attn.a2a_bwd_s, o->t_attn_layer_s, o->t_linear_layer_s, o->t_layer_s, o->t_head_s,
                o->t_step_s, (long long)o->attn.ring_block_tokens, o->attn.ring_b_star_tokens, o->attn.ring_hidden_fwd,
                o->attn.ring_hidden_bwd, o->attn.a2a_inter, o->attn.ring_inter, o->mfu, o->cost_per_step, o->cost_per_mtok,
                k->sim_attn_s[j], (long long)o->tp, rs_layout_name(o->layout), o->t_tp_layer_s, o->linear_eff,
                rs_limit_name(rs_plan_limit(o)));
        if (r->seq_tokens_low || r->seq_tokens_high) /* "max": the range; a given S has none */
            fprintf(fp, ",%lld,%lld\n", (long long)r->seq_tokens_low, (long long)r->seq_tokens_high);
        else
            fputs(",,\n", fp);
    }
}

static int write_maxctx(const char *path, const rs_plan_config_t *c, const cand_t *cands, int n, rs_err_t *err) {
    rs_file_t f = {0};
    if (rs_file_open(&f, path, err)) return -1;
    fprintf(f.fp, "# ringsim plan --maxctx-csv: longest context that fits per device count N (ring, ZeRO-3)\n");
    fprintf(f.fp, "# model=%s precision=%s ckpt=%s usable=%.2f\n", c->model.name, rs_precision_name(c->precision),
            rs_ckpt_name(c->ckpt), rs_plan_usable(c));
    fprintf(f.fp, "# limit: memory, or flops64 where the schedule's 64-bit FLOP counts stop first\n");
    fprintf(f.fp, "profile,n_ranks,max_seq_tokens,limit\n");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < cands[i].n_curve; k++)
            fprintf(f.fp, "%s,%lld,%lld,%s\n", cands[i].hw.name, (long long)cands[i].curve_n[k],
                    (long long)cands[i].curve_seq[k], cands[i].curve_capped[k] ? "flops64" : "memory");
    return rs_file_commit(&f, err);
}

/* SimGrid (sim/sim_alt.h): each split's forward and backward attention pass, combined as the plan does
 * (forward + backward + recomputed forward under full checkpointing). */
static int simulate(const rs_plan_config_t *c, cand_t *k, rs_err_t *err) {
#ifdef RINGSIM_HAVE_SIM
    const rs_plan_result_t *r = &k->res;
    if (r->sp > RS_PLAN_SIM_MAX_N) return 0;
    for (int j = 0; j < r->n_options; j++) {
        const rs_plan_option_t *o = &r->options[j];
        rs_sp_config_t sc;
        rs_sp_config_default(&sc);
        sc.seq_tokens = r->seq_tokens;
        sc.batch = 1;
        sc.ulysses = o->ulysses;
        sc.ring = o->ring;
        sc.causal = c->causal;
        sc.layout = c->layout;
        sc.act_bytes = rs_precision_act_bytes(c->precision);
        sc.grad_bytes = rs_plan_grad_bytes(c, &k->machine);
        sc.tile = c->tile;
        rs_sim_alt_result_t f, b;
        const rs_transformer_t t_dev = rs_tp_device_attention(&c->model, c->tp); /* one TP rank's heads */
        rs_machine_t m_dev = k->machine;
        if (c->tp > 1 && m_dev.devices_per_node > 0) m_dev.devices_per_node /= c->tp;
        if (rs_sim_alt_run(&t_dev, &m_dev, &sc, RS_PASS_FORWARD, &f, err) || rs_sim_alt_run(&t_dev, &m_dev, &sc, RS_PASS_BACKWARD, &b, err))
            return -1;
        k->sim_attn_s[j] = f.makespan_s + b.makespan_s + (c->ckpt == RS_CKPT_FULL ? f.makespan_s : 0.0);
    }
#else
    (void)c;
    (void)k;
    (void)err;
#endif
    return 0;
}


#ifdef RINGSIM_HAVE_SIM
/* The ring split of candidate k as a contention case for one pass: one micro-batch of S over N. */
static void ring_case(const rs_plan_config_t *c, const cand_t *k, rs_pass_t pass, rs_contention_case_t *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->profile, sizeof out->profile, "%s", k->hw.name);
    rs_problem_t *p = &out->problem;
    rs_problem_default(p);
    p->seq_tokens = k->res.seq_tokens;
    p->n_ranks = k->res.sp;
    p->batch = 1;
    p->q_heads = rs_tp_q_heads(&c->model, c->tp);
    p->kv_heads = rs_tp_kv_heads(&c->model, c->tp);
    p->head_dim = c->model.head_dim;
    p->act_bytes = rs_precision_act_bytes(c->precision);
    p->grad_bytes = rs_plan_grad_bytes(c, &k->machine);
    p->causal = c->causal;
    p->layout = c->layout;
    p->pass = pass;
    p->tile_q = p->tile_k = c->tile;
    out->machine = k->machine;
    if (c->tp > 1 && out->machine.devices_per_node > 0) out->machine.devices_per_node /= c->tp; /* CP ranks a node */
}

static void print_contention(FILE *f, const rs_contention_in_t *ci, const rs_contention_out_t *co, int64_t dp) {
    fprintf(f, "\n# the ring split as a job (SimGrid): N ranks x %lld replica(s); eff = balance efficiency (docs/model.md) of one "
               "micro-batch's attention pass; free = without contention\n", (long long)dp);
    fprintf(f, "# %-10s %-8s %5s %-10s %-8s %5s %4s %9s %9s %9s %7s %s\n", "profile", "pass", "N", "fabric", "order", "ratio",
            "K", "slowdown", "eff", "eff_free", "worst", "saturated");
    char o[32];
    for (size_t i = 0; i < co->done; i++) {
        const rs_contention_point_t *pt = &co->points[i];
        const rs_contention_case_t *cs = &ci->cases[pt->case_index];
        fprintf(f, "  %-10s %-8s %5lld %-10s %-8s %5.3g %4lld %9.4f %9.4f %9.4f %7.4f %s\n", cs->profile,
                rs_pass_name(cs->problem.pass), (long long)cs->problem.n_ranks, rs_fabric_kind_name(pt->pick.fabric),
                rs_contention_order_name(ci->knobs, pt->pick.order, o, sizeof o), pt->pick.oversub, (long long)(pt->pick.nics > 0 ? pt->pick.nics : cs->machine.devices_per_node), pt->slowdown,
                pt->balance_efficiency, pt->balance_efficiency_free, pt->worst_ratio, pt->saturated[0] ? pt->saturated : "-");
    }
}

/* The candidates' ring splits as one contention study: its cases and the knobs of the job they run
 * as. */
typedef struct {
    rs_contention_case_t *cases; /* forward and backward of each candidate taken (malloc'd: free() it) */
    size_t n;
    rs_contention_knobs_t knobs;
} ring_jobs_t;

/* The contention cases of the candidates and the knobs of their job into j: every candidate whose
 * ring split runs (2 <= N <= RS_PLAN_SIM_MAX_N) and fits - or, with bound (before the plan, for the
 * estimate), whether it fits or not - forward and backward. Returns 0 or -1 with err (out of
 * memory). */
static int ring_jobs(const rs_plan_in_t *in, const cand_t *cands, int n, bool bound, ring_jobs_t *j, rs_err_t *err) {
    const rs_plan_config_t *c = &in->config;
    rs_contention_knobs_t *k = &j->knobs;
    j->n = 0;
    j->cases = calloc((size_t)(2 * n) + 1, sizeof *j->cases);
    if (!j->cases) return rs_errf(err, "out of memory");
    *k = *in->knobs;
    k->tp = 1;
    k->dp = 0;
    k->devices = 0;
    k->map = NULL;
    for (int i = 0; i < n; i++) {
        const rs_plan_result_t *r = &cands[i].res;
        if ((!bound && r->best < 0) || r->sp < 2 || r->sp > RS_PLAN_SIM_MAX_N) continue;
        const int64_t dp = r->dp < RS_PLAN_SIM_MAX_N / r->sp ? r->dp : RS_PLAN_SIM_MAX_N / r->sp;
        if (k->dp == 0 || dp < k->dp) k->dp = dp; /* one job shape for every candidate */
        const rs_plan_config_t cc = cand_config(in, &cands[i]);
        for (int pass = 0; pass < RS_PASS_COUNT; pass++) ring_case(&cc, &cands[i], (rs_pass_t)pass, &j->cases[j->n++]);
    }
    if (k->dp < 1) k->dp = 1;
    if (j->n > 0 && k->background.kind != RS_BG_NONE) {
        rs_background_size(&k->background, &c->model, 1, j->cases[0].problem.act_bytes, j->cases[0].problem.grad_bytes);
        k->background.group = RS_BG_GROUP_DP_CP; /* ZeRO-3 over every device */
    }
    return 0;
}

/* What plan_contention will simulate at most (the candidates as chosen, before their plan: each
 * that might fit). Returns 0 or -1 with err (a job that cannot be built: bad input). */
static int contention_estimate(const rs_plan_in_t *in, const cand_t *cands, int n, rs_estimate_t *e, rs_err_t *err) {
    *e = (rs_estimate_t){0, 0, 0};
    ring_jobs_t j;
    if (ring_jobs(in, cands, n, true, &j, err) != 0) return -1;
    rs_contention_in_t ci = {j.cases, j.n, &j.knobs, NULL, NULL, NULL, false, false};
    const int rc = j.n > 0 ? rs_contention_estimate(&ci, e, err) : 0;
    free(j.cases);
    return rc;
}

/* Every fitting candidate's ring split, forward and backward, as a job on the knobs' fabrics.
 * Returns 0, or -1 with err (rs_study_contention's kind; out of memory: runtime). */
static int plan_contention(const rs_plan_in_t *in, const cand_t *cands, int n, rs_err_t *err) {
    ring_jobs_t j;
    if (ring_jobs(in, cands, n, false, &j, err) != 0) return rs_err_mark(err, RS_ERR_RUNTIME);
    int rc = 0;
    if (j.n == 0) {
        fprintf(in->out, "\n# the ring split as a job: no candidate fits with 2 <= N <= %d\n", RS_PLAN_SIM_MAX_N);
    } else {
        rs_contention_in_t ci = {j.cases, j.n, &j.knobs, in->contention_csv, in->contention_figure, NULL, false, false};
        rs_contention_out_t co;
        rc = rs_study_contention(&ci, &co, err);
        if (rc == 0 && (!in->contention_csv || strcmp(in->contention_csv, "-"))) print_contention(in->out, &ci, &co, j.knobs.dp);
        free(co.points);
    }
    free(j.cases);
    return rc;
}
#endif

/* ---------------------------------------------------------------------------------------------------
 * The study
 * ------------------------------------------------------------------------------------------------- */
/* The candidates of in->profiles: each loaded once, the tier, devices per node, kernel and prices
 * applied, then one entry per layout (profile-major: cands[p x layouts + l]). */
static int load_candidates(const rs_plan_in_t *in, cand_t *cands, int *n_out, rs_err_t *err) {
    int n = 0;
    char list[4096];
    snprintf(list, sizeof list, "%s", in->profiles);
    rs_layout_t layouts[RS_LAYOUT_COUNT];
    const int nl = study_layouts(in, layouts);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= RS_PLAN_MAX_CANDIDATES * nl) return rs_errf(err, "--profile: at most %d candidates", RS_PLAN_MAX_CANDIDATES);
        cand_t *k = &cands[n];
        snprintf(k->spec, sizeof k->spec, "%s", tok);
        const rs_plan_candidate_spec_t pc = {tok, in->config.precision, in->gpus_per_node, in->inter, -1, in->impl, in->kernel, in->attn_eff,
                                             in->allow_implausible};
        if (rs_plan_candidate_checked(&pc, &k->hw, &k->machine, k->warning, sizeof k->warning, err))
            return rs_setup_list_err(err, "--profile", tok, in->profiles), -1;
        if (k->warning[0]) fprintf(stderr, "ringsim plan: warning: %s\n", k->warning);
        rs_plan_price_apply(in->prices, in->n_prices, tok, k->hw.name, &k->hw.price_per_device_hour); /* the profile's, not the machine's */
        k->layout = layouts[0];
        for (int l = 1; l < nl; l++) {
            cands[n + l] = *k;
            cands[n + l].layout = layouts[l];
        }
        n += nl;
    }
    if (n == 0) return rs_errf(err, "--profile: no candidate given");
    const char *names[2 * RS_PLAN_MAX_CANDIDATES * RS_LAYOUT_COUNT];
    for (int j = 0; j < n; j++) names[2 * j] = cands[j].spec, names[2 * j + 1] = cands[j].hw.name;
    if (rs_plan_prices_check(in->prices, in->n_prices, names, 2 * n, in->profiles, err)) return -1;
    *n_out = n;
    return 0;
}

void rs_plan_price_apply(const rs_plan_price_t *prices, int n_prices, const char *spec, const char *name, double *usd) {
    for (int i = 0; i < n_prices; i++)
        if (!prices[i].name[0] || !strcmp(prices[i].name, spec) || !strcmp(prices[i].name, name)) *usd = prices[i].usd;
}

int rs_plan_prices_check(const rs_plan_price_t *prices, int n_prices, const char *const *names, int n_names, const char *profiles,
                         rs_err_t *err) {
    for (int i = 0; i < n_prices; i++) {
        bool used = !prices[i].name[0];
        for (int j = 0; j < n_names && !used; j++) used = !strcmp(prices[i].name, names[j]);
        if (!used)
            return rs_errf(err, "--price %s%s: no such candidate in --profile %s", prices[i].arg ? prices[i].arg : prices[i].name,
                           prices[i].arg ? "" : "=...", profiles);
    }
    return 0;
}

/* Plan every candidate; simulate its splits and trace its max-context curve when asked. Returns 0,
 * or -1 with err: bad input (a plan or its curve refused), runtime (SimGrid). */
static int plan_all(const rs_plan_in_t *in, cand_t *cands, int n, int *n_fit, rs_meter_t *meter, rs_err_t *err) {
    const bool curve = in->maxctx_csv || in->figure;
    const rs_plan_config_t *c0 = &in->config;
    int64_t n_points = 0;
    for (int64_t s = 1; s <= c0->max_sp; s *= 2) n_points++;
    double done = 0;
    if (in->progress) rs_meter_start(meter, "plan", (double)n * (1.0 + (curve ? (double)n_points : 0.0)), "steps");
    *n_fit = 0;
    for (int i = 0; i < n; i++) {
        cand_t *k = &cands[i];
        const rs_plan_config_t cc = cand_config(in, k), *c = &cc;
        rs_meter_update(meter, done, "%s", k->hw.name);
        if (rs_plan_run(c, &k->hw, &k->machine, &k->res, err)) return rs_err_mark(err, RS_ERR_BAD_INPUT);
        done += 1;
        *n_fit += k->res.best >= 0;
        for (int j = 0; j < RS_PLAN_MAX_OPTIONS; j++) k->sim_attn_s[j] = NAN;
        if (in->simulate && simulate(c, k, err)) return rs_err_mark(err, RS_ERR_RUNTIME);
        const bool first_layout = i == 0 || strcmp(cands[i - 1].spec, k->spec); /* one curve a profile */
        for (int64_t s = 1; curve && first_layout && s <= c->max_sp && k->n_curve < RS_PLAN_MAX_CURVE; s *= 2) {
            rs_meter_update(meter, done, "%s", k->hw.name);
            int64_t seq = 0;
            if (rs_plan_max_seq(c, rs_plan_usable(c) * k->hw.mem_bytes, s, &seq, &k->curve_capped[k->n_curve], err))
                return rs_err_mark(err, RS_ERR_BAD_INPUT);
            k->curve_n[k->n_curve] = s;
            k->curve_seq[k->n_curve++] = seq;
            done += 1;
        }
    }
    return 0;
}

/* Nothing fits: one line naming the candidate that comes closest, and by how much it misses. Returns
 * -1 with err (bad input). */
static int no_fit(const rs_plan_config_t *c, const cand_t *cands, int n, rs_err_t *err) {
    int bi = 0;
    for (int i = 1; i < n; i++)
        if (cands[i].res.shortfall_bytes < cands[bi].res.shortfall_bytes) bi = i;
    const rs_plan_result_t *r = &cands[bi].res;
    char a[32], b[32], s[32], hint[200];
    if (r->n_limit[0]) snprintf(hint, sizeof hint, "%s", r->n_limit);
    else snprintf(hint, sizeof hint, "raise --max-ranks%s or shorten --seq", c->ckpt == RS_CKPT_FULL ? "" : ", use --ckpt full");
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s does not fit at S=%lld on any candidate even at N=%lld: the closest, %s, needs %s GiB per "
                        "device with %s GiB usable (short by %s GiB; %s)",
                   c->model.name, (long long)r->seq_tokens, (long long)r->sp, r->hw_name, gib(a, sizeof a, r->mem.total_bytes),
                   gib(b, sizeof b, r->usable_bytes), gib(s, sizeof s, r->shortfall_bytes), hint);
}

/* The max-context curve drawn by plots/maxctx.gp (through the one gnuplot driver). */
static int draw_figure(const rs_plan_in_t *in, const cand_t *cands, int n, rs_err_t *err) {
#ifdef RINGSIM_HAVE_PLOTS
    char tmpdir[1024] = "", tmpcsv[1100];
    const char *data = in->maxctx_csv;
    if (!data) { /* the curve's data in a temporary folder of the run */
        if (rs_out_tmpdir("plan", tmpdir, sizeof tmpdir, err) != 0) return -1;
        snprintf(tmpcsv, sizeof tmpcsv, "%s/maxctx.csv", tmpdir);
        if (write_maxctx(tmpcsv, &in->config, cands, n, err)) return rs_out_tmpdir_remove(tmpdir), -1;
        data = tmpcsv;
    }
    rs_err_t e;
    int rc = rs_plot_render(RS_PLOT_MAXCTX, data, in->figure, NULL, &e);
    if (rc) rs_errc(err, e.code, "--figure %s: %s", in->figure, e.msg);
    rs_out_tmpdir_remove(tmpdir);
    return rc ? -1 : 0;
#else
    (void)cands, (void)n;
    return rs_errf(err, "--figure %s: this build has no figures (rs_plots)", in->figure);
#endif
}

/* Before anything runs, against --max-time and --max-memory: every candidate's N and S chosen (memory
 * only), the walks of its splits, with --sim their simulations and the contention jobs. Returns 0,
 * or -1 with err (bad input: above a limit, or a candidate that cannot be planned). */
static int check_limits(const rs_plan_in_t *in, cand_t *cands, int n, rs_err_t *err) {
    rs_estimate_t sum = {0, 0, 0}, e;
    for (int i = 0; i < n; i++) {
        cand_t *k = &cands[i];
        const rs_plan_config_t cc = cand_config(in, k), *c = &cc;
        if (rs_plan_choose(c, &k->hw, &k->machine, &k->res, err)) return rs_err_mark(err, RS_ERR_BAD_INPUT);
        rs_plan_estimate(c, &k->machine, &k->res, &e);
        rs_estimate_then(&sum, &e);
#ifdef RINGSIM_HAVE_SIM
        int64_t u[RS_PLAN_MAX_OPTIONS];
        const int ns = in->simulate && k->res.sp <= RS_PLAN_SIM_MAX_N
                           ? rs_plan_splits(c, &k->machine, k->res.seq_tokens, k->res.sp, u) : 0;
        for (int j = 0; j < ns; j++)
            for (int pass = 0; pass < RS_PASS_COUNT; pass++) { /* simulate(): each split, both passes */
                rs_sp_config_t sc;
                rs_sp_config_default(&sc);
                sc.ulysses = u[j], sc.ring = k->res.sp / u[j];
                rs_sim_alt_estimate(&sc, (rs_pass_t)pass, &e);
                rs_estimate_then(&sum, &e);
            }
#endif
    }
#ifdef RINGSIM_HAVE_SIM
    if (in->simulate && in->knobs) {
        if (contention_estimate(in, cands, n, &e, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
        rs_estimate_then(&sum, &e);
    }
#endif
    return rs_limits_check("this plan", &sum, &in->limits, err) == 0 ? 0 : rs_err_mark(err, RS_ERR_BAD_INPUT);
}

int rs_study_plan(const rs_plan_in_t *in, rs_err_t *err) {
    cand_t *cands = calloc((size_t)RS_PLAN_MAX_CANDIDATES * RS_LAYOUT_COUNT, sizeof *cands);
    if (!cands) return rs_errc(err, RS_ERR_RUNTIME, "out of memory");
    int n = 0, n_fit = 0, rc = -1;
    rs_layout_t layouts[RS_LAYOUT_COUNT];
    const int nl = study_layouts(in, layouts);
    rs_meter_t meter = {.active = false}; /* on a terminal: candidates and max-context points */
    if (load_candidates(in, cands, &n, err) != 0) rs_err_mark(err, RS_ERR_BAD_INPUT);
    else if (in->compare && n / nl < 2) rc = rs_errc(err, RS_ERR_BAD_INPUT, "--compare: needs two or more candidates (--profile A,B)");
    else if (in->gpus > 0) {
        rc = rs_plan_budget_study(in, cands, n, nl, err);
        free(cands);
        return rc;
    } else if ((rc = check_limits(in, cands, n, err)) == 0) rc = plan_all(in, cands, n, &n_fit, &meter, err);
    rs_meter_end(&meter);
    if (rc == 0 && n_fit == 0) rc = no_fit(&in->config, cands, n, err);
    if (rc == 0) {
        if ((in->csv && rs_study_write_csv(in->csv, CSV_HEADER, csv_rows, cands, (size_t)n, err)) || (in->maxctx_csv && write_maxctx(in->maxctx_csv, &in->config, cands, n, err)) ||
            (in->figure && draw_figure(in, cands, n, err)))
            rc = rs_err_mark(err, RS_ERR_RUNTIME);
        else if (!in->csv || strcmp(in->csv, "-")) {
            print_table(in->out, &in->config, cands, n);
            if (in->compare) rs_plan_compare_plans(in->out, in, cands, n);
        }
    }
#ifdef RINGSIM_HAVE_SIM
    if (rc == 0 && in->simulate && in->knobs) rc = plan_contention(in, cands, n, err);
#endif
    free(cands);
    return rc;
}
