/* test_import.c - `ringsim import` (traces/import.h): kernel name patterns; Kineto (plain, gzip) and
 * nsys fixtures made as the tools write them, with and without step ranges, several ring passes,
 * multiple streams and overlapping SendRecv kernels: every (rank, step) event recovered to the
 * nanosecond, problem header right; round trip model -> Kineto export -> import; bad input (one
 * line naming the file, exit 2, no output); the checked-in fixtures of tests/fixtures/data.
 *
 * `test_import --write-fixtures DIR` regenerates tests/fixtures/data (see tests/fixtures/data/README.md). */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "compare.h"
#include "machine.h"
#include "profile.h"
#include "import.h"
#include "import_fixtures.h"
#include "cost.h"
#include "test_main.h"
#include "harness.h"
#include "trace.h"

#define DATA RS_SOURCE_DIR "/tests/fixtures/data"

static rs_problem_t problem(void) {
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 32768;
    p.n_ranks = 4;
    return p;
}

static rs_import_opts_t opts(void) {
    rs_import_opts_t o;
    rs_import_opts_default(&o);
    o.problem = problem();
    return o;
}

static rs_import_t *import1(const char *path, const rs_import_opts_t *o, rs_err_t *err) {
    const char *paths[1] = {path};
    return rs_import_read(paths, 1, o, err);
}

/* Same events: keys, peers, FLOPs, bytes equal; times within tol_s. */
static void assert_same_events(const rs_trace_t *want, const rs_trace_t *got, double tol_s) {
    CU_ASSERT_EQUAL_FATAL(rs_trace_count(want), rs_trace_count(got));
    const rs_event_t *a = rs_trace_events(want), *b = rs_trace_events(got);
    int bad = 0;
    for (size_t i = 0; i < rs_trace_count(want); i++) {
        bool ok = a[i].rank == b[i].rank && a[i].step == b[i].step && a[i].pass == b[i].pass && a[i].kind == b[i].kind &&
                  a[i].peer == b[i].peer && a[i].flops == b[i].flops && a[i].bytes == b[i].bytes &&
                  fabs(a[i].start_s - b[i].start_s) <= tol_s && fabs(a[i].end_s - b[i].end_s) <= tol_s;
        if (!ok && bad++ < 3)
            fprintf(stderr, "  event %zu: want r%d s%d %s %s [%.12g, %.12g] got r%d s%d %s %s [%.12g, %.12g]\n", i, a[i].rank, a[i].step,
                    rs_pass_name(a[i].pass), rs_event_kind_name(a[i].kind), a[i].start_s, a[i].end_s, b[i].rank, b[i].step,
                    rs_pass_name(b[i].pass), rs_event_kind_name(b[i].kind), b[i].start_s, b[i].end_s);
        CU_ASSERT(ok);
    }
}

/* The import of run matches fx_expected for every pass it holds (occurrence layer). */
static void check_import(const fx_run_t *run, rs_import_t *im, int layer) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    int want_traces = run->o.forward + run->o.backward;
    CU_ASSERT_EQUAL_FATAL(rs_import_n_traces(im), (size_t)want_traces);
    CU_ASSERT_EQUAL(rs_import_info(im)->n_ranks, run->o.n_ranks);
    for (size_t i = 0; i < rs_import_n_traces(im); i++) {
        const rs_trace_t *t = rs_import_trace(im, i);
        rs_problem_t p, want = problem();
        rs_err_t err;
        CU_ASSERT_EQUAL_FATAL(rs_trace_problem(t, &p, &err), 0);
        rs_pass_t pass = i == 0 && run->o.forward ? RS_PASS_FORWARD : RS_PASS_BACKWARD;
        want.n_ranks = run->o.n_ranks;
        want.pass = pass;
        CU_ASSERT(memcmp(&p, &want, sizeof p) == 0); /* the problem header: given fields + inferred N and pass */
        CU_ASSERT_STRING_EQUAL(rs_trace_source(t), "import");
        rs_trace_t *exp = fx_expected(run, pass, layer, &want);
        CU_ASSERT_PTR_NOT_NULL_FATAL(exp);
        assert_same_events(exp, t, 1e-12);
        rs_trace_free(exp);
        /* kernels behind each event: attention calls and SendRecv kernels of the step */
        int n = run->o.n_ranks;
        for (int r = 0; r < n; r++)
            for (int k = 0; k < (pass == RS_PASS_FORWARD ? n : n + 1); k++) {
                const rs_import_kernel_t *ks;
                size_t nk = rs_import_kernels(im, i, r, k, &ks);
                size_t want_n = pass == RS_PASS_FORWARD ? 1 + (k < n - 1) : 3 * (k < n) + (k < n - 1) + (k >= 1);
                CU_ASSERT_EQUAL(nk, want_n);
                for (size_t j = 1; j < nk; j++) CU_ASSERT(ks[j - 1].start_s <= ks[j].start_s);
                size_t n_attn = 0;
                for (size_t j = 0; j < nk; j++) n_attn += ks[j].role <= RS_KROLE_ATTN_BWD;
                CU_ASSERT_EQUAL(n_attn, pass == RS_PASS_FORWARD ? 1 : 3 * (k < n));
            }
    }
}

