/* study_infer.c - the inference planning study (study_infer.h). */
#include "study_infer.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "setup.h"
#include "gemm.h"
#include "study_csv.h"

#ifdef RINGSIM_HAVE_PLOTS
#include "plot.h"
#define RS_PLOT_KIND_TTFT RS_PLOT_TTFT
#define RS_PLOT_KIND_BOUNDARY RS_PLOT_PASS_BOUNDARY
#else
#define RS_PLOT_KIND_TTFT 0
#define RS_PLOT_KIND_BOUNDARY 0
#endif

typedef struct {
    char spec[512];        /* as given */
    rs_hw_t hw;            /* loaded, overrides applied */
    rs_machine_t machine;  /* cost parameters (bf16 attention) */
    char warning[1024];    /* the figures --allow-implausible took as given ("" when none) */
} cand_t;

typedef struct {
    int cand;              /* index into the candidates */
    rs_infer_point_t pt;   /* the plan of the point */
    double par_eff;        /* TTFT x nodes at the fewest nodes of the list over the same at this point */
} point_t;

void rs_infer_defaults(rs_infer_in_t *in) {
    memset(in, 0, sizeof *in);
    rs_infer_config_default(&in->config);
    in->profiles = "h100-sxm";
    in->gpus_per_node = -1;
    in->n_nodes = in->n_new = in->n_cached = 1;
    in->nodes[0] = 1, in->new_tokens[0] = in->config.new_tokens, in->cached[0] = 0;
    in->out = stdout;
}

/* The candidates of in->profiles, each loaded once with the tier and devices per node applied. */
static int load_candidates(const rs_infer_in_t *in, cand_t *cands, int *n_out, rs_err_t *err) {
    int n = 0;
    char list[4096];
    snprintf(list, sizeof list, "%s", in->profiles);
    rs_machine_spec_t spec;
    rs_machine_spec_default(&spec);
    spec.dtype = RS_DTYPE_BF16;
    spec.gpus_per_node = in->gpus_per_node;
    if (in->inter) snprintf(spec.inter, sizeof spec.inter, "%s", in->inter);
    spec.allow_implausible = in->allow_implausible;
    if (rs_machine_spec_impl(&spec, in->impl, in->kernel, err) != 0) return -1;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= RS_INFER_MAX_CANDIDATES) return rs_errf(err, "--profile: at most %d candidates", RS_INFER_MAX_CANDIDATES);
        cand_t *k = &cands[n];
        snprintf(k->spec, sizeof k->spec, "%s", tok);
        snprintf(spec.profile, sizeof spec.profile, "%s", tok);
        if (rs_machine_spec_profile_checked(&spec, &k->hw, k->warning, sizeof k->warning, err) ||
            rs_machine_spec_build(&spec, &k->hw, 1, &k->machine, err))
            return rs_setup_list_err(err, "--profile", tok, in->profiles), -1;
        if (k->warning[0]) fprintf(stderr, "ringsim plan: warning: %s\n", k->warning);
        rs_plan_price_apply(in->prices, in->n_prices, tok, k->hw.name, &k->hw.price_per_device_hour);
        if (!(k->hw.decode_bw_eff.point > 0)) { /* a borrowed decode figure, resolved once (it loads a preset), not per point */
            const double de = rs_infer_decode_bw_eff(&k->hw, &k->hw.decode_src);
            k->hw.decode_bw_eff = (rs_span_t){de, de, de};
        }
        n++;
    }
    if (n == 0) return rs_errf(err, "--profile: no candidate given");
    const char *names[2 * RS_INFER_MAX_CANDIDATES];
    for (int j = 0; j < n; j++) names[2 * j] = cands[j].spec, names[2 * j + 1] = cands[j].hw.name;
    if (rs_plan_prices_check(in->prices, in->n_prices, names, 2 * n, in->profiles, err)) return -1;
    *n_out = n;
    return 0;
}

