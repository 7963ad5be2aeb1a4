/* test_import_steps.c - step assignment (traces/import_steps.c) on raw ranks written by hand: by
 * launch order (correlation ids, or GPU start when a rank has none; the forward's last attention run
 * split at its widest gap after the last SendRecv; the backward's tail step; the compute streams'
 * other kernels to the step launched last, after the forward's last attention only the unbroken run
 * of merges and casts) and by step ranges (the range holding each launch; kernels outside every range,
 * or off the compute streams, left out; an attention launch between two steps of a pass refused);
 * each refusal with its exact message; and the same refusals from fixture files through the import. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "import_check.h"
#include "import_steps.h"
#include "test_main.h"
#include "traces_check.h"

#define FA "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)"
#define FB "void flash_bwd_dq_dk_dv_loop_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8>>(Flash_bwd_params)"
#define SR "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"
#define ME "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int)"
#define CA "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>(int)"
#define GE "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas"

typedef struct {
    const char *name;
    int64_t start_ns, end_ns, launch_ns, order;
} kspec_t;

/* A raw rank of file holding ks[0..n) (in that file order). */
static void add_rank(rs_raw_t *raw, const char *file, const kspec_t *ks, size_t n) {
    rs_raw_rank_t *r = rs_raw_add_rank(raw, file);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (size_t i = 0; i < n; i++) {
        uint32_t id = rs_raw_intern(raw, ks[i].name, strlen(ks[i].name));
        CU_ASSERT_FATAL(rs_raw_role(raw, id) >= 0);
        rs_raw_kernel_t k = {ks[i].start_ns, ks[i].end_ns, ks[i].launch_ns, ks[i].order, 0, 7, {0, 0, 0}, id, RS_RAW_NONE, (uint8_t)rs_raw_role(raw, id)};
        CU_ASSERT_EQUAL_FATAL(rs_raw_add_kernel(r, &k), 0);
    }
}

/* A step range [start_ns, end_ns] named name on the rank added last. */
static void add_range(rs_raw_t *raw, const char *name, int64_t start_ns, int64_t end_ns) {
    rs_raw_range_t g = {start_ns, end_ns, rs_raw_intern(raw, name, strlen(name)), 0, 0, RS_RANGE_STEP};
    CU_ASSERT_FATAL(rs_raw_step_range(raw, name, &g.step, &g.pass_hint) == 1);
    CU_ASSERT_EQUAL_FATAL(rs_raw_add_range(&raw->ranks[raw->n_ranks - 1], &g), 0);
}

/* Assign the steps of raw (at most 8 ranks): 0 or -1 with err. The ranks' steps go to keep[] (the
 * caller frees them) when keep is given and it succeeds, else they are freed. */
static int assign(rs_raw_t *raw, bool use_ranges, bool *ranges, rs_err_t *err, rs_steps_t *keep) {
    rs_steps_t as[8];
    memset(as, 0, sizeof as);
    rs_err_clear(err);
    int rc = rs_import_assign_steps(raw, use_ranges, as, ranges, err);
    for (size_t r = 0; r < raw->n_ranks; r++) {
        if (keep && rc == 0) keep[r] = as[r];
        else rs_steps_free(&as[r]);
    }
    return rc;
}

/* One forward and one backward ring pass of N = 2 in launch order (correlation ids 1..8):
 *   forward:  SendRecv (step 0), attention (step 0), attention after an idle gap (step 1)
 *   backward: SendRecv, attention (step 0), SendRecv, attention (step 1), SendRecv (the tail step 2) */
static const kspec_t RING2[8] = {
    {SR, 0, 10, RS_RAW_NO_TIME, 1},   {FA, 5, 20, RS_RAW_NO_TIME, 2},   {FA, 30, 40, RS_RAW_NO_TIME, 3},
    {SR, 50, 60, RS_RAW_NO_TIME, 4},  {FB, 55, 70, RS_RAW_NO_TIME, 5},  {SR, 71, 80, RS_RAW_NO_TIME, 6},
    {FB, 75, 90, RS_RAW_NO_TIME, 7},  {SR, 91, 95, RS_RAW_NO_TIME, 8},
};
static const int32_t RING2_INST[8] = {0, 0, 0, 1, 1, 1, 1, 1}, RING2_STEP[8] = {0, 0, 1, 0, 0, 1, 1, 2};