/* ------------------------------------------------------------------------------------------------ */
static void test_classify(void) {
    rs_err_t err;
    rs_kclass_t *c = rs_kclass_create(NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    struct {
        const char *name;
        int role;
    } cases[] = {
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
        if (r != cases[i].role) fprintf(stderr, "  %s: role %d, want %d\n", cases[i].name, r, cases[i].role);
        CU_ASSERT_EQUAL(r, cases[i].role);
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
}

static void test_kineto_ranges(void) {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fx_run_t run;
    CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
    const char *dir = rs_test_fresh_dir("k_ranges");
    CU_ASSERT_EQUAL_FATAL(fx_write_kineto(&run, dir, false, 0), 0);
    rs_import_opts_t o = opts();
    rs_err_t err = {0};
    rs_import_t *im = import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    check_import(&run, im, 0);
    CU_ASSERT(rs_import_info(im)->ranges);
    CU_ASSERT_EQUAL(rs_import_info(im)->format, RS_IMPORT_KINETO);
    CU_ASSERT_STRING_EQUAL(rs_import_info(im)->gpu_name, "NVIDIA H100 80GB HBM3");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(rs_import_trace(im, 0), "import.steps_from"), "ranges");
    rs_import_free(im);
    /* the same files with the ranges ignored: the launch order gives the same steps */
    o.use_ranges = false;
    im = import1(dir, &o, &err);
    check_import(&run, im, 0);
    CU_ASSERT(!rs_import_info(im)->ranges);
    rs_import_free(im);
    /* one pass asked for */
    o.n_passes = 1;
    o.passes[0] = RS_PASS_BACKWARD;
    im = import1(dir, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    CU_ASSERT_EQUAL(rs_import_n_traces(im), 1);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(rs_import_trace(im, 0), "pass"), "backward");
    rs_import_free(im);
    fx_free(&run);
}

static void test_kineto_gzip_no_ranges_layers(void) {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fo.ranges = false;
    fo.n_layers = 3;
    fo.filler = 5;
    fx_run_t run;
    CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
    const char *dir = rs_test_fresh_dir("k_gz");
    CU_ASSERT_EQUAL_FATAL(fx_write_kineto(&run, dir, true, 0), 0);
    rs_err_t err = {0};
    for (int layer = 0; layer < 3; layer++) {
        rs_import_opts_t o = opts();
        o.occurrence = layer;
        rs_import_t *im = import1(dir, &o, &err);
        if (!im) fprintf(stderr, "  %s\n", err.msg);
        check_import(&run, im, layer);
        CU_ASSERT_EQUAL(rs_import_info(im)->occurrences[RS_PASS_FORWARD], 3);
        CU_ASSERT_EQUAL(rs_import_info(im)->occurrences[RS_PASS_BACKWARD], 3);
        rs_import_free(im);
    }
    /* files given one by one, in an order other than the ranks': distributedInfo.rank orders them */
    char p[4][1100];
    const char *paths[4];
    for (int r = 0; r < 4; r++) {
        snprintf(p[r], sizeof p[r], "%s/rank%d.pt.trace.json.gz", dir, 3 - r);
        paths[r] = p[r];
    }
    rs_import_opts_t o = opts();
    rs_import_t *im = rs_import_read(paths, 4, &o, &err);
    check_import(&run, im, 0);
    rs_import_free(im);
    fx_free(&run);
}

static void nsys_db(const fx_run_t *run, const char *name, char *db, size_t len) {
    char sql[1024];
    snprintf(sql, sizeof sql, "%s/%s.sql", rs_test_dir, name);
    snprintf(db, len, "%s/%s.sqlite", rs_test_dir, name);
    FILE *fp = fopen(sql, "w");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT_EQUAL(fx_write_nsys_sql(run, fp), 0);
    fclose(fp);
    CU_ASSERT_EQUAL_FATAL(fx_sql_to_sqlite(sql, db), 0);
}

static void test_nsys(void) {
    for (int variant = 0; variant < 4; variant++) {
        fx_opts_t fo;
        fx_opts_default(&fo);
        fo.n_layers = 2;
        fo.ranges = variant != 2;           /* 2: a file without NVTX */
        fo.nvtx_text_id = variant == 1;     /* 1: registered strings */
        fo.mpi_ranks = variant == 3;        /* 3: devices permuted, MPI_RANKS gives the ring order */
        fx_run_t run;
        CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
        char db[1100];
        nsys_db(&run, "nsys", db, sizeof db);
        for (int layer = 0; layer < 2; layer++) {
            rs_import_opts_t o = opts();
            o.occurrence = layer;
            rs_err_t err = {0};
            rs_import_t *im = import1(db, &o, &err);
            if (!im) fprintf(stderr, "  variant %d: %s\n", variant, err.msg);
            check_import(&run, im, layer);
            CU_ASSERT_EQUAL(rs_import_info(im)->format, RS_IMPORT_NSYS);
            CU_ASSERT_EQUAL(rs_import_info(im)->ranges, fo.ranges);
            rs_import_free(im);
        }
        fx_free(&run);
    }
}

/* ringsim exec --launch threads: one process, one thread per GPU: every device is a rank. */
static void test_one_process(void) {
    for (int v = 0; v < 4; v++) {
        fx_opts_t fo;
        fx_opts_default(&fo);
        fo.one_process = true;
        fo.ranges = v & 1;
        fx_run_t run;
        CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
        char in[1100];
        if (v & 2) {
            nsys_db(&run, "one", in, sizeof in);
        } else {
            snprintf(in, sizeof in, "%s", rs_test_fresh_dir("one"));
            CU_ASSERT_EQUAL_FATAL(fx_write_kineto(&run, in, v & 1, 0), 0);
        }
        rs_import_opts_t o = opts();
        rs_err_t err = {0};
        rs_import_t *im = import1(in, &o, &err);
        if (!im) fprintf(stderr, "  variant %d: %s\n", v, err.msg);
        check_import(&run, im, 0);
        CU_ASSERT_EQUAL(rs_import_info(im)->n_files, 1);
        CU_ASSERT_EQUAL(rs_import_info(im)->ranges, fo.ranges);
        rs_import_free(im);
        fx_free(&run);
    }
}

/* ------------------------------------------------------------------------------------------------ */
static rs_trace_t *model_trace(const rs_problem_t *p, bool hierarchical) {
    rs_err_t err;
    rs_hw_t hw;
    rs_machine_t m;
    if (rs_hw_load("h100-sxm", &hw, &err) != 0 || rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, &err) != 0) return NULL;
    if (hierarchical) { /* two nodes of 2 GPUs: two hops are slower, so send and recv differ; a straggler */
        m.devices_per_node = 2;
        m.perturb.n_stragglers = 1;
        m.perturb.straggler_rank[0] = 1;
        m.perturb.straggler_factor[0] = 1.37;
    }
    rs_schedule_t *s = rs_schedule_create(p, &err);
    rs_trace_t *t = rs_trace_create("model");
    rs_walk_t w;
    if (!s || rs_model_walk(s, &m, rs_trace_sink(t), NULL, &w, &err) != 0) {
        fprintf(stderr, "  model: %s\n", err.msg);
        rs_schedule_free(s);
        rs_trace_free(t);
        return NULL;
    }
    rs_trace_meta_problem(t, p);
    rs_trace_sort(t);
    rs_schedule_free(s);
    return t;
}

