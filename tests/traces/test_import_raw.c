/* test_import_raw.c - the raw store of the import (traces/import_raw.c): interning returns the same
 * index for the same name (also past many rehashes, and for a name given by length inside a longer
 * string), each name classified once; step range and ProfilerStep#N names parsed (the step number,
 * the pass their words say) with the default and a custom pattern; the bad patterns refused with
 * their exact messages; raw ranks and their arrays; the names handed over; rank lists as Kineto
 * writes them, process groups, PyTorch collective names and dtype sizes, notes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_raw.h"
#include "harness.h"
#include "test_main.h"
#include "traces_check.h"

RS_TEST(test_intern, "interning: same name, same index") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    const char *fa = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)";
    const char *sr = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
    uint32_t a = rs_raw_intern(&raw, fa, strlen(fa));
    uint32_t b = rs_raw_intern(&raw, sr, strlen(sr));
    uint32_t g = rs_raw_intern(&raw, "void at::native::vectorized_elementwise_kernel<4>(int)", 55);
    CU_ASSERT_EQUAL(a, 0);
    CU_ASSERT_EQUAL(b, 1);
    CU_ASSERT_EQUAL(g, 2);
    CU_ASSERT_EQUAL(rs_raw_intern(&raw, fa, strlen(fa)), a); /* the same name: the same index */
    CU_ASSERT_EQUAL(rs_raw_intern(&raw, sr, strlen(sr)), b);
    CU_ASSERT_EQUAL(raw.n_names, 3);
    CU_ASSERT_STRING_EQUAL(raw.names[a], fa);
    /* classified on first sight */
    CU_ASSERT_EQUAL(rs_raw_role(&raw, a), RS_KROLE_ATTN_FWD);
    CU_ASSERT_EQUAL(rs_raw_role(&raw, b), RS_KROLE_SENDRECV);
    CU_ASSERT_EQUAL(rs_raw_role(&raw, g), RS_KROLE_MERGE); /* an elementwise kernel: a merge where it runs inside a step */
    /* by length: a prefix is its own name, not the longer one's */
    uint32_t p = rs_raw_intern(&raw, "ncclDevKernel_SendRecv", 13);
    CU_ASSERT_EQUAL(p, 3);
    CU_ASSERT_STRING_EQUAL(raw.names[p], "ncclDevKernel");
    CU_ASSERT_EQUAL(rs_raw_intern(&raw, "ncclDevKernel", 13), p);
    CU_ASSERT_EQUAL(rs_raw_intern(&raw, "", 0), 4);
    /* 5000 names: every one keeps its index through the table's growth */
    char name[64];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "kernel_%d", i);
        CU_ASSERT_EQUAL(rs_raw_intern(&raw, name, strlen(name)), (uint32_t)(5 + i));
    }
    int same = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "kernel_%d", i);
        same += rs_raw_intern(&raw, name, strlen(name)) == (uint32_t)(5 + i);
    }
    CU_ASSERT_EQUAL(same, 5000);
    CU_ASSERT_EQUAL(raw.n_names, 5005);
    CU_ASSERT(raw.cap_hash >= 2 * raw.n_names && (raw.cap_hash & (raw.cap_hash - 1)) == 0);
    CU_ASSERT_EQUAL(rs_raw_intern(&raw, fa, strlen(fa)), a);
    /* the names handed over: raw keeps none */
    uint32_t n = 0;
    char **names = rs_raw_take_names(&raw, &n);
    CU_ASSERT_EQUAL(n, 5005);
    CU_ASSERT_STRING_EQUAL(names[5004], "kernel_4999");
    CU_ASSERT_EQUAL(raw.n_names, 0);
    CU_ASSERT_PTR_NULL(raw.names);
    rs_raw_free(&raw);
    for (uint32_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

RS_TEST(test_step_ranges, "step range names") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    struct {
        const char *name;
        int is_range, step, hint;
    } cases[] = {
        {"ring_step 3", 1, 3, -1},
        {"ringsim forward step 0", 1, 0, RS_PASS_FORWARD},
        {"ring_attn.bwd.step_12", 1, 12, RS_PASS_BACKWARD},
        {"RING-ATTN FWD STEP=7", 1, 7, RS_PASS_FORWARD}, /* case-insensitive */
        {"ring step 2 of 8", 1, 2, -1},
        {"ring step 2 sub-step 8", 1, 8, -1},            /* the number after the last "step": .* is greedy */
        {"step 3", 0, 0, 0},                             /* no "ring" */
        {"ring_step", 0, 0, 0},                          /* no number */
        {"ring step 1234567890", 0, 0, 0},               /* more than 9 digits */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t step = -5;
        int8_t hint = -5;
        int r = rs_raw_step_range(&raw, cases[i].name, &step, &hint);
        if (r != cases[i].is_range || (r && (step != cases[i].step || hint != cases[i].hint)))
            fprintf(stderr, "  '%s': %d step %d hint %d\n", cases[i].name, r, step, hint);
        CU_ASSERT_EQUAL(r, cases[i].is_range);
        if (cases[i].is_range) {
            CU_ASSERT(step == cases[i].step && hint == cases[i].hint);
        } else {
            CU_ASSERT(step == -5 && hint == -5); /* untouched */
        }
    }
    rs_raw_free(&raw);
    /* a custom pattern: the last group that matched is the step */
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, "^(cp_fwd_([0-9]+)|cp_bwd_([0-9]+))$", &err), 0);
    int32_t step = -1;
    int8_t hint = -1;
    CU_ASSERT_EQUAL(rs_raw_step_range(&raw, "cp_fwd_4", &step, &hint), 1);
    CU_ASSERT(step == 4 && hint == RS_PASS_FORWARD);
    CU_ASSERT_EQUAL(rs_raw_step_range(&raw, "cp_bwd_15", &step, &hint), 1);
    CU_ASSERT(step == 15 && hint == RS_PASS_BACKWARD);
    CU_ASSERT_EQUAL(rs_raw_step_range(&raw, "ring_step 3", &step, &hint), 0);
    /* a range's kind from its name: a ProfilerStep#N first, then a ring step, else none */
    rs_raw_range_t g = {1, 2, 3, -1, -1, 9};
    CU_ASSERT(rs_raw_range_kind(&raw, "ProfilerStep#12", &g) == 1 && g.kind == RS_RANGE_PROFILER && g.step == 12 && g.pass_hint == -1);
    CU_ASSERT(rs_raw_range_kind(&raw, "cp_bwd_15", &g) == 1 && g.kind == RS_RANGE_STEP && g.step == 15 && g.pass_hint == RS_PASS_BACKWARD);
    CU_ASSERT(rs_raw_range_kind(&raw, "ring_step 3", &g) == 0 && g.step == 15); /* untouched */
    CU_ASSERT(g.start_ns == 1 && g.end_ns == 2 && g.name == 3);
    rs_raw_free(&raw);
}

