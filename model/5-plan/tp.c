/* tp.c - tensor parallelism inside a node (tp.h; derivation: docs/plan.md section 4a). */
#include "tp.h"

int rs_tp_check(const rs_transformer_t *t, int64_t g, int64_t tp, rs_err_t *err) {
    if (tp < 1 || (g > 0 && g % tp))
        return rs_errc(err, RS_ERR_BAD_INPUT, "--tp %lld: must divide the %lld devices of a node (a TP group stays inside one node)",
                       (long long)tp, (long long)g);
    if (t->q_heads % tp)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--tp %lld: must divide the %lld query heads of %s", (long long)tp, (long long)t->q_heads, t->name);
    if (t->kv_heads >= tp ? t->kv_heads % tp : tp % t->kv_heads)
        return rs_errc(err, RS_ERR_BAD_INPUT, "--tp %lld: must divide the %lld KV heads of %s or be a multiple of them (one KV head per device)",
                       (long long)tp, (long long)t->kv_heads, t->name);
    return 0;
}

int64_t rs_tp_q_heads(const rs_transformer_t *t, int64_t tp) { return t->q_heads / (tp > 0 ? tp : 1); }

int64_t rs_tp_kv_heads(const rs_transformer_t *t, int64_t tp) {
    return t->kv_heads >= tp ? t->kv_heads / (tp > 0 ? tp : 1) : 1;
}

rs_transformer_t rs_tp_device_attention(const rs_transformer_t *t, int64_t tp) {
    rs_transformer_t d = *t;
    d.q_heads = rs_tp_q_heads(t, tp);
    d.kv_heads = rs_tp_kv_heads(t, tp);
    return d;
}

int rs_tp_layer_gemms(const rs_transformer_t *t, int64_t tp, double nk[4][2]) {
    const double p = (double)(tp > 0 ? tp : 1), d = (double)t->head_dim, h = (double)t->hidden, f = (double)t->ffn;
    const double q = (double)rs_tp_q_heads(t, tp) * d, k = (double)rs_tp_kv_heads(t, tp) * d;
    const double up = (t->ffn_kind == RS_FFN_SWIGLU ? 2.0 : 1.0) * f / p;
    const double g[4][2] = {{q + 2 * k, h}, {h, q}, {up, h}, {h, f / p}};
    for (int i = 0; i < 4; i++) nk[i][0] = g[i][0], nk[i][1] = g[i][1];
    return 4;
}

double rs_tp_pointwise_bytes(const rs_transformer_t *t, int64_t tp, bool fp8_ffn) {
    const double p = (double)(tp > 0 ? tp : 1), e = 2.0, h = (double)t->hidden, f = (double)t->ffn / p;
    const double qk = (double)(rs_tp_q_heads(t, tp) + rs_tp_kv_heads(t, tp)) * (double)t->head_dim;
    const double act = (t->ffn_kind == RS_FFN_SWIGLU ? 3.0 : 2.0) * f * e;
    const double quant = fp8_ffn ? (e + 1.0) * (h + f) : 0.0;
    return 2.0 * 2.0 * h * e + 2.0 * 3.0 * h * e + 2.0 * qk * e + act + quant;
}

double rs_tp_allreduce_s(const rs_machine_t *m, int64_t tp, double bytes) {
    if (tp <= 1) return 0;
    return 2.0 * (double)(tp - 1) * (m->intra.latency_s + bytes / ((double)tp * m->intra.bw_bytes_per_s));
}
