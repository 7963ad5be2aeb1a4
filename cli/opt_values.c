/* opt_values.c - option values with a syntax of their own: size lists, INDEX:FACTOR pairs, --runtime
 * and --loss-chunk (opt_values.h). */
#include "opt_values.h"

#include <stdio.h>
#include <string.h>

#include "ranges.h"

int rs_cli_parse_sizes(const rs_cli_sizes_t *l, const char *arg, int64_t *out, int *n_out, rs_err_t *err) {
    const char *name = l->name;
    const int64_t min = l->min, max = l->max;
    const int min_n = l->min_n, max_n = l->max_n;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (n >= max_n) return rs_errf(err, "%s %s: at most %d sizes", name, arg, max_n);
        rs_err_t e;
        if (rs_parse_size(name, tok, min, max, &v, &e) < 0)
            return rs_errf(err, "%s %s: '%s' is not a size in [%lld, %lld] (K/M/G suffixes)", name, arg, tok, (long long)min,
                           (long long)max);
        if (n && v <= out[n - 1]) return rs_errf(err, "%s %s: sizes must increase", name, arg);
        out[n++] = v;
    }
    if (n == 0 && min_n <= 1) return rs_errf(err, "%s %s: empty list", name, arg);
    if (n < min_n) return rs_errf(err, "%s %s: give at least %d sizes", name, arg, min_n);
    *n_out = n;
    return 0;
}

int rs_cli_parse_pair(const rs_cli_pairs_t *l, const char *arg, rs_err_t *err) {
    const char *flag = l->flag, *what = l->what;
    int64_t *idx_out = &l->index[l->n];
    double *factor = &l->factor[l->n];
    const rs_range_t r = {RS_RANGE_FACTOR};
    const char *colon = strchr(arg, ':');
    char head[64];
    const size_t len = colon ? (size_t)(colon - arg) : 0;
    if (!colon || len == 0 || len >= sizeof head || strchr(colon + 1, ':'))
        return rs_errf(err, "%s %s: expected %s:FACTOR, one colon, e.g. 3:1.5", flag, arg, what[0] == 'r' ? "RANK" : "HOP");
    memcpy(head, arg, len);
    head[len] = 0;
    rs_err_t e;
    if (rs_parse_size(flag, head, 0, INT32_MAX, idx_out, &e) != 0)
        return rs_errf(err, "%s %s: the %s must be an integer >= 0, got '%s'", flag, arg, what, head);
    if (rs_parse_double(flag, colon + 1, r.min, r.max, factor, &e) != 0)
        return rs_errf(err, "%s %s: the factor must be a number in [%g, %g], got '%s'", flag, arg, r.min, r.max, colon + 1);
    for (int i = 0; i < l->n; i++)
        if (l->index[i] == *idx_out)
            return rs_errf(err, "%s %s: %s %lld already has factor %g (given once per %s; factors do not multiply)", flag, arg,
                           what, (long long)*idx_out, l->factor[i], what);
    return 0;
}

int rs_cli_parse_layouts(const char *arg, rs_layout_t *out, int *n, rs_err_t *err) {
    *n = 0;
    if (!strcmp(arg, "all")) {
        for (int i = 0; i < RS_LAYOUT_COUNT; i++) out[(*n)++] = (rs_layout_t)i;
        return 0;
    }
    char buf[128];
    const size_t len = strlen(arg);
    if (len == 0 || len >= sizeof buf || arg[0] == ',' || arg[len - 1] == ',' || strstr(arg, ",,"))
        return rs_errf(err, "--layout %s: expected contiguous, striped, zigzag, a comma list of them, or all", arg);
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        rs_layout_t l;
        if (rs_layout_parse(tok, &l) != 0)
            return rs_errf(err, "--layout %s: expected contiguous, striped, zigzag, a comma list of them, or all", arg);
        for (int i = 0; i < *n; i++)
            if (out[i] == l) return rs_errf(err, "--layout %s: %s is given twice (each layout once)", arg, tok);
        out[(*n)++] = l;
    }
    return 0;
}

int rs_cli_parse_runtime(const char *arg, rs_runtime_t *out, rs_err_t *err) {
    if (rs_runtime_parse(arg, out)) return rs_errf(err, "--runtime %s: expected pytorch, jax-gpu, jax-tpu or none", arg);
    return 0;
}

int rs_cli_parse_loss_chunk(const char *arg, int64_t *tokens, rs_err_t *err) {
    if (!strcmp(arg, "none")) return *tokens = 0, 0;
    return rs_parse_size("--loss-chunk", arg, 1, (int64_t)1 << 30, tokens, err);
}