RS_TEST(test_init_refusals, "bad patterns refused") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_raw_init(&raw, NULL, "ring_step", &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--step-regex 'ring_step': needs a group around the step number, e.g. 'ring.*step ([0-9]+)'");
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_err_clear(&err);
    CU_ASSERT_EQUAL(rs_raw_init(&raw, NULL, "ring(", &err), -1);
    CU_ASSERT(strncmp(err.msg, "--step-regex 'ring(': not a POSIX extended regular expression (", 62) == 0);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_err_clear(&err);
    const char *bad[RS_ROLE_COUNT] = {"attn[", NULL, NULL, NULL}, *mine[RS_ROLE_COUNT] = {"my_attention", NULL, NULL, NULL};
    CU_ASSERT_EQUAL(rs_raw_init(&raw, bad, NULL, &err), -1); /* the kernel pattern is checked first */
    CU_ASSERT(strncmp(err.msg, "--kernel-regex / --role-regex attn='attn[': not a POSIX extended regular expression (", 84) == 0);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* an extra kernel pattern classifies interned names */
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, mine, NULL, &err), 0);
    uint32_t f = rs_raw_intern(&raw, "my_attention_fwd", 16), b = rs_raw_intern(&raw, "my_attention_bwd", 16);
    CU_ASSERT_EQUAL(rs_raw_role(&raw, f), RS_KROLE_ATTN_FWD);
    CU_ASSERT_EQUAL(rs_raw_role(&raw, b), RS_KROLE_ATTN_BWD);
    rs_raw_free(&raw);
}