/* What an import can see of a model trace: the pass epilogue after the ring loop (the last step's
 * event carries it: out.to(q.dtype) and the like) runs kernels that are neither attention nor
 * SendRecv, so the imported last step ends at its last such kernel. t with every last step's
 * event ending at its compute's or transfers' end. */
static void importable(rs_trace_t *t, int last_step) {
    rs_event_t *ev = rs_trace_events_mut(t);
    const size_t n = rs_trace_count(t);
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind != RS_EV_STEP || ev[i].step != last_step) continue;
        double end = ev[i].start_s;
        for (size_t j = 0; j < n; j++)
            if (ev[j].rank == ev[i].rank && ev[j].step == ev[i].step && ev[j].kind != RS_EV_STEP) end = fmax(end, ev[j].end_s);
        ev[i].end_s = end;
    }
}

static void test_round_trip_model(void) {
    for (int c = 0; c < 8; c++) {
        rs_problem_t p = problem();
        p.pass = c & 1 ? RS_PASS_BACKWARD : RS_PASS_FORWARD;
        p.layout = c & 2 ? RS_LAYOUT_CONTIGUOUS : RS_LAYOUT_ZIGZAG;
        bool hier = c & 4;
        rs_trace_t *full = model_trace(&p, hier);
        CU_ASSERT_PTR_NOT_NULL_FATAL(full);
        rs_trace_t *model = model_trace(&p, hier);
        CU_ASSERT_PTR_NOT_NULL_FATAL(model);
        importable(model, p.pass == RS_PASS_BACKWARD ? 4 : 3);
        const char *dir = rs_test_fresh_dir("rt");
        rs_err_t err = {0};
        CU_ASSERT_EQUAL_FATAL(rs_import_export_kineto(model, dir, &err), 0);
        for (int ranges = 0; ranges < 2; ranges++) {
            rs_import_opts_t o = opts();
            o.problem = p;
            o.use_ranges = ranges;
            rs_import_t *im = import1(dir, &o, &err);
            if (!im) fprintf(stderr, "  case %d: %s\n", c, err.msg);
            CU_ASSERT_PTR_NOT_NULL_FATAL(im);
            CU_ASSERT_EQUAL_FATAL(rs_import_n_traces(im), 1);
            const rs_trace_t *t = rs_import_trace(im, 0);
            assert_same_events(model, t, 1e-9); /* the export rounds to whole nanoseconds */
            /* compare works on the pair unchanged */
            rs_compare_t cmp;
            CU_ASSERT_EQUAL(rs_compare_check_problem(model, t, "model", "import", &err), 0);
            CU_ASSERT_EQUAL_FATAL(rs_compare_traces(model, t, &cmp, &err), 0);
            CU_ASSERT(fabs(cmp.makespan_rel) < 1e-6);
            CU_ASSERT_EQUAL(cmp.only_ref + cmp.only_other, 0);
            rs_compare_free(&cmp);
            rs_import_free(im);
        }
        /* the epilogue is all that differs: the last steps end later in the model, nothing else moves */
        rs_compare_t cmp;
        CU_ASSERT_EQUAL_FATAL(rs_compare_traces(full, model, &cmp, &err), 0);
        CU_ASSERT(cmp.makespan_rel < 0 && cmp.makespan_rel > -0.01); /* the flash-attn preset's out.to(q.dtype) */
        rs_compare_free(&cmp);
        rs_trace_free(model);
        rs_trace_free(full);
    }
}

