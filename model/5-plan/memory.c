/* memory.c - transformer presets and the per-device memory model (formulas: docs/memory.md). */
#include "memory.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "jsonpos.h"
#include "schedule.h"
#include "tp.h"

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
uint64_t rs_transformer_layer_ffn_params(const rs_transformer_t *t) {
    return (t->ffn_kind == RS_FFN_SWIGLU ? 3 : 2) * (uint64_t)t->hidden * (uint64_t)t->ffn; /* gate, up, down | fc1, fc2 */
}

uint64_t rs_transformer_layer_matmul_params(const rs_transformer_t *t) {
    uint64_t h = (uint64_t)t->hidden, q = (uint64_t)(t->q_heads * t->head_dim), k = (uint64_t)(t->kv_heads * t->head_dim);
    return h * q + 2 * h * k + q * h + rs_transformer_layer_ffn_params(t); /* Wq, Wk, Wv, Wo and the FFN */
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
    c->loss_chunk_tokens = 2048, c->tp_degree = 1, c->runtime = RS_RT_PYTORCH;
}

int64_t rs_precision_act_bytes(rs_precision_t p) { return p == RS_PREC_FP32 ? 4 : 2; }
int64_t rs_precision_grad_bytes(rs_precision_t p) { (void)p; return 4; }

/* One device's view of a layer under TP degree tp with sequence parallelism (Megatron-SP: the hidden-size
 * tensors of a layer are split by tokens over the TP group, the heads and FFN columns by tp), per token
 * of the sequence-parallel shard: q and k the widths of Q and of each of K, V the device holds. */
typedef struct {
    double h;          /* hidden-size activations per token: h / tp */
    double q, k;       /* Hq/tp d, Hkv' d (Hkv' = Hkv/tp, or 1 replicated) */
    double hq;         /* query heads of the device */
    double f_act, f_grad; /* FFN intermediates saved, and their gradients, per token: {3f, 2f}/tp, {2f, f}/tp */
    double vocab;      /* V / tp (vocabulary-parallel LM head) */
} dev_shape_t;

static dev_shape_t dev_shape(const rs_transformer_t *t, int64_t tp) {
    const double p = (double)(tp > 0 ? tp : 1), d = (double)t->head_dim;
    const double hkv = t->kv_heads >= tp ? (double)t->kv_heads / p : 1.0, f = (double)t->ffn;
    return (dev_shape_t){(double)t->hidden / p, (double)t->q_heads / p * d, hkv * d, (double)t->q_heads / p,
                         f * (t->ffn_kind == RS_FFN_SWIGLU ? 3 : 2) / p, f * (t->ffn_kind == RS_FFN_SWIGLU ? 2 : 1) / p,
                         (double)t->vocab / p};
}

static double ring_fwd(const dev_shape_t *s, double a, bool has_ring) {
    return (2 * s->q + (has_ring ? 4 : 2) * s->k) * a; /* Q, O; own K, V; incoming K, V */
}

static double ring_bwd(const dev_shape_t *s, double a, double g, bool has_ring) {
    if (!has_ring) return 3 * s->q * a + s->q * g + 2 * s->k * a + 2 * s->k * g;
    return 3 * s->q * a + s->q * g /* Q, O, dO; dQ */ + 4 * s->k * a /* K,V current + incoming */ +
           6 * s->k * g /* dK,dV accumulating, incoming, outgoing */;
}

static double act_saved(const dev_shape_t *s, rs_ckpt_t ckpt, double a) {
    const double lse = 4.0 * s->hq; /* fp32 log-sum-exp per query head */
    switch (ckpt) {
    case RS_CKPT_NONE: /* 2 norm inputs, 2 norm outputs; Q, K, V, O; LSE; FFN intermediates */
        return 4 * s->h * a + (2 * s->q + 2 * s->k) * a + lse + s->f_act * a;
    case RS_CKPT_SELECTIVE: /* layer input, FFN-block input; Q, K, V, O, LSE (attention not recomputed) */
        return 2 * s->h * a + (2 * s->q + 2 * s->k) * a + lse;
    default: /* full: the layer input only */
        return s->h * a;
    }
}