RS_TEST(test_by_launch_order, "by launch order: correlation ids, GPU start, the last step's split") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    add_rank(&raw, "r0", RING2, 8);
    /* rank 1: the same kernels in the reverse file order, no correlation ids: GPU start decides */
    kspec_t rev[8];
    for (int i = 0; i < 8; i++) rev[i] = RING2[7 - i], rev[i].order = -1;
    add_rank(&raw, "r1", rev, 8);
    rs_steps_t as[2];
    bool ranges = true;
    CU_ASSERT_EQUAL_FATAL(assign(&raw, true, &ranges, &err, as), 0);
    CU_ASSERT(!ranges); /* no rank has ranges */
    for (int r = 0; r < 2; r++) {
        CU_ASSERT_EQUAL_FATAL(as[r].n_insts, 2);
        CU_ASSERT(as[r].insts[0].pass == RS_PASS_FORWARD && as[r].insts[0].n_steps == 2);
        CU_ASSERT(as[r].insts[1].pass == RS_PASS_BACKWARD && as[r].insts[1].n_steps == 3);
        for (int i = 0; i < 8; i++) {
            int j = r == 0 ? i : 7 - i; /* rank 1's kernel j is RING2[7 - j] */
            CU_ASSERT_EQUAL(as[r].inst[j], RING2_INST[i]);
            CU_ASSERT_EQUAL(as[r].step[j], RING2_STEP[i]);
        }
        rs_steps_free(&as[r]);
    }
    CU_ASSERT_PTR_NULL(as[0].inst);
    rs_raw_free(&raw);

    /* the forward's last run: among the kernels starting after the last SendRecv ends (10), the
     * widest gap opens step N-1 - here before the third kernel (gap 8), not the second (gap 3) */
    const kspec_t split[4] = {{SR, 0, 10, RS_RAW_NO_TIME, 1}, {FA, 2, 12, RS_RAW_NO_TIME, 2}, {FA, 15, 20, RS_RAW_NO_TIME, 3},
                              {FA, 28, 35, RS_RAW_NO_TIME, 4}};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    add_rank(&raw, "r0", split, 4);
    add_rank(&raw, "r1", split, 4);
    CU_ASSERT_EQUAL_FATAL(assign(&raw, false, &ranges, &err, as), 0);
    CU_ASSERT(as[0].step[1] == 0 && as[0].step[2] == 0 && as[0].step[3] == 1);
    rs_steps_free(&as[0]), rs_steps_free(&as[1]);
    rs_raw_free(&raw);
}

RS_TEST(test_by_ranges, "by step ranges") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    /* launches at 1, 2 (range 0: [0, 25]) and 30 (range 1: [26, 45]); one kernel launched at 100, in
     * no range; one without a recorded launch, placed by its GPU start 27 */
    const kspec_t k[5] = {{SR, 5, 15, 1, 1}, {FA, 10, 20, 2, 2}, {FA, 31, 40, 30, 3}, {SR, 101, 110, 100, 4},
                          {SR, 27, 29, RS_RAW_NO_TIME, 5}};
    for (int r = 0; r < 2; r++) {
        add_rank(&raw, r ? "r1" : "r0", k, 5);
        add_range(&raw, "ring_step 1", 26, 45); /* out of order: sorted by start */
        add_range(&raw, "ring_step 0", 0, 25);
    }
    rs_steps_t as[2];
    bool ranges = false;
    CU_ASSERT_EQUAL_FATAL(assign(&raw, true, &ranges, &err, as), 0);
    CU_ASSERT(ranges);
    static const int32_t inst[5] = {0, 0, 0, -1, 0}, step[5] = {0, 0, 1, -1, 1};
    for (int r = 0; r < 2; r++) {
        CU_ASSERT_EQUAL_FATAL(as[r].n_insts, 1);
        CU_ASSERT(as[r].insts[0].pass == RS_PASS_FORWARD && as[r].insts[0].n_steps == 2);
        for (int i = 0; i < 5; i++) {
            CU_ASSERT_EQUAL(as[r].inst[i], inst[i]);
            if (inst[i] >= 0) CU_ASSERT_EQUAL(as[r].step[i], step[i]);
        }
        rs_steps_free(&as[r]);
    }
    CU_ASSERT_EQUAL(raw.ranks[0].r[0].step, 0); /* the ranges sorted */
    /* --no-ranges: the launch order instead (4 and 5 are SendRecv kernels after the last attention) */
    CU_ASSERT_EQUAL(assign(&raw, false, &ranges, &err, NULL), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "r0: rank 0: 2 point-to-point kernel(s) after the last attention kernel belong to no ring pass");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_raw_free(&raw);
}