RS_TEST(test_ranks, "raw ranks and growable arrays") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    for (int i = 0; i < 20; i++) { /* past the first growth */
        char file[32];
        snprintf(file, sizeof file, "rank%d.json", i);
        rs_raw_rank_t *r = rs_raw_add_rank(&raw, file);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT(r->proc == -1 && r->rank_key == -1 && r->device == -1 && r->nk == 0 && r->nr == 0);
        for (int k = 0; k < 300; k++) {
            rs_raw_kernel_t x = {1000 * k, 1000 * k + 500, RS_RAW_NO_TIME, k, 0, 7, {0, 0, 0}, 0, RS_RAW_NONE, RS_KROLE_ATTN_FWD};
            CU_ASSERT_EQUAL(rs_raw_add_kernel(r, &x), 0);
        }
        rs_raw_range_t g = {0, 10, 0, i, -1, RS_RANGE_STEP}, ps = {0, 20, 0, 5 + i, -1, RS_RANGE_PROFILER};
        CU_ASSERT_EQUAL(rs_raw_add_range(r, &g), 0);
        CU_ASSERT_EQUAL(rs_raw_add_range(r, &ps), 0); /* to the rank's ProfilerStep ranges */
    }
    CU_ASSERT_EQUAL_FATAL(raw.n_ranks, 20);
    CU_ASSERT_STRING_EQUAL(raw.ranks[13].file, "rank13.json");
    CU_ASSERT_EQUAL(raw.ranks[13].nk, 300);
    CU_ASSERT_EQUAL(raw.ranks[13].k[299].start_ns, 299000);
    CU_ASSERT_EQUAL(raw.ranks[13].k[299].order, 299);
    CU_ASSERT_EQUAL(raw.ranks[13].nr, 1);
    CU_ASSERT_EQUAL(raw.ranks[13].r[0].step, 13);
    CU_ASSERT(raw.ranks[13].nps == 1 && raw.ranks[13].ps[0].step == 18);
    CU_ASSERT(raw.ranks[13].world_size == -1 && raw.ranks[13].gpu == RS_RAW_NONE);
    /* the growable array itself */
    double *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        double x = i * 0.5;
        CU_ASSERT_EQUAL(rs_raw_grow((void **)&v, &n, &cap, sizeof x, &x), 0);
    }
    CU_ASSERT(n == 1000 && cap >= 1000 && v[999] == 499.5 && v[0] == 0);
    free(v);
    rs_raw_free(&raw);
}