static double work(const dev_shape_t *s, rs_ckpt_t ckpt, double a) {
    switch (ckpt) {
    case RS_CKPT_NONE: return 0; /* everything of the layer is saved already */
    case RS_CKPT_SELECTIVE: return 2 * s->h * a; /* recomputed norm outputs */
    default: return 3 * s->h * a; /* recomputed attention-norm output, FFN-block input, FFN-norm output */
    }
}

double rs_memory_ring_fwd_per_token(const rs_transformer_t *t, int64_t act_bytes, bool has_ring) {
    const dev_shape_t s = dev_shape(t, 1);
    return ring_fwd(&s, (double)act_bytes, has_ring);
}

/* ---------------------------------------------------------------------------------------------------
 * The runtime (docs/memory.md section 3.6): what a job loses beside its tensors
 * ------------------------------------------------------------------------------------------------- */
static const char *const rt_names[RS_RT_COUNT] = {"pytorch", "jax-gpu", "jax-tpu", "none"};
const char *rs_runtime_name(rs_runtime_t r) { return rs_enum_name(rt_names, RS_RT_COUNT, (int)r); }
int rs_runtime_parse(const char *s, rs_runtime_t *out) {
    int i = parse_name(s, rt_names, RS_RT_COUNT);
    if (i < 0) return -1;
    *out = (rs_runtime_t)i;
    return 0;
}

/* The CUDA context with lazy module loading (PyTorch's default since 1.13): 287,047,680 bytes measured
 * (pytorch/pytorch pull request #86509; 666,632,192 loaded eagerly). */
#define RT_CUDA_CONTEXT_BYTES 287047680.0
/* NCCL on 8 x H100 (NVIDIA/nccl issue #1685): 1.06 GB per GPU for a communicator whose collectives ran
 * (ring and tree channels), 3.28 GB more once an all-to-all connected 32 channels to each of the 7 other
 * GPUs: 0.469 GB per all-to-all peer. */
#define RT_NCCL_COMM_BYTES 1.06e9
#define RT_NCCL_A2A_PEER_BYTES (3.28e9 / 7.0)
/* PyTorch's caching allocator: 15% fragmentation on average, up to 33%, over eight LLMs trained on
 * A100-80GB with ZeRO, recomputation and LoRA (Guo et al., GMLake, ASPLOS 2024, arXiv 2401.08156,
 * Section 6: the fragmentation GMLake removes). */
#define RT_FRAG_PYTORCH 0.15
#define RT_FRAG_PYTORCH_HIGH 0.33
/* JAX preallocates 75% of a GPU's memory and allocates only from it (JAX documentation, "GPU memory
 * allocation": XLA_PYTHON_CLIENT_MEM_FRACTION, default .75). */
#define RT_JAX_GPU_USABLE 0.75

double rs_runtime_usable(rs_runtime_t r) { return r == RS_RT_JAX_GPU ? RT_JAX_GPU_USABLE : 1.0; }

double rs_runtime_fragmentation(rs_runtime_t r, bool high) {
    return r != RS_RT_PYTORCH ? 0 : high ? RT_FRAG_PYTORCH_HIGH : RT_FRAG_PYTORCH;
}

double rs_runtime_fixed_bytes(rs_runtime_t r, int n_comms, int64_t a2a_peers) {
    if (r != RS_RT_PYTORCH && r != RS_RT_JAX_GPU) return 0;
    return RT_CUDA_CONTEXT_BYTES + n_comms * RT_NCCL_COMM_BYTES + (double)(a2a_peers > 0 ? a2a_peers : 0) * RT_NCCL_A2A_PEER_BYTES;
}

/* The runtime's terms into m (the model's terms summed in m->model_bytes): context, NCCL communicators
 * (one for FSDP's collectives when D > 1, one for the ring's send/recv when it circulates, one for TP's
 * all-reduces, all-to-all channels to the U - 1 Ulysses peers), the flash kernels' fp32 workspace of the
 * backward (PyTorch: flash-attn's dq_accum and softmax_d), fragmentation. */
