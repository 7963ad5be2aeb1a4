/* test_import_rocprof.c - rocprofv3 kernel traces (traces/import_rocprof.c): the fixture run under the
 * headers of three rocprofv3 versions imports as the fixture's ground truth; a hand-written 2-rank
 * trace of ROCm kernels (composable_kernel attention, RCCL's Generic kernel, PyTorch merges, HIP blit
 * copies) gives step times derived by hand; the selections; the refusals, each naming FILE:LINE. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "import_check.h"
#include "import_fixtures.h"
#include "harness.h"
#include "test_main.h"

/* The headers as rocprofv3 writes them (rocprofiler-sdk's source/lib/rocprofiler-sdk-tool/
 * generateCSV.cpp at tag rocm-6.2.0; the develop documentation's how-to/kernel-naming-filtering.rst
 * sample, with Stream_Id and "Agent N"). */
#define H_6_2                                                                                                                     \
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","   \
    "\"Private_Segment_Size\",\"Group_Segment_Size\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\"," \
    "\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
#define H_NEW                                                                                                                      \
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\"," \
    "\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","  \
    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"

#define K_CK "void ck_tile::kentry<256, 1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<ck_tile::BlockFmhaPipelineProblem<>>, ck_tile::Default2DEpilogue<>>>(ck_tile::FmhaFwdKernel<>::Kargs)"
#define K_RCCL "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"
#define K_SIG "void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)"
#define K_COPY "__amd_rocclr_copyBuffer"

#define T0 5000000000000LL /* the ROCm runtime's clock at the run (ns) */

/* One 6.2 row: agent (node id), queue, correlation id, name, start and end (ns after T0). */
static void row62(FILE *fp, int agent, int queue, int corr, const char *name, long long a, long long b) {
    fprintf(fp, "\"KERNEL_DISPATCH\",%d,%d,%d,\"%s\",%d,%lld,%lld,0,0,256,1,1,%d,1,1\n", agent, queue, 11 + corr % 3, name, corr, T0 + a, T0 + b,
            256 * 304);
}
/* One row of the newer header: "Agent N", queue, stream, ... */
static void row_new(FILE *fp, int agent, int stream, int corr, const char *name, long long a, long long b) {
    fprintf(fp, "\"KERNEL_DISPATCH\",\"Agent %d\",%d,%d,852831,%d,%d,\"%s\",%d,%lld,%lld,0,0,128,0,48,256,1,1,%d,1,1\n", agent, stream, stream,
            corr, 11 + corr % 3, name, corr, T0 + a, T0 + b, 256 * 304);
}

/* A row of the hand trace: queue/stream, correlation id, name, start and end (ns after T0). */
typedef struct {
    int queue, corr;
    const char *name;
    long long a, b;
} hrow_t;

/* DIR/FILE under header with rows[0..n) of agent, each row by put. */
static void hand_file(const char *dir, const char *file, const char *header, void (*put)(FILE *, int, int, int, const char *, long long, long long),
                      int agent, const hrow_t *rows, size_t n) {
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    FILE *fp = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(header, fp);
    for (size_t i = 0; i < n; i++) put(fp, agent, rows[i].queue, rows[i].corr, rows[i].name, rows[i].a, rows[i].b);
    fclose(fp);
}

/* The hand trace: rank 0 under the 6.2 header, rank 1 under the newer one, forward, N = 2; rows in
 * completion order (the RCCL kernel, launched first, completes after the step's attention). */