/* Every point (candidates x nodes x T x P, in that nesting), then the parallel efficiencies. */
static int plan_points(const rs_infer_in_t *in, const cand_t *cands, int nc, point_t *pts, rs_err_t *err) {
    size_t k = 0;
    for (int c = 0; c < nc; c++)
        for (int a = 0; a < in->n_nodes; a++)
            for (int t = 0; t < in->n_new; t++)
                for (int p = 0; p < in->n_cached; p++, k++) {
                    rs_infer_config_t cfg = in->config;
                    cfg.nodes = in->nodes[a], cfg.new_tokens = in->new_tokens[t], cfg.cached_tokens = in->cached[p];
                    pts[k].cand = c;
                    if (rs_infer_point(&cfg, &cands[c].hw, &cands[c].machine, &pts[k].pt, err)) return -1;
                }
    const size_t per_nodes = (size_t)in->n_new * (size_t)in->n_cached, per_cand = per_nodes * (size_t)in->n_nodes;
    for (size_t i = 0; i < k; i++) { /* the base: the same candidate, T and P at the list's first (fewest) nodes */
        const rs_infer_point_t *pt = &pts[i].pt, *base = &pts[i / per_cand * per_cand + i % per_nodes].pt;
        pts[i].par_eff = pt->best >= 0 && base->best >= 0
                             ? base->opt[base->best].ttft_s * (double)base->nodes / (pt->opt[pt->best].ttft_s * (double)pt->nodes)
                             : 0;
    }
    return 0;
}

static const char *gib(char *buf, size_t len, double bytes) {
    snprintf(buf, len, "%.1f", bytes / 1073741824.0);
    return buf;
}

/* An option's TTFT, or "-" when it cannot run. */
static const char *ttft_cell(char *buf, size_t len, const rs_infer_option_t *o) {
    if (o->feasible) snprintf(buf, len, "%.4g", o->ttft_s);
    else snprintf(buf, len, "-");
    return buf;
}

/* The header lines: the configuration, and per candidate what rates its GEMMs and attention. */
static void print_headers(FILE *out, const rs_infer_in_t *in, const cand_t *cands, int nc) {
    const rs_infer_config_t *c = &in->config;
    char lin[64];
    if (c->linear_eff > 0) snprintf(lin, sizeof lin, "eff %.2f, user-given", c->linear_eff);
    else snprintf(lin, sizeof lin, "GEMMs by shape");
    char layouts[64] = "";
    for (int l = 0, n = 0; l < (in->gpus > 0 && in->n_layouts > 0 ? in->n_layouts : 1); l++)
        n += snprintf(layouts + n, sizeof layouts - (size_t)n, "%s%s", l ? "," : "", rs_layout_name(in->gpus > 0 && in->n_layouts > 0 ? in->layouts[l] : c->layout));
    fprintf(out, "# ringsim plan --inference: model=%s tp=%s linear=%s (%s) attention=bf16 layout=%s causal=%d usable=%.2f "
                 "decode_batch=%lld\n",
            c->model.name, c->tp ? "given" : in->gpus > 0 ? "searched" : "G", rs_dtype_name(c->linear_dtype), lin, layouts, c->causal, c->usable_frac > 0 ? c->usable_frac : rs_runtime_usable(RS_RT_PYTORCH),
            (long long)c->decode_batch);
    for (int k = 0; k < nc; k++) {
        rs_gemm_t g;
        char gd[320];
        rs_err_t e;
        char ad[4096]; /* the sources in full (RS_KSOURCE_LEN, RS_RATE_SOURCE_LEN) */
        if (rs_gemm_model(&cands[k].hw, c->linear_dtype, c->linear_eff, &g, &e) == 0)
            fprintf(out, "# %s: %s\n", cands[k].hw.name, rs_gemm_describe(&g, gd, sizeof gd));
        fprintf(out, "# %s: %s\n", cands[k].hw.name, rs_infer_rates_describe(c, &cands[k].hw, &cands[k].machine, ad, sizeof ad));
        if (cands[k].warning[0]) fprintf(out, "# %s: warning: %s\n", cands[k].hw.name, cands[k].warning);
    }
}