/* A kernel with its stream. */
typedef struct {
    kspec_t k;
    int64_t stream;
} sspec_t;

/* Two ranks of ks[0..n) with their streams (and, ranges, the step ranges 0 and 1 at [0, 49] and [50, 99]). */
static void two_ranks_streams(rs_raw_t *raw, const sspec_t *ks, size_t n, bool ranges) {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(raw, NULL, NULL, &err), 0);
    for (int r = 0; r < 2; r++) {
        rs_raw_rank_t *rr = rs_raw_add_rank(raw, r ? "r1" : "r0");
        CU_ASSERT_PTR_NOT_NULL_FATAL(rr);
        for (size_t i = 0; i < n; i++) {
            uint32_t id = rs_raw_intern(raw, ks[i].k.name, strlen(ks[i].k.name));
            rs_raw_kernel_t k = {ks[i].k.start_ns, ks[i].k.end_ns, ks[i].k.launch_ns, ks[i].k.order, 0, ks[i].stream, {0, 0, 0}, id, RS_RAW_NONE,
                                 (uint8_t)rs_raw_role(raw, id)};
            CU_ASSERT_EQUAL_FATAL(rs_raw_add_kernel(&raw->ranks[raw->n_ranks - 1], &k), 0);
        }
        if (ranges) add_range(raw, "ring_step 0", 0, 49), add_range(raw, "ring_step 1", 50, 99);
    }
}

/* A raw store of two ranks, each holding ks (and the ranges of names at [10 i, 10 i + 9]). */
static void two_ranks(rs_raw_t *raw, const kspec_t *ks, size_t n, const char *const *ranges, size_t n_ranges, bool ranges_on_1) {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(raw, NULL, NULL, &err), 0);
    for (int r = 0; r < 2; r++) {
        add_rank(raw, r ? "r1.json" : "r0.json", ks, n);
        for (size_t i = 0; i < n_ranges && (r == 0 || ranges_on_1); i++) add_range(raw, ranges[i], 10 * (int64_t)i, 10 * (int64_t)i + 9);
    }
}

static void expect_refusal(rs_raw_t *raw, bool use_ranges, const char *msg) {
    rs_err_t err = {0};
    bool ranges;
    CU_ASSERT_EQUAL(assign(raw, use_ranges, &ranges, &err, NULL), -1);
    if (strcmp(err.msg, msg)) fprintf(stderr, "  got  '%s'\n  want '%s'\n", err.msg, msg);
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_raw_free(raw);
}