static const char *hand_dir(void) {
    const char *dir = rs_test_fresh_dir("rocprof_hand");
    static const hrow_t r0[] = {{1, 2, K_CK, 12000, 52000}, {1, 3, K_SIG, 52500, 55000}, {2, 1, K_RCCL, 10000, 60000},
                                {1, 4, K_CK, 61000, 81000}, {1, 5, K_SIG, 81200, 84000}, {1, 6, K_COPY, 84100, 85000}};
    static const hrow_t r1[] = {{1, 7, K_CK, 13000, 50000}, {1, 8, K_SIG, 50200, 53000},  {2, 6, K_RCCL, 11000, 59000},
                                {1, 9, K_CK, 60000, 90000}, {1, 10, K_SIG, 90100, 93000}, {1, 11, K_COPY, 93100, 94000}};
    hand_file(dir, "100_kernel_trace.csv", H_6_2, row62, 2, r0, sizeof r0 / sizeof r0[0]);
    hand_file(dir, "200_kernel_trace.csv", H_NEW, row_new, 3, r1, sizeof r1 / sizeof r1[0]);
    /* what rocprofv3 writes beside it: not kernel traces, not listed */
    char p[1024];
    snprintf(p, sizeof p, "%s/100_memory_copy_trace.csv", dir);
    rs_test_write_text(p, "\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
                          "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,2,0,5000000000100,5000000000900\n");
    return dir;
}

static rs_import_opts_t hand_opts(void) {
    rs_import_opts_t o;
    rs_import_opts_default(&o);
    o.problem.seq_tokens = 8192;
    return o;
}

static double ev(const rs_trace_t *t, int rank, int step, rs_event_kind_t kind, double *start) {
    long i = rs_trace_find(t, rank, step, RS_PASS_FORWARD, kind);
    CU_ASSERT_FATAL(i >= 0);
    if (start) *start = rs_trace_events(t)[i].start_s;
    return rs_trace_events(t)[i].end_s - rs_trace_events(t)[i].start_s;
}

static double role_busy(const rs_trace_t *t, int rank, int step, rs_role_t role) {
    for (size_t i = 0; i < rs_trace_role_count(t); i++) {
        const rs_role_event_t *g = &rs_trace_roles(t)[i];
        if (g->rank == rank && g->step == step && g->role == role) return g->busy_s;
    }
    return -1;
}

/* By hand, times from the earliest kernel (rank 0's RCCL kernel at 10 us): rank 0 step 0 = its RCCL
 * kernel [0, 50] us, compute = attention to merge [2, 45] (43 us); step 1 = attention to the copy [51,
 * 75] (24 us: attention 20, merge 2.8, cast 0.9). Rank 1 step 0 [1, 49] (48 us), compute [3, 43] (40
 * us); step 1 [50, 84] (34 us: attention 30, merge 2.9, cast 0.9). Makespan 84 us. */