static void print_table(FILE *out, const rs_infer_in_t *in, const cand_t *cands, int nc, const point_t *pts, size_t n) {
    print_headers(out, in, cands, nc);
    fprintf(out, "# %-10s %5s %4s %9s %9s %-8s %9s %9s %9s %9s %9s %9s %8s %7s %7s %7s %4s %7s %6s %10s\n", "profile", "nodes",
            "CP", "T", "P", "best", "ttft_s", "pass-kv", "pass-q", "ulysses", "usp", "attn_ms", "lin_ms", "ar_ms", "kv_GiB",
            "w_GiB", "fits", "par_eff", "util", "decode_ms");
    for (size_t i = 0; i < n; i++) {
        const rs_infer_point_t *p = &pts[i].pt;
        const rs_infer_option_t *b = p->best >= 0 ? &p->opt[p->best] : NULL;
        char cells[RS_INFER_COUNT][32], kvb[32], wb[32];
        for (int j = 0; j < RS_INFER_COUNT; j++) ttft_cell(cells[j], sizeof cells[j], &p->opt[j]);
        fprintf(out, "  %-10.10s %5lld %4lld %9lld %9lld %-8s %9.4g %9s %9s %9s %9s %9.4g %8.4g %7.3g %7s %7s %4s %7.3f %6.3f %10.4g\n",
                p->hw_name, (long long)p->nodes, (long long)p->cp, (long long)p->new_tokens, (long long)p->cached_tokens,
                b ? rs_infer_kind_name(b->kind) : "none", b ? b->ttft_s : 0, cells[0], cells[1], cells[2], cells[3],
                b ? b->attn_layer_s * 1e3 : 0, p->linear_layer_s * 1e3, p->allreduce_layer_s * 1e3,
                gib(kvb, sizeof kvb, p->kv_cache_bytes), gib(wb, sizeof wb, p->weight_bytes), p->fits ? "yes" : "no",
                pts[i].par_eff, p->flops_util, p->decode_step_s * 1e3);
    }
    for (size_t i = 0; i < n; i++)
        fprintf(out, "# %s nodes=%lld T=%lld P=%lld: %s\n", pts[i].pt.hw_name, (long long)pts[i].pt.nodes,
                (long long)pts[i].pt.new_tokens, (long long)pts[i].pt.cached_tokens, pts[i].pt.why);
    fprintf(out, "# ttft_s: time to first token of the best option (L x (linear + all-reduce + attention) + head); per-option "
                 "TTFT in s ('-': cannot run); attn/lin/ar: per layer; kv: KV cache per device after the prompt; w: "
                 "weights per device; par_eff: TTFT x nodes at the list's first node count over the same here; util: "
                 "model FLOPs at each part's datasheet peak (the FFN's dtype, the rest bf16) / (TTFT x devices); decode_ms: one decode step (pass-q), 0 without "
                 "--decode-batch\n");
}

/* A TTFT column: the value, or empty when the option cannot run (gnuplot skips it). */
static void ttft_csv(FILE *fp, const rs_infer_option_t *o) {
    if (o->feasible) fprintf(fp, ",%.17g", o->ttft_s);
    else fputc(',', fp);
}

/* The CSV row of point i. */
static void csv_rows(FILE *fp, const void *items, size_t i) {
    const point_t *pt = &((const point_t *)items)[i];
    const rs_infer_point_t *p = &pt->pt;
    const rs_infer_option_t *b = p->best >= 0 ? &p->opt[p->best] : NULL;
    fprintf(fp, "%s:n%lld,%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%s,%.17g", p->hw_name, (long long)p->nodes, p->hw_name,
            (long long)p->devices_per_node, (long long)p->tp, (long long)p->nodes, (long long)p->cp,
            (long long)p->new_tokens, (long long)p->cached_tokens, (long long)(p->new_tokens + p->cached_tokens),
            b ? rs_infer_kind_name(b->kind) : "none", b ? b->ttft_s : 0);
    for (int j = 0; j < RS_INFER_COUNT; j++) ttft_csv(fp, &p->opt[j]);
    fprintf(fp, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%.17g,%.17g,%.17g,%lld,%.17g\n", b ? b->attn_layer_s : 0,
            b ? b->a2a_layer_s : 0, p->linear_layer_s, p->allreduce_layer_s, p->head_s, p->kv_cache_bytes, p->weight_bytes,
            p->fits, pt->par_eff, p->flops_util, p->model_flops, (long long)p->cross_tokens, p->decode_step_s);
}

