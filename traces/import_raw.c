/* import_raw.c - the raw store of the import (import_raw.h): interned names (an open-addressing hash
 * table; each kernel name classified once, on first sight), step range names parsed, the raw ranks and
 * their growable kernel and range arrays. */
#include "import_raw.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "import_kclass.h"

int rs_raw_init(rs_raw_t *raw, const char *kernel_regex, const char *step_regex, rs_err_t *err) {
    memset(raw, 0, sizeof *raw);
    if (!(raw->kc = rs_kclass_create(kernel_regex, err))) return -1;
    const char *sre = step_regex ? step_regex : RS_IMPORT_STEP_REGEX;
    int rc = regcomp(&raw->step_re, sre, REG_EXTENDED | REG_ICASE);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &raw->step_re, msg, sizeof msg);
        rs_kclass_free(raw->kc);
        return rs_errc(err, RS_ERR_BAD_INPUT, "--step-regex '%s': not a POSIX extended regular expression (%s)", sre, msg);
    }
    if (raw->step_re.re_nsub == 0) {
        regfree(&raw->step_re);
        rs_kclass_free(raw->kc);
        return rs_errc(err, RS_ERR_BAD_INPUT, "--step-regex '%s': needs a group around the step number, e.g. 'ring.*step ([0-9]+)'", sre);
    }
    return 0;
}

void rs_raw_free(rs_raw_t *raw) {
    for (size_t i = 0; i < raw->n_ranks; i++) {
        free(raw->ranks[i].file);
        free(raw->ranks[i].k);
        free(raw->ranks[i].r);
    }
    free(raw->ranks);
    for (uint32_t i = 0; i < raw->n_names; i++) free(raw->names[i]);
    free(raw->names);
    free(raw->roles);
    free(raw->hash);
    regfree(&raw->step_re);
    rs_kclass_free(raw->kc);
}

char **rs_raw_take_names(rs_raw_t *raw, uint32_t *n_names) {
    char **names = raw->names;
    *n_names = raw->n_names;
    raw->names = NULL;
    raw->n_names = 0;
    return names;
}

/* ------------------------------------------------------------------------------------------------
 * Interned names
 * ---------------------------------------------------------------------------------------------- */
static uint32_t fnv1a(const char *s, size_t len) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int raw_rehash(rs_raw_t *raw, uint32_t cap) {
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h) return -1;
    for (uint32_t i = 0; i < raw->n_names; i++) {
        uint32_t j = fnv1a(raw->names[i], strlen(raw->names[i])) & (cap - 1);
        while (h[j]) j = (j + 1) & (cap - 1);
        h[j] = i + 1;
    }
    free(raw->hash);
    raw->hash = h;
    raw->cap_hash = cap;
    return 0;
}

uint32_t rs_raw_intern(rs_raw_t *raw, const char *s, size_t len) {
    if (raw->cap_hash == 0 && raw_rehash(raw, 256) != 0) return UINT32_MAX;
    uint32_t j = fnv1a(s, len) & (raw->cap_hash - 1);
    while (raw->hash[j]) {
        const char *n = raw->names[raw->hash[j] - 1];
        if (strncmp(n, s, len) == 0 && n[len] == '\0') return raw->hash[j] - 1;
        j = (j + 1) & (raw->cap_hash - 1);
    }
    if (raw->n_names == raw->cap_names) {
        uint32_t cap = raw->cap_names ? 2 * raw->cap_names : 64;
        char **nn = realloc(raw->names, cap * sizeof *nn);
        if (!nn) return UINT32_MAX;
        raw->names = nn;
        int16_t *rr = realloc(raw->roles, cap * sizeof *rr);
        if (!rr) return UINT32_MAX;
        raw->roles = rr;
        raw->cap_names = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) return UINT32_MAX;
    memcpy(copy, s, len);
    copy[len] = '\0';
    uint32_t id = raw->n_names++;
    raw->names[id] = copy;
    raw->roles[id] = (int16_t)rs_kclass_role(raw->kc, copy);
    raw->hash[j] = id + 1;
    if (2 * raw->n_names > raw->cap_hash && raw_rehash(raw, 2 * raw->cap_hash) != 0) return UINT32_MAX;
    return id;
}

int rs_raw_step_range(const rs_raw_t *raw, const char *name, int32_t *step, int8_t *pass_hint) {
    regmatch_t m[10];
    size_t nsub = raw->step_re.re_nsub < 9 ? raw->step_re.re_nsub : 9;
    if (regexec(&raw->step_re, name, nsub + 1, m, 0) != 0) return 0;
    int g = (int)nsub;
    while (g > 0 && m[g].rm_so < 0) g--;
    if (g == 0 || m[g].rm_eo - m[g].rm_so > 9) return 0;
    long v = 0;
    for (regoff_t i = m[g].rm_so; i < m[g].rm_eo; i++) {
        if (!isdigit((unsigned char)name[i])) return 0;
        v = 10 * v + (name[i] - '0');
    }
    *step = (int32_t)v;
    *pass_hint = (int8_t)rs_kclass_pass_hint(raw->kc, name);
    return 1;
}

/* ------------------------------------------------------------------------------------------------
 * Raw ranks
 * ---------------------------------------------------------------------------------------------- */
rs_raw_rank_t *rs_raw_add_rank(rs_raw_t *raw, const char *file) {
    if (raw->n_ranks == raw->cap_ranks) {
        size_t cap = raw->cap_ranks ? 2 * raw->cap_ranks : 8;
        rs_raw_rank_t *r = realloc(raw->ranks, cap * sizeof *r);
        if (!r) return NULL;
        raw->ranks = r;
        raw->cap_ranks = cap;
    }
    rs_raw_rank_t *r = &raw->ranks[raw->n_ranks];
    memset(r, 0, sizeof *r);
    r->file = strdup(file);
    if (!r->file) return NULL;
    r->proc = r->rank_key = r->device = -1;
    raw->n_ranks++;
    return r;
}

int rs_raw_grow(void **v, size_t *n, size_t *cap, size_t size, const void *x) {
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        void *w = realloc(*v, c * size);
        if (!w) return -1;
        *v = w;
        *cap = c;
    }
    memcpy((char *)*v + *n * size, x, size);
    (*n)++;
    return 0;
}

int rs_raw_add_kernel(rs_raw_rank_t *r, const rs_raw_kernel_t *k) { return rs_raw_grow((void **)&r->k, &r->nk, &r->ck, sizeof *k, k); }
int rs_raw_add_range(rs_raw_rank_t *r, const rs_raw_range_t *g) { return rs_raw_grow((void **)&r->r, &r->nr, &r->cr, sizeof *g, g); }
