/* memory.c - transformer presets and the per-device memory model (formulas: docs/memory.md). */
#include "memory.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "jsonpos.h"
#include "schedule.h"

/* ===================================================================================================
 * Names
 * ================================================================================================= */
static const char *const ffn_names[RS_FFN_COUNT] = {"swiglu", "gelu"};
static const char *const prec_names[RS_PREC_COUNT] = {"mixed", "fp32"};
static const char *const ckpt_names[RS_CKPT_COUNT] = {"none", "selective", "full"};

const char *rs_ffn_kind_name(rs_ffn_kind_t k) { return (unsigned)k < RS_FFN_COUNT ? ffn_names[k] : "?"; }
const char *rs_precision_name(rs_precision_t p) { return (unsigned)p < RS_PREC_COUNT ? prec_names[p] : "?"; }
const char *rs_ckpt_name(rs_ckpt_t c) { return (unsigned)c < RS_CKPT_COUNT ? ckpt_names[c] : "?"; }

static int parse_name(const char *s, const char *const *names, int n) {
    for (int i = 0; s && i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}
int rs_ffn_kind_parse(const char *s, rs_ffn_kind_t *out) {
    int i = parse_name(s, ffn_names, RS_FFN_COUNT);
    if (i < 0) return -1;
    *out = (rs_ffn_kind_t)i;
    return 0;
}
int rs_precision_parse(const char *s, rs_precision_t *out) {
    int i = parse_name(s, prec_names, RS_PREC_COUNT);
    if (i < 0) return -1;
    *out = (rs_precision_t)i;
    return 0;
}
int rs_ckpt_parse(const char *s, rs_ckpt_t *out) {
    int i = parse_name(s, ckpt_names, RS_CKPT_COUNT);
    if (i < 0) return -1;
    *out = (rs_ckpt_t)i;
    return 0;
}

/* ===================================================================================================
 * Transformer descriptions
 * ================================================================================================= */
typedef struct {
    const char *key;   /* member of "transformer" */
    int64_t min, max;  /* accepted range */
    size_t offset;     /* into rs_transformer_t (int64_t field) */
} int_key_t;

#define TKEY(k, lo, hi) {#k, lo, hi, offsetof(rs_transformer_t, k)}
static const int_key_t int_keys[] = {
    TKEY(layers, 1, 100000),  TKEY(hidden, 1, 1 << 20),  TKEY(q_heads, 1, 1 << 16),
    TKEY(kv_heads, 1, 1 << 16), TKEY(head_dim, 1, 1 << 14), TKEY(ffn, 1, 1 << 22),
    TKEY(vocab, 1, 1 << 24),
};
#define N_INT_KEYS ((int)(sizeof int_keys / sizeof int_keys[0]))

/* Message "origin:line:col: path: ..." using the scanned positions (position omitted if unknown). */
static int pos_errf(rs_err_t *err, const char *origin, const rs_jsonpos_t *pos, const char *path,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int pos_errf(rs_err_t *err, const char *origin, const rs_jsonpos_t *pos, const char *path,
                    const char *fmt, ...) {
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int line = 0, col = 0;
    if (rs_jsonpos_find(pos, path, &line, &col) == 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%d:%d: %s: %s", origin, line, col, path, what);
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s: %s", origin, path, what);
}

int rs_transformer_validate(const rs_transformer_t *t, rs_err_t *err) {
    for (int i = 0; i < N_INT_KEYS; i++) {
        int64_t v = *(const int64_t *)((const char *)t + int_keys[i].offset);
        if (v < int_keys[i].min || v > int_keys[i].max)
            return rs_errc(err, RS_ERR_BAD_INPUT, "transformer.%s: %lld out of range [%lld, %lld]", int_keys[i].key,
                           (long long)v, (long long)int_keys[i].min, (long long)int_keys[i].max);
    }
    if (t->q_heads % t->kv_heads)
        return rs_errc(err, RS_ERR_BAD_INPUT, "transformer.kv_heads: %lld must divide q_heads = %lld", (long long)t->kv_heads,
                       (long long)t->q_heads);
    if ((unsigned)t->ffn_kind >= RS_FFN_COUNT) return rs_errc(err, RS_ERR_BAD_INPUT, "transformer.ffn_kind: invalid");
    return 0;
}

int rs_transformer_parse(const char *text, const char *origin, rs_transformer_t *out, rs_err_t *err) {
    json_error_t jerr;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) return rs_errc(err, RS_ERR_BAD_INPUT, "%s:%d:%d: %s", origin, jerr.line, jerr.column, jerr.text);
    rs_jsonpos_t *pos = rs_jsonpos_scan(text);
    int rc = -1;
    rs_transformer_t t;
    memset(&t, 0, sizeof t);
    if (!json_is_object(root)) {
        pos_errf(err, origin, pos, "", "the top level must be an object");
        goto done;
    }
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (!strcmp(key, "transformer")) continue;
        if (!strcmp(key, "source") || !strcmp(key, "params_reference_source")) {
            if (!json_is_string(val)) {
                pos_errf(err, origin, pos, key, "must be a string");
                goto done;
            }
            if (!strcmp(key, "source")) snprintf(t.source, sizeof t.source, "%s", json_string_value(val));
            continue;
        }
        if (!strcmp(key, "params_reference")) {
            if (!json_is_number(val) || json_number_value(val) <= 0) {
                pos_errf(err, origin, pos, key, "must be a number > 0");
                goto done;
            }
            t.params_reference = json_number_value(val);
            continue;
        }
        pos_errf(err, origin, pos, key,
                 "unknown key (accepted: transformer, source, params_reference, params_reference_source)");
        goto done;
    }
    json_t *tr = json_object_get(root, "transformer");
    if (!tr) {
        pos_errf(err, origin, pos, "", "missing key \"transformer\" (a model description object)");
        goto done;
    }
    if (!json_is_object(tr)) {
        pos_errf(err, origin, pos, "transformer", "must be an object");
        goto done;
    }
    bool seen[N_INT_KEYS] = {false};
    bool have_name = false;
    char path[256];
    json_object_foreach(tr, key, val) {
        snprintf(path, sizeof path, "transformer.%s", key);
        int k = -1;
        for (int i = 0; i < N_INT_KEYS; i++)
            if (!strcmp(key, int_keys[i].key)) k = i;
        if (k >= 0) {
            if (!json_is_integer(val)) {
                pos_errf(err, origin, pos, path, "must be an integer in [%lld, %lld]",
                         (long long)int_keys[k].min, (long long)int_keys[k].max);
                goto done;
            }
            json_int_t v = json_integer_value(val);
            if (v < int_keys[k].min || v > int_keys[k].max) {
                pos_errf(err, origin, pos, path, "%lld out of range [%lld, %lld]", (long long)v,
                         (long long)int_keys[k].min, (long long)int_keys[k].max);
                goto done;
            }
            *(int64_t *)((char *)&t + int_keys[k].offset) = (int64_t)v;
            seen[k] = true;
        } else if (!strcmp(key, "name")) {
            const char *s = json_string_value(val);
            if (!s || !*s || strlen(s) >= RS_NAME_LEN) {
                pos_errf(err, origin, pos, path, "must be a non-empty string of at most %d characters",
                         RS_NAME_LEN - 1);
                goto done;
            }
            snprintf(t.name, sizeof t.name, "%s", s);
            have_name = true;
        } else if (!strcmp(key, "ffn_kind")) {
            if (rs_ffn_kind_parse(json_string_value(val), &t.ffn_kind)) {
                pos_errf(err, origin, pos, path, "must be \"swiglu\" or \"gelu\"");
                goto done;
            }
        } else if (!strcmp(key, "tied_embeddings")) {
            if (!json_is_boolean(val)) {
                pos_errf(err, origin, pos, path, "must be true or false");
                goto done;
            }
            t.tied_embeddings = json_is_true(val);
        } else {
            pos_errf(err, origin, pos, path,
                     "unknown key (accepted: name, layers, hidden, q_heads, kv_heads, head_dim, ffn, "
                     "ffn_kind, vocab, tied_embeddings)");
            goto done;
        }
    }
    if (!have_name) {
        pos_errf(err, origin, pos, "transformer", "missing key \"name\"");
        goto done;
    }
    for (int i = 0; i < N_INT_KEYS; i++)
        if (!seen[i]) {
            pos_errf(err, origin, pos, "transformer", "missing key \"%s\"", int_keys[i].key);
            goto done;
        }
    if (t.q_heads % t.kv_heads) {
        pos_errf(err, origin, pos, "transformer.kv_heads", "%lld must divide q_heads = %lld",
                 (long long)t.kv_heads, (long long)t.q_heads);
        goto done;
    }
    *out = t;
    rc = 0;
done:
    rs_jsonpos_free(pos);
    json_decref(root);
    return rc;
}

/* true iff text is a JSON object with a top-level "transformer" key. */
static bool is_model_text(const char *text) {
    json_t *root = json_loads(text, 0, NULL);
    bool yes = root && json_is_object(root) && json_object_get(root, "transformer");
    json_decref(root);
    return yes;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

const char *const *rs_transformer_preset_names(void) {
    static const char *names[256];
    static bool done = false;
    if (!done) {
        int n = 0;
        for (const rs_embedded_file_t *f = rs_presets(); f->name && n < 255; f++)
            if (is_model_text(f->text)) names[n++] = f->name;
        qsort(names, (size_t)n, sizeof names[0], cmp_str);
        names[n] = NULL;
        done = true;
    }
    return names;
}

int rs_transformer_load(const char *name_or_path, rs_transformer_t *out, rs_err_t *err) {
    size_t n = strlen(name_or_path);
    bool is_path = strchr(name_or_path, '/') || (n > 5 && !strcmp(name_or_path + n - 5, ".json"));
    if (!is_path) {
        for (const rs_embedded_file_t *f = rs_presets(); f->name; f++)
            if (!strcmp(f->name, name_or_path)) {
                if (!is_model_text(f->text))
                    return rs_errc(err, RS_ERR_BAD_INPUT, "--model %s: a hardware preset, not a model (models: ringsim memory --list)",
                                   name_or_path);
                char origin[128];
                snprintf(origin, sizeof origin, "preset %s", f->name);
                return rs_transformer_parse(f->text, origin, out, err);
            }
        char list[700] = "";
        for (const char *const *p = rs_transformer_preset_names(); *p; p++) {
            strncat(list, " ", sizeof list - strlen(list) - 1);
            strncat(list, *p, sizeof list - strlen(list) - 1);
        }
        return rs_errc(err, RS_ERR_BAD_INPUT, "--model %s: no such preset (presets:%s; or give a path to a .json file)",
                       name_or_path, list);
    }
    char *text = rs_read_text_file(name_or_path, (size_t)64 << 20, "model description", err);
    if (!text) return -1;
    int rc = rs_transformer_parse(text, name_or_path, out, err);
    free(text);
    return rc;
}

/* ===================================================================================================
 * Parameter counts
 * ================================================================================================= */
uint64_t rs_transformer_layer_matmul_params(const rs_transformer_t *t) {
    uint64_t h = (uint64_t)t->hidden, q = (uint64_t)(t->q_heads * t->head_dim),
             k = (uint64_t)(t->kv_heads * t->head_dim), f = (uint64_t)t->ffn;
    uint64_t attn = h * q + 2 * h * k + q * h;                     /* Wq, Wk, Wv, Wo */
    uint64_t ffn = (t->ffn_kind == RS_FFN_SWIGLU ? 3 : 2) * h * f; /* gate, up, down | fc1, fc2 */
    return attn + ffn;
}

uint64_t rs_transformer_layer_params(const rs_transformer_t *t) {
    return rs_transformer_layer_matmul_params(t) + 2 * (uint64_t)t->hidden; /* + 2 norm vectors */
}

uint64_t rs_transformer_params(const rs_transformer_t *t) {
    uint64_t emb = (uint64_t)t->vocab * (uint64_t)t->hidden;
    return (uint64_t)t->layers * rs_transformer_layer_params(t) + emb * (t->tied_embeddings ? 1 : 2) +
           (uint64_t)t->hidden;
}

/* ===================================================================================================
 * Memory terms (docs/memory.md)
 * ================================================================================================= */
void rs_mem_config_default(rs_mem_config_t *c) {
    rs_problem_t p; /* the one default problem: S, N, batch */
    rs_problem_default(&p);
    memset(c, 0, sizeof *c);
    c->seq_tokens = p.seq_tokens, c->sp_degree = p.n_ranks, c->ulysses_degree = 1, c->batch = p.batch;
    c->shard_devices = p.n_ranks, c->precision = RS_PREC_MIXED, c->ckpt = RS_CKPT_FULL, c->chunk_tokens = 2048;
}

int64_t rs_precision_act_bytes(rs_precision_t p) { return p == RS_PREC_FP32 ? 4 : 2; }
int64_t rs_precision_grad_bytes(rs_precision_t p) { (void)p; return 4; }

double rs_memory_ring_fwd_per_token(const rs_transformer_t *t, int64_t act_bytes, bool has_ring) {
    double q = (double)(t->q_heads * t->head_dim), k = (double)(t->kv_heads * t->head_dim);
    return (2 * q + (has_ring ? 4 : 2) * k) * (double)act_bytes; /* Q, O; own K, V; incoming K, V */
}

double rs_memory_ring_bwd_per_token(const rs_transformer_t *t, int64_t act_bytes, int64_t grad_bytes,
                                    bool has_ring) {
    double q = (double)(t->q_heads * t->head_dim), k = (double)(t->kv_heads * t->head_dim);
    double a = (double)act_bytes, g = (double)grad_bytes;
    if (!has_ring) return 3 * q * a + q * g + 2 * k * a + 2 * k * g;
    return 3 * q * a + q * g /* Q, O, dO; dQ */ + 4 * k * a /* K,V current + incoming */ +
           6 * k * g /* dK,dV accumulating, incoming, outgoing */;
}

/* FFN intermediates per token: stored (swiglu: gate, up, product = 3f; gelu: pre, post = 2f) and the
 * gradients the backward materialises at once (swiglu: d gate, d up = 2f; gelu: d pre = f). */
static double ffn_act(const rs_transformer_t *t) { return (double)t->ffn * (t->ffn_kind == RS_FFN_SWIGLU ? 3 : 2); }
static double ffn_grad(const rs_transformer_t *t) { return (double)t->ffn * (t->ffn_kind == RS_FFN_SWIGLU ? 2 : 1); }

double rs_memory_act_per_token_layer(const rs_transformer_t *t, rs_ckpt_t ckpt, int64_t act_bytes) {
    double h = (double)t->hidden, q = (double)(t->q_heads * t->head_dim),
           k = (double)(t->kv_heads * t->head_dim), a = (double)act_bytes;
    double lse = 4.0 * (double)t->q_heads; /* fp32 log-sum-exp per query head */
    switch (ckpt) {
    case RS_CKPT_NONE: /* 2 norm inputs, 2 norm outputs; Q, K, V, O; LSE; FFN intermediates */
        return 4 * h * a + (2 * q + 2 * k) * a + lse + ffn_act(t) * a;
    case RS_CKPT_SELECTIVE: /* layer input, FFN-block input; Q, K, V, O, LSE (attention not recomputed) */
        return 2 * h * a + (2 * q + 2 * k) * a + lse;
    default: /* full: the layer input only */
        return h * a;
    }
}

double rs_memory_work_per_token(const rs_transformer_t *t, rs_ckpt_t ckpt, int64_t act_bytes) {
    double h = (double)t->hidden, a = (double)act_bytes;
    switch (ckpt) {
    case RS_CKPT_NONE: return 0; /* everything of the layer is saved already */
    case RS_CKPT_SELECTIVE: return 2 * h * a; /* recomputed norm outputs */
    default: return 3 * h * a; /* recomputed attention-norm output, FFN-block input, FFN-norm output */
    }
}

int rs_memory_ring(const rs_transformer_t *t, const rs_mem_config_t *c, rs_mem_t *out, rs_err_t *err) {
    if (rs_transformer_validate(t, err)) return -1;
    if (c->seq_tokens < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: must be >= 1", (long long)c->seq_tokens);
    if (c->sp_degree < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--ranks %lld: must be >= 1", (long long)c->sp_degree);
    if (c->seq_tokens % c->sp_degree)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--seq %lld: must be divisible by the sequence-parallel degree N = %lld",
                       (long long)c->seq_tokens, (long long)c->sp_degree);
    if (c->ulysses_degree < 1 || c->sp_degree % c->ulysses_degree)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--ulysses %lld: must be >= 1 and divide the sequence-parallel degree N = %lld",
                       (long long)c->ulysses_degree, (long long)c->sp_degree);
    if (c->batch < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--batch %lld: must be >= 1", (long long)c->batch);
    if (c->shard_devices < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--shard %lld: must be >= 1", (long long)c->shard_devices);
    if (c->chunk_tokens < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--chunk %lld: must be >= 1", (long long)c->chunk_tokens);
    if ((unsigned)c->precision >= RS_PREC_COUNT || (unsigned)c->ckpt >= RS_CKPT_COUNT)
        return rs_errc(err, RS_ERR_BAD_INPUT, "memory: invalid precision or checkpointing mode");

    rs_mem_t m;
    memset(&m, 0, sizeof m);
    int64_t a = rs_precision_act_bytes(c->precision), g = rs_precision_grad_bytes(c->precision);
    bool mixed = c->precision == RS_PREC_MIXED;
    double T = (double)c->batch * (double)(c->seq_tokens / c->sp_degree);
    double D = (double)c->shard_devices;
    m.local_tokens = c->batch * (c->seq_tokens / c->sp_degree);
    m.params = (double)rs_transformer_params(t);

    /* static state, ZeRO-3 sharded */
    double w_b = mixed ? 2 : 4, g_b = mixed ? 2 : 4, o_b = mixed ? 12 : 8;
    m.weights_bytes = m.params * w_b / D;
    m.grads_bytes = m.params * g_b / D;
    m.optim_bytes = m.params * o_b / D;
    double unit = (double)rs_transformer_layer_params(t);
    double emb = (double)t->vocab * (double)t->hidden;
    if (emb > unit) unit = emb;
    m.fsdp_unit_bytes = c->shard_devices > 1 ? unit * (2 * w_b + g_b) : 0;

    /* activations */
    m.act_per_token_layer_bytes = rs_memory_act_per_token_layer(t, c->ckpt, a);
    m.act_saved_bytes = (double)t->layers * T * m.act_per_token_layer_bytes;
    m.layer_work_bytes = T * rs_memory_work_per_token(t, c->ckpt, a);

    /* the ring */
    bool has_ring = c->sp_degree / c->ulysses_degree > 1;
    m.ring_fwd_bytes = T * rs_memory_ring_fwd_per_token(t, a, has_ring);
    m.ring_bwd_bytes = T * rs_memory_ring_bwd_per_token(t, a, g, has_ring);
    m.ring_bytes = m.ring_fwd_bytes > m.ring_bwd_bytes ? m.ring_fwd_bytes : m.ring_bwd_bytes;
    if (c->ckpt != RS_CKPT_FULL) {
        double q = (double)(t->q_heads * t->head_dim), k = (double)(t->kv_heads * t->head_dim);
        m.ring_shared_bytes = T * (2 * q + 2 * k) * (double)a;
    }
    if (c->ulysses_degree > 1) {
        double q = (double)(t->q_heads * t->head_dim), k = (double)(t->kv_heads * t->head_dim);
        m.a2a_bytes = T * (q + 2 * k) * (double)a;
    }

    /* chunked FFN and loss */
    double chunk = (double)c->chunk_tokens < T ? (double)c->chunk_tokens : T;
    m.ffn_chunk_bytes = chunk * (ffn_grad(t) + (c->ckpt == RS_CKPT_NONE ? 0 : ffn_act(t))) * (double)a;
    m.logits_chunk_bytes = chunk * (double)t->vocab * 4.0 * 2.0;

    m.total_bytes = m.weights_bytes + m.grads_bytes + m.optim_bytes + m.fsdp_unit_bytes + m.act_saved_bytes +
                    m.layer_work_bytes + m.ring_bytes - m.ring_shared_bytes + m.a2a_bytes + m.ffn_chunk_bytes +
                    m.logits_chunk_bytes;
    *out = m;
    return 0;
}

/* ===================================================================================================
 * Printing
 * ================================================================================================= */
static void row(FILE *out, const char *name, double bytes, const char *note) {
    fprintf(out, "  %-26s %12.3f GiB %20.0f B   %s\n", name, bytes / 1073741824.0, bytes, note);
}

void rs_memory_print(FILE *out, const rs_transformer_t *t, const rs_mem_config_t *c, const rs_mem_t *m,
                     double device_mem_bytes) {
    fprintf(out, "# model=%s params=%.0f layers=%lld hidden=%lld q_heads=%lld kv_heads=%lld head_dim=%lld "
                 "ffn=%lld(%s) vocab=%lld\n",
            t->name, m->params, (long long)t->layers, (long long)t->hidden, (long long)t->q_heads,
            (long long)t->kv_heads, (long long)t->head_dim, (long long)t->ffn, rs_ffn_kind_name(t->ffn_kind),
            (long long)t->vocab);
    fprintf(out, "# seq=%lld N=%lld ulysses=%lld ring=%lld batch=%lld local_tokens=%lld shard=%lld precision=%s "
                 "ckpt=%s chunk=%lld\n",
            (long long)c->seq_tokens, (long long)c->sp_degree, (long long)c->ulysses_degree,
            (long long)(c->sp_degree / c->ulysses_degree), (long long)c->batch, (long long)m->local_tokens,
            (long long)c->shard_devices, rs_precision_name(c->precision), rs_ckpt_name(c->ckpt),
            (long long)c->chunk_tokens);
    fprintf(out, "# term                       GiB/device           bytes/device   formula\n");
    bool mixed = c->precision == RS_PREC_MIXED;
    row(out, "weights", m->weights_bytes, mixed ? "P*2/shard (bf16)" : "P*4/shard (fp32)");
    row(out, "gradients", m->grads_bytes, mixed ? "P*2/shard (bf16)" : "P*4/shard (fp32)");
    row(out, "optimizer", m->optim_bytes, mixed ? "P*12/shard (fp32 master, Adam m, v)" : "P*8/shard (Adam m, v)");
    row(out, "fsdp_unit", m->fsdp_unit_bytes, "max(layer, embedding) params x (2 gathered + 1 grad)");
    row(out, "activations_saved", m->act_saved_bytes, "L * T * a_saved(ckpt)");
    row(out, "layer_working_set", m->layer_work_bytes, "T * a_work(ckpt)");
    bool ring = c->sp_degree / c->ulysses_degree > 1;
    row(out, "ring_forward", m->ring_fwd_bytes,
        ring ? "T * (2q + 4k) * a: Q, O, K, V, incoming K, V" : "T * (2q + 2k) * a: Q, O, K, V (no ring)");
    row(out, "ring_backward", m->ring_bwd_bytes,
        ring ? "T * (3q*a + q*g + 4k*a + 6k*g)" : "T * (3q*a + q*g + 2k*a + 2k*g) (no ring)");
    row(out, "ring (peak of the two)", m->ring_bytes, "counted in the total");
    row(out, "ring_shared_with_saved", 0.0 - m->ring_shared_bytes, "Q, K, V, O saved anyway (none/selective)");
    row(out, "all_to_all_staging", m->a2a_bytes, "Ulysses/USP: T * (q + 2k) * a");
    row(out, "ffn_chunk", m->ffn_chunk_bytes, "min(chunk, T) x FFN intermediates (+ grads)");
    row(out, "logits_chunk", m->logits_chunk_bytes, "min(chunk, T) x vocab x fp32 x 2");
    row(out, "total", m->total_bytes, "");
    if (device_mem_bytes > 0)
        fprintf(out, "# device memory %.3f GiB: %s (%.1f%% used)\n", device_mem_bytes / 1073741824.0,
                m->total_bytes <= device_mem_bytes ? "fits" : "DOES NOT FIT",
                100.0 * m->total_bytes / device_mem_bytes);
}
