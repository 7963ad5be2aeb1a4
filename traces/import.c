/* import.c - GPU traces of a ring-attention run -> ringsim traces (import.h): kernel name patterns,
 * input files, step assignment (step ranges or launch order), events checked against the schedule.
 * The readers are import_kineto.c and import_nsys.c; the rules are documented in docs/import.md. */
#include "import.h"

#include "estimate.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import_raw.h"
#include "output.h"

/* ------------------------------------------------------------------------------------------------
 * Kernel name patterns
 * ---------------------------------------------------------------------------------------------- */
/* Attention kernels, matched anywhere in the demangled name (POSIX ERE):
 *  flash-attn 2: flash_fwd_kernel, flash_fwd_splitkv_kernel, flash_fwd_splitkv_combine_kernel,
 *    flash_bwd_dot_do_o_kernel, flash_bwd_dq_dk_dv_loop[_seqk_parallel]_kernel, flash_bwd_convert_dq_kernel
 *    (also PyTorch's copy, pytorch_flash::flash_fwd_kernel);
 *  flash-attn 3: flash::FlashAttnFwdSm90 / FlashAttnFwdSm80 / FlashAttnFwdCombine, flash::FlashAttnBwdSm90,
 *    FlashAttnBwdPreprocess, FlashAttnBwdPostprocessConvertdQ;
 *  cuDNN fused attention (PyTorch's and TransformerEngine's backend): cudnn_generated_fort_native_sdpa_*_fprop_*
 *    / *_bprop_* with the backward's cudnn::fusion::compute_dot_do_o_* and convert_dq_*; TE's fused_attn_*fwd* / *bwd*;
 *  PyTorch memory-efficient attention: fmha_cutlassF_* / fmha_cutlassB_*;
 *  ringsim: attn_fwd_mma, attn_fwd_ref, attn_bwd_mma, attn_bwd_ref_dq, attn_bwd_ref_dkv. */
static const char RE_ATTN_FWD[] =
    "flash_fwd|FlashAttnFwd|flash_attn_fwd|fmha_cutlassF|fused_attn[A-Za-z0-9_]*fwd|"
    "cudnn[A-Za-z0-9_]*(sdpa|fmha|flash)[A-Za-z0-9_]*fprop|cudnn[A-Za-z0-9_]*fprop[A-Za-z0-9_]*(sdpa|fmha|flash)|"
    "attn_fwd_mma|attn_fwd_ref";
static const char RE_ATTN_BWD[] =
    "flash_bwd|FlashAttnBwd|flash_attn_bwd|fmha_cutlassB|fused_attn[A-Za-z0-9_]*bwd|"
    "cudnn[A-Za-z0-9_]*(sdpa|fmha|flash)[A-Za-z0-9_]*bprop|cudnn[A-Za-z0-9_]*bprop[A-Za-z0-9_]*(sdpa|fmha|flash)|"
    "cudnn::fusion::(compute_dot_do_o|convert_dq)|attn_bwd_mma|attn_bwd_ref";
/* Words that make a name (user-regex kernel, step range) backward or forward. */
static const char RE_BWD_WORD[] = "bwd|backward|bprop|grad";
static const char RE_FWD_WORD[] = "fwd|forward|fprop";

struct rs_kclass {
    regex_t fwd, bwd, bwd_word, fwd_word, extra;
    bool has_extra;
};

const char *rs_kernel_role_name(rs_kernel_role_t r) {
    static const char *const n[RS_KROLE_COUNT] = {"attn-fwd", "attn-bwd", "sendrecv", "send", "recv"};
    return (r >= 0 && r < RS_KROLE_COUNT) ? n[r] : "?";
}

const char *rs_import_format_name(rs_import_format_t f) {
    return f == RS_IMPORT_KINETO ? "kineto" : f == RS_IMPORT_NSYS ? "nsys" : "auto";
}

rs_kclass_t *rs_kclass_create(const char *extra_regex, rs_err_t *err) {
    rs_kclass_t *c = calloc(1, sizeof *c);
    if (!c) {
        rs_errf(err, "out of memory");
        return NULL;
    }
    int ok = regcomp(&c->fwd, RE_ATTN_FWD, REG_EXTENDED | REG_NOSUB) == 0;
    ok = ok && regcomp(&c->bwd, RE_ATTN_BWD, REG_EXTENDED | REG_NOSUB) == 0;
    ok = ok && regcomp(&c->bwd_word, RE_BWD_WORD, REG_EXTENDED | REG_NOSUB | REG_ICASE) == 0;
    ok = ok && regcomp(&c->fwd_word, RE_FWD_WORD, REG_EXTENDED | REG_NOSUB | REG_ICASE) == 0;
    if (!ok) { /* the built-in patterns are constant: only OOM gets here */
        rs_errf(err, "out of memory compiling the kernel name patterns");
        free(c);
        return NULL;
    }
    if (extra_regex && *extra_regex) {
        int rc = regcomp(&c->extra, extra_regex, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &c->extra, msg, sizeof msg);
            rs_errf(err, "--kernel-regex '%s': not a POSIX extended regular expression (%s)", extra_regex, msg);
            regfree(&c->fwd), regfree(&c->bwd), regfree(&c->bwd_word), regfree(&c->fwd_word);
            free(c);
            return NULL;
        }
        c->has_extra = true;
    }
    return c;
}

void rs_kclass_free(rs_kclass_t *c) {
    if (!c) return;
    regfree(&c->fwd), regfree(&c->bwd), regfree(&c->bwd_word), regfree(&c->fwd_word);
    if (c->has_extra) regfree(&c->extra);
    free(c);
}

/* NCCL point-to-point kernels: "nccl..." (after an optional "void ") whose name has "Kernel" and
 * SendRecv (both directions), else Send or Recv. Collectives (AllReduce, ...) are not transfers. */
static int nccl_role(const char *name) {
    if (!strncmp(name, "void ", 5)) name += 5;
    if (strncmp(name, "nccl", 4) != 0 || !strstr(name, "Kernel")) return -1;
    if (strstr(name, "SendRecv")) return RS_KROLE_SENDRECV;
    if (strstr(name, "Send")) return RS_KROLE_SEND;
    if (strstr(name, "Recv")) return RS_KROLE_RECV;
    return -1;
}