RS_TEST(test_lists_groups, "ProfilerStep names, rank lists, groups, collectives, dtypes, notes") {
    int32_t n = -1;
    CU_ASSERT(rs_raw_profiler_step("ProfilerStep#12", &n) == 1 && n == 12);
    CU_ASSERT_EQUAL(rs_raw_profiler_step("ProfilerStep#", &n), 0);
    CU_ASSERT_EQUAL(rs_raw_profiler_step("ProfilerStep#3x", &n), 0);
    CU_ASSERT_EQUAL(rs_raw_profiler_step("ring step 3", &n), 0);
    int32_t r[16];
    CU_ASSERT_EQUAL(rs_raw_parse_ranks("[0, 2, 4, 6]", r, 16), 4);
    CU_ASSERT(r[0] == 0 && r[1] == 2 && r[3] == 6);
    CU_ASSERT_EQUAL(rs_raw_parse_ranks("0,1", r, 16), 2);
    CU_ASSERT_EQUAL(rs_raw_parse_ranks("0-7", r, 16), 8);
    CU_ASSERT_EQUAL(r[7], 7);
    CU_ASSERT_EQUAL(rs_raw_parse_ranks("[]", r, 16), 0);
    CU_ASSERT_EQUAL(rs_raw_parse_ranks("[0, x]", r, 16), -1);
    CU_ASSERT_EQUAL(rs_raw_parse_ranks("0-20", r, 16), -1); /* more than the room */
    CU_ASSERT_EQUAL(rs_raw_parse_ranks("7-3", r, 16), -1);
    /* PyTorch's collective names (ProcessGroupNCCL's RECORD_PARAM_COMMS) */
    CU_ASSERT_EQUAL(rs_coll_of_name("send"), RS_COLL_P2P);
    CU_ASSERT_EQUAL(rs_coll_of_name("recv"), RS_COLL_P2P);
    CU_ASSERT_EQUAL(rs_coll_of_name("all_to_allv"), RS_COLL_ALL_TO_ALL);
    CU_ASSERT_EQUAL(rs_coll_of_name("alltoall_base"), RS_COLL_ALL_TO_ALL);
    CU_ASSERT_EQUAL(rs_coll_of_name("_allgather_base"), RS_COLL_ALL_GATHER);
    CU_ASSERT_EQUAL(rs_coll_of_name("allgather_into_tensor_coalesced"), RS_COLL_ALL_GATHER);
    CU_ASSERT_EQUAL(rs_coll_of_name("reduce_scatter_tensor_coalesced"), RS_COLL_REDUCE_SCATTER);
    CU_ASSERT_EQUAL(rs_coll_of_name("allreduce_coalesced"), RS_COLL_ALL_REDUCE);
    CU_ASSERT_EQUAL(rs_coll_of_name("broadcast"), RS_COLL_BROADCAST);
    CU_ASSERT_EQUAL(rs_coll_of_name("wait"), RS_COLL_OTHER);
    CU_ASSERT_STRING_EQUAL(rs_coll_name(RS_COLL_ALL_GATHER), "all_gather");
    CU_ASSERT_EQUAL(rs_raw_dtype_bytes("BFloat16"), 2);
    CU_ASSERT_EQUAL(rs_raw_dtype_bytes("Float"), 4);
    CU_ASSERT_EQUAL(rs_raw_dtype_bytes("Long"), 8);
    CU_ASSERT_EQUAL(rs_raw_dtype_bytes("Float8_e4m3fn"), 1);
    CU_ASSERT_EQUAL(rs_raw_dtype_bytes("Quaternion"), 0);
    /* groups: one entry per (name, ranks), the description kept from a later sighting */
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    const int32_t cp[2] = {0, 1}, dp[4] = {0, 2, 4, 6};
    uint32_t a = rs_raw_group(&raw, "1", NULL, cp, 2), b = rs_raw_group(&raw, "5", "dp", dp, 4), c = rs_raw_group(&raw, "1", "cp", cp, 2);
    CU_ASSERT(a == 0 && b == 1 && c == 0 && raw.n_groups == 2);
    CU_ASSERT_STRING_EQUAL(raw.groups[0].desc, "cp");
    CU_ASSERT_EQUAL(rs_raw_group(&raw, "1", NULL, dp, 4), 2); /* the same name, other ranks: another group */
    rs_raw_comm_t cm = {b, RS_RAW_NONE, RS_COLL_P2P, 1, 0, 2, -1, 4096, -1};
    CU_ASSERT_EQUAL(rs_raw_add_comm(&raw, &cm), 0);
    CU_ASSERT_EQUAL(rs_raw_add_comm(&raw, &cm), 1);
    CU_ASSERT_EQUAL(raw.comms[1].send_bytes, 4096);
    CU_ASSERT_EQUAL(rs_raw_note(&raw, "left out %d trace(s)", 6), 0);
    CU_ASSERT(raw.n_notes == 1 && !strcmp(raw.notes[0], "left out 6 trace(s)"));
    rs_raw_free(&raw);
}

RS_TEST_PROGRAM_IN("import_raw")