static int write_csv(const char *path, const point_t *pts, size_t n, rs_err_t *err) {
    return rs_study_write_csv(path,
                              "series,profile,devices_per_node,tp,nodes,cp,new_tokens,cached_tokens,context_tokens,best,"
                              "ttft_s,ttft_pass_kv_s,ttft_pass_q_s,ttft_ulysses_s,ttft_usp_s,attn_layer_s,a2a_layer_s,"
                              "linear_layer_s,allreduce_layer_s,head_s,kv_cache_bytes,weight_bytes,fits,parallel_eff,"
                              "flops_util,model_flops,cross_tokens,decode_step_s\n",
                              csv_rows, pts, n, err);
}

/* Before anything runs, against --max-time and --max-memory: every point's walks (rs_infer_estimate)
 * and the boundary's crossings, as often as the outputs asked for compute them. Returns 0, or -1
 * with err (bad input: above a limit, or a point's configuration is invalid). */
static int check_limits(const rs_infer_in_t *in, const cand_t *cands, int nc, rs_err_t *err) {
    const int boundary_passes = (in->boundary_figure ? 1 : 0) + (in->boundary_csv ? 1 : 0) + /* check_outputs, the CSV, */
                                (in->boundary_figure && !in->boundary_csv ? 1 : 0);        /* the figure's own data */
    rs_estimate_t sum = {0, 0, 0};
    for (int k = 0; k < nc; k++)
        for (int a = 0; a < in->n_nodes; a++)
            for (int p = 0; p < in->n_cached; p++)
                for (int t = 0; t < in->n_new; t++) {
                    rs_infer_config_t c = in->config;
                    c.nodes = in->nodes[a], c.new_tokens = in->new_tokens[t], c.cached_tokens = in->cached[p];
                    if (rs_infer_config_validate(&c, &cands[k].machine, err)) return rs_err_mark(err, RS_ERR_BAD_INPUT);
                    rs_infer_estimate(&c, &cands[k].machine, &sum);
                    for (int b = 0; t == 0 && c.cached_tokens > 0 && b < boundary_passes; b++)
                        rs_infer_crossing_estimate(&c, &cands[k].machine, &sum); /* boundary_rows: one per (k, a, p) */
                }
    return rs_limits_check("this plan", &sum, &in->limits, err) == 0 ? 0 : rs_err_mark(err, RS_ERR_BAD_INPUT);
}

/* The pass-kv/pass-q boundary: per candidate, node count and P > 0, the crossing T (searched over T:
 * the study's T list fixes nothing but the configuration checked) and the transfer-bound ratio of
 * docs/inference.md, as CSV rows on fp (NULL: count only). *n_cross: rows with a crossing > 0. */
static int boundary_rows(FILE *fp, const rs_infer_in_t *in, const cand_t *cands, int nc, int *n_cross, rs_err_t *err) {
    *n_cross = 0;
    for (int k = 0; k < nc; k++)
        for (int a = 0; a < in->n_nodes; a++)
            for (int p = 0; p < in->n_cached; p++) {
                rs_infer_config_t c = in->config;
                c.nodes = in->nodes[a], c.cached_tokens = in->cached[p], c.new_tokens = in->new_tokens[0];
                const rs_machine_t *m = &cands[k].machine;
                int64_t cross = 0;
                if (c.cached_tokens == 0) continue;
                if (rs_infer_config_validate(&c, m, err) || rs_infer_crossing(&c, m, &cross, err)) return -1;
                *n_cross += cross > 0;
                if (fp)
                    fprintf(fp, "%s:n%lld,%s,%lld,%lld,%lld,%lld,%.17g,%.17g\n", cands[k].hw.name, (long long)c.nodes,
                            cands[k].hw.name, (long long)c.nodes, (long long)rs_infer_cp_ranks(&c, m), (long long)c.cached_tokens,
                            (long long)cross, cross > 0 ? (double)cross / (double)c.cached_tokens : 0,
                            rs_infer_comm_bound_ratio(&c, m));
            }
    return 0;
}

