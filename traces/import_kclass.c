/* import_kclass.c - kernel name classes of the import (import.h, "Kernel names"): which kernels of a
 * GPU trace are attention (forward or backward) and which are NCCL transfers (SendRecv, Send, Recv),
 * by their demangled names; the names of the roles. */
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
            rs_errc(err, RS_ERR_BAD_INPUT, "--kernel-regex '%s': not a POSIX extended regular expression (%s)", extra_regex, msg);
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

int rs_kclass_pass_hint(const rs_kclass_t *c, const char *name) {
    if (regexec(&c->bwd_word, name, 0, NULL, 0) == 0) return RS_PASS_BACKWARD;
    if (regexec(&c->fwd_word, name, 0, NULL, 0) == 0) return RS_PASS_FORWARD;
    return -1;
}
