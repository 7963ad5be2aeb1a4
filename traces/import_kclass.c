/* import_kclass.c - kernel name classes of the import (import.h, "Kernel names"; docs/import.md
 * section 3): which kernels of a GPU trace are attention (forward or backward), which are NCCL /
 * RCCL / MSCCL communication (SendRecv, Send, Recv, a collective) and, of the rest, which merge or
 * correct partial results, which cast or copy, and which are other work; the names of the roles. */
#include "import_kclass.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* Attention kernels, matched anywhere in the demangled name (POSIX ERE):
 *  flash-attn 2: flash_fwd_kernel, flash_fwd_splitkv_kernel, flash_fwd_splitkv_combine_kernel,
 *    flash_bwd_dot_do_o_kernel, flash_bwd_dq_dk_dv_loop[_seqk_parallel]_kernel, flash_bwd_convert_dq_kernel
 *    (also PyTorch's copy, pytorch_flash::flash_fwd_kernel);
 *  flash-attn 3: flash::FlashAttnFwdSm90 / FlashAttnFwdSm80 / FlashAttnFwdCombine, flash::FlashAttnBwdSm90,
 *    FlashAttnBwdPreprocess, FlashAttnBwdPostprocessConvertdQ;
 *  flash-attn 4 (CuTe DSL, Blackwell and Hopper): FlashAttentionForwardSm100 / Sm90,
 *    FlashAttentionBackwardSm100 / Sm90, FlashAttentionBackwardPreprocess / Postprocess;
 *  cuDNN fused attention (PyTorch's and TransformerEngine's backend): cudnn_generated_fort_native_sdpa_*_fprop_*
 *    / *_bprop_* with the backward's cudnn::fusion::compute_dot_do_o_* and convert_dq_*; TE's fused_attn_*fwd* / *bwd*;
 *  PyTorch memory-efficient attention: fmha_cutlassF_* / fmha_cutlassB_*;
 *  ROCm: composable_kernel's ck_tile::FmhaFwdKernel / FmhaFwdSplitKVKernel / FmhaBwdDQDKDVKernel /
 *    FmhaBwdOGradDotOKernel / FmhaBwdConvertQGradKernel, the older ck kernel_batched_multihead_attention_forward /
 *    _backward, aiter's fmha_fwd_* / fmha_bwd_* (asm and ck paths);
 *  Triton: the tutorial's _attn_fwd / _attn_bwd[_dkdv|_dq|_preprocess], flash_attn_triton's _fwd_kernel /
 *    _bwd_kernel / _bwd_preprocess_do_o_dot (kernel names are the bare function names);
 *  flashinfer (forward only): SinglePrefillWithKVCacheKernel, BatchPrefillWith{Paged,Ragged}KVCacheKernel,
 *    {Single,Batch}DecodeWith{Paged}KVCacheKernel;
 *  ringsim: attn_fwd_mma, attn_fwd_ref, attn_bwd_mma, attn_bwd_ref_dq, attn_bwd_ref_dkv. */
static const char RE_ATTN_FWD[] =
    "flash_fwd|FlashAttnFwd|flash_attn_fwd|FlashAttentionForward|fmha_cutlassF|fused_attn[A-Za-z0-9_]*fwd|"
    "cudnn[A-Za-z0-9_]*(sdpa|fmha|flash)[A-Za-z0-9_]*fprop|cudnn[A-Za-z0-9_]*fprop[A-Za-z0-9_]*(sdpa|fmha|flash)|"
    "FmhaFwd|fmha_fwd|multihead_attention_forward|(^|[^A-Za-z0-9])_attn_fwd|^_fwd_kernel|"
    "(Prefill|Decode)With[A-Za-z]*KVCache|attn_fwd_mma|attn_fwd_ref";
static const char RE_ATTN_BWD[] =
    "flash_bwd|FlashAttnBwd|flash_attn_bwd|FlashAttentionBackward|fmha_cutlassB|fused_attn[A-Za-z0-9_]*bwd|"
    "cudnn[A-Za-z0-9_]*(sdpa|fmha|flash)[A-Za-z0-9_]*bprop|cudnn[A-Za-z0-9_]*bprop[A-Za-z0-9_]*(sdpa|fmha|flash)|"
    "cudnn::fusion::(compute_dot_do_o|convert_dq)|FmhaBwd|fmha_bwd|multihead_attention_backward|"
    "(^|[^A-Za-z0-9])_attn_bwd|^_bwd_kernel|^_bwd_preprocess|attn_bwd_mma|attn_bwd_ref";
/* Cast / copy / fill (after attention and communication): PyTorch's direct_copy_kernel_cuda (every
 * .to(dtype) and .copy_), copy_kernel, FillFunctor (zeros, fill_), CatArrayBatchedCopy (torch.cat),
 * Kineto's and nsys' memcpy / memset activities ("Memcpy DtoD (Device -> Device)", "Memset"), the
 * HIP runtime's blit kernels that a rocprofv3 kernel trace lists for device copies and memsets
 * (ROCm clr's rocclr/device/blitcl.cpp: __amd_rocclr_copyBuffer, __amd_rocclr_fillBufferAligned, ...),
 * TransformerEngine's cast kernels and its THD half-tensor reads (thd_read_half_tensor_kernel). */
static const char RE_CAST[] =
    "direct_copy_kernel|copy_kernel|FillFunctor|fill_kernel|CatArrayBatchedCopy|[Mm]emcpy|[Mm]emset|__amd_rocclr_(copy|fill)|"
    "transformer_engine::[A-Za-z0-9_:]*cast|cast_transpose|thd_read_half_tensor|thd_read_second_half";
/* Merge / correction of partial results: TransformerEngine's context-parallel corrections
 * (fused_out_correction_kernel, thd_out_correction_kernel, thd_grad_correction_kernel, thd_lse_kernel);
 * flashinfer's MergeState(s) kernels; ring-flash-attention's update_out_and_lse and PyTorch's
 * context-parallel merger run eagerly as PyTorch elementwise kernels (sigmoid, log_sigmoid, the
 * add/sub/mul functors: at::native::vectorized_elementwise_kernel, unrolled_elementwise_kernel,
 * elementwise_kernel, reduce_kernel) or fused (TorchScript's fused_* groups, nvFuser, Inductor's
 * triton_poi/per/red_fused_*). Inside a ring step these are the merges; elsewhere they are not ring
 * work at all (docs/import.md section 4). */
static const char RE_MERGE[] =
    "out_correction|grad_correction|lse_correction|thd_lse_kernel|MergeState|merge_state|"
    "elementwise_kernel|reduce_kernel|sigmoid|logsumexp|^fused_|CudaCodeGen::kernel|nvfuser_|"
    "triton_(poi|per|red)_fused";
/* Words that make a name (user-regex kernel, step range) backward or forward. */
static const char RE_BWD_WORD[] = "bwd|backward|bprop|grad";
static const char RE_FWD_WORD[] = "fwd|forward|fprop";

enum { RX_FWD = 0, RX_BWD, RX_CAST, RX_MERGE, RX_BWD_WORD, RX_FWD_WORD, RX_BUILTIN };

struct rs_kclass {
    regex_t rx[RX_BUILTIN];
    regex_t extra[RS_ROLE_COUNT];
    bool has_extra[RS_ROLE_COUNT];
};

const char *rs_kernel_role_name(rs_kernel_role_t r) {
    static const char *const n[RS_KROLE_COUNT] = {"attn-fwd", "attn-bwd", "sendrecv", "send", "recv",
                                                  "merge", "cast", "other", "other-comm"};
    return (r >= 0 && r < RS_KROLE_COUNT) ? n[r] : "?";
}

void rs_kclass_free(rs_kclass_t *c) {
    if (!c) return;
    for (int i = 0; i < RX_BUILTIN; i++) regfree(&c->rx[i]);
    for (int r = 0; r < RS_ROLE_COUNT; r++)
        if (c->has_extra[r]) regfree(&c->extra[r]);
    free(c);
}

rs_kclass_t *rs_kclass_create(const char *const extra[RS_ROLE_COUNT], rs_err_t *err) {
    rs_kclass_t *c = calloc(1, sizeof *c);
    if (!c) {
        rs_errf(err, "out of memory");
        return NULL;
    }
    static const char *const builtin[RX_BUILTIN] = {RE_ATTN_FWD, RE_ATTN_BWD, RE_CAST, RE_MERGE, RE_BWD_WORD, RE_FWD_WORD};
    int n_ok = 0;
    for (; n_ok < RX_BUILTIN; n_ok++)
        if (regcomp(&c->rx[n_ok], builtin[n_ok], REG_EXTENDED | REG_NOSUB | (n_ok >= RX_BWD_WORD ? REG_ICASE : 0)) != 0) break;
    if (n_ok < RX_BUILTIN) { /* the built-in patterns are constant: only OOM gets here */
        for (int i = 0; i < n_ok; i++) regfree(&c->rx[i]);
        free(c);
        rs_errf(err, "out of memory compiling the kernel name patterns");
        return NULL;
    }
    for (int r = 0; extra && r < RS_ROLE_COUNT; r++) {
        if (!extra[r] || !*extra[r]) continue;
        int rc = regcomp(&c->extra[r], extra[r], REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &c->extra[r], msg, sizeof msg);
            if (r == RS_ROLE_ATTN)
                rs_errc(err, RS_ERR_BAD_INPUT, "--kernel-regex / --role-regex attn='%s': not a POSIX extended regular expression (%s)", extra[r], msg);
            else
                rs_errc(err, RS_ERR_BAD_INPUT, "--role-regex %s='%s': not a POSIX extended regular expression (%s)", rs_role_name((rs_role_t)r),
                        extra[r], msg);
            rs_kclass_free(c);
            return NULL;
        }
        c->has_extra[r] = true;
    }
    return c;
}