RS_TEST(test_compute_kernels, "the compute streams' other kernels: by launch order and by ranges") {
    /* a forward pass of N = 2 on stream 7 (NCCL on 21): step 0's attention and two merges, step 1's
     * attention, its merge and the epilogue's cast, then a GEMM and a merge of the rest of the layer,
     * and an elementwise kernel on stream 99 (no attention there) inside step 0 */
    const sspec_t ks[10] = {
        {{SR, 0, 10, 1, 1}, 21},   {{FA, 2, 12, 2, 2}, 7},    {{ME, 13, 14, 3, 3}, 7},   {{ME, 15, 16, 4, 4}, 7},
        {{ME, 13, 15, 5, 5}, 99},  {{FA, 30, 40, 51, 6}, 7},  {{ME, 41, 42, 52, 7}, 7},  {{CA, 43, 44, 53, 8}, 7},
        {{GE, 50, 60, 120, 9}, 7}, {{ME, 61, 62, 121, 10}, 7},
    };
    static const int32_t step[10] = {0, 0, 0, 0, -1, 1, 1, 1, -1, -1};
    rs_raw_t raw;
    rs_err_t err = {0};
    bool ranges = true;
    rs_steps_t as[2];
    two_ranks_streams(&raw, ks, 10, false);
    CU_ASSERT_EQUAL_FATAL(assign(&raw, true, &ranges, &err, as), 0);
    CU_ASSERT(!ranges);
    for (int i = 0; i < 10; i++) CU_ASSERT(step[i] < 0 ? as[0].inst[i] == -1 : as[0].inst[i] == 0 && as[0].step[i] == step[i]);
    rs_steps_free(&as[0]), rs_steps_free(&as[1]);
    rs_raw_free(&raw);
    /* by ranges: what is launched inside a range on the compute stream, whatever its role (the GEMM
     * at 120 and the merge at 121 are outside every range, the kernel of stream 99 off the stream) */
    two_ranks_streams(&raw, ks, 10, true);
    CU_ASSERT_EQUAL_FATAL(assign(&raw, true, &ranges, &err, as), 0);
    CU_ASSERT(ranges);
    for (int i = 0; i < 10; i++) CU_ASSERT(step[i] < 0 ? as[0].inst[i] == -1 : as[0].inst[i] == 0 && as[0].step[i] == step[i]);
    rs_steps_free(&as[0]), rs_steps_free(&as[1]);
    rs_raw_free(&raw);
    /* an attention kernel launched between the two ranges of one pass (range 0 ends at 45, range 1
     * starts at 50, the launch at 49): refused */
    sspec_t out[10];
    memcpy(out, ks, sizeof out);
    out[5].k.launch_ns = 49;
    two_ranks_streams(&raw, out, 10, true);
    raw.ranks[0].r[0].end_ns = 45;
    expect_refusal(&raw, true, "r0: rank 0: attention kernel 'void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, ' "
                               "launched at 0.049 us outside every step range, between 'ring_step 0' and 'ring_step 1' of one ring pass: its step "
                               "is unknown (put every launch of a step inside its range)");
}