/* ------------------------------------------------------------------------------------------------ */
static void expect_fail(const char *path, const rs_import_opts_t *o, const char *needle) {
    rs_err_t err = {0};
    rs_import_t *im = import1(path, o, &err);
    CU_ASSERT_PTR_NULL(im);
    rs_import_free(im);
    if (!strstr(err.msg, needle)) fprintf(stderr, "  error '%s' lacks '%s'\n", err.msg, needle);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
}

/* Copy the first `keep` bytes of src to dst. */
static void truncate_copy(const char *src, const char *dst, long keep) {
    FILE *a = fopen(src, "rb"), *b = fopen(dst, "wb");
    CU_ASSERT_FATAL(a && b);
    char buf[4096];
    long left = keep;
    size_t n;
    while (left > 0 && (n = fread(buf, 1, left < 4096 ? (size_t)left : 4096, a)) > 0) {
        fwrite(buf, 1, n, b);
        left -= (long)n;
    }
    fclose(a), fclose(b);
}

static void bad_kineto(const char *name, void (*tweak)(fx_opts_t *), bool ranges, const char *needle) {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fo.ranges = ranges;
    tweak(&fo);
    fx_run_t run;
    CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
    const char *dir = rs_test_fresh_dir(name);
    CU_ASSERT_EQUAL_FATAL(fx_write_kineto(&run, dir, false, 0), 0);
    rs_import_opts_t o = opts();
    expect_fail(dir, &o, needle);
    fx_free(&run);
}

static void tw_no_attention(fx_opts_t *o) { o->no_attention = true; }
static void tw_drop_comm(fx_opts_t *o) { o->drop_comm_rank = 2, o->drop_comm_step = 1; }
static void tw_short(fx_opts_t *o) { o->short_rank = 1; }