int rs_kclass_role(const rs_kclass_t *c, const char *name) {
    int r = nccl_role(name);
    if (r >= 0) return r;
    if (regexec(&c->bwd, name, 0, NULL, 0) == 0) return RS_KROLE_ATTN_BWD;
    if (regexec(&c->fwd, name, 0, NULL, 0) == 0) return RS_KROLE_ATTN_FWD;
    if (c->has_extra && regexec(&c->extra, name, 0, NULL, 0) == 0)
        return regexec(&c->bwd_word, name, 0, NULL, 0) == 0 ? RS_KROLE_ATTN_BWD : RS_KROLE_ATTN_FWD;
    return -1;
}

/* ------------------------------------------------------------------------------------------------
 * Raw data (import_raw.h)
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
    *pass_hint = -1;
    const rs_kclass_t *c = raw->kc;
    if (regexec(&c->bwd_word, name, 0, NULL, 0) == 0) *pass_hint = RS_PASS_BACKWARD;
    else if (regexec(&c->fwd_word, name, 0, NULL, 0) == 0) *pass_hint = RS_PASS_FORWARD;
    return 1;
}

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

static void raw_free(rs_raw_t *raw, bool keep_names) {
    for (size_t i = 0; i < raw->n_ranks; i++) {
        free(raw->ranks[i].file);
        free(raw->ranks[i].k);
        free(raw->ranks[i].r);
    }
    free(raw->ranks);
    if (!keep_names) {
        for (uint32_t i = 0; i < raw->n_names; i++) free(raw->names[i]);
        free(raw->names);
    }
    free(raw->roles);
    free(raw->hash);
    regfree(&raw->step_re);
}

/* ------------------------------------------------------------------------------------------------
 * Input files
 * ---------------------------------------------------------------------------------------------- */
/* Natural order: digit runs compare as numbers ("rank2" < "rank10"). */
static int natural_cmp(const char *a, const char *b) {
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0') a++;
            while (*b == '0') b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la])) la++;
            while (isdigit((unsigned char)b[lb])) lb++;
            if (la != lb) return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c) return c;
            a += la, b += lb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++, b++;
    }
    return (*a != 0) - (*b != 0);
}

static int natural_qcmp(const void *a, const void *b) { return natural_cmp(*(char *const *)a, *(char *const *)b); }

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

typedef struct {
    char **v;
    size_t n, cap;
} strlist_t;

static int strlist_add(strlist_t *l, char *s) {
    if (!s) return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return 0;
}

static void strlist_free(strlist_t *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
}

/* Expand paths: a directory contributes its *.json, *.json.gz and *.sqlite files in natural order. */
static int expand_paths(const char *const *paths, size_t n, strlist_t *out, rs_err_t *err) {
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) return rs_errf(err, "%s: cannot open: %s", paths[i], strerror(errno));
        if (!S_ISDIR(st.st_mode)) {
            if (strlist_add(out, strdup(paths[i])) != 0) return rs_errf(err, "out of memory");
            continue;
        }
        DIR *d = opendir(paths[i]);
        if (!d) return rs_errf(err, "%s: cannot open directory: %s", paths[i], strerror(errno));
        size_t first = out->n;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            if (!ends_with(e->d_name, ".json") && !ends_with(e->d_name, ".json.gz") && !ends_with(e->d_name, ".sqlite"))
                continue;
            size_t len = strlen(paths[i]) + strlen(e->d_name) + 2;
            char *p = malloc(len);
            if (p) snprintf(p, len, "%s/%s", paths[i], e->d_name);
            if (strlist_add(out, p) != 0) {
                closedir(d);
                return rs_errf(err, "out of memory");
            }
        }
        closedir(d);
        if (out->n == first)
            return rs_errf(err, "%s: no trace files in the directory (expected *.json, *.json.gz or *.sqlite)", paths[i]);
        qsort(out->v + first, out->n - first, sizeof *out->v, natural_qcmp);
    }
    if (out->n == 0) return rs_errf(err, "no trace file given");
    return 0;
}

long rs_import_list_files(const char *const *paths, size_t n_paths, char ***out, rs_err_t *err) {
    strlist_t l = {0};
    if (expand_paths(paths, n_paths, &l, err) != 0) {
        strlist_free(&l);
        return -1;
    }
    *out = l.v;
    return (long)l.n;
}

/* Format by content: SQLite header, else gzip magic or JSON text. */
static int sniff_format(const char *path, rs_import_format_t *f, rs_err_t *err) {
    if (rs_input_check(path, "trace of a real run", (uint64_t)rs_mem_cap_default(), false, err) != 0) return -1;
    FILE *fp = fopen(path, "rb");
    if (!fp) return rs_errf(err, "%s: cannot open: %s", path, strerror(errno));
    unsigned char b[16] = {0};
    size_t n = fread(b, 1, sizeof b, fp);
    fclose(fp);
    if (n == 16 && memcmp(b, "SQLite format 3", 16) == 0) {
        *f = RS_IMPORT_NSYS;
        return 0;
    }
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        *f = RS_IMPORT_KINETO;
        return 0;
    }
    size_t i = 0;
    while (i < n && isspace(b[i])) i++;
    if (i < n && b[i] == '{') {
        *f = RS_IMPORT_KINETO;
        return 0;
    }
    if (n == 0) return rs_errf(err, "%s: empty file (expected a Kineto JSON trace or an Nsight Systems SQLite export)", path);
    return rs_errf(err, "%s: not a Kineto JSON trace (plain or gzip) nor an Nsight Systems SQLite export "
                        "(.nsys-rep reports: convert with nsys export --type sqlite)", path);
}

/* ------------------------------------------------------------------------------------------------
 * Step assignment
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    rs_pass_t pass;   /* forward or backward */
    int n_steps;      /* steps seen */
} inst_t;