/* NCCL / RCCL / MSCCL kernels: "nccl..." (after an optional "void ") whose name has "Kernel" (NCCL:
 * ncclDevKernel_SendRecv, ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t, ncclDevKernel_AllReduce_Sum_f32_RING_LL,
 * ncclSendRecvKernel_copy_i8; RCCL: the same names and ncclDevKernel_Generic[_1|_2|_4], which runs every
 * operation), and MSCCL's mscclKernel_* / MSCCL++'s mscclpp kernels. SendRecv carries both directions,
 * Send or Recv one; RCCL's Generic kernel is SendRecv until its arguments (the Kineto collective name)
 * say otherwise; a named collective (AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll)
 * and MSCCL's kernels are collectives. -1 for other names. */
static int comm_role(const char *name) {
    if (!strncmp(name, "void ", 5)) name += 5;
    if (!strncmp(name, "msccl", 5)) return RS_KROLE_XCOMM;
    if (strncmp(name, "nccl", 4) != 0 || !strstr(name, "Kernel")) return -1;
    if (strstr(name, "SendRecv")) return RS_KROLE_SENDRECV;
    static const char *const coll[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AllToAll", "Gather", "Scatter"};
    for (size_t i = 0; i < sizeof coll / sizeof coll[0]; i++)
        if (strstr(name, coll[i])) return RS_KROLE_XCOMM;
    if (strstr(name, "Send")) return RS_KROLE_SEND;
    if (strstr(name, "Recv")) return RS_KROLE_RECV;
    if (strstr(name, "Generic")) return RS_KROLE_SENDRECV;
    return RS_KROLE_XCOMM;
}

static bool match(const regex_t *re, const char *name) { return regexec(re, name, 0, NULL, 0) == 0; }

int rs_kclass_role(const rs_kclass_t *c, const char *name) {
    int r = comm_role(name);
    if (r >= 0) return r;
    if (match(&c->rx[RX_BWD], name)) return RS_KROLE_ATTN_BWD;
    if (match(&c->rx[RX_FWD], name)) return RS_KROLE_ATTN_FWD;
    if (c->has_extra[RS_ROLE_ATTN] && match(&c->extra[RS_ROLE_ATTN], name))
        return match(&c->rx[RX_BWD_WORD], name) ? RS_KROLE_ATTN_BWD : RS_KROLE_ATTN_FWD;
    static const int krole[RS_ROLE_COUNT] = {RS_KROLE_ATTN_FWD, RS_KROLE_MERGE, RS_KROLE_CAST, RS_KROLE_OTHER};
    for (int x = RS_ROLE_MERGE; x < RS_ROLE_COUNT; x++)
        if (c->has_extra[x] && match(&c->extra[x], name)) return krole[x];
    if (match(&c->rx[RX_CAST], name)) return RS_KROLE_CAST;
    if (match(&c->rx[RX_MERGE], name)) return RS_KROLE_MERGE;
    return RS_KROLE_OTHER;
}

int rs_kclass_pass_hint(const rs_kclass_t *c, const char *name) {
    if (match(&c->rx[RX_BWD_WORD], name)) return RS_PASS_BACKWARD;
    if (match(&c->rx[RX_FWD_WORD], name)) return RS_PASS_FORWARD;
    return -1;
}
