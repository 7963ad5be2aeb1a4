/* study_plan_budget.c - the budget study and the side-by-side comparison (study_plan_budget.h). */
#include "study_plan_budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study_csv.h"

#define GIB 1073741824.0
#define DEFAULT_TOP 5

const char *rs_plan_split_name(char *buf, size_t len, const rs_plan_option_t *o) {
    if (o->kind == RS_SP_RING) snprintf(buf, len, "ring");
    else if (o->kind == RS_SP_ULYSSES) snprintf(buf, len, "ulysses");
    else snprintf(buf, len, "usp%lldx%lld", (long long)o->ulysses, (long long)o->ring);
    return buf;
}

/* "tp8 cp8 ring zigzag dp1": one configuration in a few words. */
static const char *config_name(char *buf, size_t len, const rs_plan_option_t *o) {
    char sp[32];
    snprintf(buf, len, "tp%lld cp%lld %s %s dp%lld", (long long)o->tp, (long long)(o->ulysses * o->ring), rs_plan_split_name(sp, sizeof sp, o),
             o->ring > 1 ? rs_layout_name(o->layout) : "-", (long long)o->dp);
    return buf;
}

static int64_t devices(const rs_plan_option_t *o) { return o->tp * o->ulysses * o->ring * o->dp; }

/* ---------------------------------------------------------------------------------------------------
 * Side by side
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    const char *name;         /* the profile */
    const rs_plan_option_t *o;
} column_t;

static void compare_print(FILE *out, const char *what, const column_t *cols, int n) {
    fprintf(out, "\n# compare: %s (each column the candidate's best; headroom = usable - needed)\n", what);
    fprintf(out, "# %-22s", "");
    for (int i = 0; i < n; i++) fprintf(out, " %30.30s", cols[i].name);
    fputc('\n', out);
    char b[64], c[24];
#define ROW(label, ...)                                                                                    \
    do {                                                                                                   \
        fprintf(out, "  %-22s", label);                                                                    \
        for (int i = 0; i < n; i++) {                                                                      \
            const rs_plan_option_t *o = cols[i].o;                                                         \
            if (!o) {                                                                                      \
                fprintf(out, " %30s", "nothing fits");                                                     \
                continue;                                                                                  \
            }                                                                                              \
            __VA_ARGS__;                                                                                   \
            fprintf(out, " %30.30s", b);                                                                   \
        }                                                                                                  \
        fputc('\n', out);                                                                                  \
    } while (0)
    ROW("config", config_name(b, sizeof b, o));
    ROW("devices", snprintf(b, sizeof b, "%lld", (long long)devices(o)));
    ROW("step_s", snprintf(b, sizeof b, "%.4g", o->t_step_s));
    ROW("usd_step", snprintf(b, sizeof b, "%s", rs_fmt_num(o->cost_per_step, "%.4g", c, sizeof c)));
    ROW("usd_Mtok", snprintf(b, sizeof b, "%s", rs_fmt_num(o->cost_per_mtok, "%.4g", c, sizeof c)));
    ROW("mem_GiB", snprintf(b, sizeof b, "%.1f of %.1f", o->mem_bytes / GIB, o->usable_bytes / GIB));
    ROW("headroom_GiB", snprintf(b, sizeof b, "%.1f", (o->usable_bytes - o->mem_bytes) / GIB));
    ROW("MFU", snprintf(b, sizeof b, "%.3f", o->mfu));
    ROW("GEMM efficiency", snprintf(b, sizeof b, "%.3f", o->linear_eff));
    ROW("bound", snprintf(b, sizeof b, "%s", rs_limit_name(rs_plan_limit(o))));
#undef ROW
}

void rs_plan_compare_plans(FILE *out, const rs_plan_in_t *in, const rs_plan_candidate_t *cands, int n) {
    column_t cols[RS_PLAN_MAX_CANDIDATES];
    int nc = 0;
    for (int i = 0; i < n && nc < RS_PLAN_MAX_CANDIDATES; i++) {
        const bool first = i == 0 || strcmp(cands[i - 1].spec, cands[i].spec);
        if (first) cols[nc++] = (column_t){cands[i].hw.name, NULL};
        const rs_plan_result_t *r = &cands[i].res;
        if (r->best < 0) continue;
        const rs_plan_option_t *o = &r->options[r->best];
        if (!cols[nc - 1].o || o->t_step_s < cols[nc - 1].o->t_step_s) cols[nc - 1].o = o;
    }
    char what[256];
    snprintf(what, sizeof what, "%s at S=%lld, global batch %lld, each at the N its plan chose", in->config.model.name,
             (long long)cands[0].res.seq_tokens, (long long)in->config.global_batch);
    compare_print(out, what, cols, nc);
}