typedef struct {
    int32_t *inst;    /* [nk] instance of each kernel, -1 = not in a ring step */
    int32_t *step;    /* [nk] step within its instance */
    inst_t *insts;    /* [n_insts] ring passes found, in order */
    int n_insts, cap_insts;
} assign_t;

static void assign_free(assign_t *a) {
    free(a->inst), free(a->step), free(a->insts);
    memset(a, 0, sizeof *a);
}

static int add_inst(assign_t *a, rs_pass_t pass, int n_steps) {
    if (a->n_insts == a->cap_insts) {
        int cap = a->cap_insts ? 2 * a->cap_insts : 8;
        inst_t *v = realloc(a->insts, (size_t)cap * sizeof *v);
        if (!v) return -1;
        a->insts = v;
        a->cap_insts = cap;
    }
    a->insts[a->n_insts] = (inst_t){pass, n_steps};
    return a->n_insts++;
}

static bool is_attn(int role) { return role == RS_KROLE_ATTN_FWD || role == RS_KROLE_ATTN_BWD; }
static rs_pass_t role_pass(int role) { return role == RS_KROLE_ATTN_BWD ? RS_PASS_BACKWARD : RS_PASS_FORWARD; }

/* Launch order: correlation id when every kernel has one, else GPU start. */
static const rs_raw_kernel_t *g_sort_k;
static int g_sort_by_order;
static int launch_cmp(const void *a, const void *b) {
    const rs_raw_kernel_t *x = &g_sort_k[*(const size_t *)a], *y = &g_sort_k[*(const size_t *)b];
    if (g_sort_by_order && x->order != y->order) return x->order < y->order ? -1 : 1;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns) return x->end_ns < y->end_ns ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static size_t *launch_order(const rs_raw_rank_t *r) {
    size_t *ord = malloc((r->nk ? r->nk : 1) * sizeof *ord);
    if (!ord) return NULL;
    int by_order = 1;
    for (size_t i = 0; i < r->nk; i++) {
        ord[i] = i;
        if (r->k[i].order < 0) by_order = 0;
    }
    g_sort_k = r->k;
    g_sort_by_order = by_order;
    if (r->nk > 1) qsort(ord, r->nk, sizeof *ord, launch_cmp);
    return ord;
}

/* Tokens of the launch order: runs of SendRecv kernels (groups) and of attention kernels of one pass. */
typedef struct {
    size_t b, e;      /* [b, e) into the launch order */
    bool attn;        /* attention run (else SendRecv group) */
    rs_pass_t pass;   /* attention runs: their pass */
} tok_t;

typedef struct {
    const rs_raw_rank_t *r;
    const size_t *ord;
    tok_t *tok;
    size_t n_tok;
    int rank, n;      /* ring rank, N */
    assign_t *a;
} order_ctx_t;

static void mark(order_ctx_t *c, size_t b, size_t e, int inst, int step) {
    for (size_t i = b; i < e; i++) {
        c->a->inst[c->ord[i]] = inst;
        c->a->step[c->ord[i]] = step;
    }
}

/* Split the forward's last attention run [b, e) into steps N-2 and N-1: step N-1 computes on the
 * block that the last SendRecv group (ending at g_end) brought, so it starts after that group ends;
 * among the kernels that do, it begins after the widest idle gap of the run. Returns the first
 * kernel of step N-1, or 0 when the run holds one kernel only. */
static size_t split_last(const order_ctx_t *c, size_t b, size_t e, int64_t g_end) {
    if (e - b < 2) return 0;
    const rs_raw_kernel_t *k = c->r->k;
    for (int pass = 0; pass < 2; pass++) {
        size_t best = 0;
        int64_t best_gap = INT64_MIN, prev_end = k[c->ord[b]].end_ns;
        for (size_t i = b + 1; i < e; i++) {
            const rs_raw_kernel_t *x = &k[c->ord[i]];
            int64_t gap = x->start_ns - prev_end;
            if ((pass == 1 || x->start_ns >= g_end) && gap > best_gap) best_gap = gap, best = i;
            if (x->end_ns > prev_end) prev_end = x->end_ns;
        }
        if (best) return best;
    }
    return 0;
}

static int64_t group_end(const order_ctx_t *c, const tok_t *t) {
    int64_t e = INT64_MIN;
    for (size_t i = t->b; i < t->e; i++) e = c->r->k[c->ord[i]].end_ns > e ? c->r->k[c->ord[i]].end_ns : e;
    return e;
}

/* One ring pass from token *t on (see docs/import.md, "Steps without ranges"). Returns 0 or -1. */
static int parse_pass(order_ctx_t *c, size_t *t, rs_pass_t pass, rs_err_t *err) {
    const char *file = c->r->file;
    int n = c->n, n_groups = pass == RS_PASS_FORWARD ? n - 1 : n + 1, n_steps = pass == RS_PASS_FORWARD ? n : n + 1;
    int inst = add_inst(c->a, pass, n_steps);
    if (inst < 0) return rs_errf(err, "out of memory");
    for (int k = 0; k < n_groups; k++) {
        tok_t *g = *t < c->n_tok ? &c->tok[*t] : NULL;
        if (!g || g->attn)
            return rs_errf(err, "%s: rank %d %s ring pass %d step %d: no SendRecv kernel (%d SendRecv groups in this pass, a ring of N = %d ranks needs %d)",
                           file, c->rank, rs_pass_name(pass), inst, k, k, n, n_groups);
        bool tail = pass == RS_PASS_BACKWARD && k == n;
        size_t ge = g->e;
        if (tail && *t + 1 < c->n_tok) { /* the group also starts the next pass: its first kernel ends this one */
            if (g->e - g->b < 2)
                return rs_errf(err, "%s: rank %d backward ring pass %d: no SendRecv kernel for the tail step %d (dK,dV home) before the next pass",
                               file, c->rank, inst, k);
            ge = g->b + 1;
        }
        mark(c, g->b, ge, inst, k);
        if (ge < g->e) {
            g->b = ge;
        } else {
            (*t)++;
        }
        if (tail) break;
        tok_t *r = *t < c->n_tok ? &c->tok[*t] : NULL;
        if (!r || !r->attn || r->pass != pass)
            return rs_errf(err, "%s: rank %d %s ring pass %d step %d: no %s attention kernel after its SendRecv kernels",
                           file, c->rank, rs_pass_name(pass), inst, k, rs_pass_name(pass));
        if (pass == RS_PASS_FORWARD && k == n - 2) {
            size_t s = split_last(c, r->b, r->e, group_end(c, &c->tok[*t - 1]));
            if (!s)
                return rs_errf(err, "%s: rank %d forward ring pass %d: no attention kernel for the last step %d (one kernel after step %d's SendRecv)",
                               file, c->rank, inst, n - 1, n - 2);
            mark(c, r->b, s, inst, k);
            mark(c, s, r->e, inst, k + 1);
        } else {
            mark(c, r->b, r->e, inst, k);
        }
        (*t)++;
    }
    return 0;
}