RS_TEST(test_hand_trace, "ROCm kernels under two rocprofv3 headers: step times, compute and roles by hand") {
    const char *dir = hand_dir();
    rs_import_opts_t o = hand_opts();
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    const rs_import_info_t *info = rs_import_info(im);
    CU_ASSERT_EQUAL(info->format, RS_IMPORT_ROCPROF);
    CU_ASSERT_EQUAL(info->n_files, 2);
    CU_ASSERT_EQUAL(info->n_ranks, 2);
    CU_ASSERT_FALSE(info->ranges);
    CU_ASSERT_EQUAL(rs_import_n_traces(im), 1);
    const rs_trace_t *t = rs_import_trace(im, 0);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "import.format"), "rocprof");
    double s;
    RS_ASSERT_REL(ev(t, 0, 0, RS_EV_STEP, &s), 50e-6, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s, 0, 1e-15);
    RS_ASSERT_REL(ev(t, 0, 0, RS_EV_COMPUTE, &s), 43e-6, 1e-9);
    RS_ASSERT_REL(s, 2e-6, 1e-9);
    RS_ASSERT_REL(ev(t, 0, 0, RS_EV_SEND, NULL), 50e-6, 1e-9);
    RS_ASSERT_REL(ev(t, 0, 1, RS_EV_STEP, &s), 24e-6, 1e-9);
    RS_ASSERT_REL(s, 51e-6, 1e-9);
    RS_ASSERT_REL(role_busy(t, 0, 1, RS_ROLE_ATTN), 20e-6, 1e-9);
    RS_ASSERT_REL(role_busy(t, 0, 1, RS_ROLE_MERGE), 2.8e-6, 1e-9);
    RS_ASSERT_REL(role_busy(t, 0, 1, RS_ROLE_CAST), 0.9e-6, 1e-9);
    RS_ASSERT_REL(ev(t, 1, 0, RS_EV_STEP, &s), 48e-6, 1e-9);
    RS_ASSERT_REL(s, 1e-6, 1e-9);
    RS_ASSERT_REL(ev(t, 1, 0, RS_EV_COMPUTE, NULL), 40e-6, 1e-9);
    RS_ASSERT_REL(ev(t, 1, 1, RS_EV_STEP, NULL), 34e-6, 1e-9);
    RS_ASSERT_REL(role_busy(t, 1, 1, RS_ROLE_ATTN), 30e-6, 1e-9);
    RS_ASSERT_REL(role_busy(t, 1, 1, RS_ROLE_MERGE), 2.9e-6, 1e-9);
    RS_ASSERT_REL(rs_trace_makespan(t), 84e-6, 1e-9);
    /* the kernels behind rank 0 step 1, with their roles */
    const rs_import_kernel_t *ks;
    CU_ASSERT_EQUAL_FATAL(rs_import_kernels(im, 0, 0, 1, &ks), 3);
    CU_ASSERT_EQUAL(ks[0].role, RS_KROLE_ATTN_FWD);
    CU_ASSERT_EQUAL(ks[1].role, RS_KROLE_MERGE);
    CU_ASSERT_EQUAL(ks[2].role, RS_KROLE_CAST);
    CU_ASSERT_EQUAL(ks[0].device, 2);
    CU_ASSERT_EQUAL(rs_import_kernels(im, 0, 1, 0, &ks), 3);
    CU_ASSERT_EQUAL(ks[0].device, 3); /* "Agent 3" */
    rs_import_free(im);
}

/* The fixture run (ring-flash-attention, N = 4, both passes, merges) without step ranges, written under
 * each version's header: the import is the fixture's ground truth, every event and kernel. */
/* The fixture run without step ranges (n_layers ring passes of each kind, the traffic comm:
 * fx_comm_t; comm < 0: FX_COMM_RING with ranges, their API traces beside) written under header
 * version into the fresh scratch directory name. */
static const char *rp_dir(const char *name, int n_layers, int comm, int version, fx_run_t *run) {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fo.ranges = comm < 0;
    if (comm < 0) comm = FX_COMM_RING;
    fo.n_layers = n_layers;
    fo.comm = comm;
    CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, run), 0);
    const char *dir = rs_test_fresh_dir(name);
    CU_ASSERT_EQUAL_FATAL(fx_write_rocprof(run, dir, version), 0);
    return dir;
}

RS_TEST(test_fixture_headers, "the fixture run under the 6.2, 6.3 and newer headers imports as its ground truth") {
    for (int v = 0; v < FX_ROCPROF_COUNT; v++) {
        char name[32];
        snprintf(name, sizeof name, "rocprof_v%d", v);
        fx_run_t run;
        const char *dir = rp_dir(name, 1, FX_COMM_RING, v, &run);
        rs_import_opts_t o = it_opts();
        rs_err_t err = {0};
        rs_import_t *im = it_import1(dir, &o, &err);
        if (!im) fprintf(stderr, "  version %d: %s\n", v, err.msg);
        CU_ASSERT_PTR_NOT_NULL_FATAL(im);
        CU_ASSERT_EQUAL(rs_import_info(im)->format, RS_IMPORT_ROCPROF);
        CU_ASSERT_EQUAL(rs_import_info(im)->n_ranks, 4);
        it_check_import(&run, im, 0);
        rs_import_free(im);
        fx_free(&run);
    }
}

/* With rocprofv3's HIP and marker traces beside the kernel traces: the launches and the step ranges
 * (ROCTx) are read, the steps come from the ranges and the import is the fixture's ground truth;
 * --profiler-step selects by the ProfilerStep#N ranges; without them (the marker trace removed) the
 * same run imports by launch order alike. */