/* ---------------------------------------------------------------------------------------------------
 * The budget
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    const rs_budget_t *b;
    const rs_plan_candidate_t *cands;
    bool by_cost;
} csv_ctx_t;

static void csv_row(FILE *fp, const void *items, size_t i) {
    const csv_ctx_t *x = items;
    const rs_budget_entry_t *e = &x->b->e[i];
    const rs_plan_option_t *o = &e->opt;
    char sp[32], why[256];
    fprintf(fp, "%zu,%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%s,%s,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,\"%s\"\n",
            i + 1, x->cands[e->cand].hw.name, (long long)devices(o), (long long)o->tp, (long long)(o->ulysses * o->ring),
            (long long)o->ulysses, (long long)o->ring, (long long)o->dp, (long long)o->accum, (long long)o->attn.ring_block_tokens,
            rs_layout_name(o->layout), rs_plan_split_name(sp, sizeof sp, o), o->fits, o->mem_bytes, o->usable_bytes, o->t_step_s,
            o->t_attn_layer_s, o->t_linear_layer_s, o->t_tp_layer_s, o->mfu, o->cost_per_step, rs_limit_name(rs_plan_limit(o)),
            rs_budget_loses(x->b, e, x->by_cost, why, sizeof why));
}

static const char BUDGET_CSV_HEADER[] =
    "rank,profile,devices,tp,cp,ulysses,ring,dp,accum,block_tokens,layout,split,fits,mem_bytes,usable_bytes,step_s,attn_layer_s,"
    "linear_layer_s,tp_layer_s,mfu,usd_per_step,bound,why\n";

static void budget_print(FILE *out, const rs_plan_in_t *in, const rs_budget_t *b, const rs_plan_candidate_t *cands) {
    const int top = in->top > 0 && in->top < 1000000 ? (int)in->top : DEFAULT_TOP;
    fprintf(out, "# budget: %lld devices; ranked by %s; %d configurations, %d fit; the best %d (every one: --csv)\n", (long long)in->gpus,
            in->by_cost ? "cost per step" : "step time", b->n, b->n_fit, top < b->n_fit ? top : b->n_fit);
    fprintf(out, "# %4s %-10s %3s %4s %3s %4s %4s %-10s %-9s %7s %8s %9s %6s %9s %-14s %s\n", "rank", "profile", "tp", "cp", "U", "R", "dp",
            "layout", "split", "mem_GiB", "headroom", "step_s", "MFU", "usd_step", "bound", "why it loses to rank 1");
    for (int i = 0; i < b->n && i < top && b->e[i].opt.fits; i++) {
        const rs_plan_option_t *o = &b->e[i].opt;
        char sp[32], why[256], c[24];
        fprintf(out, "  %4d %-10.10s %3lld %4lld %3lld %4lld %4lld %-10s %-9s %7.1f %8.1f %9.4g %6.3f %9s %-14s %s\n", i + 1,
                cands[b->e[i].cand].hw.name, (long long)o->tp, (long long)(o->ulysses * o->ring), (long long)o->ulysses,
                (long long)o->ring, (long long)o->dp, o->ring > 1 ? rs_layout_name(o->layout) : "-", rs_plan_split_name(sp, sizeof sp, o),
                o->mem_bytes / GIB, (o->usable_bytes - o->mem_bytes) / GIB, o->t_step_s, o->mfu, rs_fmt_num(o->cost_per_step, "%.4g", c, sizeof c),
                rs_limit_name(rs_plan_limit(o)), rs_budget_loses(b, &b->e[i], in->by_cost, why, sizeof why));
    }
    /* the losers' reasons by kind: how many configurations each limit rules out or slows */
    int n_bound[RS_LIMIT_COUNT] = {0};
    for (int i = 1; i < b->n; i++) n_bound[rs_plan_limit(&b->e[i].opt)]++;
    fprintf(out, "# the %d besides rank 1: bound by", b->n > 0 ? b->n - 1 : 0);
    for (int k = 0; k < RS_LIMIT_COUNT; k++)
        if (n_bound[k]) fprintf(out, " %s %d;", k == RS_LIMIT_MEMORY ? "memory (do not fit)" : rs_limit_name((rs_limit_t)k), n_bound[k]);
    fputc('\n', out);
    if (b->n_fit < b->n) {
        const rs_budget_entry_t *c0 = &b->e[b->n_fit]; /* the smallest that does not fit */
        char name[64], why[256];
        fprintf(out, "# the closest that does not fit: %s %s: %s\n", cands[c0->cand].hw.name, config_name(name, sizeof name, &c0->opt),
                rs_budget_loses(b, c0, in->by_cost, why, sizeof why));
    }
    fprintf(out, "# U x R = cp (Ulysses x ring), tp x cp x dp = devices; headroom: usable - needed, GiB; bound: the largest share of "
                 "the step (linear GEMMs, attention, ring transfers exposed, all-to-alls, TP all-reduces)\n");
}

