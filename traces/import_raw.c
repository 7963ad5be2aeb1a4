/* import_raw.c - the raw store of the import (import_raw.h): interned names (an open-addressing hash
 * table; each kernel name classified once, on first sight), step and ProfilerStep range names parsed,
 * the raw ranks and their growable kernel and range arrays, communication arguments, process groups
 * and rank lists, dtype sizes, notes. */
#include "import_raw.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_kclass.h"
#include "trace_private.h"

int rs_raw_init(rs_raw_t *raw, const char *const extra[RS_ROLE_COUNT], const char *step_regex, rs_err_t *err) {
    memset(raw, 0, sizeof *raw);
    if (!(raw->kc = rs_kclass_create(extra, err))) return -1;
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

void rs_raw_rank_free(rs_raw_rank_t *r) {
    free(r->file);
    free(r->k);
    free(r->r);
    free(r->ps);
}

void rs_raw_free(rs_raw_t *raw) {
    for (size_t i = 0; i < raw->n_ranks; i++) rs_raw_rank_free(&raw->ranks[i]);
    free(raw->ranks);
    free(raw->comms);
    for (size_t i = 0; i < raw->n_groups; i++) free(raw->groups[i].name), free(raw->groups[i].desc), free(raw->groups[i].ranks);
    free(raw->groups);
    for (size_t i = 0; i < raw->n_notes; i++) free(raw->notes[i]);
    free(raw->notes);
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
    r->proc = r->rank_key = r->device = r->world_size = -1;
    r->gpu = RS_RAW_NONE;
    raw->n_ranks++;
    return r;
}

int rs_raw_grow(void **v, size_t *n, size_t *cap, size_t size, const void *x) {
    if (rs_trace_room(v, *n, cap, size, 256) != 0) return -1;
    memcpy((char *)*v + *n * size, x, size);
    (*n)++;
    return 0;
}

int rs_raw_add_kernel(rs_raw_rank_t *r, const rs_raw_kernel_t *k) { return rs_raw_grow((void **)&r->k, &r->nk, &r->ck, sizeof *k, k); }
int rs_raw_add_range(rs_raw_rank_t *r, const rs_raw_range_t *g) {
    return g->kind == RS_RANGE_PROFILER ? rs_raw_grow((void **)&r->ps, &r->nps, &r->cps, sizeof *g, g)
                                        : rs_raw_grow((void **)&r->r, &r->nr, &r->cr, sizeof *g, g);
}

/* ------------------------------------------------------------------------------------------------
 * ProfilerStep ranges, communication arguments, groups, rank lists, dtypes, notes
 * ---------------------------------------------------------------------------------------------- */
int rs_raw_profiler_step(const char *name, int32_t *n) {
    static const char pre[] = "ProfilerStep#";
    if (strncmp(name, pre, sizeof pre - 1) != 0) return 0;
    const char *d = name + sizeof pre - 1;
    long v = 0;
    int nd = 0;
    for (; isdigit((unsigned char)*d) && nd < 9; d++, nd++) v = 10 * v + (*d - '0');
    if (nd == 0 || *d) return 0;
    *n = (int32_t)v;
    return 1;
}

int rs_raw_range_kind(const rs_raw_t *raw, const char *name, rs_raw_range_t *g) {
    int32_t step;
    int8_t hint = -1;
    uint8_t kind = RS_RANGE_STEP;
    if (rs_raw_profiler_step(name, &step)) kind = RS_RANGE_PROFILER;
    else if (!rs_raw_step_range(raw, name, &step, &hint)) return 0;
    g->step = step, g->pass_hint = hint, g->kind = kind;
    return 1;
}

const char *rs_coll_name(rs_coll_t c) {
    static const char *const n[RS_COLL_COUNT] = {"p2p", "all_to_all", "all_gather", "reduce_scatter", "all_reduce", "broadcast", "other"};
    return rs_enum_name(n, RS_COLL_COUNT, (int)c);
}

rs_coll_t rs_coll_of_name(const char *name) {
    /* torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp's RECORD_PARAM_COMMS names: send, recv,
     * all_to_all / all_to_allv / alltoall_base, all_gather / _allgather_base / allgather_coalesced /
     * allgather_into_tensor_coalesced, reduce_scatter / _reduce_scatter_base /
     * reduce_scatter_tensor_coalesced, allreduce / allreduce_coalesced, broadcast, barrier, ...;
     * and NCCL's / RCCL's kernel names, for a kernel without arguments (a rocprofv3 trace, a Kineto
     * trace without NCCL arguments): ncclDevKernel_AllGather_RING_LL, ncclKernel_AllToAll_..., read
     * in lower case (RCCL's Generic kernel and SendRecv say no collective: other) */
    char low[256];
    size_t n = 0;
    for (; name[n] && n < sizeof low - 1; n++) low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = 0;
    name = low;
    if (!strcmp(name, "send") || !strcmp(name, "recv") || !strcmp(name, "isend") || !strcmp(name, "irecv")) return RS_COLL_P2P;
    if (strstr(name, "to_all") || strstr(name, "toall")) return RS_COLL_ALL_TO_ALL;
    if (strstr(name, "allgather") || strstr(name, "all_gather")) return RS_COLL_ALL_GATHER;
    if (strstr(name, "reduce_scatter") || strstr(name, "reducescatter")) return RS_COLL_REDUCE_SCATTER;
    if (strstr(name, "allreduce") || strstr(name, "all_reduce")) return RS_COLL_ALL_REDUCE;
    if (strstr(name, "broadcast")) return RS_COLL_BROADCAST;
    return RS_COLL_OTHER;
}

uint32_t rs_raw_add_comm(rs_raw_t *raw, const rs_raw_comm_t *c) {
    if (raw->n_comms >= RS_RAW_NONE - 1 || rs_raw_grow((void **)&raw->comms, &raw->n_comms, &raw->cap_comms, sizeof *c, c) != 0)
        return RS_RAW_NONE;
    return (uint32_t)(raw->n_comms - 1);
}

uint32_t rs_raw_group(rs_raw_t *raw, const char *name, const char *desc, const int32_t *ranks, int n) {
    for (size_t i = 0; i < raw->n_groups; i++) {
        const rs_raw_group_t *g = &raw->groups[i];
        if (g->n == n && !strcmp(g->name, name) && (n == 0 || !memcmp(g->ranks, ranks, (size_t)n * sizeof *ranks))) {
            if (desc && *desc && !*g->desc) { /* a later sighting with the description */
                char *d = strdup(desc);
                if (!d) return RS_RAW_NONE;
                free(raw->groups[i].desc);
                raw->groups[i].desc = d;
            }
            return (uint32_t)i;
        }
    }
    rs_raw_group_t g = {strdup(name), strdup(desc ? desc : ""), malloc((n ? (size_t)n : 1) * sizeof *ranks), n};
    if (!g.name || !g.desc || !g.ranks || rs_raw_grow((void **)&raw->groups, &raw->n_groups, &raw->cap_groups, sizeof g, &g) != 0) {
        free(g.name), free(g.desc), free(g.ranks);
        return RS_RAW_NONE;
    }
    if (n) memcpy(g.ranks, ranks, (size_t)n * sizeof *ranks);
    return (uint32_t)(raw->n_groups - 1);
}

int rs_raw_parse_ranks(const char *s, int32_t *out, int cap) {
    int n = 0;
    while (isspace((unsigned char)*s)) s++;
    bool bracket = *s == '[';
    if (bracket) s++;
    for (;;) {
        while (isspace((unsigned char)*s)) s++;
        if (bracket && *s == ']') {
            s++;
            break;
        }
        if (!*s) break;
        if (!isdigit((unsigned char)*s)) return -1;
        long a = 0, b;
        for (; isdigit((unsigned char)*s); s++)
            if ((a = 10 * a + (*s - '0')) > INT32_MAX) return -1;
        b = a;
        if (*s == '-') { /* a range a-b */
            s++;
            if (!isdigit((unsigned char)*s)) return -1;
            for (b = 0; isdigit((unsigned char)*s); s++)
                if ((b = 10 * b + (*s - '0')) > INT32_MAX) return -1;
            if (b < a) return -1;
        }
        for (long v = a; v <= b; v++) {
            if (n == cap) return -1;
            out[n++] = (int32_t)v;
        }
        while (isspace((unsigned char)*s)) s++;
        if (*s == ',') s++;
        else if (!(bracket && *s == ']') && *s) return -1;
    }
    while (isspace((unsigned char)*s)) s++;
    return *s ? -1 : n;
}

int rs_raw_dtype_bytes(const char *dtype) {
    /* c10::ScalarType names (c10/core/ScalarType.h), as record_param_comms writes them */
    static const struct {
        const char *name;
        int bytes;
    } t[] = {{"Float", 4}, {"BFloat16", 2}, {"Half", 2}, {"Double", 8}, {"Long", 8}, {"Int", 4}, {"Short", 2}, {"Char", 1},
             {"Byte", 1}, {"Bool", 1}, {"ComplexFloat", 8}, {"ComplexDouble", 16}, {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
             {"Float8_e4m3fnuz", 1}, {"Float8_e5m2fnuz", 1}, {"UInt16", 2}, {"UInt32", 4}, {"UInt64", 8}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(dtype, t[i].name)) return t[i].bytes;
    return 0;
}

int rs_raw_note(rs_raw_t *raw, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = strdup(buf);
    if (!s || rs_raw_grow((void **)&raw->notes, &raw->n_notes, &raw->cap_notes, sizeof s, &s) != 0) {
        free(s);
        return -1;
    }
    return 0;
}