RS_TEST(test_api_traces, "launches and ROCTx step ranges from the HIP and marker traces beside the kernel trace") {
    fx_run_t run;
    const char *dir = rp_dir("rocprof_api", 1, -1, FX_ROCPROF_6_3, &run);
    rs_import_opts_t o = it_opts();
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    CU_ASSERT_TRUE(rs_import_info(im)->ranges);
    it_check_import(&run, im, 0);
    rs_import_free(im);
    o.profiler_step = 5;
    im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(rs_import_trace(im, 0), "import.profiler_step"), "5");
    rs_import_free(im);
    /* a bad time in the marker trace is refused naming its line */
    char p[1024];
    snprintf(p, sizeof p, "%s/rank1_marker_api_trace.csv", dir);
    rs_test_write_text(p, "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
                          "\"MARKER_CORE_API\",\"ring_attn.fwd.step_0\",1,1,7,900,800\n");
    o = it_opts();
    it_expect_fail(dir, &o, "rank1_marker_api_trace.csv:2: End_Timestamp 800 ns is before Start_Timestamp 900 ns", RS_ERR_BAD_INPUT);
    fx_free(&run);
}

/* --occurrence and --window over two layers; --profiler-step refused (the trace has no ProfilerStep
 * ranges); --format rocprof on a Kineto file refused. */
RS_TEST(test_selection, "--occurrence, --window, --profiler-step, --format on rocprofv3 traces") {
    fx_run_t run;
    const char *dir = rp_dir("rocprof_sel", 2, FX_COMM_RING, FX_ROCPROF_NEW, &run);
    rs_import_opts_t o = it_opts();
    o.occurrence = 1;
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    CU_ASSERT_EQUAL(rs_import_info(im)->occurrences[RS_PASS_FORWARD], 2);
    it_check_import(&run, im, 1);
    rs_import_free(im);
    /* a window from the start to just before the second layer's forward: one forward pass in it */
    int64_t first = INT64_MAX, second = INT64_MAX;
    for (size_t i = 0; i < run.nk; i++) {
        first = run.k[i].start_ns < first ? run.k[i].start_ns : first;
        if (run.k[i].layer == 1 && run.k[i].pass == RS_PASS_FORWARD && run.k[i].in_step && run.k[i].start_ns < second) second = run.k[i].start_ns;
    }
    o = it_opts();
    o.n_passes = 1, o.passes[0] = RS_PASS_FORWARD;
    o.window_s[0] = 0, o.window_s[1] = (double)(second - first) * 1e-9 - 1e-7;
    im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    CU_ASSERT_EQUAL(rs_import_info(im)->occurrences[RS_PASS_FORWARD], 1);
    rs_import_free(im);
    o = it_opts();
    o.profiler_step = 5;
    it_expect_fail(dir, &o, "no ProfilerStep#5 range", RS_ERR_BAD_INPUT);
    fx_free(&run);
    /* --format rocprof on a Kineto trace */
    const char *kdir = it_kineto_dir("rocprof_kineto", NULL, false, &run);
    char path[1024];
    snprintf(path, sizeof path, "%s/rank0.pt.trace.json", kdir);
    o = it_opts();
    o.format = RS_IMPORT_ROCPROF;
    it_expect_fail(path, &o, "rank0.pt.trace.json: is JSON, not rocprof (--format)", RS_ERR_BAD_INPUT);
    fx_free(&run);
}

/* A file with header and rows, imported alone: the refusal names FILE:LINE and what is wrong. */
static void bad_file(const char *name, const char *text, const char *needle) {
    char path[1024];
    snprintf(path, sizeof path, "%s", rs_test_path(name));
    rs_test_write_text(path, text);
    rs_import_opts_t o = hand_opts();
    char want[1400];
    snprintf(want, sizeof want, "%s%s", path, needle);
    it_expect_fail(path, &o, want, RS_ERR_BAD_INPUT);
}