int rs_plan_budget_study(const rs_plan_in_t *in, const rs_plan_candidate_t *cands, int n, int n_layouts, rs_err_t *err) {
    const rs_plan_config_t *c = &in->config;
    rs_layout_t layouts[RS_LAYOUT_COUNT];
    for (int l = 0; l < n_layouts; l++) layouts[l] = cands[l].layout;
    for (int i = 0; in->by_cost && i < n; i += n_layouts)
        if (!(cands[i].hw.price_per_device_hour > 0))
            return rs_errc(err, RS_ERR_BAD_INPUT, "--rank cost: %s has no price per device-hour (give --price [NAME=]USD)", cands[i].hw.name);
    rs_estimate_t sum = {0, 0, 0};
    for (int i = 0; i < n; i += n_layouts) rs_budget_estimate(c, &cands[i].machine, in->gpus, n_layouts, &sum);
    if (rs_limits_check("this plan", &sum, &in->limits, err) != 0) return rs_err_mark(err, RS_ERR_BAD_INPUT);
    rs_budget_t b = {0};
    for (int i = 0; i < n; i += n_layouts)
        if (rs_budget_add(&b, i, c, &cands[i].hw, &cands[i].machine, in->gpus, layouts, n_layouts, err)) {
            rs_budget_free(&b);
            return -1;
        }
    rs_budget_sort(&b, in->by_cost);
    int rc = 0;
    if (b.n == 0 || b.n_fit == 0) {
        char name[64];
        rc = b.n == 0 ? rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: no split of it divides --seq %lld over its ring", (long long)in->gpus,
                                (long long)c->seq_tokens)
                      : rs_errc(err, RS_ERR_BAD_INPUT, "--gpus %lld: nothing fits: the closest, %s %s, needs %.1f GiB per device with %.1f GiB usable",
                                (long long)in->gpus, cands[b.e[0].cand].hw.name, config_name(name, sizeof name, &b.e[0].opt),
                                b.e[0].opt.mem_bytes / GIB, b.e[0].opt.usable_bytes / GIB);
    } else {
        const csv_ctx_t ctx = {&b, cands, in->by_cost};
        if (in->csv && rs_study_write_csv(in->csv, BUDGET_CSV_HEADER, csv_row, &ctx, (size_t)b.n, err)) rc = rs_err_mark(err, RS_ERR_RUNTIME);
        else if (!in->csv || strcmp(in->csv, "-")) {
            rs_plan_print_headers(in->out, c, cands, n);
            budget_print(in->out, in, &b, cands);
            if (in->compare) {
                column_t cols[RS_PLAN_MAX_CANDIDATES];
                int nc = 0;
                for (int i = 0; i < n && nc < RS_PLAN_MAX_CANDIDATES; i += n_layouts) {
                    cols[nc] = (column_t){cands[i].hw.name, NULL};
                    for (int k = 0; k < b.n && !cols[nc].o; k++)
                        if (b.e[k].cand == i && b.e[k].opt.fits) cols[nc].o = &b.e[k].opt;
                    nc++;
                }
                char what[256];
                snprintf(what, sizeof what, "%s at S=%lld, global batch %lld, %lld devices each", c->model.name, (long long)c->seq_tokens,
                         (long long)c->global_batch, (long long)in->gpus);
                compare_print(in->out, what, cols, nc);
            }
        }
    }
    rs_budget_free(&b);
    return rc;
}
