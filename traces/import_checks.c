/* import_checks.c - the import's consistency checks (import_checks.h; docs/import.md section 6):
 * one run, the problem's shape against the kernels, each step's bytes and compute against the
 * schedule. */
#include "import_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_groups.h"
#include "import_kclass.h"
#include "import_value.h"

/* The kernels of all files lie within RS_V_MAX_SPAN_NS: their clocks agree (each file's is shifted
 * by its baseTimeNanoseconds or session start). 0 or -1 with err naming the two files. */
static int check_clocks(const rs_raw_t *raw, rs_err_t *err) {
    rs_vspan_t sp; /* where: the rank */
    rs_vspan_init(&sp);
    for (size_t i = 0; i < raw->n_ranks; i++)
        for (size_t j = 0; j < raw->ranks[i].nk; j++) rs_vspan_add(&sp, raw->ranks[i].k[j].start_ns, raw->ranks[i].k[j].end_ns, (int64_t)i);
    if (sp.lo_at < 0 || sp.hi_ns - sp.lo_ns <= RS_V_MAX_SPAN_NS) return 0;
    const double s = (double)(sp.hi_ns - sp.lo_ns) * 1e-9;
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: its last kernel ends %.6g s (%.3g days) after the first kernel of %s starts: the kernels of all traces "
                   "span at most %.0f s (24 h): the files' clocks disagree (baseTimeNanoseconds, the session start) or they are traces of different runs",
                   raw->ranks[sp.hi_at].file, s, s / 86400, raw->ranks[sp.lo_at].file, (double)RS_V_MAX_SPAN_NS * 1e-9);
}

int rs_import_check_run(const rs_raw_t *raw, rs_err_t *err) {
    const rs_raw_rank_t *w0 = NULL, *g0 = NULL;
    for (size_t i = 0; i < raw->n_ranks; i++) {
        const rs_raw_rank_t *r = &raw->ranks[i];
        if (r->nk == 0) {
            char seen[256];
            return rs_errc(err, RS_ERR_BAD_INPUT, "%s: %s", r->file, rs_import_kernels_seen(raw, r, seen, sizeof seen));
        }
        if (r->world_size > 0) {
            if (w0 && w0->world_size != r->world_size)
                return rs_errc(err, RS_ERR_BAD_INPUT, "%s: world size %lld, but %s: world size %lld: traces of different runs", r->file,
                               (long long)r->world_size, w0->file, (long long)w0->world_size);
            if (!w0) w0 = r;
        }
        if (r->gpu != RS_RAW_NONE) {
            if (g0 && strcmp(raw->names[g0->gpu], raw->names[r->gpu]) != 0)
                return rs_errc(err, RS_ERR_BAD_INPUT, "%s: GPU '%s', but %s: GPU '%s': traces of different runs (or of a mixed cluster, which one "
                               "profile cannot describe)", r->file, raw->names[r->gpu], g0->file, raw->names[g0->gpu]);
            if (!g0) g0 = r;
        }
    }
    return check_clocks(raw, err);
}

/* The head dimension in a FlashAttention-2 kernel's name (Flash_fwd_kernel_traits<128, ... /
 * Flash_bwd_kernel_traits<128, ...), 0 when the name has none. */
static int fa2_head_dim(const char *name) {
    const char *t = strstr(name, "Flash_fwd_kernel_traits<");
    if (!t) t = strstr(name, "Flash_bwd_kernel_traits<");
    if (!t) return 0;
    t = strchr(t, '<') + 1;
    int d = 0;
    while (*t >= '0' && *t <= '9' && d < 100000) d = 10 * d + (*t++ - '0');
    return *t == ',' ? d : 0;
}

/* A FlashAttention-2 kernel whose grid is (blocks, batch, heads): flash_fwd_kernel (not split-KV) and
 * the backward's dq_dk_dv, dot_do_o and convert_dq kernels (csrc/flash_attn/src/flash_fwd_launch_template.h,
 * flash_bwd_launch_template.h: dim3 grid(num_blocks, params.b, params.h)). */