/* Steps from the launch order of one rank. */
static int assign_by_order(const rs_raw_rank_t *r, int rank, int n, assign_t *a, rs_err_t *err) {
    size_t *ord = launch_order(r);
    tok_t *tok = malloc((r->nk ? r->nk : 1) * sizeof *tok);
    if (!ord || !tok) {
        free(ord), free(tok);
        return rs_errf(err, "out of memory");
    }
    size_t nt = 0;
    for (size_t i = 0; i < r->nk; i++) {
        int role = r->k[ord[i]].role;
        bool at = is_attn(role);
        rs_pass_t p = role_pass(role);
        if (nt && tok[nt - 1].attn == at && (!at || tok[nt - 1].pass == p)) {
            tok[nt - 1].e = i + 1;
        } else {
            tok[nt++] = (tok_t){i, i + 1, at, p};
        }
    }
    order_ctx_t c = {r, ord, tok, nt, rank, n, a};
    int rc = 0;
    size_t t = 0;
    while (rc == 0 && t < nt) {
        size_t j = t;
        while (j < nt && !tok[j].attn) j++;
        if (j == nt) {
            rc = rs_errf(err, "%s: rank %d: %zu SendRecv kernel(s) after the last attention kernel belong to no ring pass",
                         r->file, rank, tok[t].e - tok[t].b);
            break;
        }
        if (j == t) {
            rc = rs_errf(err, "%s: rank %d: attention kernels before any SendRecv kernel (a ring pass cut by the profiling "
                              "window, or attention outside the ring: give step ranges or narrow --kernel-regex)",
                         r->file, rank);
            break;
        }
        rc = parse_pass(&c, &t, tok[j].pass, err);
    }
    free(ord), free(tok);
    return rc;
}

/* Range index containing t: the latest-starting range with start <= t <= end (ranges sorted by
 * start), or -1. */
static long range_at(const rs_raw_range_t *g, size_t n, int64_t t) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g[mid].start_ns <= t) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i-- > 0 && lo - i <= 64;)
        if (g[i].end_ns >= t) return (long)i;
    return -1;
}

static int range_cmp(const void *a, const void *b) {
    const rs_raw_range_t *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    return (x->end_ns < y->end_ns) - (x->end_ns > y->end_ns); /* outer first */
}

/* Steps from step ranges of one rank: each kernel goes to the range holding its launch (its GPU
 * start when the launch was not recorded); consecutive ranges numbered 0, 1, ... form a ring pass. */
static int assign_by_ranges(rs_raw_rank_t *r, const rs_raw_t *raw, int rank, assign_t *a, rs_err_t *err) {
    qsort(r->r, r->nr, sizeof *r->r, range_cmp);
    int32_t *inst_of = malloc(r->nr * sizeof *inst_of);
    int8_t *pass_of = malloc((size_t)r->nr + 1);
    if (!inst_of || !pass_of) {
        free(inst_of), free(pass_of);
        return rs_errf(err, "out of memory");
    }
    int rc = 0, cur = -1;
    for (size_t i = 0; i < r->nr && rc == 0; i++) {
        const rs_raw_range_t *g = &r->r[i];
        if (g->step == 0 || cur < 0) {
            if (g->step != 0) {
                rc = rs_errf(err, "%s: rank %d: step range '%s' (step %d) is the first of its ring pass; expected step 0",
                             r->file, rank, raw->names[g->name], (int)g->step);
                break;
            }
            if ((cur = add_inst(a, RS_PASS_FORWARD, 0)) < 0) rc = rs_errf(err, "out of memory");
        } else if (g->step != a->insts[cur].n_steps) {
            rc = rs_errf(err, "%s: rank %d: step range '%s' (step %d) follows step %d; expected step %d or a new pass at 0",
                         r->file, rank, raw->names[g->name], (int)g->step, a->insts[cur].n_steps - 1, a->insts[cur].n_steps);
        }
        if (rc == 0) {
            inst_of[i] = cur;
            a->insts[cur].n_steps++;
            pass_of[i] = g->pass_hint;
        }
    }
    int8_t *inst_pass = rc == 0 ? malloc((size_t)a->n_insts + 1) : NULL;
    if (rc == 0 && !inst_pass) rc = rs_errf(err, "out of memory");
    for (int i = 0; rc == 0 && i < a->n_insts; i++) inst_pass[i] = -1;
    for (size_t i = 0; rc == 0 && i < r->nr; i++)
        if (pass_of[i] >= 0) inst_pass[inst_of[i]] = pass_of[i];
    for (size_t i = 0; rc == 0 && i < r->nk; i++) {
        const rs_raw_kernel_t *k = &r->k[i];
        long g = range_at(r->r, r->nr, k->launch_ns != RS_RAW_NO_TIME ? k->launch_ns : k->start_ns);
        if (g < 0) continue; /* outside every step range: not part of the ring */
        int in = inst_of[g];
        a->inst[i] = in;
        a->step[i] = r->r[g].step;
        if (!is_attn(k->role)) continue;
        int p = role_pass(k->role);
        if (inst_pass[in] >= 0 && inst_pass[in] != p)
            rc = rs_errf(err, "%s: rank %d: step range '%s' holds %s attention kernel '%.80s' in a %s ring pass", r->file, rank,
                         raw->names[r->r[g].name], rs_pass_name((rs_pass_t)p), raw->names[k->name],
                         rs_pass_name((rs_pass_t)inst_pass[in]));
        inst_pass[in] = (int8_t)p;
    }
    for (int i = 0; rc == 0 && i < a->n_insts; i++) a->insts[i].pass = inst_pass[i] == RS_PASS_BACKWARD ? RS_PASS_BACKWARD : RS_PASS_FORWARD;
    free(inst_of), free(pass_of), free(inst_pass);
    return rc;
}

