/* test_kineto_export.c - the Kineto export of a ringsim trace (traces/kineto_export.c): the exact
 * text of a small export (base time, distributedInfo, the step's record_function range, a SendRecv
 * kernel or a Send and a Recv kernel, launches and correlation ids in launch order, times in
 * microseconds with 3 decimals), its refusals; model traces round-tripped through the import. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "cost.h"
#include "harness.h"
#include "import_check.h"
#include "machine.h"
#include "profile.h"
#include "test_main.h"
#include "traces_check.h"

/* An event of a forward ring of 2 (a transfer's peer is the other rank). */
static void ev(rs_trace_t *t, int rank, int step, rs_event_kind_t kind, double s, double e) {
    const bool xfer = kind == RS_EV_SEND || kind == RS_EV_RECV;
    rs_event_t x = {rank, step, RS_PASS_FORWARD, kind, xfer ? 1 - rank : -1, s, e, kind == RS_EV_COMPUTE ? 1e9 : 0, kind == RS_EV_COMPUTE || kind == RS_EV_STEP ? 0 : 4096};
    CU_ASSERT_EQUAL_FATAL(rs_trace_add(t, &x), 0);
}

RS_TEST(test_exact_text, "the exact text of a small export; refusals") {
    rs_trace_t *t = rs_trace_create("model");
    /* rank 0: send and recv of step 0 span the same time: one SendRecv kernel; rank 1: they differ */
    ev(t, 0, 0, RS_EV_COMPUTE, 0, 1e-6), ev(t, 0, 0, RS_EV_SEND, 0, 2e-6), ev(t, 0, 0, RS_EV_RECV, 0, 2e-6);
    ev(t, 0, 0, RS_EV_STEP, 0, 2e-6), ev(t, 0, 1, RS_EV_COMPUTE, 2e-6, 3e-6), ev(t, 0, 1, RS_EV_STEP, 2e-6, 3e-6);
    ev(t, 1, 0, RS_EV_COMPUTE, 0, 1e-6), ev(t, 1, 0, RS_EV_SEND, 0, 1.5e-6), ev(t, 1, 0, RS_EV_RECV, 0.5e-6, 2e-6);
    ev(t, 1, 0, RS_EV_STEP, 0, 2e-6), ev(t, 1, 1, RS_EV_COMPUTE, 2e-6, 3e-6), ev(t, 1, 1, RS_EV_STEP, 2e-6, 3e-6);
    const char *dir = rs_test_path("exk");
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_import_export_kineto(t, dir, &err), 0); /* creates the directory */
    char p[1200];
    snprintf(p, sizeof p, "%s/rank0.pt.trace.json", dir);
    char *a = rs_test_slurp(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    const char *const want0[] = {
        "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": 0, \"name\": \"ringsim export\", ",
        "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2, \"pg_count\": 1, \"nccl_version\": \"unknown\"},\n",
        "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1700000000000000000,\n  \"traceEvents\": [\n",
        /* the trace's origin is 1 ms after the base */
        ",\n  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ringsim forward step 0\", \"pid\": 4242, \"tid\": 4242, \"ts\": 1000.000, \"dur\": 2.000}",
        ",\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernelExC\", \"pid\": 4242, \"tid\": 4242, \"ts\": 1000.000, "
        "\"dur\": 0.000, \"args\": {\"cbid\": 430, \"correlation\": 1000}}",
        ",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)\", \"pid\": 0, "
        "\"tid\": 20, \"ts\": 1000.000, \"dur\": 2.000,\n    \"args\": {\"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 20, \"correlation\": 1000, ",
        ",\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 4242, \"tid\": 4242, \"ts\": 1000.000, "
        "\"dur\": 0.000, \"args\": {\"cbid\": 211, \"correlation\": 1001}}",
        "\"name\": \"void attn_fwd_mma<__nv_bfloat16, 128>(FwdParams)\", \"pid\": 0, \"tid\": 7, \"ts\": 1000.000, \"dur\": 1.000,",
        "\"name\": \"ringsim forward step 1\", \"pid\": 4242, \"tid\": 4242, \"ts\": 1002.000, \"dur\": 1.000}",
        "\"args\": {\"cbid\": 211, \"correlation\": 1002}}",
        ",\n  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", \"ts\": 1004.000}\n  ],\n"
        "  \"traceName\": \"rank0.pt.trace.json\"\n}\n",
    };
    tc_contains(a, want0, sizeof want0 / sizeof want0[0], true);
    CU_ASSERT_PTR_NULL(strstr(a, "ncclDevKernel_Send("));
    free(a);
    snprintf(p, sizeof p, "%s/rank1.pt.trace.json", dir);
    a = rs_test_slurp(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NULL(strstr(a, "ncclDevKernel_SendRecv"));
    const char *const want1[] = {
        "\"pid\": 4243, \"tid\": 0, \"args\": {\"name\": \"python\"}}",
        "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 2,",
        "\"name\": \"ncclDevKernel_Send(ncclDevKernelArgsStorage<4096ul>)\", \"pid\": 1, \"tid\": 20, \"ts\": 1000.000, \"dur\": 1.500,",
        "\"name\": \"ncclDevKernel_Recv(ncclDevKernelArgsStorage<4096ul>)\", \"pid\": 1, \"tid\": 21, \"ts\": 1000.500, \"dur\": 1.500,",
    };
    tc_contains(a, want1, sizeof want1 / sizeof want1[0], false);
    free(a);
    /* read back: the same times to the nanosecond */
    rs_import_opts_t o = it_opts();
    o.problem.n_ranks = 2;
    const char *paths[1] = {dir};
    rs_import_t *im = rs_import_read(paths, 1, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    const rs_import_kernel_t *ks;
    CU_ASSERT_EQUAL_FATAL(rs_import_kernels(im, 0, 1, 0, &ks), 3);
    /* by start, then end: the attention kernel, the Send, the Recv */
    CU_ASSERT(ks[0].role == RS_KROLE_ATTN_FWD && fabs(ks[0].end_s - 1e-6) < 1e-15 && ks[0].stream == 7);
    CU_ASSERT(ks[1].role == RS_KROLE_SEND && fabs(ks[1].end_s - 1.5e-6) < 1e-15 && ks[1].stream == 20);
    CU_ASSERT(ks[2].role == RS_KROLE_RECV && fabs(ks[2].start_s - 0.5e-6) < 1e-15 && fabs(ks[2].end_s - 2e-6) < 1e-15 && ks[2].stream == 21);
    CU_ASSERT_STRING_EQUAL(ks[0].name, "void attn_fwd_mma<__nv_bfloat16, 128>(FwdParams)");
    rs_import_free(im);
    /* refusals */
    rs_trace_t *empty = rs_trace_create("model");
    CU_ASSERT_EQUAL(rs_import_export_kineto(empty, rs_test_path("exk2"), &err), -1);
    char msg[1200];
    snprintf(msg, sizeof msg, "%s: the trace has no events to export", rs_test_path("exk2"));
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_test_write_text(rs_test_path("afile"), "x");
    CU_ASSERT_EQUAL(rs_import_export_kineto(t, rs_test_path("afile"), &err), -1);
    snprintf(msg, sizeof msg, "%s: exists and is not a directory", rs_test_path("afile"));
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_trace_free(empty);
    rs_trace_free(t);
}

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
    const size_t n = rs_trace_count(t);
    rs_event_t *ev = rs_trace_events_mut(t);
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind != RS_EV_STEP || ev[i].step != last_step) continue;
        double end = ev[i].start_s;
        for (size_t j = 0; j < n; j++)
            if (ev[j].rank == ev[i].rank && ev[j].step == ev[i].step && ev[j].kind != RS_EV_STEP) end = fmax(end, ev[j].end_s);
        ev[i].end_s = end;
    }
}

