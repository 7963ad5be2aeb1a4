/* test_import_kclass.c - the kernel name classes (traces/import_kclass.c): real kernel names of
 * FlashAttention 2/3/4, cuDNN, TransformerEngine, PyTorch's memory-efficient attention, composable
 * kernel / aiter, Triton, flashinfer, ringsim, NCCL, RCCL and MSCCL get their roles, and so do the
 * merges / corrections (ring-flash-attention's update_out_and_lse, TransformerEngine's, fused ones),
 * the casts and copies and the other kernels; an extra pattern's kernels get the pass their name's
 * words say or the role given; every kernel name of a real torch.profiler capture; the role names. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "import.h"
#include "import_check.h"
#include "import_kclass.h"
#include "test_main.h"
#include "traces_check.h"

/* A kernel or range name and what the classifier says of it (a role, a pass). */
typedef struct {
    const char *name;
    int want;
} name_case_t;

/* The default classifier (a fatal assertion when it cannot be made). */
static rs_kclass_t *default_kclass(void) {
    rs_err_t err = {0};
    rs_kclass_t *c = rs_kclass_create(NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* A classifier with the extra pattern re for role r. */
static rs_kclass_t *extra_kclass(rs_role_t r, const char *re, rs_err_t *err) {
    const char *extra[RS_ROLE_COUNT] = {NULL, NULL, NULL, NULL};
    extra[r] = re;
    return rs_kclass_create(extra, err);
}

RS_TEST(test_classify, "kernel name patterns") {
    rs_err_t err = {0};
    rs_kclass_t *c = default_kclass();
    const name_case_t cases[] = {
        {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, false, true>(Flash_fwd_params)", RS_KROLE_ATTN_FWD},
        {"void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>, true>(Flash_fwd_params)", RS_KROLE_ATTN_FWD},
        {"void flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>, 4, 1>(Flash_fwd_params)", RS_KROLE_ATTN_FWD},
        {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4> >(pytorch_flash::Flash_fwd_params)", RS_KROLE_ATTN_FWD},
        {"void flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<128, 64, 128, 8> >(Flash_bwd_params)", RS_KROLE_ATTN_BWD},
        {"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8>, false>(Flash_bwd_params)", RS_KROLE_ATTN_BWD},
        {"void flash_bwd_convert_dq_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8>, true>(Flash_bwd_params, int)", RS_KROLE_ATTN_BWD},
        {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, cute::tuple<>>>>>(flash::FlashAttnFwdSm90<>::Params)", RS_KROLE_ATTN_FWD},
        {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnBwdSm90<flash::CollectiveMainloopBwdSm90<2>>>>(flash::FlashAttnBwdSm90<>::Params)", RS_KROLE_ATTN_BWD},
        {"void flash::FlashAttnBwdPreprocess<cute::tuple<cute::C<128>>, 128, false>(flash::FlashAttnBwdPreprocess<>::Params)", RS_KROLE_ATTN_BWD},
        {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0", RS_KROLE_ATTN_FWD},
        {"cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_7_64x128x128_4x1x1_kernel0_0", RS_KROLE_ATTN_BWD},
        {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t>::Params)", RS_KROLE_ATTN_FWD},
        {"fmha_cutlassB_bf16_aligned_64x64_k128_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<>::Params)", RS_KROLE_ATTN_BWD},
        {"void transformer_engine::fused_attn::fused_attn_arbitrary_seqlen_fwd_impl(int)", RS_KROLE_ATTN_FWD},
        {"void attn_fwd_mma<__nv_bfloat16, 128>(FwdParams)", RS_KROLE_ATTN_FWD},
        {"void attn_fwd_ref<__half>(FwdParams)", RS_KROLE_ATTN_FWD},
        {"void attn_bwd_mma<__nv_bfloat16, 128, 64>(BwdParams)", RS_KROLE_ATTN_BWD},
        {"void attn_bwd_ref_dkv<__half>(BwdParams)", RS_KROLE_ATTN_BWD},
        {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", RS_KROLE_SENDRECV},
        {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", RS_KROLE_SENDRECV},
        {"void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", RS_KROLE_SENDRECV},
        {"ncclSendRecvKernel_copy_i8(ncclWorkElem)", RS_KROLE_SENDRECV},
        {"ncclDevKernel_Send(ncclDevKernelArgsStorage<4096ul>)", RS_KROLE_SEND},
        {"ncclDevKernel_Recv(ncclDevKernelArgsStorage<4096ul>)", RS_KROLE_RECV},
        /* FlashAttention-4 (flash-attention's CuTe DSL, flash_attn/cute), its backward's pre/post-processing */
        {"kernel_cutlass_kernel_flash_attncuteflash_fwd_sm100FlashAttentionForwardSm100_object_at__tensor000o11011_0", RS_KROLE_ATTN_FWD},
        {"flash::FlashAttentionForwardSm100<cutlass::bfloat16_t, 128, 128>::kernel", RS_KROLE_ATTN_FWD},
        {"kernel_cutlass_kernel_flash_attncuteflash_bwd_sm100FlashAttentionBackwardSm100_object_at__tensor0", RS_KROLE_ATTN_BWD},
        {"kernel_cutlass_kernel_flash_attncuteflash_bwd_preprocessFlashAttentionBackwardPreprocess_object_at_", RS_KROLE_ATTN_BWD},
        /* ROCm: composable_kernel (ck_tile) FMHA, the older ck kernels, aiter */
        {"void ck_tile::kentry<128, 1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<ck_tile::BlockFmhaPipelineProblem<>>>>(ck_tile::FmhaFwdKernel<>::Kargs)", RS_KROLE_ATTN_FWD},
        {"void ck_tile::kentry<256, 1, ck_tile::FmhaBwdDQDKDVKernel<ck_tile::BlockFmhaBwdDQDKDVPipelineKRKTRVR<>>>(ck_tile::FmhaBwdDQDKDVKernel<>::Kargs)", RS_KROLE_ATTN_BWD},
        {"void ck_tile::kentry<256, 1, ck_tile::FmhaBwdOGradDotOKernel<>>(ck_tile::FmhaBwdOGradDotOKernel<>::Kargs)", RS_KROLE_ATTN_BWD},
        {"void ck_tile::kentry<256, 1, ck_tile::FmhaBwdConvertQGradKernel<>>(ck_tile::FmhaBwdConvertQGradKernel<>::Kargs)", RS_KROLE_ATTN_BWD},
        {"void ck::kernel_batched_multihead_attention_forward_xdl_cshuffle_v2<ck::tensor_operation::device::DeviceGroupedMultiheadAttentionForward>(...)", RS_KROLE_ATTN_FWD},
        {"_ZN5aiter40fmha_fwd_hd128_bf16_causal_rtz_group_a32_pertokenE", RS_KROLE_ATTN_FWD},
        {"aiter::fmha_bwd_hd128_bf16_causal_a32_psskddv", RS_KROLE_ATTN_BWD},
        /* Triton: the tutorial's fused attention, flash_attn_triton */
        {"_attn_fwd", RS_KROLE_ATTN_FWD},
        {"_attn_bwd_dkdv", RS_KROLE_ATTN_BWD},
        {"_attn_bwd_preprocess", RS_KROLE_ATTN_BWD},
        {"_fwd_kernel", RS_KROLE_ATTN_FWD},
        {"_bwd_kernel", RS_KROLE_ATTN_BWD},
        /* flashinfer (forward only); its merge of partial states */
        {"void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits<>, flashinfer::BatchPrefillPagedParams<>>(...)", RS_KROLE_ATTN_FWD},
        {"void flashinfer::SinglePrefillWithKVCacheKernel<>(flashinfer::SinglePrefillParams<__nv_bfloat16>)", RS_KROLE_ATTN_FWD},
        {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<>(flashinfer::BatchDecodeParams<>)", RS_KROLE_ATTN_FWD},
        {"void flashinfer::MergeStatesKernel<8u, 16u, 8u, 4u, __nv_bfloat16, __nv_bfloat16>(__nv_bfloat16*, float*, __nv_bfloat16*, float*, unsigned int, unsigned int)", RS_KROLE_MERGE},
        /* NCCL / RCCL / MSCCL collectives: communication that is not the ring's; RCCL's Generic kernel */
        {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", RS_KROLE_XCOMM},
        {"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", RS_KROLE_XCOMM},
        {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", RS_KROLE_XCOMM},
        {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", RS_KROLE_XCOMM},
        {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>*)", RS_KROLE_SENDRECV},
        {"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>*)", RS_KROLE_SENDRECV},
        {"void mscclKernel_Sum_bf16_LL(ncclDevComm*, mscclAlgo*, mscclWork*)", RS_KROLE_XCOMM},
        /* merges and corrections: ring-flash-attention's update_out_and_lse (eager), TransformerEngine's */
        {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16> >(int)", RS_KROLE_MERGE},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}>(int)", RS_KROLE_MERGE},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::log_sigmoid_forward_kernel(at::TensorIteratorBase&)>(int)", RS_KROLE_MERGE},
        {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >>(int)", RS_KROLE_MERGE},
        {"void transformer_engine::context_parallel::fused_out_correction_kernel<__nv_bfloat16, true, (NVTE_QKV_Format)0, false, 16>(...)", RS_KROLE_MERGE},
        {"void transformer_engine::context_parallel::thd_out_correction_kernel<__nv_bfloat16, 0, 1>(...)", RS_KROLE_MERGE},
        {"void transformer_engine::context_parallel::thd_grad_correction_kernel<__nv_bfloat16, 0, 1>(...)", RS_KROLE_MERGE},
        {"void transformer_engine::context_parallel::thd_lse_kernel<false, transformer_engine::context_parallel::LseCorrectionFunctor>(...)", RS_KROLE_MERGE},
        {"fused_sub_sigmoid_mul_sub_log_sigmoid", RS_KROLE_MERGE},
        {"triton_poi_fused_exp_log1p_sigmoid_sub_0", RS_KROLE_MERGE},
        /* casts, copies, fills, memory activities */
        {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}>(int)", RS_KROLE_CAST},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int)", RS_KROLE_CAST},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(...)", RS_KROLE_CAST},
        {"Memcpy DtoD (Device -> Device)", RS_KROLE_CAST},
        {"Memset (Device)", RS_KROLE_CAST},
        {"__amd_rocclr_copyBuffer", RS_KROLE_CAST}, /* HIP's blit kernels in a rocprofv3 kernel trace */
        {"__amd_rocclr_fillBufferAligned", RS_KROLE_CAST},
        {"__amd_rocclr_copyBufferToImage", RS_KROLE_CAST},
        {"void transformer_engine::context_parallel::thd_read_half_tensor_kernel(void*, void*, int*, int, int, int, int)", RS_KROLE_CAST},
        /* the rest */
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", RS_KROLE_OTHER},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float)", RS_KROLE_OTHER},
        {"void custom_ring_attention_fwd_kernel<128>(AttnParams)", RS_KROLE_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = rs_kclass_role(c, cases[i].name);
        if (r != cases[i].want) fprintf(stderr, "  %s: role %d, want %d\n", cases[i].name, r, cases[i].want);
        CU_ASSERT_EQUAL(r, cases[i].want);
    }
    rs_kclass_free(c);
    c = extra_kclass(RS_ROLE_ATTN, "custom_ring_attention_", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void custom_ring_attention_fwd_kernel<128>(AttnParams)"), RS_KROLE_ATTN_FWD);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void custom_ring_attention_bwd_kernel<128>(AttnParams)"), RS_KROLE_ATTN_BWD);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void custom_ring_attention_Grad_kernel(AttnParams)"), RS_KROLE_ATTN_BWD);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "ncclDevKernel_SendRecv(x)"), RS_KROLE_SENDRECV);
    rs_kclass_free(c);
    /* --role-regex: an extra merge pattern wins over the built-in other (and cast) ones */
    c = extra_kclass(RS_ROLE_MERGE, "my_lse_fixup|direct_copy", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void my_lse_fixup_kernel(float*)"), RS_KROLE_MERGE);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>(int)"), RS_KROLE_MERGE);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void flash_fwd_kernel<x>(Flash_fwd_params)"), RS_KROLE_ATTN_FWD); /* attention first */
    rs_kclass_free(c);
    c = extra_kclass(RS_ROLE_OTHER, "elementwise", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int)"), RS_KROLE_OTHER);
    rs_kclass_free(c);
    c = extra_kclass(RS_ROLE_CAST, "my_pack", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "my_pack_kv"), RS_KROLE_CAST);
    rs_kclass_free(c);
    CU_ASSERT_PTR_NULL(extra_kclass(RS_ROLE_ATTN, "flash_(fwd", &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--kernel-regex / --role-regex attn='flash_(fwd': not a POSIX extended regular expression"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_PTR_NULL(extra_kclass(RS_ROLE_MERGE, "a(", &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--role-regex merge='a(': not a POSIX extended regular expression"));
    /* an empty extra pattern is none */
    c = extra_kclass(RS_ROLE_ATTN, "", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void custom_ring_attention_fwd_kernel<128>(AttnParams)"), RS_KROLE_OTHER);
    rs_kclass_free(c);
    rs_kclass_free(NULL);
}

/* The words of a name say its pass: backward before forward, any case. */
RS_TEST(test_pass_hint, "the pass a name says; roles") {
    rs_kclass_t *c = default_kclass();
    const name_case_t cases[] = {
        {"ring_attn.fwd.step_3", RS_PASS_FORWARD},       {"ring_attn.bwd.step_3", RS_PASS_BACKWARD},
        {"ringsim forward step 0", RS_PASS_FORWARD},     {"ringsim backward step 4", RS_PASS_BACKWARD},
        {"RING FPROP step 1", RS_PASS_FORWARD},          {"ring BProp step 1", RS_PASS_BACKWARD},
        {"ring grad step 2", RS_PASS_BACKWARD},          {"fwd then bwd step 2", RS_PASS_BACKWARD},
        {"ring_step 3", -1},                             {"", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int p = rs_kclass_pass_hint(c, cases[i].name);
        if (p != cases[i].want) fprintf(stderr, "  %s: pass %d, want %d\n", cases[i].name, p, cases[i].want);
        CU_ASSERT_EQUAL(p, cases[i].want);
    }
    rs_kclass_free(c);
    CU_ASSERT(rs_krole_is_attn(RS_KROLE_ATTN_FWD) && rs_krole_is_attn(RS_KROLE_ATTN_BWD));
    CU_ASSERT(!rs_krole_is_attn(RS_KROLE_SENDRECV) && !rs_krole_is_attn(RS_KROLE_SEND) && !rs_krole_is_attn(-1));
    CU_ASSERT(rs_krole_is_p2p(RS_KROLE_SENDRECV) && rs_krole_is_p2p(RS_KROLE_RECV) && !rs_krole_is_p2p(RS_KROLE_XCOMM));
    CU_ASSERT(rs_krole_is_comm(RS_KROLE_XCOMM) && rs_krole_is_comm(RS_KROLE_SEND) && !rs_krole_is_comm(RS_KROLE_MERGE));
    CU_ASSERT(rs_krole_is_compute(RS_KROLE_ATTN_BWD) && rs_krole_is_compute(RS_KROLE_OTHER) && !rs_krole_is_compute(RS_KROLE_XCOMM));
    CU_ASSERT(rs_krole_trace_role(RS_KROLE_MERGE) == RS_ROLE_MERGE && rs_krole_trace_role(RS_KROLE_CAST) == RS_ROLE_CAST &&
              rs_krole_trace_role(RS_KROLE_OTHER) == RS_ROLE_OTHER && rs_krole_trace_role(RS_KROLE_ATTN_FWD) == RS_ROLE_ATTN);
    CU_ASSERT_EQUAL(rs_krole_pass(RS_KROLE_ATTN_BWD), RS_PASS_BACKWARD);
    CU_ASSERT_EQUAL(rs_krole_pass(RS_KROLE_ATTN_FWD), RS_PASS_FORWARD);
    static const char *const names[RS_KROLE_COUNT] = {"attn-fwd", "attn-bwd", "sendrecv", "send", "recv", "merge", "cast", "other", "other-comm"};
    for (int r = 0; r < RS_KROLE_COUNT; r++) CU_ASSERT_STRING_EQUAL(rs_kernel_role_name((rs_kernel_role_t)r), names[r]);
    CU_ASSERT_STRING_EQUAL(rs_kernel_role_name(RS_KROLE_COUNT), "?");
}

/* Every kernel name of a real torch.profiler capture (torch 2.11, one H200;
 * tests/fixtures/data/torch_h200/capture.py). */
RS_TEST(test_real_torch_names, "the kernel names of a real torch.profiler capture") {
    /* every kernel name of the SDPA backends' forward + backward classifies as its pass */
    char *text = it_gunzip(IT_DATA "/torch_h200/names.pt.trace.json.gz");
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    rs_err_t err = {0};
    rs_kclass_t *kc = rs_kclass_create(NULL, &err);
    int count[RS_KROLE_COUNT] = {0};
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e) {
        if (!json_is_string(json_object_get(e, "cat")) || strcmp(json_string_value(json_object_get(e, "cat")), "kernel")) continue;
        count[rs_kclass_role(kc, json_string_value(json_object_get(e, "name")))]++;
    }
    /* flash: fwd + dot_do_o, dq_dk_dv, convert_dq; cuDNN: fprop + compute_dot_do_o, bprop, convert_dq;
     * memory-efficient: fmha_cutlassF + fmha_cutlassB */
    CU_ASSERT_EQUAL(count[RS_KROLE_ATTN_FWD], 3);
    CU_ASSERT_EQUAL(count[RS_KROLE_ATTN_BWD], 7);
    /* the other 20 of its 30 kernels: 9 adds and 3 reductions (the gradients' sums: merges), 4 fills and
     * 4 copies (casts) */
    CU_ASSERT_EQUAL(count[RS_KROLE_MERGE], 12);
    CU_ASSERT_EQUAL(count[RS_KROLE_CAST], 8);
    CU_ASSERT_EQUAL(count[RS_KROLE_OTHER], 0);
    rs_kclass_free(kc);
    json_decref(j);
    free(text);
}

RS_TEST_PROGRAM_IN("import_kclass")
