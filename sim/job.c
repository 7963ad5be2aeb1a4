/* job.c - placement of rings over devices, background collectives, job results (job.h). */
#include "job.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================================================
 * Placement
 * ============================================================================================== */
static const char *const dim_names[RS_DIM_COUNT] = {"tp", "cp", "dp"};

int rs_placement_order_parse(const char *s, rs_dim_t order[RS_DIM_COUNT], rs_err_t *err) {
    bool seen[RS_DIM_COUNT] = {false, false, false};
    int n = 0;
    const char *p = s;
    while (*p) {
        size_t len = strcspn(p, "-,");
        int found = -1;
        for (int d = 0; d < RS_DIM_COUNT; d++)
            if (len == 2 && !strncmp(p, dim_names[d], 2)) found = d;
        if (found < 0 || seen[found] || n >= RS_DIM_COUNT)
            return rs_errf(err, "--order %s: expected tp, cp and dp once each, innermost first (e.g. tp-cp-dp)", s);
        seen[found] = true;
        order[n++] = (rs_dim_t)found;
        p += len;
        if (*p) p++;
    }
    if (n != RS_DIM_COUNT)
        return rs_errf(err, "--order %s: expected tp, cp and dp once each, innermost first (e.g. tp-cp-dp)", s);
    return 0;
}

void rs_placement_free(rs_placement_t *p) {
    if (!p) return;
    free(p->device);
    memset(p, 0, sizeof *p);
}

int rs_placement_grid(const rs_placement_degrees_t *dg, rs_placement_t *out, rs_err_t *err) {
    const int64_t tp = dg->tp, cp = dg->cp, dp = dg->dp, devices = dg->devices;
    const rs_dim_t *order = dg->order;
    memset(out, 0, sizeof *out);
    const int64_t deg[RS_DIM_COUNT] = {tp, cp, dp};
    for (int d = 0; d < RS_DIM_COUNT; d++)
        if (deg[d] < 1 || deg[d] > (1 << 24))
            return rs_errf(err, "--%s %" PRId64 ": must be in [1, %d]", dim_names[d], deg[d], 1 << 24);
    const int64_t total = tp * cp * dp;
    if (total > (1 << 24)) return rs_errf(err, "--tp x --cp x --dp = %" PRId64 " devices: at most %d", total, 1 << 24);
    if (devices > 0 && devices != total)
        return rs_errf(err, "--tp %" PRId64 " --cp %" PRId64 " --dp %" PRId64 ": %" PRId64 " devices, but --devices %" PRId64
                            ": the degrees must multiply to the device count", tp, cp, dp, total, devices);
    int64_t stride[RS_DIM_COUNT], s = 1;
    for (int i = 0; i < RS_DIM_COUNT; i++) {
        stride[order[i]] = s;
        s *= deg[order[i]];
    }
    out->device = malloc(sizeof *out->device * (size_t)total);
    if (!out->device) return rs_errf(err, "placement: out of memory for %" PRId64 " devices", total);
    out->n_rings = tp * dp;
    out->ring_ranks = cp;
    out->devices = total;
    out->tp = tp;
    out->cp = cp;
    out->dp = dp;
    memcpy(out->order, order, sizeof out->order);
    for (int64_t d = 0; d < dp; d++)
        for (int64_t t = 0; t < tp; t++)
            for (int64_t c = 0; c < cp; c++)
                out->device[(t + tp * d) * cp + c] = t * stride[RS_DIM_TP] + c * stride[RS_DIM_CP] + d * stride[RS_DIM_DP];
    snprintf(out->source, sizeof out->source, "tp %" PRId64 " x cp %" PRId64 " x dp %" PRId64 ", order %s-%s-%s", tp, cp, dp,
             dim_names[order[0]], dim_names[order[1]], dim_names[order[2]]);
    return 0;
}