static int write_boundary(const char *path, const rs_infer_in_t *in, const cand_t *cands, int nc, rs_err_t *err) {
    rs_file_t f;
    if (rs_file_open(&f, path, err)) return -1;
    const rs_infer_config_t *c0 = &in->config;
    fprintf(f.fp, "# ringsim plan --inference --boundary-csv: the smallest T at which pass-kv is no slower than pass-q "
                  "(cross_tokens; 0: pass-kv at every T, -1: pass-q up to 2^26)\n# model=%s linear=%s layout=%s\n",
            c0->model.name, rs_dtype_name(c0->linear_dtype), rs_layout_name(c0->layout));
    fprintf(f.fp, "series,profile,nodes,cp,cached_tokens,cross_tokens,cross_ratio,comm_bound_ratio\n");
    int n_cross;
    if (boundary_rows(f.fp, in, cands, nc, &n_cross, err)) {
        rs_file_abort(&f);
        return -1;
    }
    return rs_file_commit(&f, err);
}

/* A figure of the study: its kind (plots/plot.h) and file, the CSV it is drawn from, and how that
 * CSV is written when the user asked for none (NULL or "-": write(path, arg, err) into a temporary
 * WHAT.csv). */
typedef struct {
    int kind;
    const char *figure, *csv, *what;
    int (*write)(const char *path, void *arg, rs_err_t *err);
} figure_t;

/* Draw f (its CSV written to a temporary of the run when the user asked for no CSV). Returns 0 or -1
 * with err "FIGURE: ...". */
static int draw(const figure_t *f, void *arg, rs_err_t *err) {
#ifdef RINGSIM_HAVE_PLOTS
    char tmpdir[1024] = "", tmp[1200];
    const char *data = f->csv;
    if (!data || !strcmp(data, "-")) { /* the output module's temporary folder (removed on a signal too) */
        if (rs_out_tmpdir("plan", tmpdir, sizeof tmpdir, err) != 0) return -1;
        snprintf(tmp, sizeof tmp, "%s/%s.csv", tmpdir, f->what);
        if (f->write(tmp, arg, err)) return rs_out_tmpdir_remove(tmpdir), -1;
        data = tmp;
    }
    rs_err_t e;
    int rc = rs_plot_render((rs_plot_kind_t)f->kind, data, f->figure, NULL, &e);
    if (rc) rs_errc(err, e.code, "%s: %s", f->figure, e.msg);
    if (tmpdir[0]) rs_out_tmpdir_remove(tmpdir);
    return rc ? -1 : 0;
#else
    (void)arg;
    return rs_errf(err, "%s: this build has no figures (rs_plots)", f->figure);
#endif
}

typedef struct {
    const rs_infer_in_t *in;
    const cand_t *cands;
    int nc;
    const point_t *pts;
    size_t n;
} outputs_t;

static int write_points_cb(const char *path, void *arg, rs_err_t *err) {
    const outputs_t *o = arg;
    return write_csv(path, o->pts, o->n, err);
}
static int write_boundary_cb(const char *path, void *arg, rs_err_t *err) {
    const outputs_t *o = arg;
    return write_boundary(path, o->in, o->cands, o->nc, err);
}

/* Every output asked for: CSVs, then figures. Returns 0 or -1 with err. */
static int write_outputs(const rs_infer_in_t *in, outputs_t *o, rs_err_t *err) {
    if (in->csv && write_csv(in->csv, o->pts, o->n, err)) return -1;
    if (in->boundary_csv && write_boundary(in->boundary_csv, in, o->cands, o->nc, err)) return -1;
    if (in->figure && draw(&(figure_t){RS_PLOT_KIND_TTFT, in->figure, in->csv, "ttft", write_points_cb}, o, err)) return -1;
    if (in->boundary_figure &&
        draw(&(figure_t){RS_PLOT_KIND_BOUNDARY, in->boundary_figure, in->boundary_csv, "boundary", write_boundary_cb}, o, err))
        return -1;
    return 0;
}

/* What the outputs need of the input, before anything is written: a cached prefix and a crossing to
 * draw for the boundary. Returns 0 or -1 with err. */