static void test_bad_input(void) {
    rs_import_opts_t o = opts();
    fx_opts_t fo;
    fx_opts_default(&fo);
    fx_run_t run;
    CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
    const char *dir = rs_test_fresh_dir("bad_ok");
    CU_ASSERT_EQUAL_FATAL(fx_write_kineto(&run, dir, false, 0), 0);
    char good[1100];
    snprintf(good, sizeof good, "%s/rank1.pt.trace.json", dir);
    /* truncated JSON, in the middle of an event */
    const char *cut = rs_test_fresh_dir("bad_cut");
    char p[1100];
    for (int r = 0; r < 4; r++) {
        char src[1100];
        snprintf(src, sizeof src, "%s/rank%d.pt.trace.json", dir, r);
        snprintf(p, sizeof p, "%s/rank%d.pt.trace.json", cut, r);
        truncate_copy(src, p, r == 2 ? rs_test_file_size(src) / 2 : rs_test_file_size(src));
    }
    snprintf(p, sizeof p, "%s/rank2.pt.trace.json", cut);
    expect_fail(cut, &o, "rank2.pt.trace.json: truncated JSON");
    /* gzip cut short */
    const char *gz = rs_test_fresh_dir("bad_gz");
    CU_ASSERT_EQUAL_FATAL(fx_write_kineto(&run, gz, true, 0), 0);
    char gz1[1100];
    snprintf(gz1, sizeof gz1, "%s/rank1.pt.trace.json.gz", gz);
    truncate_copy(gz1, rs_test_path("cut.json.gz"), rs_test_file_size(gz1) - 40);
    expect_fail(rs_test_path("cut.json.gz"), &o, "cut.json.gz: truncated");
    /* not JSON, not a trace, empty */
    rs_test_write_text(rs_test_path("notjson.json"), "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": 1.0, } ]}");
    expect_fail(rs_test_path("notjson.json"), &o, "notjson.json: not valid JSON at byte");
    rs_test_write_text(rs_test_path("text.json"), "rank,step\n0,1\n");
    expect_fail(rs_test_path("text.json"), &o, "text.json: not a Kineto JSON trace");
    rs_test_write_text(rs_test_path("other.json"), "{\"a\": [1, 2, 3]}");
    expect_fail(rs_test_path("other.json"), &o, "other.json: no \"traceEvents\" array");
    rs_test_write_text(rs_test_path("empty.json"), "");
    expect_fail(rs_test_path("empty.json"), &o, "empty.json: empty file");
    expect_fail(rs_test_path("no-such-file.json"), &o, "no-such-file.json: cannot open");
    /* one rank only */
    expect_fail(good, &o, "rank1.pt.trace.json: 1 process with GPU kernels; a ring needs at least 2 ranks");
    /* SQLite without the kernel table */
    rs_test_write_text(rs_test_path("nokernel.sql"), "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n"
                                      "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT);\n");
    CU_ASSERT_EQUAL_FATAL(fx_sql_to_sqlite(rs_test_path("nokernel.sql"), rs_test_path("nokernel.sqlite")), 0);
    expect_fail(rs_test_path("nokernel.sqlite"), &o, "nokernel.sqlite: no CUPTI_ACTIVITY_KIND_KERNEL table");
    /* no attention kernels: Kineto, nsys; --kernel-regex fixes it */
    bad_kineto("bad_noattn", tw_no_attention, true, "rank0.pt.trace.json: rank 0: no attention kernel");
    fx_opts_t fn = fo;
    fn.no_attention = true;
    fx_run_t run2;
    CU_ASSERT_EQUAL_FATAL(fx_generate(&fn, &run2), 0);
    char db[1100];
    nsys_db(&run2, "noattn", db, sizeof db);
    expect_fail(db, &o, "noattn.sqlite: rank 0: no attention kernel");
    rs_import_opts_t ok = opts();
    ok.kernel_regex = "custom_ring_attention_";
    rs_err_t err;
    rs_import_t *im = import1(db, &ok, &err);
    check_import(&run2, im, 0);
    rs_import_free(im);
    fx_free(&run2);
    /* a step without SendRecv, ranks with different step counts: with and without ranges */
    bad_kineto("bad_drop_r", tw_drop_comm, true, "rank2.pt.trace.json: rank 2 forward ring pass 0 step 1: no SendRecv kernel");
    bad_kineto("bad_drop_o", tw_drop_comm, false, "rank2.pt.trace.json: rank 2 forward ring pass 0 step");
    bad_kineto("bad_short_r", tw_short, true, "rank1.pt.trace.json: rank 1 forward ring pass 0 has 3 steps; a ring of N = 4 ranks has 4");
    bad_kineto("bad_short_o", tw_short, false, "rank1.pt.trace.json: rank 1");
    /* options */
    rs_import_opts_t oo = opts();
    oo.occurrence = 1;
    expect_fail(dir, &oo, "--occurrence 1: the trace has 1 forward ring pass(es) (0..0)");
    oo = opts();
    oo.check_ranks = true;
    oo.problem.n_ranks = 8;
    expect_fail(dir, &oo, "--ranks 8: the trace has 4 ranks");
    oo = opts();
    oo.problem.seq_tokens = 1001;
    expect_fail(dir, &oo, "--seq 1001: must be divisible by 2*N = 8");
    oo = opts();
    oo.step_regex = "ring_step";
    expect_fail(dir, &oo, "--step-regex 'ring_step': needs a group");
    oo = opts();
    oo.format = RS_IMPORT_NSYS;
    expect_fail(dir, &oo, "rank0.pt.trace.json: is JSON, not nsys (--format)");
    fx_opts_t f1 = fo;
    f1.backward = false;
    fx_run_t run3;
    CU_ASSERT_EQUAL_FATAL(fx_generate(&f1, &run3), 0);
    const char *fwd_only = rs_test_fresh_dir("bad_fwd_only");
    CU_ASSERT_EQUAL_FATAL(fx_write_kineto(&run3, fwd_only, false, 0), 0);
    oo = opts();
    oo.n_passes = 1;
    oo.passes[0] = RS_PASS_BACKWARD;
    expect_fail(fwd_only, &oo, "no backward ring pass in the trace (found 1 forward, 0 backward)");
    fx_free(&run3);
    fx_free(&run);
}