/* One map line into dev[0..n); returns the count of entries read (may exceed n) or -1 on a bad token. */
static int64_t map_line(char *line, int64_t n, int64_t *dev, char **bad) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    int64_t k = 0;
    for (char *t = strtok(line, " \t\r\n,"); t; t = strtok(NULL, " \t\r\n,")) {
        char *end;
        errno = 0;
        long long v = strtoll(t, &end, 10);
        if (*end || errno || !isdigit((unsigned char)t[0])) {
            *bad = t;
            return -1;
        }
        if (k < n) dev[k] = (int64_t)v;
        k++;
    }
    return k;
}

static int map_add_ring(rs_placement_t *out, int64_t n, rs_err_t *err) {
    int64_t *grown = realloc(out->device, sizeof *grown * (size_t)((out->n_rings + 1) * n));
    if (!grown) return rs_errf(err, "map: out of memory");
    out->device = grown;
    out->n_rings++;
    return 0;
}

/* every device once: owner[d] = ring * n + rank + 1, line_of[ring] for messages */
static int map_check_unique(const char *path, rs_placement_t *out, const int *line_of, rs_err_t *err) {
    const int64_t n = out->ring_ranks, total = out->n_rings * n;
    int64_t *owner = calloc((size_t)out->devices, sizeof *owner);
    if (!owner) return rs_errf(err, "%s: out of memory", path);
    int rc = 0;
    for (int64_t i = 0; i < total && rc == 0; i++) {
        const int64_t d = out->device[i];
        if (owner[d]) {
            const int64_t o = owner[d] - 1;
            rc = rs_errf(err, "%s:%d: device %" PRId64 " already holds ring %" PRId64 " rank %" PRId64
                              " (line %d): a device holds one rank", path, line_of[i / n], d, o / n, o % n, line_of[o / n]);
        }
        owner[d] = i + 1;
    }
    free(owner);
    return rc;
}

int rs_placement_load_map(const char *path, int64_t n, int64_t devices, rs_placement_t *out, rs_err_t *err) {
    memset(out, 0, sizeof *out);
    FILE *fp = rs_input_open(path, "placement map", (uint64_t)64 << 20, err);
    if (!fp) return -1;
    out->ring_ranks = n;
    int *line_of = NULL, lineno = 0, rc = 0;
    int64_t max_dev = -1;
    char line[1 << 16];
    int64_t *row = malloc(sizeof *row * (size_t)n);
    if (!row) rc = rs_errf(err, "%s: out of memory", path);
    for (int got; rc == 0 && (got = rs_read_text_line(fp, line, sizeof line, path, &lineno, err)) != 0;) {
        if (got < 0) {
            rc = -1;
            break;
        }
        char *bad = NULL;
        const int64_t k = map_line(line, n, row, &bad);
        if (k < 0) {
            rc = rs_errf(err, "%s:%d: '%s' is not a device index (a non-negative integer)", path, lineno, bad);
            break;
        }
        if (k == 0) continue;
        if (k != n) {
            rc = rs_errf(err, "%s:%d: %" PRId64 " devices, the ring has -N %" PRId64 " ranks (one line per ring)", path,
                         lineno, k, n);
            break;
        }
        int *lo = realloc(line_of, sizeof *lo * (size_t)(out->n_rings + 1));
        if (!lo || map_add_ring(out, n, err) != 0) {
            if (lo) line_of = lo;
            rc = rs_errf(err, "%s: out of memory", path);
            break;
        }
        line_of = lo;
        line_of[out->n_rings - 1] = lineno;
        for (int64_t i = 0; i < n && rc == 0; i++) {
            if (devices > 0 && row[i] >= devices)
                rc = rs_errf(err, "%s:%d: device %" PRId64 " out of range [0, %" PRId64 ") (--devices %" PRId64 ")", path,
                             lineno, row[i], devices, devices);
            else if (row[i] >= (1 << 24)) /* here, so that max_dev + 1 below cannot overflow */
                rc = rs_errf(err, "%s:%d: device %" PRId64 ": at most %d devices", path, lineno, row[i], 1 << 24);
            if (rc == 0 && row[i] > max_dev) max_dev = row[i];
            out->device[(out->n_rings - 1) * n + i] = row[i];
        }
    }
    if (rc == 0 && ferror(fp)) rc = rs_errf(err, "%s: read error", path);
    if (rc == 0 && out->n_rings == 0) rc = rs_errf(err, "%s: no ring (one line of N device indices per ring)", path);
    fclose(fp);
    out->devices = devices > 0 ? devices : max_dev + 1;
    if (rc == 0) rc = map_check_unique(path, out, line_of, err);
    snprintf(out->source, sizeof out->source, "map %s", path);
    free(row);
    free(line_of);
    if (rc != 0) rs_placement_free(out);
    return rc;
}