static int check_outputs(const rs_infer_in_t *in, const outputs_t *o, rs_err_t *err) {
    const char *b = in->boundary_figure ? "--boundary-figure" : "--boundary-csv";
    if (!in->boundary_csv && !in->boundary_figure) return 0;
    if (!(in->cached[in->n_cached - 1] > 0))
        return rs_errf(err, "%s: the pass-kv/pass-q boundary needs a cached prefix (--cached P > 0)", b);
    int n_cross = 0;
    if (in->boundary_figure && boundary_rows(NULL, in, o->cands, o->nc, &n_cross, err)) return -1;
    if (in->boundary_figure && n_cross == 0)
        return rs_errf(err, "--boundary-figure: no (profile, nodes, P > 0) has a crossing to draw: pass-kv is no slower "
                            "than pass-q at every T there (one CP rank never crosses: add --nodes or lower --tp)");
    return 0;
}


/* ---------------------------------------------------------------------------------------------------
 * The budget (model/5-plan/budget.h): every TP x CP split of in->gpus devices, ranked
 * ------------------------------------------------------------------------------------------------- */
#define GIB 1073741824.0
#define DEFAULT_TOP 5

/* "pass-kv", "ulysses", "usp2x4": a variant in a word. Returns buf. */
static const char *variant_name(char *buf, size_t len, const rs_budget_serve_t *o) {
    if (o->kind == RS_INFER_USP) snprintf(buf, len, "usp%lldx%lld", (long long)o->ulysses, (long long)o->ring);
    else snprintf(buf, len, "%s", rs_infer_kind_name(o->kind));
    return buf;
}

static double need_bytes(const rs_budget_serve_t *o) { return o->weight_bytes + o->kv_cache_bytes + o->runtime_bytes; }

typedef struct {
    const rs_budget_serving_t *b;
    const cand_t *cands;
    rs_budget_rank_t rank;
    int64_t gpus;
} serve_csv_t;

static void serve_csv_row(FILE *fp, const void *items, size_t i) {
    const serve_csv_t *x = items;
    const rs_budget_serve_t *o = &x->b->e[i];
    char v[32], why[512], cost[32] = "";
    if (!isnan(o->cost_per_prefill)) snprintf(cost, sizeof cost, "%.17g", o->cost_per_prefill);
    rs_budget_serve_loses(x->b, o, x->rank, why, sizeof why);
    for (char *p = why; *p; p++) /* one plain cell for every CSV reader: no comma, no quote */
        if (*p == ',') *p = ';';
        else if (*p == '"') *p = '\'';
    fprintf(fp, "%zu,%s,%lld,%lld,%lld,%lld,%lld,%lld,%s,%s,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%s,%s\n",
            i + 1, x->cands[o->cand].hw.name, (long long)x->gpus, (long long)o->tp, (long long)o->cp, (long long)o->nodes,
            (long long)o->ulysses, (long long)o->ring, o->ring > 1 ? rs_layout_name(o->layout) : "-", variant_name(v, sizeof v, o), o->fits,
            o->weight_bytes, o->kv_cache_bytes, o->runtime_bytes, o->usable_bytes, o->ttft_s, o->linear_s, o->attn_s, o->a2a_s,
            o->allreduce_s, o->decode_step_s, o->flops_util, (double)o->block_tokens, cost,
            rs_limit_name(rs_budget_serve_limit(o, x->rank == RS_BUDGET_BY_DECODE)), why);
}

static const char SERVE_CSV_HEADER[] =
    "rank,profile,devices,tp,cp,nodes,ulysses,ring,layout,variant,fits,weight_bytes,kv_cache_bytes,runtime_bytes,usable_bytes,ttft_s,"
    "linear_s,attn_s,a2a_s,allreduce_s,decode_step_s,flops_util,block_tokens,usd_per_prefill,bound,why\n";