#define ROW_OK "\"KERNEL_DISPATCH\",2,1,11,\"" K_CK "\",2,5000000012000,5000000052000,0,0,256,1,1,77824,1,1\n"

RS_TEST(test_refusals, "missing column, text in a time, end before start, bad agent, broken quotes, no dispatch") {
    bad_file("nocol_kernel_trace.csv",
             "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\"\n\"KERNEL_DISPATCH\",2,1,11,\"k\",2,5\n",
             ":1: the kernel trace has no End_Timestamp column (every rocprofv3 version (ROCm 6.2 and later) writes it): not read");
    bad_file("noqueue_kernel_trace.csv",
             "\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n\"KERNEL_DISPATCH\",2,\"k\",2,5,6\n",
             ":1: the kernel trace has neither a Stream_Id (the newer rocprofv3 header (rocprofiler-sdk after October 2024)) nor a Queue_Id column");
    bad_file("text_kernel_trace.csv", H_6_2 ROW_OK "\"KERNEL_DISPATCH\",2,1,11,\"k\",3,50000000x2000,5000000052000,0,0,256,1,1,77824,1,1\n",
             ":3: Start_Timestamp \"50000000x2000\": expected an integer of nanoseconds in [0, 4e+18]");
    bad_file("order_kernel_trace.csv", H_6_2 "\"KERNEL_DISPATCH\",2,1,11,\"k\",3,5000000052000,5000000012000,0,0,256,1,1,77824,1,1\n",
             ":2: End_Timestamp 5000000012000 ns is before Start_Timestamp 5000000052000 ns: expected End_Timestamp >= Start_Timestamp");
    bad_file("neg_kernel_trace.csv", H_6_2 "\"KERNEL_DISPATCH\",2,1,11,\"k\",3,-5,5000000012000,0,0,256,1,1,77824,1,1\n",
             ":2: Start_Timestamp \"-5\": expected an integer of nanoseconds in [0, 4e+18]");
    bad_file("agent_kernel_trace.csv", H_6_2 "\"KERNEL_DISPATCH\",\"GPU 2\",1,11,\"k\",3,5000000012000,5000000052000,0,0,256,1,1,77824,1,1\n",
             ":2: Agent_Id \"GPU 2\": expected an integer in [0, 65535]");
    bad_file("short_kernel_trace.csv", H_6_2 "\"KERNEL_DISPATCH\",2,1,11,\"k\",3,5000000012000\n",
             ":2: End_Timestamp missing: expected an integer of nanoseconds in [0, 4e+18]");
    bad_file("quote_kernel_trace.csv", H_6_2 "\"KERNEL_DISPATCH\",2,1,11,\"k\"x,3,5000000012000,5000000052000,0,0,256,1,1,77824,1,1\n",
             ":2: not CSV: ");
    bad_file("nokind_kernel_trace.csv", H_6_2, ": holds no KERNEL_DISPATCH row (0 rows of another Kind): profile with rocprofv3 --kernel-trace");
    bad_file("copy_trace.csv",
             "\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n",
             ": not a Kineto JSON trace (plain or gzip), an Nsight Systems SQLite export");
}

/* All-gather context parallelism (Llama 3's: K,V gathered once per layer, each rank computing its own
 * queries) has no ring: a rocprofv3 trace has no collective arguments, the kernel's name says it. */
RS_TEST(test_allgather_cp, "all-gather context parallelism refused by name from the kernel names") {
    fx_run_t run;
    const char *dir = rp_dir("rocprof_ag", 1, FX_COMM_AG, FX_ROCPROF_6_2, &run);
    rs_import_opts_t o = it_opts();
    it_expect_fail(dir, &o, "no point-to-point ring traffic, but all_gather: all-gather context parallelism (K,V gathered once per layer, as Llama 3's)",
                   RS_ERR_BAD_INPUT);
    fx_free(&run);
}

RS_TEST_PROGRAM_IN("import_rocprof")