static bool fa2_grid_heads(const char *name) {
    return (strstr(name, "flash_fwd_kernel<") && !strstr(name, "splitkv")) || strstr(name, "flash_bwd_dq_dk_dv_loop") ||
           strstr(name, "flash_bwd_dot_do_o") || strstr(name, "flash_bwd_convert_dq");
}

int rs_import_check_shapes(const rs_raw_t *raw, const rs_problem_t *p, rs_err_t *err) {
    for (size_t i = 0; i < raw->n_ranks; i++) {
        const rs_raw_rank_t *r = &raw->ranks[i];
        for (size_t j = 0; j < r->nk; j++) {
            const rs_raw_kernel_t *k = &r->k[j];
            if (!rs_krole_is_attn(k->role)) continue;
            const char *name = raw->names[k->name];
            const int d = fa2_head_dim(name);
            /* FlashAttention-2 compiles head dimensions 32, 64, 96, 128, 160, 192, 224, 256 and runs a
             * smaller one padded to the next of them */
            if (d > 0 && !(p->head_dim <= d && p->head_dim > d - 32))
                return rs_errc(err, RS_ERR_BAD_INPUT, "%s: FlashAttention-2 kernel '%.60s...' is compiled for head dimension %d (it runs %d to %d), "
                               "but --head-dim is %lld", r->file, name, d, d - 31, d, (long long)p->head_dim);
            if (fa2_grid_heads(name) && k->grid[2] > 0 && k->grid[2] != p->q_heads)
                return rs_errc(err, RS_ERR_BAD_INPUT, "%s: FlashAttention-2 kernel '%.60s...' runs on a grid of %d query heads (grid z), but "
                               "--heads is %lld", r->file, name, (int)k->grid[2], (long long)p->q_heads);
        }
    }
    return 0;
}

int rs_import_check_bytes(const rs_step_where_t *w, const rs_step_t *st, const rs_problem_t *p, int64_t sent, int64_t received, rs_err_t *err) {
    const int64_t got = sent >= 0 ? sent : received, want = (int64_t)(sent >= 0 ? st->send_bytes : st->recv_bytes);
    if (got < 0 || got == want) return 0;
    char hint[160] = "";
    /* a forward step moves K,V only: its bytes are proportional to the block, S / N tokens */
    if (w->pass == RS_PASS_FORWARD && want > 0 && (got * p->seq_tokens) % want == 0)
        snprintf(hint, sizeof hint, " (-S %lld would match)", (long long)(got * p->seq_tokens / want));
    return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: the trace's messages %s %lld bytes, the schedule %lld "
                   "(-S %lld, --batch %lld, --kv-heads %lld, --head-dim %lld, %lld-byte activations, %lld-byte gradients): check those options%s",
                   w->file, w->rank, rs_pass_name(w->pass), w->inst, w->step, sent >= 0 ? "send" : "receive", (long long)got, (long long)want,
                   (long long)p->seq_tokens, (long long)p->batch, (long long)p->kv_heads, (long long)p->head_dim, (long long)p->act_bytes,
                   (long long)p->grad_bytes, hint);
}

int rs_import_check_compute(const rs_step_where_t *w, const rs_step_t *st, const rs_problem_t *p, size_t n_attn, rs_err_t *err) {
    if (!st->has_compute) return 0;
    if (st->flops_exec == 0 && n_attn > 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: %zu attention kernel(s) where the %s%s schedule computes nothing "
                       "(a masked block): the run's layout is not %s, or it was %s (give -L and --causal/--no-causal as the run used)",
                       w->file, w->rank, rs_pass_name(w->pass), w->inst, w->step, n_attn, p->causal ? "causal " : "", rs_layout_name(p->layout),
                       rs_layout_name(p->layout), p->causal ? "not causal" : "causal");
    if (st->flops_exec > 0 && n_attn == 0)
        return rs_errc(err, RS_ERR_BAD_INPUT, "%s: rank %d %s ring pass %d step %d: no attention kernel where the %s%s schedule computes %.3g FLOPs: "
                       "the run's layout or mask differs (-L, --causal), or the step's attention was launched outside its step range",
                       w->file, w->rank, rs_pass_name(w->pass), w->inst, w->step, p->causal ? "causal " : "", rs_layout_name(p->layout),
                       (double)st->flops_exec);
    return 0;
}