static void serve_print(FILE *out, const rs_infer_in_t *in, const rs_budget_serving_t *b, const cand_t *cands) {
    const int top = in->top > 0 && in->top < 1000000 ? (int)in->top : DEFAULT_TOP;
    const bool by_decode = in->rank == RS_BUDGET_BY_DECODE;
    fprintf(out, "# budget: %lld devices; T=%lld P=%lld; ranked by %s; %d configurations, %d fit; the best %d (every one: --csv)\n",
            (long long)in->gpus, (long long)in->new_tokens[0], (long long)in->cached[0], rs_budget_rank_name(in->rank), b->n,
            b->n_fit, top < b->n_fit ? top : b->n_fit);
    fprintf(out, "# %4s %-10s %3s %4s %5s %-10s %-9s %6s %6s %8s %9s %9s %6s %11s %-14s %s\n", "rank", "profile", "tp", "cp", "nodes", "layout",
            "variant", "w_GiB", "kv_GiB", "headroom", "ttft_s", "decode_ms", "util", "usd_prefill", "bound", "why it loses to rank 1");
    for (int i = 0; i < b->n && i < top && b->e[i].fits; i++) {
        const rs_budget_serve_t *o = &b->e[i];
        char v[32], why[512], c[24], dec[24];
        fprintf(out, "  %4d %-10.10s %3lld %4lld %5lld %-10s %-9s %6.1f %6.1f %8.1f %9.4g %9s %6.3f %11s %-14s %s\n", i + 1,
                cands[o->cand].hw.name, (long long)o->tp, (long long)o->cp, (long long)o->nodes, o->ring > 1 ? rs_layout_name(o->layout) : "-",
                variant_name(v, sizeof v, o), o->weight_bytes / GIB, o->kv_cache_bytes / GIB, (o->usable_bytes - need_bytes(o)) / GIB, o->ttft_s,
                in->config.decode_batch > 0 ? rs_fmt_num(o->decode_step_s * 1e3, "%.4g", dec, sizeof dec) : "-", o->flops_util,
                rs_fmt_num(o->cost_per_prefill, "%.4g", c, sizeof c), rs_limit_name(rs_budget_serve_limit(o, by_decode)),
                rs_budget_serve_loses(b, o, in->rank, why, sizeof why));
    }
    int n_bound[RS_LIMIT_COUNT] = {0};
    for (int i = 1; i < b->n; i++) n_bound[rs_budget_serve_limit(&b->e[i], by_decode)]++;
    if (b->n > 1) fprintf(out, "# the %d besides rank 1: bound by", b->n - 1);
    for (int k = 0; k < RS_LIMIT_COUNT && b->n > 1; k++)
        if (n_bound[k]) fprintf(out, " %s %d;", k == RS_LIMIT_MEMORY ? "memory (do not fit)" : rs_limit_name((rs_limit_t)k), n_bound[k]);
    if (b->n > 1) fputc('\n', out);
    for (int i = b->n_fit; i < b->n; i++) { /* each split that does not fit, once (its variants need the same memory) */
        const rs_budget_serve_t *o = &b->e[i];
        bool seen = false;
        for (int j = b->n_fit; j < i && !seen; j++) seen = b->e[j].cand == o->cand && b->e[j].tp == o->tp;
        char why[512];
        if (!seen)
            fprintf(out, "# %s tp%lld cp%lld %s\n", cands[o->cand].hw.name, (long long)o->tp, (long long)o->cp,
                    rs_budget_serve_overflow(o, why, sizeof why));
    }
    fprintf(out, "# tp x cp = devices, CP ranks across nodes; U x R of usp = cp; w, kv: weights and KV cache per device; headroom: usable - "
                 "(weights + KV cache + runtime), GiB; ttft_s: L x (linear + all-reduce + attention) + head; decode_ms: one decode step "
                 "(pass-q, the split's whatever the prefill variant); util: fraction of peak; usd_prefill: TTFT x devices x price per "
                 "device-hour; bound: the largest term (linear, attention, ring-transfers exposed, all-to-all, tp-allreduce)\n");
}