/* ------------------------------------------------------------------------------------------------
 * The import
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
    rs_trace_t *trace;
    int n_ranks, n_steps;
    size_t *kofs;                 /* [n_ranks * n_steps + 1] offsets into kernels */
    rs_import_kernel_t *kernels;  /* grouped by (rank, step), sorted by start within */
} imp_pass_t;

struct rs_import {
    rs_import_info_t info;
    char **names;                 /* kernel names (owned) */
    uint32_t n_names;
    imp_pass_t pass[RS_PASS_COUNT];
    size_t n_pass;
};

void rs_import_opts_default(rs_import_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->use_ranges = true;
    rs_problem_default(&o->problem);
}

const rs_import_info_t *rs_import_info(const rs_import_t *im) { return &im->info; }
size_t rs_import_n_traces(const rs_import_t *im) { return im->n_pass; }
const rs_trace_t *rs_import_trace(const rs_import_t *im, size_t i) { return i < im->n_pass ? im->pass[i].trace : NULL; }

size_t rs_import_kernels(const rs_import_t *im, size_t i, int32_t rank, int32_t step, const rs_import_kernel_t **out) {
    *out = NULL;
    if (i >= im->n_pass) return 0;
    const imp_pass_t *p = &im->pass[i];
    if (rank < 0 || rank >= p->n_ranks || step < 0 || step >= p->n_steps) return 0;
    size_t j = (size_t)rank * (size_t)p->n_steps + (size_t)step;
    *out = p->kernels + p->kofs[j];
    return p->kofs[j + 1] - p->kofs[j];
}

void rs_import_free(rs_import_t *im) {
    if (!im) return;
    for (size_t i = 0; i < im->n_pass; i++) {
        rs_trace_free(im->pass[i].trace);
        free(im->pass[i].kofs);
        free(im->pass[i].kernels);
    }
    for (uint32_t i = 0; i < im->n_names; i++) free(im->names[i]);
    free(im->names);
    free(im);
}

static int ikernel_cmp(const void *a, const void *b) {
    const rs_import_kernel_t *x = a, *y = b;
    if (x->start_s != y->start_s) return x->start_s < y->start_s ? -1 : 1;
    if (x->end_s != y->end_s) return x->end_s < y->end_s ? -1 : 1;
    return (x->role > y->role) - (x->role < y->role);
}

/* Ring order of the raw ranks: by global rank when every one has a distinct one, else as read. */
static int order_ranks(rs_raw_t *raw, rs_err_t *err) {
    size_t n = raw->n_ranks;
    bool all = n > 0;
    for (size_t i = 0; i < n; i++) all = all && raw->ranks[i].rank_key >= 0;
    if (!all) return 0;
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is small, order is stable */
        rs_raw_rank_t x = raw->ranks[i];
        size_t j = i;
        while (j > 0 && raw->ranks[j - 1].rank_key > x.rank_key) {
            raw->ranks[j] = raw->ranks[j - 1];
            j--;
        }
        raw->ranks[j] = x;
    }
    for (size_t i = 1; i < n; i++)
        if (raw->ranks[i].rank_key == raw->ranks[i - 1].rank_key)
            return rs_errf(err, "%s: rank %lld again (also in %s): give the files of one run, one per rank", raw->ranks[i].file,
                           (long long)raw->ranks[i].rank_key, raw->ranks[i - 1].file);
    return 0;
}

/* Events of one (rank, step) from its kernels (ks[0..nk), sorted by start), checked against the
 * schedule. prev_end_ns: where the previous step ended (a step without kernels starts there). */
static int step_events(rs_trace_t *t, const rs_schedule_t *s, const rs_raw_rank_t *rr, int rank, int step, int inst,
                       const rs_import_kernel_t *ks, size_t nk, double *prev_end_s, rs_err_t *err) {
    rs_step_t st;
    rs_schedule_step(s, rank, step, &st);
    rs_pass_t pass = st.pass;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}; /* compute, send, recv */
    for (size_t i = 0; i < nk; i++) {
        const rs_import_kernel_t *k = &ks[i];
        int lanes[2] = {-1, -1};
        if (k->role == RS_KROLE_ATTN_FWD || k->role == RS_KROLE_ATTN_BWD) lanes[0] = 0;
        if (k->role == RS_KROLE_SENDRECV || k->role == RS_KROLE_SEND) lanes[0] = 1;
        if (k->role == RS_KROLE_SENDRECV || k->role == RS_KROLE_RECV) lanes[1] = 2;
        for (int j = 0; j < 2; j++)
            if (lanes[j] >= 0) lo[lanes[j]] = fmin(lo[lanes[j]], k->start_s), hi[lanes[j]] = fmax(hi[lanes[j]], k->end_s);
    }
    const char *f = rr->file, *pn = rs_pass_name(pass);
    if (!st.has_compute && isfinite(lo[0]))
        return rs_errf(err, "%s: rank %d %s ring pass %d step %d: attention kernels in the tail step (it only brings dK,dV home)",
                       f, rank, pn, inst, step);
    if (st.n_send > 0 && !isfinite(lo[1]))
        return rs_errf(err, "%s: rank %d %s ring pass %d step %d: no SendRecv kernel (the schedule sends %s to rank %lld here)",
                       f, rank, pn, inst, step, st.send[0].kind == RS_XFER_KV ? "K,V" : "dK,dV", (long long)st.send_peer);
    if (st.n_recv > 0 && !isfinite(lo[2]))
        return rs_errf(err, "%s: rank %d %s ring pass %d step %d: no SendRecv kernel receiving (the schedule receives from rank %lld here)",
                       f, rank, pn, inst, step, (long long)st.recv_peer);
    if (st.n_send == 0 && (isfinite(lo[1]) || isfinite(lo[2])))
        return rs_errf(err, "%s: rank %d %s ring pass %d step %d: a SendRecv kernel in a step that moves nothing (the forward's last step)",
                       f, rank, pn, inst, step);
    double s0 = fmin(lo[0], fmin(lo[1], lo[2])), s1 = fmax(hi[0], fmax(hi[1], hi[2]));
    if (!isfinite(s0)) s0 = s1 = *prev_end_s; /* a step without kernels (a rank that skips a masked block) */
    int rc = 0;
    if (st.has_compute) {
        double c0 = isfinite(lo[0]) ? lo[0] : s0, c1 = isfinite(lo[0]) ? hi[0] : s0;
        rs_event_t e = {rank, step, pass, RS_EV_COMPUTE, -1, c0, c1, (double)st.flops_exec, 0};
        rc |= rs_trace_add(t, &e);
    }
    if (st.n_send > 0) {
        rs_event_t e = {rank, step, pass, RS_EV_SEND, (int32_t)st.send_peer, lo[1], hi[1], 0, (double)st.send_bytes};
        rc |= rs_trace_add(t, &e);
    }
    if (st.n_recv > 0) {
        rs_event_t e = {rank, step, pass, RS_EV_RECV, (int32_t)st.recv_peer, lo[2], hi[2], 0, (double)st.recv_bytes};
        rc |= rs_trace_add(t, &e);
    }
    rs_event_t e = {rank, step, pass, RS_EV_STEP, -1, s0, s1, 0, 0};
    rc |= rs_trace_add(t, &e);
    *prev_end_s = s1;
    return rc ? rs_errf(err, "out of memory") : 0;
}