static void test_cli(void) {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fx_run_t run;
    CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
    const char *dir = rs_test_fresh_dir("cli");
    CU_ASSERT_EQUAL_FATAL(fx_write_kineto(&run, dir, true, 0), 0);
    char args[4096];
    snprintf(args, sizeof args, "import -S 32K -N 4 --pass both -o %s --chrome %s --kernels %s %s", rs_test_path("cli.csv"), rs_test_path("cli.json"),
             rs_test_path("cli-k.csv"), dir);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "kineto, 4 file(s), N = 4 ranks"));
    const char *outs[] = {"cli-zigzag-forward.csv", "cli-zigzag-backward.csv", "cli-zigzag-forward.json", "cli-k-zigzag-backward.csv"};
    for (int i = 0; i < 4; i++) CU_ASSERT(rs_test_file_size(rs_test_path(outs[i])) > 0);
    /* the CSV reads back as the expected trace; compare works on it unchanged */
    rs_err_t err;
    rs_trace_t *t = rs_trace_read_csv(rs_test_path("cli-zigzag-backward.csv"), &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    rs_problem_t prob = problem();
    rs_trace_t *exp = fx_expected(&run, RS_PASS_BACKWARD, 0, &prob);
    assert_same_events(exp, t, 1e-15);
    rs_trace_free(exp);
    rs_trace_free(t);
    snprintf(args, sizeof args, "compare %s %s", rs_test_path("cli-zigzag-forward.csv"), rs_test_path("cli-zigzag-forward.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    /* kernels CSV: header + one row per kernel, names quoted */
    FILE *fp = fopen(rs_test_path("cli-k-zigzag-backward.csv"), "r");
    CU_ASSERT_FATAL(fp != NULL);
    char line[2048];
    int rows = 0, quoted = 0;
    while (fgets(line, sizeof line, fp)) {
        rows++;
        quoted += strstr(line, ",\"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64,") != NULL;
    }
    fclose(fp);
    CU_ASSERT_EQUAL(rows, 1 + 4 * (3 * 4 + 3 + 4)); /* per rank: 3 attention kernels x 4 steps, 3 K,V + 4 dK,dV SendRecv */
    CU_ASSERT_EQUAL(quoted, 16);
    /* bad input: exit 2, one line naming the file, no output */
    const char *cut = rs_test_fresh_dir("cli_bad");
    for (int r = 0; r < 4; r++) {
        char src[1100], dst[1100];
        snprintf(src, sizeof src, "%s/rank%d.pt.trace.json.gz", dir, r);
        snprintf(dst, sizeof dst, "%s/rank%d.pt.trace.json.gz", cut, r);
        truncate_copy(src, dst, r == 3 ? rs_test_file_size(src) / 3 : rs_test_file_size(src));
    }
    snprintf(args, sizeof args, "import -S 32K -o %s %s", rs_test_path("never.csv"), cut);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "ringsim import: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "rank3.pt.trace.json.gz: truncated"));
    char *nl = strchr(rs_test_err, '\n');
    CU_ASSERT(nl && nl[1] == 0);
    CU_ASSERT(rs_test_file_size(rs_test_path("never.csv")) < 0);
    /* an output never replaces an input */
    char in0[1100];
    snprintf(in0, sizeof in0, "%s/rank0.pt.trace.json.gz", dir);
    long before = rs_test_file_size(in0);
    snprintf(args, sizeof args, "import -S 32K -P forward -o %s %s", in0, dir);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "an output never replaces an input"));
    CU_ASSERT_EQUAL(rs_test_file_size(in0), before);
    snprintf(args, sizeof args, "import -o %s --profile h100-sxm %s", rs_test_path("never.csv"), dir);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "unknown option '--profile'"));
    /* export: ringsim trace -> Kineto directory -> import */
    snprintf(args, sizeof args, "import --export-kineto %s %s", rs_test_path("cli_export"), rs_test_path("cli-zigzag-forward.csv"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    snprintf(args, sizeof args, "import -q -S 32K -o %s %s", rs_test_path("cli-again.csv"), rs_test_path("cli_export"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    rs_trace_t *a = rs_trace_read_csv(rs_test_path("cli-zigzag-forward.csv"), &err), *b = rs_trace_read_csv(rs_test_path("cli-again.csv"), &err);
    CU_ASSERT_FATAL(a && b);
    assert_same_events(a, b, 1e-9);
    rs_trace_free(a), rs_trace_free(b);
    fx_free(&run);
}

/* ------------------------------------------------------------------------------------------------
 * Checked-in fixtures (tests/fixtures/data): made by `test_import --write-fixtures tests/fixtures/data`
 * ---------------------------------------------------------------------------------------------- */
static void fixture_opts(bool nsys, fx_opts_t *fo) {
    fx_opts_default(fo);
    fo->ranges = nsys;  /* Kineto: no ranges (launch order); nsys: an NVTX range per step */
    fo->filler = nsys ? 1 : 2;
}

static void test_checked_in_fixtures(void) {
    for (int nsys = 0; nsys < 2; nsys++) {
        fx_opts_t fo;
        fixture_opts(nsys, &fo);
        fx_run_t run;
        CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
        char in[1100];
        if (nsys) {
            snprintf(in, sizeof in, "%s/nsys_ring4.sqlite", rs_test_dir);
            CU_ASSERT_EQUAL_FATAL(fx_sql_to_sqlite(DATA "/nsys_ring4.sql", in), 0);
        } else {
            snprintf(in, sizeof in, "%s", DATA "/kineto_ring4");
        }
        rs_import_opts_t o = opts();
        rs_err_t err = {0};
        rs_import_t *im = import1(in, &o, &err);
        if (!im) fprintf(stderr, "  %s\n", err.msg);
        check_import(&run, im, 0);
        for (size_t i = 0; im && i < rs_import_n_traces(im); i++) {
            char want[1100], got[1100];
            const char *pass = rs_trace_get_meta(rs_import_trace(im, i), "pass");
            snprintf(want, sizeof want, "%s/%s_ring4-%s.expected.csv", DATA, nsys ? "nsys" : "kineto", pass);
            snprintf(got, sizeof got, "%s/got-%d-%s.csv", rs_test_dir, nsys, pass);
            rs_trace_t *t = (rs_trace_t *)rs_import_trace(im, i);
            rs_trace_set_meta(t, "import.input", "%s", nsys ? "nsys_ring4.sqlite" : "kineto_ring4"); /* path-independent */
            CU_ASSERT_EQUAL(rs_trace_write_csv(t, got, &err), 0);
            char *a = rs_test_slurp(want, NULL), *b = rs_test_slurp(got, NULL);
            CU_ASSERT_PTR_NOT_NULL(a);
            CU_ASSERT(a && b && strcmp(a, b) == 0);
            free(a), free(b);
        }
        rs_import_free(im);
        fx_free(&run);
    }
}

/* Decompressed bytes of a gzip file (NUL-terminated), NULL on error. */
static char *gunzip(const char *path) {
    gzFile f = gzopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    int k;
    while (b && (k = gzread(f, b + n, (unsigned)(cap - n - 1))) > 0) {
        n += (size_t)k;
        if (cap - n < 2) b = realloc(b, cap *= 2);
    }
    gzclose(f);
    if (b) b[n] = 0;
    return b;
}

/* A real torch.profiler capture (torch 2.11, NCCL 2.28, one H200; tests/fixtures/data/torch_h200/capture.py). */
static void test_real_torch_trace(void) {
    /* every kernel name of the SDPA backends' forward + backward classifies as its pass */
    char *text = gunzip(DATA "/torch_h200/names.pt.trace.json.gz");
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
    /* the ring capture as rank 0, and as rank 1 (the same timeline: world size 1 on one GPU) */
    char *ring = gunzip(DATA "/torch_h200/ring.pt.trace.json.gz");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ring);
    const char *dir = rs_test_fresh_dir("real");
    char p0[1100], p1[1100];
    snprintf(p0, sizeof p0, "%s/rank0.json", dir);
    snprintf(p1, sizeof p1, "%s/rank1.json", dir);
    rs_test_write_text(p0, ring);
    char *at = strstr(ring, "\"rank\": 0, \"world_size\": 1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    at[8] = '1';
    rs_test_write_text(p1, ring);
    free(ring);
    free(text);
    const char *twice[2] = {p0, p0};
    rs_import_opts_t o = opts();
    o.problem.seq_tokens = 16384;
    CU_ASSERT_PTR_NULL(rs_import_read(twice, 2, &o, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rank0.json: rank 0 again (also in "));
    for (int ranges = 0; ranges < 2; ranges++) {
        o.use_ranges = ranges;
        rs_import_t *im = import1(dir, &o, &err);
        if (!im) fprintf(stderr, "  %s\n", err.msg);
        CU_ASSERT_PTR_NOT_NULL_FATAL(im);
        CU_ASSERT_EQUAL(rs_import_info(im)->ranges, ranges);
        CU_ASSERT_STRING_EQUAL(rs_import_info(im)->gpu_name, "NVIDIA H200");
        CU_ASSERT_EQUAL_FATAL(rs_import_n_traces(im), 1);
        const rs_trace_t *t = rs_import_trace(im, 0);
        CU_ASSERT_EQUAL(rs_trace_count(t), 12);
        /* values read off the file: SendRecv at ts 5205877015945.161 for 37.408 us is the origin;
         * flash at +220.286 us for 935.032 us; step 1's flash at +1156.534 us, ends +2700.650 us */
        const rs_event_t *ev = rs_trace_events(t);
        long c0 = rs_trace_find(t, 1, 0, RS_PASS_FORWARD, RS_EV_COMPUTE), s0 = rs_trace_find(t, 1, 0, RS_PASS_FORWARD, RS_EV_SEND),
             c1 = rs_trace_find(t, 1, 1, RS_PASS_FORWARD, RS_EV_COMPUTE);
        CU_ASSERT_FATAL(c0 >= 0 && s0 >= 0 && c1 >= 0);
        CU_ASSERT(fabs(ev[s0].start_s) < 1e-12 && fabs(ev[s0].end_s - 37.408e-6) < 1e-12);
        CU_ASSERT(fabs(ev[c0].start_s - 220.286e-6) < 1e-12 && fabs(ev[c0].end_s - 1155.318e-6) < 1e-12);
        CU_ASSERT(fabs(ev[c1].start_s - 1156.534e-6) < 1e-12 && fabs(ev[c1].end_s - 2700.650e-6) < 1e-12);
        CU_ASSERT_EQUAL(rs_trace_find(t, 1, 1, RS_PASS_FORWARD, RS_EV_SEND), -1);
        rs_import_free(im);
    }
}

/* Regenerate tests/fixtures/data. */
static int write_fixtures(const char *dir) {
    char p[2048];
    for (int nsys = 0; nsys < 2; nsys++) {
        fx_opts_t fo;
        fixture_opts(nsys, &fo);
        fx_run_t run;
        if (fx_generate(&fo, &run) != 0) return 1;
        if (nsys) {
            snprintf(p, sizeof p, "%s/nsys_ring4.sql", dir);
            FILE *fp = fopen(p, "w");
            if (!fp || fx_write_nsys_sql(&run, fp) != 0) return 1;
            fclose(fp);
            snprintf(p, sizeof p, "%s/nsys_ring4.sqlite", rs_test_dir);
            char sql[2048];
            snprintf(sql, sizeof sql, "%s/nsys_ring4.sql", dir);
            if (fx_sql_to_sqlite(sql, p) != 0) return 1;
        } else {
            snprintf(p, sizeof p, "%s/kineto_ring4", dir);
            mkdir(p, 0777);
            if (fx_write_kineto(&run, p, true, 0) != 0) return 1;
        }
        rs_import_opts_t o = opts();
        rs_err_t err;
        rs_import_t *im = import1(p, &o, &err);
        if (!im) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        for (size_t i = 0; i < rs_import_n_traces(im); i++) {
            rs_trace_t *t = (rs_trace_t *)rs_import_trace(im, i);
            rs_trace_set_meta(t, "import.input", "%s", nsys ? "nsys_ring4.sqlite" : "kineto_ring4");
            char out[2048];
            snprintf(out, sizeof out, "%s/%s_ring4-%s.expected.csv", dir, nsys ? "nsys" : "kineto", rs_trace_get_meta(t, "pass"));
            if (rs_trace_write_csv(t, out, &err) != 0) return 1;
        }
        rs_import_free(im);
        fx_free(&run);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (rs_test_scratch("import") != 0) return 1;
    if (argc == 3 && !strcmp(argv[1], "--write-fixtures")) {
        int rc = write_fixtures(argv[2]);
        rs_test_cleanup();
        return rc;
    }
    static const rs_test_case_t cases[] = {
        {"kernel name patterns", test_classify},
        {"Kineto with step ranges: every event, header, kernels", test_kineto_ranges},
        {"Kineto gzip without ranges, 3 ring passes, files out of order", test_kineto_gzip_no_ranges_layers},
        {"nsys: NVTX text, textId, no NVTX, MPI_RANKS", test_nsys},
        {"one process driving 4 GPUs: Kineto and nsys", test_one_process},
        {"round trip: model trace -> Kineto export -> import", test_round_trip_model},
        {"bad input: one line naming the file", test_bad_input},
        {"ringsim import CLI: outputs, exit 2, no output", test_cli},
        {"checked-in fixtures of tests/fixtures/data", test_checked_in_fixtures},
        {"a real torch.profiler capture (torch 2.11, H200)", test_real_torch_trace},
        {NULL, NULL},
    };
    int rc = rs_test_main1("import", cases);
    rs_test_cleanup();
    return rc;
}