/* ================================================================================================
 * Background
 * ============================================================================================== */
static const char *const bg_names[RS_BG_COUNT] = {"none", "dp", "fsdp"};
static const char *const group_names[RS_BG_GROUP_COUNT] = {"dp-cp", "dp"};

const char *rs_bg_kind_name(rs_bg_kind_t k) { return k < RS_BG_COUNT ? bg_names[k] : "?"; }
const char *rs_bg_group_name(rs_bg_group_t g) { return g < RS_BG_GROUP_COUNT ? group_names[g] : "?"; }

int rs_bg_kind_parse(const char *s, rs_bg_kind_t *out) {
    for (int k = 0; k < RS_BG_COUNT; k++)
        if (!strcmp(s, bg_names[k])) return *out = (rs_bg_kind_t)k, 0;
    return -1;
}

int rs_bg_group_parse(const char *s, rs_bg_group_t *out) {
    for (int k = 0; k < RS_BG_GROUP_COUNT; k++)
        if (!strcmp(s, group_names[k])) return *out = (rs_bg_group_t)k, 0;
    return -1;
}

void rs_background_size(rs_background_t *bg, const rs_transformer_t *t, int64_t tp, int64_t act_bytes,
                        int64_t grad_bytes) {
    const double matmul = (double)rs_transformer_layer_matmul_params(t);
    const double norms = (double)(rs_transformer_layer_params(t) - rs_transformer_layer_matmul_params(t));
    const double per_device = matmul / (double)(tp > 0 ? tp : 1) + norms;
    bg->param_bytes = per_device * (double)act_bytes;
    bg->grad_bytes = per_device * (double)grad_bytes;
    snprintf(bg->model, sizeof bg->model, "%s", t->name);
}

static uint64_t chunk(double bytes, int64_t p) { return (uint64_t)ceil(bytes / (double)p); }

int rs_background_colls(const rs_background_t *bg, rs_pass_t pass, int64_t p, rs_bg_coll_t out[RS_BG_MAX_COLL]) {
    if (p < 2 || bg->kind == RS_BG_NONE) return 0;
    int n = 0;
    if (bg->kind == RS_BG_DP && pass == RS_PASS_BACKWARD)
        out[n++] = (rs_bg_coll_t){"all-reduce", 2 * (p - 1), chunk(bg->grad_bytes, p)};
    if (bg->kind == RS_BG_FSDP) {
        out[n++] = (rs_bg_coll_t){"all-gather", p - 1, chunk(bg->param_bytes, p)};
        if (pass == RS_PASS_BACKWARD) out[n++] = (rs_bg_coll_t){"reduce-scatter", p - 1, chunk(bg->grad_bytes, p)};
    }
    for (int i = 0; i < n; i++)
        if (out[i].step_bytes == 0) out[i].step_bytes = 1; /* SimGrid moves at least a byte; a zero layer is caught earlier */
    return n;
}