typedef struct {
    const rs_raw_t *raw;
    const rs_import_opts_t *o;
    assign_t *as;        /* [n_ranks] */
    int n;               /* N */
    int occurrence;      /* which ring pass */
    const char *mode;    /* "ranges" | "launch-order" */
    const char *inputs;  /* for the header */
    size_t n_files;
} build_ctx_t;

/* The trace of one pass (occurrence c->occurrence on every rank). */
static int build_pass(const build_ctx_t *c, rs_pass_t pass, int n_found, imp_pass_t *out, rs_err_t *err) {
    const rs_raw_t *raw = c->raw;
    int n = c->n, n_steps = pass == RS_PASS_FORWARD ? n : n + 1;
    rs_problem_t p = c->o->problem;
    p.n_ranks = n;
    p.pass = pass;
    if (rs_problem_validate(&p, err) != 0) return -1;
    rs_schedule_t *s = rs_schedule_create(&p, err);
    if (!s) return -1;
    int *sel = calloc((size_t)n, sizeof *sel); /* instance index per rank */
    size_t nk = 0;
    int64_t origin = INT64_MAX;
    for (int r = 0; r < n && sel; r++) {
        int seen = -1;
        for (int i = 0; i < c->as[r].n_insts; i++)
            if (c->as[r].insts[i].pass == pass && ++seen == c->occurrence) sel[r] = i;
        for (size_t i = 0; i < raw->ranks[r].nk; i++)
            if (c->as[r].inst[i] == sel[r]) {
                nk++;
                origin = raw->ranks[r].k[i].start_ns < origin ? raw->ranks[r].k[i].start_ns : origin;
            }
    }
    out->n_ranks = n;
    out->n_steps = n_steps;
    out->kofs = calloc((size_t)n * (size_t)n_steps + 1, sizeof *out->kofs);
    out->kernels = malloc((nk ? nk : 1) * sizeof *out->kernels);
    out->trace = rs_trace_create("import");
    int rc = (!sel || !out->kofs || !out->kernels || !out->trace) ? rs_errf(err, "out of memory") : 0;
    /* kernels grouped by (rank, step): count, prefix sums, fill, sort */
    for (int r = 0; rc == 0 && r < n; r++)
        for (size_t i = 0; i < raw->ranks[r].nk; i++)
            if (c->as[r].inst[i] == sel[r]) out->kofs[(size_t)r * n_steps + c->as[r].step[i] + 1]++;
    for (size_t j = 0; rc == 0 && j < (size_t)n * n_steps; j++) out->kofs[j + 1] += out->kofs[j];
    size_t *fill = rc == 0 ? calloc((size_t)n * n_steps, sizeof *fill) : NULL;
    if (rc == 0 && !fill) rc = rs_errf(err, "out of memory");
    for (int r = 0; rc == 0 && r < n; r++)
        for (size_t i = 0; i < raw->ranks[r].nk; i++) {
            if (c->as[r].inst[i] != sel[r]) continue;
            const rs_raw_kernel_t *k = &raw->ranks[r].k[i];
            size_t j = (size_t)r * n_steps + c->as[r].step[i];
            out->kernels[out->kofs[j] + fill[j]++] = (rs_import_kernel_t){
                (double)(k->start_ns - origin) * 1e-9, (double)(k->end_ns - origin) * 1e-9, raw->names[k->name],
                (rs_kernel_role_t)k->role, k->device, k->stream};
        }
    free(fill);
    for (size_t j = 0; rc == 0 && j < (size_t)n * n_steps; j++)
        if (out->kofs[j + 1] - out->kofs[j] > 1)
            qsort(out->kernels + out->kofs[j], out->kofs[j + 1] - out->kofs[j], sizeof *out->kernels, ikernel_cmp);
    for (int r = 0; rc == 0 && r < n; r++) {
        double prev_end = 0;
        for (int k = 0; rc == 0 && k < n_steps; k++) {
            size_t j = (size_t)r * n_steps + k;
            rc = step_events(out->trace, s, &raw->ranks[r], r, k, c->occurrence, out->kernels + out->kofs[j],
                             out->kofs[j + 1] - out->kofs[j], &prev_end, err);
        }
    }
    if (rc == 0) {
        rs_trace_t *t = out->trace;
        rc |= rs_trace_set_meta(t, "backend", "import");
        rc |= rs_trace_meta_problem(t, &p);
        rc |= rs_trace_set_meta(t, "import.format", "%s", rs_import_format_name(c->o->format));
        rc |= rs_trace_set_meta(t, "import.files", "%zu", c->n_files);
        rc |= rs_trace_set_meta(t, "import.input", "%s", c->inputs);
        rc |= rs_trace_set_meta(t, "import.steps_from", "%s", c->mode);
        if (!strcmp(c->mode, "ranges")) rc |= rs_trace_set_meta(t, "import.step_regex", "%s", c->o->step_regex ? c->o->step_regex : RS_IMPORT_STEP_REGEX);
        if (c->o->kernel_regex) rc |= rs_trace_set_meta(t, "import.kernel_regex", "%s", c->o->kernel_regex);
        rc |= rs_trace_set_meta(t, "import.occurrence", "%d", c->occurrence);
        rc |= rs_trace_set_meta(t, "import.occurrences", "%d", n_found);
        rc |= rs_trace_set_meta(t, "import.kernels", "%zu", nk);
        rc |= rs_trace_set_meta(t, "import.origin_ns", "%lld", (long long)origin);
        if (raw->gpu_name[0]) rc |= rs_trace_set_meta(t, "import.gpu", "%s", raw->gpu_name);
        if (rc) rc = rs_errf(err, "out of memory");
        rs_trace_sort(t);
    }
    free(sel);
    rs_schedule_free(s);
    return rc;
}