static int budget_study(const rs_infer_in_t *in, const cand_t *cands, int nc, rs_err_t *err) {
    rs_infer_config_t cfg = in->config;
    cfg.new_tokens = in->new_tokens[0], cfg.cached_tokens = in->cached[0];
    const rs_infer_config_t *c = &cfg;
    const rs_layout_t one = c->layout;
    const rs_budget_ask_t ask = {in->gpus, in->n_layouts > 0 ? in->layouts : &one, in->n_layouts > 0 ? in->n_layouts : 1};
    if (in->n_new != 1 || in->n_cached != 1 || in->n_nodes != 1)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: ranks the splits of one prompt: give one --seq and one --cached (and no --nodes)",
                       (long long)in->gpus);
    if (in->figure || in->boundary_csv || in->boundary_figure)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: writes its ranking and --csv only (no --figure, --boundary-csv, --boundary-figure)",
                       (long long)in->gpus);
    if (in->rank == RS_BUDGET_BY_DECODE && c->decode_batch <= 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--rank decode: ranks by the decode step (give --decode-batch B)");
    for (int k = 0; in->rank == RS_BUDGET_BY_COST && k < nc; k++)
        if (!(cands[k].hw.price_per_device_hour > 0))
            return rs_errc(err, RS_ERR_BAD_INPUT, "--rank cost: %s has no price per device-hour (give --price [NAME=]USD)", cands[k].hw.name);
    rs_estimate_t sum = {0, 0, 0};
    for (int k = 0; k < nc; k++) rs_budget_serve_estimate(c, &cands[k].machine, &ask, &sum);
    if (rs_limits_check("this plan", &sum, &in->limits, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    rs_budget_serving_t b = {0};
    int rc = 0;
    for (int k = 0; k < nc && rc == 0; k++)
        rc = rs_budget_serve_add(&b, &(rs_budget_cand_t){k, &cands[k].hw, &cands[k].machine}, c, &ask, err);
    if (rc == 0) rs_budget_serve_sort(&b, in->rank);
    if (rc == 0 && b.n_fit == 0) {
        const rs_budget_serve_t *o = &b.e[0];
        rc = rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: nothing fits: the closest, %s tp%lld cp%lld, needs %.1f GiB per device with %.1f GiB usable",
                     (long long)in->gpus, cands[o->cand].hw.name, (long long)o->tp, (long long)o->cp, need_bytes(o) / GIB, o->usable_bytes / GIB);
    }
    const serve_csv_t ctx = {&b, cands, in->rank, in->gpus};
    if (rc == 0 && in->csv && rs_study_write_csv(in->csv, SERVE_CSV_HEADER, serve_csv_row, &ctx, (size_t)b.n, err))
        rc = rs_err_mark(err, RS_ERR_RUNTIME);
    if (rc == 0 && (!in->csv || strcmp(in->csv, "-"))) {
        print_headers(in->out, in, cands, nc);
        serve_print(in->out, in, &b, cands);
    }
    rs_budget_serve_free(&b);
    return rc;
}

int rs_study_infer(const rs_infer_in_t *in, rs_err_t *err) {
    cand_t *cands = calloc(RS_INFER_MAX_CANDIDATES, sizeof *cands);
    int nc = 0;
    if (!cands) return rs_errc(err, RS_ERR_RUNTIME, "out of memory");
    if (load_candidates(in, cands, &nc, err)) return free(cands), rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (in->gpus > 0) {
        const int rc = budget_study(in, cands, nc, err);
        free(cands);
        return rc;
    }
    const size_t np = (size_t)nc * (size_t)in->n_nodes * (size_t)in->n_new * (size_t)in->n_cached;
    if (np > 4096) {
        free(cands);
        return rs_errc(err, RS_ERR_BAD_INPUT, "%zu points (candidates x --nodes x --seq x --cached): at most 4096", np);
    }
    point_t *pts = calloc(np ? np : 1, sizeof *pts);
    int rc = pts ? 0 : rs_errc(err, RS_ERR_RUNTIME, "out of memory for %zu points", np);
    outputs_t o = {in, cands, nc, pts, np};
    if (rc == 0) rc = check_limits(in, cands, nc, err);
    if (rc == 0 && (plan_points(in, cands, nc, pts, err) || check_outputs(in, &o, err))) rc = rs_err_mark(err, RS_ERR_BAD_INPUT);
    if (rc == 0 && write_outputs(in, &o, err)) rc = rs_err_mark(err, RS_ERR_RUNTIME);
    if (rc == 0 && (!in->csv || strcmp(in->csv, "-"))) print_table(in->out, in, cands, nc, pts, np);
    free(cands);
    free(pts);
    return rc;
}