static void runtime_terms(const rs_mem_config_t *c, const dev_shape_t *s, double T, rs_mem_t *m) {
    const rs_runtime_t rt = c->runtime;
    const bool gpu = rt == RS_RT_PYTORCH || rt == RS_RT_JAX_GPU;
    if (rt == RS_RT_PYTORCH) m->attn_workspace_bytes = T * (4 * s->q + 4 * s->hq);
    m->model_bytes += m->attn_workspace_bytes;
    if (gpu) {
        m->context_bytes = RT_CUDA_CONTEXT_BYTES;
        const int comms = (c->shard_devices > 1) + (c->sp_degree / c->ulysses_degree > 1) + (c->tp_degree > 1);
        m->comm_bytes = rs_runtime_fixed_bytes(rt, comms, c->ulysses_degree - 1) - RT_CUDA_CONTEXT_BYTES;
    }
    const double frag = rs_runtime_fragmentation(rt, false), frag_high = rs_runtime_fragmentation(rt, true);
    m->fragmentation_bytes = frag * m->model_bytes;
    m->total_bytes = m->model_bytes + m->fragmentation_bytes + m->context_bytes + m->comm_bytes;
    m->total_low_bytes = m->model_bytes + m->context_bytes + m->comm_bytes;
    m->total_high_bytes = m->model_bytes * (1 + frag_high) + m->context_bytes + m->comm_bytes;
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
    if (c->loss_chunk_tokens < 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--loss-chunk %lld: must be >= 1 (or none)", (long long)c->loss_chunk_tokens);
    if (c->tp_degree < 1) return rs_errc(err, RS_ERR_BAD_INPUT, "--tp %lld: must be >= 1", (long long)c->tp_degree);
    if (rs_tp_check(t, 0, c->tp_degree, err) != 0) return -1; /* the heads; no node: memory is per device */
    if ((unsigned)c->precision >= RS_PREC_COUNT || (unsigned)c->ckpt >= RS_CKPT_COUNT || (unsigned)c->runtime >= RS_RT_COUNT)
        return rs_errc(err, RS_ERR_BAD_INPUT, "memory: invalid precision, checkpointing mode or runtime");

    rs_mem_t m;
    memset(&m, 0, sizeof m);
    const double a = (double)rs_precision_act_bytes(c->precision), g = (double)rs_precision_grad_bytes(c->precision);
    const bool mixed = c->precision == RS_PREC_MIXED;
    const double T = (double)c->batch * (double)(c->seq_tokens / c->sp_degree), D = (double)c->shard_devices,
                 tp = (double)c->tp_degree;
    const dev_shape_t s = dev_shape(t, c->tp_degree);
    m.local_tokens = c->batch * (c->seq_tokens / c->sp_degree);
    m.params = (double)rs_transformer_params(t);
    /* a device's parameters: 1/tp of every matrix and of the vocabulary, the norm vectors whole */
    const double norms = (double)t->layers * 2.0 * (double)t->hidden + (double)t->hidden;
    m.params_device = (m.params - norms) / tp + norms;

    /* static state, ZeRO-3 sharded over the D devices holding the same TP shard */
    const double w_b = mixed ? 2 : 4, g_b = mixed ? 2 : 4, o_b = mixed ? 12 : 8;
    m.weights_bytes = m.params_device * w_b / D;
    m.grads_bytes = m.params_device * g_b / D;
    m.optim_bytes = m.params_device * o_b / D;
    double unit = ((double)rs_transformer_layer_matmul_params(t)) / tp + 2.0 * (double)t->hidden;
    const double emb = (double)t->vocab * (double)t->hidden / tp;
    if (emb > unit) unit = emb;
    m.fsdp_unit_bytes = c->shard_devices > 1 ? unit * (2 * w_b + g_b) : 0;

    /* activations */
    m.act_per_token_layer_bytes = act_saved(&s, c->ckpt, a);
    m.act_saved_bytes = (double)t->layers * T * m.act_per_token_layer_bytes;
    m.layer_work_bytes = T * work(&s, c->ckpt, a);

    /* the ring */
    const bool has_ring = c->sp_degree / c->ulysses_degree > 1;
    m.ring_fwd_bytes = T * ring_fwd(&s, a, has_ring);
    m.ring_bwd_bytes = T * ring_bwd(&s, a, g, has_ring);
    m.ring_bytes = m.ring_fwd_bytes > m.ring_bwd_bytes ? m.ring_fwd_bytes : m.ring_bwd_bytes;
    if (c->ckpt != RS_CKPT_FULL) m.ring_shared_bytes = T * (2 * s.q + 2 * s.k) * a;
    if (c->ulysses_degree > 1) m.a2a_bytes = T * (s.q + 2 * s.k) * a;

    /* chunked FFN and loss (loss_chunk_tokens 0: the loss over every local token at once) */
    const double chunk = (double)c->chunk_tokens < T ? (double)c->chunk_tokens : T;
    const double lchunk = c->loss_chunk_tokens == 0 || (double)c->loss_chunk_tokens > T ? T : (double)c->loss_chunk_tokens;
    m.ffn_chunk_bytes = chunk * (s.f_grad + (c->ckpt == RS_CKPT_NONE ? 0 : s.f_act)) * a;
    m.logits_chunk_bytes = lchunk * s.vocab * 4.0 * 2.0;

    m.model_bytes = m.weights_bytes + m.grads_bytes + m.optim_bytes + m.fsdp_unit_bytes + m.act_saved_bytes + m.layer_work_bytes +
                    m.ring_bytes - m.ring_shared_bytes + m.a2a_bytes + m.ffn_chunk_bytes + m.logits_chunk_bytes;
    runtime_terms(c, &s, T, &m);
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
                     double device_mem_bytes, double usable_frac) {
    fprintf(out, "# model=%s params=%.0f layers=%lld hidden=%lld q_heads=%lld kv_heads=%lld head_dim=%lld "
                 "ffn=%lld(%s) vocab=%lld\n",
            t->name, m->params, (long long)t->layers, (long long)t->hidden, (long long)t->q_heads,
            (long long)t->kv_heads, (long long)t->head_dim, (long long)t->ffn, rs_ffn_kind_name(t->ffn_kind),
            (long long)t->vocab);
    char lchunk[32];
    if (c->loss_chunk_tokens > 0) snprintf(lchunk, sizeof lchunk, "%lld", (long long)c->loss_chunk_tokens);
    else snprintf(lchunk, sizeof lchunk, "none");
    fprintf(out, "# seq=%lld N=%lld ulysses=%lld ring=%lld tp=%lld batch=%lld local_tokens=%lld shard=%lld precision=%s "
                 "ckpt=%s chunk=%lld loss_chunk=%s runtime=%s\n",
            (long long)c->seq_tokens, (long long)c->sp_degree, (long long)c->ulysses_degree,
            (long long)(c->sp_degree / c->ulysses_degree), (long long)c->tp_degree, (long long)c->batch, (long long)m->local_tokens,
            (long long)c->shard_devices, rs_precision_name(c->precision), rs_ckpt_name(c->ckpt),
            (long long)c->chunk_tokens, lchunk, rs_runtime_name(c->runtime));
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
    row(out, "logits_chunk", m->logits_chunk_bytes, "min(loss chunk, T) x vocab x fp32 x 2");
    row(out, "attention_workspace", m->attn_workspace_bytes, "pytorch: flash kernels' fp32 dQ, T * (4q + 4 Hq)");
    row(out, "tensors", m->model_bytes, "the terms above");
    row(out, "fragmentation", m->fragmentation_bytes, "pytorch: 15% of the tensors (GMLake, arXiv 2401.08156)");
    row(out, "cuda_context", m->context_bytes, "GPU runtimes: lazy loading (pytorch/pytorch#86509)");
    row(out, "nccl_buffers", m->comm_bytes, "1.06 GB a communicator, 0.47 GB an all-to-all peer (NVIDIA/nccl#1685)");
    row(out, "total", m->total_bytes, "");
    fprintf(out, "# range %.3f .. %.3f GiB (fragmentation 0 .. %.0f%%)\n", m->total_low_bytes / 1073741824.0,
            m->total_high_bytes / 1073741824.0, 100 * rs_runtime_fragmentation(c->runtime, true));
    if (device_mem_bytes > 0) {
        const double usable = usable_frac * device_mem_bytes;
        fprintf(out, "# device memory %.3f GiB, usable %.3f GiB (%.2f): %s (%.1f%% of usable; headroom %.3f GiB)\n",
                device_mem_bytes / 1073741824.0, usable / 1073741824.0, usable_frac, m->total_bytes <= usable ? "fits" : "DOES NOT FIT",
                100.0 * m->total_bytes / usable, (usable - m->total_bytes) / 1073741824.0);
    }
}
