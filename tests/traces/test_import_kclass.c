/* test_import_kclass.c - the kernel name classes (traces/import_kclass.c): real kernel names of
 * flash-attn 2/3, cuDNN, TransformerEngine, PyTorch's memory-efficient attention, ringsim and NCCL
 * get their roles (and GEMMs, elementwise kernels, collectives none), an extra pattern's kernels get
 * the pass their name's words say, every kernel name of a real torch.profiler capture, the role
 * names. */
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
        {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", -1},
        {"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", -1},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16> >(int)", -1},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", -1},
        {"void custom_ring_attention_fwd_kernel<128>(AttnParams)", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = rs_kclass_role(c, cases[i].name);
        if (r != cases[i].want) fprintf(stderr, "  %s: role %d, want %d\n", cases[i].name, r, cases[i].want);
        CU_ASSERT_EQUAL(r, cases[i].want);
    }
    rs_kclass_free(c);
    c = rs_kclass_create("custom_ring_attention_", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void custom_ring_attention_fwd_kernel<128>(AttnParams)"), RS_KROLE_ATTN_FWD);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void custom_ring_attention_bwd_kernel<128>(AttnParams)"), RS_KROLE_ATTN_BWD);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void custom_ring_attention_Grad_kernel(AttnParams)"), RS_KROLE_ATTN_BWD);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "ncclDevKernel_SendRecv(x)"), RS_KROLE_SENDRECV);
    rs_kclass_free(c);
    CU_ASSERT_PTR_NULL(rs_kclass_create("flash_(fwd", &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--kernel-regex 'flash_(fwd': not a POSIX extended regular expression"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* an empty extra pattern is none */
    c = rs_kclass_create("", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(rs_kclass_role(c, "void custom_ring_attention_fwd_kernel<128>(AttnParams)"), -1);
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
    CU_ASSERT_EQUAL(rs_krole_pass(RS_KROLE_ATTN_BWD), RS_PASS_BACKWARD);
    CU_ASSERT_EQUAL(rs_krole_pass(RS_KROLE_ATTN_FWD), RS_PASS_FORWARD);
    static const char *const names[RS_KROLE_COUNT] = {"attn-fwd", "attn-bwd", "sendrecv", "send", "recv"};
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
    int count[RS_KROLE_COUNT] = {0}, other = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e) {
        if (!json_is_string(json_object_get(e, "cat")) || strcmp(json_string_value(json_object_get(e, "cat")), "kernel")) continue;
        int r = rs_kclass_role(kc, json_string_value(json_object_get(e, "name")));
        if (r >= 0) count[r]++;
        else other++;
    }
    /* flash: fwd + dot_do_o, dq_dk_dv, convert_dq; cuDNN: fprop + compute_dot_do_o, bprop, convert_dq;
     * memory-efficient: fmha_cutlassF + fmha_cutlassB */
    CU_ASSERT_EQUAL(count[RS_KROLE_ATTN_FWD], 3);
    CU_ASSERT_EQUAL(count[RS_KROLE_ATTN_BWD], 7);
    CU_ASSERT_EQUAL(other, 20); /* of its 30 kernels: fills, copies, reductions, adds */
    rs_kclass_free(kc);
    json_decref(j);
    free(text);
}

RS_TEST_PROGRAM_IN("import_kclass")