/* The role event the import gives each compute event of an exported trace without role events (the
 * export writes one kernel per compute event, busy all along: attention, or for a masked block's
 * zero-FLOP launch a kernel of role other). */
static void import_roles(rs_trace_t *t) {
    const size_t n = rs_trace_count(t);
    for (size_t i = 0; i < n; i++) {
        const rs_event_t *e = &rs_trace_events(t)[i];
        if (e->kind != RS_EV_COMPUTE) continue;
        rs_role_event_t ro = {e->rank, e->step, e->pass, e->flops > 0 ? RS_ROLE_ATTN : RS_ROLE_OTHER, e->start_s, e->end_s, e->end_s - e->start_s};
        CU_ASSERT_EQUAL_FATAL(rs_trace_add_role(t, &ro), 0);
    }
    rs_trace_sort(t);
}

RS_TEST(test_round_trip_model, "round trip: model trace -> Kineto export -> import") {
    for (int c = 0; c < 8; c++) {
        rs_problem_t p = it_problem();
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
        import_roles(model);
        /* causal contiguous: the masked steps launch no attention kernel, so only step ranges tell them
         * apart (the launch order needs an attention kernel per step) */
        for (int ranges = p.layout == RS_LAYOUT_CONTIGUOUS; ranges < 2; ranges++) {
            rs_import_opts_t o = it_opts();
            o.problem = p;
            o.use_ranges = ranges;
            rs_import_t *im = it_import1(dir, &o, &err);
            if (!im) fprintf(stderr, "  case %d: %s\n", c, err.msg);
            CU_ASSERT_PTR_NOT_NULL_FATAL(im);
            CU_ASSERT_EQUAL_FATAL(rs_import_n_traces(im), 1);
            const rs_trace_t *t = rs_import_trace(im, 0);
            it_same_events(model, t, 1e-9); /* the export rounds to whole nanoseconds */
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

RS_TEST_PROGRAM_IN("kineto_export")
