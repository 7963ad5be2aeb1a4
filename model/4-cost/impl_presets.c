/* impl_presets.c - the implementation presets (ringsim, flash-attn, te): the kernels and merges each
 * issues per ring step, their byte counts and their host side (kernel.h rs_impl_preset_t; derivation:
 * docs/model.md sections 3a and 3b). Data, with where each count comes from. */
#include "kernel.h"

/* ------------------------------------------------------------------------------------------------
 * Implementation presets. Byte counts per element: {act, f32} = act x act_bytes + f32 x 4 bytes. Each
 * preset's rows: its kind, then the forward's merges, the backward's, the pass epilogue's.
 * ---------------------------------------------------------------------------------------------- */
static const rs_impl_preset_t presets[RS_IMPL_COUNT] = {
    [RS_IMPL_RINGSIM] =
        {
            /* ringsim's executor (exec/exec.h, exec/gpu): the forward kernel reads and writes the fp32
             * (O, m, l) state itself (inside its measured rate); the backward kernel accumulates dK,dV
             * into an fp32 partial that grad_zero clears before each step (write 4 B) and grad_add adds
             * the incoming partial to after it (read 4 + 4, write 4); fwd_end writes O / l in the
             * activation dtype and the lse once per pass. */
            .impl = RS_IMPL_RINGSIM, .fused = true, .shifted_native = true,
            .step_kv = {{0, 1}, {0, 3}}, .step_launch = {1, 1},
            .epi_fwd_q = {1, 1}, .epi_fwd_rh = {0, 3}, .epi_launch = {1, 0},
            /* Host side (exec/exec_pass.c, exec/gpu): C calls into the CUDA runtime and NCCL. A step's post
             * (nccl_transport.c nt_post: cudaSetDevice, an event record, a stream wait, an event record,
             * ncclGroupStart, ncclSend, ncclRecv, ncclGroupEnd and its settle, an event record: 10), the
             * compute's two event records, and the waits (gs_wait: a stream synchronize, two elapsed
             * times; nt_wait: cudaSetDevice, the event query, two elapsed times): 16 host-only calls; the
             * backward's grad_zero and grad_add add their launches and, after grad_add, a second wait (2
             * calls more at step 0, 4 later). The loop waits on the host every step (gs_wait, nt_wait):
             * one sync, two in a later backward step. A call's host time: 2.62-2.81 us per asynchronous
             * kernel enqueue measured on CUDA 13 (ahrefs/ocannl issue 488); 2.7 us used. */
            .host = {.call_s = {2.7e-6, 2.6e-6, 2.8e-6}, .calls = {{16, 16}, {18, 20}}, .syncs = {{1, 1}, {1, 2}}},
        },
    [RS_IMPL_FLASH_ATTN] =
        {
            /* zhuzilin/ring-flash-attention on FlashAttention-2 (_flash_attn_forward/_backward): step 0
             * out = block_out.to(fp32) (read act, write 4); later steps update_out_and_lse, costed as
             * its ops run eagerly, one kernel each (the published step times match this, not a fused
             * kernel: docs/model.md section 8): block_out.to(fp32) (read act, write 4), out - block_out
             * (read 4 + 4, write 4), sigmoid(block_lse - lse) * that (read 4, write 4), out - the
             * product (read 4 + 4, write 4): act + 9 x 4 B per element; on the row-heads
             * block_lse - lse and sigmoid (5 x 4 B), lse - block_lse, logsigmoid and lse - it (8 x 4
             * B); 9 launches. A call on part of the rows (zigzag's second half, striped's shifted
             * slices) copies the slice back into out and lse (read 4, write 4); out.to(q.dtype) after
             * the loop. Backward: step 0 dq, dk, dv = buffers.to(fp32) (read act, write 4); later
             * dq += dq_buffer, dk = dk_buffer + dk, dv likewise (read act + 4, write 4); dq, dk, dv
             * .to(q.dtype) at the end. dK,dV travel in fp32. */
            .impl = RS_IMPL_FLASH_ATTN,
            .fwd_q = {{1, 1}, {1, 9}}, .fwd_rh = {{0, 0}, {0, 13}}, .fwd_launch = {1, 9},
            .fwd_part_q = {0, 2}, .fwd_part_rh = {0, 2}, .fwd_part_launch = 2,
            .bwd_q = {{1, 1}, {1, 2}}, .bwd_kv = {{1, 1}, {1, 2}}, .bwd_launch = {3, 3},
            .epi_fwd_q = {1, 1}, .epi_bwd_q = {1, 1}, .epi_bwd_kv = {1, 1}, .epi_launch = {1, 3},
            /* Host side: eager PyTorch, every op one framework call (Python, the dispatcher, the launch).
             * A forward step's ring traffic (utils.py RingComm: send_recv(k) and send_recv(v) each
             * torch.empty_like, commit = batch_isend_irecv of 4 P2POps, wait = 4 req.wait()) is 11
             * host-only calls; block_lse.transpose(1, 2).unsqueeze(-1) 2 more, and a later step's k0, v0
             * slices 2: 13 at step 0, 15 later. A backward step adds d_kv_comm's 4 ops, their group and 4
             * waits and the dk, dv, dq slices: 20 at step 0, 26 later. req.wait() on an NCCL work is a
             * stream wait, not a host sync: 0 syncs. FlashAttention-2's backward call launches 3 kernels
             * (csrc/flash_attn/src/flash_bwd_launch_template.h: dot(dO, O), dq_dk_dv, convert_dq). A
             * call's host time: 4 us per op on CUDA (pytorch/pytorch issue 82793, a dispatch-bound model)
             * to 5-20 us of CPU launch time per kernel (facebookresearch/HolisticTraceAnalysis,
             * docs cuda_kernel_launch_stats); 8 us per op submitted back to back on an A100
             * (flagos-ai/Torch-FL pull request 27, add on 512^2, the PyTorch CUDA path) used. */
            .host = {.call_s = {8e-6, 4e-6, 20e-6}, .calls = {{13, 15}, {20, 26}}, .call_extra_launches = {0, 2},
                     .epi_calls = {2, 0}},
        },
    [RS_IMPL_TE] =
        {
            /* TransformerEngine's AttnFuncWithCPAndKVP2P (context_parallel.py, non-FP8): each step's
             * output (act dtype) is kept and corrected after the loop: step 0 out = out_0 *
             * exp(lse_0 - lse) (read act, write act; the lse read twice per row-head), later steps
             * out += out_i * exp(lse_i - lse) in place (read 2 act, write act), the second half in
             * place on its view (no copy); the lse corrections (read 2 x 4, write 4 per row-head) run
             * during the loop on a side stream and are counted with the corrections here. Backward:
             * dq and the dK,dV buffers are in the act dtype: a step's first touch copies (read act,
             * write act), later ones add in place (read 2 act, write act); dK,dV travel in the act
             * dtype. */
            .impl = RS_IMPL_TE, .fwd_deferred = true, .grad_in_act = true,
            .fwd_q = {{2, 0}, {3, 0}}, .fwd_rh = {{0, 4}, {0, 5}}, .fwd_launch = {2, 2},
            .bwd_q = {{2, 0}, {3, 0}}, .bwd_kv = {{2, 0}, {3, 0}}, .bwd_launch = {3, 3},
            /* Host side: eager PyTorch as flash-attn's. A forward step (the loop of
             * AttnFuncWithCPAndKVP2P.forward): the other buffer's torch.empty_like, the P2P exchange
             * (flash_attn_p2p_communicate: a send, a receive and their group or pair), the previous
             * step's req.wait() x 2 (stream waits), the q and kv views and the k, v parts (4), the
             * correction stream's event record and wait (2), the stream switch (1): 14 host-only calls;
             * a backward step adds the dK,dV exchange and its waits: 20. No host sync. A call's host
             * time: as flash-attn's (eager PyTorch). */
            .host = {.call_s = {8e-6, 4e-6, 20e-6}, .calls = {{14, 14}, {20, 20}}, .epi_calls = {2, 2}},
        },
};

const rs_impl_preset_t *rs_impl_preset(rs_impl_t impl) {
    return impl > RS_IMPL_NONE && impl < RS_IMPL_COUNT ? &presets[impl] : NULL;
}

int64_t rs_impl_grad_bytes(rs_impl_t impl, int64_t act_bytes) {
    const rs_impl_preset_t *p = rs_impl_preset(impl);
    return !p ? 0 : p->grad_in_act ? act_bytes : 4;
}