RS_TEST(test_refusals, "refusals: exact messages") {
    rs_raw_t raw;
    /* by launch order */
    const kspec_t attn_first[3] = {{FA, 0, 5, RS_RAW_NO_TIME, 1}, {SR, 6, 9, RS_RAW_NO_TIME, 2}, {FA, 10, 15, RS_RAW_NO_TIME, 3}};
    two_ranks(&raw, attn_first, 3, NULL, 0, false);
    expect_refusal(&raw, false, "r0.json: rank 0: attention kernels before any point-to-point kernel of the ring (a ring pass cut by the "
                                "profiling window, or attention outside the ring: give step ranges, --profiler-step or --window)");
    const kspec_t one_attn[2] = {{SR, 0, 5, RS_RAW_NO_TIME, 1}, {FA, 6, 9, RS_RAW_NO_TIME, 2}};
    two_ranks(&raw, one_attn, 2, NULL, 0, false);
    expect_refusal(&raw, false, "r0.json: rank 0 forward ring pass 0: no attention kernel for the last step 1 (one kernel after step 0's SendRecv)");
    const kspec_t no_attn[1] = {{SR, 0, 5, RS_RAW_NO_TIME, 1}};
    two_ranks(&raw, no_attn, 1, NULL, 0, false);
    expect_refusal(&raw, false, "r0.json: rank 0: no attention kernel among its 1 kernel(s), the most frequent 1 x "
                                "'ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<' (FlashAttention 2/3/4, cuDNN, fmha_cutlass, CK / aiter, "
                                "Triton, flashinfer, ringsim's names are known); name yours with --role-regex attn=RE");
    /* a backward pass of N = 2 needs 3 SendRecv groups */
    const kspec_t short_bwd[5] = {{SR, 0, 5, RS_RAW_NO_TIME, 1}, {FB, 6, 9, RS_RAW_NO_TIME, 2}, {SR, 10, 12, RS_RAW_NO_TIME, 3},
                                  {FB, 13, 15, RS_RAW_NO_TIME, 4}, {FA, 16, 18, RS_RAW_NO_TIME, 5}};
    two_ranks(&raw, short_bwd, 5, NULL, 0, false);
    expect_refusal(&raw, false, "r0.json: rank 0 backward ring pass 0 step 2: no SendRecv kernel (2 SendRecv groups in this pass, a ring of N = 2 ranks needs 3)");
    /* ranks with different numbers of passes */
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &(rs_err_t){0}), 0);
    kspec_t twice[6];
    for (int i = 0; i < 6; i++) twice[i] = RING2[i % 3], twice[i].order = i + 1, twice[i].start_ns += 100 * (i / 3), twice[i].end_ns += 100 * (i / 3);
    add_rank(&raw, "r0.json", twice, 6);
    add_rank(&raw, "r1.json", RING2, 3);
    expect_refusal(&raw, false, "r1.json: rank 1 has 1 forward ring pass(es) but rank 0 (r0.json) has 2: ranks with different step counts");

    /* by ranges */
    const kspec_t k[3] = {{SR, 1, 5, 1, 1}, {FA, 2, 8, 2, 2}, {FA, 11, 15, 11, 3}};
    const char *from1[2] = {"ring_step 1", "ring_step 2"};
    two_ranks(&raw, k, 3, from1, 2, true);
    expect_refusal(&raw, true, "r0.json: rank 0: step range 'ring_step 1' (step 1) is the first of its ring pass; expected step 0");
    const char *gap[2] = {"ring_step 0", "ring_step 2"};
    two_ranks(&raw, k, 3, gap, 2, true);
    expect_refusal(&raw, true, "r0.json: rank 0: step range 'ring_step 2' (step 2) follows step 0; expected step 1 or a new pass at 0");
    const char *ok[2] = {"ring_step 0", "ring_step 1"};
    two_ranks(&raw, k, 3, ok, 2, false);
    expect_refusal(&raw, true, "r1.json: rank 1 has no step ranges but r0.json has: give every rank the same ranges, or --no-ranges");
    const char *bwd[2] = {"ring_attn.bwd.step_0", "ring_attn.bwd.step_1"};
    two_ranks(&raw, k, 3, bwd, 2, true);
    expect_refusal(&raw, true, "r0.json: rank 0: step range 'ring_attn.bwd.step_0' holds forward attention kernel "
                               "'void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params' in a backward "
                               "ring pass"); /* the name cut at 80 characters */
    const char *three[3] = {"ring_step 0", "ring_step 1", "ring_step 2"};
    two_ranks(&raw, k, 3, three, 3, true);
    expect_refusal(&raw, true, "r0.json: rank 0 forward ring pass 0 has 3 steps; a ring of N = 2 ranks has 2");
}

static void tw_no_attention(fx_opts_t *o) { o->no_attention = true; }
static void tw_drop_comm(fx_opts_t *o) { o->drop_comm_rank = 2, o->drop_comm_step = 1; }
static void tw_short(fx_opts_t *o) { o->short_rank = 1; }

/* The fixture's files with a fault: no attention kernel, a step without SendRecv (found by the launch
 * order), a rank one step short (with and without ranges). */
RS_TEST(test_fixture_refusals, "refusals of faulty fixture files") {
    it_bad_kineto("bad_noattn", tw_no_attention, true, "rank0.pt.trace.json: rank 0: no attention kernel");
    it_bad_kineto("bad_drop_o", tw_drop_comm, false, "rank2.pt.trace.json: rank 2 forward ring pass 0 step");
    it_bad_kineto("bad_short_r", tw_short, true, "rank1.pt.trace.json: rank 1 forward ring pass 0 has 3 steps; a ring of N = 4 ranks has 4");
    it_bad_kineto("bad_short_o", tw_short, false, "rank1.pt.trace.json: rank 1");
}

RS_TEST_PROGRAM_IN("import_steps")