/* group key of ring r's rank c */
static int64_t group_key(const rs_placement_t *p, rs_bg_group_t g, int64_t r, int64_t c) {
    if (p->tp == 0) return g == RS_BG_GROUP_DP ? c : 0; /* map file: rings are replicas */
    const int64_t t = r % p->tp;
    return g == RS_BG_GROUP_DP ? t + p->tp * c : t;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t rs_background_groups(const rs_placement_t *p, rs_bg_group_t g, int64_t **members, int64_t **offset) {
    const int64_t n = p->ring_ranks, total = p->n_rings * n;
    const int64_t n_groups = g == RS_BG_GROUP_DP ? (p->tp ? p->tp : 1) * n : (p->tp ? p->tp : 1);
    int64_t *cnt = calloc((size_t)n_groups + 1, sizeof *cnt);
    int64_t *mem = malloc(sizeof *mem * (size_t)(total > 0 ? total : 1));
    int64_t *fill = calloc((size_t)n_groups + 1, sizeof *fill);
    if (!cnt || !mem || !fill) {
        free(cnt);
        free(mem);
        free(fill);
        return -1;
    }
    for (int64_t i = 0; i < total; i++) cnt[group_key(p, g, i / n, i % n) + 1]++;
    for (int64_t k = 0; k < n_groups; k++) cnt[k + 1] += cnt[k];
    for (int64_t i = 0; i < total; i++) {
        const int64_t k = group_key(p, g, i / n, i % n);
        mem[cnt[k] + fill[k]++] = p->device[i];
    }
    for (int64_t k = 0; k < n_groups; k++) qsort(mem + cnt[k], (size_t)(cnt[k + 1] - cnt[k]), sizeof *mem, cmp_i64);
    free(fill);
    *members = mem;
    *offset = cnt;
    return n_groups;
}

/* ================================================================================================
 * Job
 * ============================================================================================== */
int rs_job_validate(const rs_job_t *j, rs_err_t *err) {
    const rs_placement_t *p = &j->placement;
    if (p->n_rings < 1 || p->ring_ranks < 1 || !p->device) return rs_errf(err, "job: no ring placed");
    if (j->fabric.devices != p->devices)
        return rs_errf(err, "job: the fabric has %" PRId64 " devices, the placement %" PRId64, j->fabric.devices, p->devices);
    if (rs_fabric_validate(&j->fabric, err) != 0) return -1;
    for (int64_t i = 0; i < p->n_rings * p->ring_ranks; i++)
        if (p->device[i] < 0 || p->device[i] >= p->devices)
            return rs_errf(err, "job: ring %" PRId64 " rank %" PRId64 " on device %" PRId64 ", outside [0, %" PRId64 ")",
                           i / p->ring_ranks, i % p->ring_ranks, p->device[i], p->devices);
    const rs_background_t *bg = &j->background;
    if (bg->kind != RS_BG_NONE && !(isfinite(bg->param_bytes) && bg->param_bytes > 0 && isfinite(bg->grad_bytes) &&
                                    bg->grad_bytes > 0))
        return rs_errf(err, "--background %s: needs a layer size (--model NAME or --bg-bytes SIZE)", rs_bg_kind_name(bg->kind));
    return 0;
}

void rs_job_free(rs_job_t *j) {
    if (j) rs_placement_free(&j->placement);
}

void rs_job_result_free(rs_job_result_t *r) {
    if (!r) return;
    free(r->rings);
    free(r->hops);
    free(r->links);
    memset(r, 0, sizeof *r);
}

double rs_link_busy_util(const rs_link_result_t *l) {
    if (!(l->busy_s > 0) || !(l->capacity_bw > 0)) return 0;
    return l->bytes / (l->capacity_bw * l->busy_s);
}

int64_t rs_job_saturated_link(const rs_job_result_t *r) {
    int64_t best = -1;
    double best_load = 0;
    for (int64_t i = 0; i < r->n_links; i++) {
        const rs_link_result_t *l = &r->links[i];
        const double load = l->bytes / l->capacity_bw;
        if (rs_link_busy_util(l) >= 1 - 1e-6 && load > best_load) {
            best_load = load;
            best = i;
        }
    }
    return best;
}