/* Read every file into raw. */
static int read_all(rs_raw_t *raw, const strlist_t *files, rs_import_opts_t *o, rs_err_t *err) {
    const rs_import_format_t forced = o->format;
    for (size_t i = 0; i < files->n; i++) {
        rs_import_format_t f = RS_IMPORT_AUTO;
        if (sniff_format(files->v[i], &f, err) != 0) return -1;
        if (forced != RS_IMPORT_AUTO && f != forced)
            return rs_errf(err, "%s: is %s, not %s (--format)", files->v[i], f == RS_IMPORT_NSYS ? "an Nsight Systems SQLite export" : "JSON",
                           rs_import_format_name(forced));
        if (i > 0 && f != o->format)
            return rs_errf(err, "%s: is a %s trace but %s is %s: give traces of one tool", files->v[i], rs_import_format_name(f),
                           files->v[0], rs_import_format_name(o->format));
        o->format = f;
        if ((f == RS_IMPORT_NSYS ? rs_import_read_nsys(raw, files->v[i], err) : rs_import_read_kineto(raw, files->v[i], err)) != 0)
            return -1;
    }
    return 0;
}

/* Assign steps on every rank; check ranks agree. */
static int assign_all(rs_raw_t *raw, const rs_import_opts_t *o, assign_t *as, bool *ranges, rs_err_t *err) {
    int n = (int)raw->n_ranks;
    size_t with_ranges = 0;
    for (int r = 0; r < n; r++) with_ranges += raw->ranks[r].nr > 0;
    *ranges = o->use_ranges && with_ranges > 0;
    for (int r = 0; r < n; r++) {
        const rs_raw_rank_t *rr = &raw->ranks[r];
        if (*ranges && rr->nr == 0)
            return rs_errf(err, "%s: rank %d has no step ranges but %s has: give every rank the same ranges, or --no-ranges", rr->file, r,
                           raw->ranks[r == 0 ? 1 : 0].file);
        bool attn = false;
        for (size_t i = 0; i < rr->nk && !attn; i++) attn = is_attn(rr->k[i].role);
        if (!attn)
            return rs_errf(err, "%s: rank %d: no attention kernel (flash_fwd*/flash_bwd*, FlashAttnFwd/Bwd, cuDNN sdpa fprop/bprop, "
                                "fmha_cutlass*, attn_fwd_mma ...); name yours with --kernel-regex", rr->file, r);
        as[r].inst = malloc((rr->nk ? rr->nk : 1) * sizeof *as[r].inst);
        as[r].step = malloc((rr->nk ? rr->nk : 1) * sizeof *as[r].step);
        if (!as[r].inst || !as[r].step) return rs_errf(err, "out of memory");
        for (size_t i = 0; i < rr->nk; i++) as[r].inst[i] = -1;
        int rc = *ranges ? assign_by_ranges(&raw->ranks[r], raw, r, &as[r], err) : assign_by_order(rr, r, n, &as[r], err);
        if (rc != 0) return -1;
        for (int i = 0; i < as[r].n_insts; i++) {
            int want = as[r].insts[i].pass == RS_PASS_FORWARD ? n : n + 1;
            if (as[r].insts[i].n_steps != want)
                return rs_errf(err, "%s: rank %d %s ring pass %d has %d steps; a ring of N = %d ranks has %d%s", rr->file, r,
                               rs_pass_name(as[r].insts[i].pass), i, as[r].insts[i].n_steps, n, want,
                               as[r].insts[i].pass == RS_PASS_BACKWARD ? " (steps 0..N: the tail step N brings dK,dV home)" : "");
        }
    }
    for (int p = 0; p < RS_PASS_COUNT; p++) {
        int c0 = -1;
        for (int r = 0; r < n; r++) {
            int c = 0;
            for (int i = 0; i < as[r].n_insts; i++) c += as[r].insts[i].pass == (rs_pass_t)p;
            if (r > 0 && c != c0)
                return rs_errf(err, "%s: rank %d has %d %s ring pass(es) but rank 0 (%s) has %d: ranks with different step counts",
                               raw->ranks[r].file, r, c, rs_pass_name((rs_pass_t)p), raw->ranks[0].file, c0);
            c0 = c;
        }
    }
    return 0;
}

/* Set up raw (classifier, step pattern). */
static int raw_init(rs_raw_t *raw, const rs_import_opts_t *o, rs_kclass_t **kc, rs_err_t *err) {
    memset(raw, 0, sizeof *raw);
    if (!(*kc = rs_kclass_create(o->kernel_regex, err))) return -1;
    raw->kc = *kc;
    const char *sre = o->step_regex ? o->step_regex : RS_IMPORT_STEP_REGEX;
    int rc = regcomp(&raw->step_re, sre, REG_EXTENDED | REG_ICASE);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &raw->step_re, msg, sizeof msg);
        rs_kclass_free(*kc);
        return rs_errf(err, "--step-regex '%s': not a POSIX extended regular expression (%s)", sre, msg);
    }
    if (raw->step_re.re_nsub == 0) {
        regfree(&raw->step_re);
        rs_kclass_free(*kc);
        return rs_errf(err, "--step-regex '%s': needs a group around the step number, e.g. 'ring.*step ([0-9]+)'", sre);
    }
    return 0;
}

rs_import_t *rs_import_read(const char *const *paths, size_t n_paths, const rs_import_opts_t *opts, rs_err_t *err) {
    rs_import_opts_t o = *opts;
    if (o.occurrence < 0) {
        rs_errf(err, "--occurrence %d: expected an integer >= 0", o.occurrence);
        return NULL;
    }
    strlist_t files = {0};
    rs_raw_t raw;
    rs_kclass_t *kc = NULL;
    if (expand_paths(paths, n_paths, &files, err) != 0) {
        strlist_free(&files);
        return NULL;
    }
    if (raw_init(&raw, &o, &kc, err) != 0) {
        strlist_free(&files);
        return NULL;
    }
    rs_import_t *im = calloc(1, sizeof *im);
    assign_t *as = NULL;
    int rc = im ? 0 : rs_errf(err, "out of memory");
    if (rc == 0) rc = read_all(&raw, &files, &o, err);
    if (rc == 0) rc = order_ranks(&raw, err);
    int n = (int)raw.n_ranks;
    if (rc == 0 && n < 2)
        rc = rs_errf(err, "%s: %d process with GPU kernels; a ring needs at least 2 ranks (give every rank's trace)", files.v[0], n);
    if (rc == 0 && o.check_ranks && o.problem.n_ranks != n)
        rc = rs_errf(err, "--ranks %lld: the trace has %d ranks", (long long)o.problem.n_ranks, n);
    if (rc == 0 && !(as = calloc((size_t)n, sizeof *as))) rc = rs_errf(err, "out of memory");
    bool ranges = false;
    if (rc == 0) rc = assign_all(&raw, &o, as, &ranges, err);
    if (rc == 0) {
        im->info.format = o.format;
        im->info.n_files = files.n;
        im->info.n_ranks = n;
        im->info.ranges = ranges;
        snprintf(im->info.gpu_name, sizeof im->info.gpu_name, "%s", raw.gpu_name);
        for (int r = 0; r < n; r++) im->info.n_kernels += raw.ranks[r].nk;
        for (int p = 0; p < RS_PASS_COUNT; p++)
            for (int i = 0; i < as[0].n_insts; i++) im->info.occurrences[p] += as[0].insts[i].pass == (rs_pass_t)p;
    }
    char inputs[512];
    snprintf(inputs, sizeof inputs, "%s%s", files.v[0], files.n > 1 ? " ..." : "");
    build_ctx_t bc = {&raw, &o, as, n, o.occurrence, ranges ? "ranges" : "launch-order", inputs, files.n};
    for (int p = 0; rc == 0 && p < RS_PASS_COUNT; p++) {
        bool want = o.n_passes == 0;
        for (int i = 0; i < o.n_passes; i++) want = want || o.passes[i] == (rs_pass_t)p;
        int found = im->info.occurrences[p];
        if (!want || (found == 0 && o.n_passes == 0)) continue;
        if (found == 0)
            rc = rs_errf(err, "%s: no %s ring pass in the trace (found %d forward, %d backward)", files.v[0], rs_pass_name((rs_pass_t)p),
                         im->info.occurrences[0], im->info.occurrences[1]);
        else if (o.occurrence >= found)
            rc = rs_errf(err, "--occurrence %d: the trace has %d %s ring pass(es) (0..%d)", o.occurrence, found,
                         rs_pass_name((rs_pass_t)p), found - 1);
        else
            rc = build_pass(&bc, (rs_pass_t)p, found, &im->pass[im->n_pass++], err);
    }
    for (int r = 0; as && r < n; r++) assign_free(&as[r]);
    free(as);
    if (im) {
        im->names = raw.names;
        im->n_names = raw.n_names;
    }
    raw_free(&raw, im != NULL);
    rs_kclass_free(kc);
    strlist_free(&files);
    if (rc != 0) {
        rs_import_free(im);
        return NULL;
    }
    return im;
}

/* ------------------------------------------------------------------------------------------------
 * Kernel list CSV
 * ---------------------------------------------------------------------------------------------- */
static void csv_quoted(FILE *fp, const char *s) {
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"') fputc('"', fp);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
    }
    fputc('"', fp);
}

int rs_import_write_kernels_csv(const rs_import_t *im, size_t i, const char *path, rs_err_t *err) {
    if (i >= im->n_pass) return rs_errf(err, "%s: no trace %zu to write", path, i);
    const imp_pass_t *p = &im->pass[i];
    rs_file_t f;
    if (rs_file_open(&f, path, err) != 0) return -1;
    const char *pass = rs_trace_get_meta(p->trace, "pass");
    fprintf(f.fp, "rank,step,pass,role,device,stream,start_s,end_s,name\n");
    for (int r = 0; r < p->n_ranks; r++)
        for (int k = 0; k < p->n_steps; k++) {
            const rs_import_kernel_t *ks;
            size_t n = rs_import_kernels(im, i, r, k, &ks);
            for (size_t j = 0; j < n; j++) {
                fprintf(f.fp, "%d,%d,%s,%s,%lld,%lld,%.17g,%.17g,", r, k, pass ? pass : "?", rs_kernel_role_name(ks[j].role),
                        (long long)ks[j].device, (long long)ks[j].stream, ks[j].start_s, ks[j].end_s);
                csv_quoted(f.fp, ks[j].name);
                fputc('\n', f.fp);
            }
        }
    return rs_file_commit(&f, err);
}
