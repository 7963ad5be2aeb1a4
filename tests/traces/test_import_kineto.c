/* test_import_kineto.c - the Kineto JSON reader (traces/import_kineto.c): a small file written by
 * hand read into the raw store (microsecond text to exact nanoseconds, the base time, launches by
 * correlation id, old files' "Kernel" and "stream 7", distributedInfo, deviceProperties, step ranges,
 * a process driving two GPUs), the fixtures imported (plain and gzip, with and without step ranges,
 * several ring passes, files out of order, one process driving 4 GPUs), broken files refused with one
 * line; the communication arguments and the launch shape read strictly (each family refused with its
 * message, the ranks against the header's world size wherever the header is, optional ones absent). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "import_check.h"
#include "import_readers.h"
#include "test_main.h"
#include "traces_check.h"

#define BASE 1000000000LL
#define RS_TEST_BIG_GROUP 5000 /* more ranks than the reader keeps (RS_KMAX_GROUP) */

static const char ONE_GPU[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 3, \"name\": \"NVIDIA H200\"}],\n"
    " \"baseTimeNanoseconds\": 1000000000,\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv(x)\", \"pid\": 3, \"tid\": 21, \"ts\": 10.0005, \"dur\": 2.5,\n"
    "   \"args\": {\"device\": 3, \"stream\": 21, \"correlation\": 40}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernelExC\", \"pid\": 99, \"tid\": 99, \"ts\": 9.25, \"dur\": 1,\n"
    "   \"args\": {\"cbid\": 430, \"correlation\": 40}},\n"
    "  {\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"void flash_fwd_kernel<x>(Flash_fwd_params)\", \"pid\": 3, \"tid\": \"stream 13\",\n"
    "   \"ts\": 1.5e1, \"dur\": 4, \"args\": {\"device\": 3}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::elementwise_kernel(int)\", \"pid\": 3, \"tid\": 7, \"ts\": 20, \"dur\": 1,\n"
    "   \"args\": {\"device\": 3, \"stream\": 7, \"correlation\": 41}},\n"
    "  {\"ph\": \"i\", \"cat\": \"kernel\", \"name\": \"flash_fwd_kernel\", \"ts\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ring_attn.fwd.step_2\", \"pid\": 99, \"tid\": 99, \"ts\": 8, \"dur\": 30},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"optimizer step 3\", \"pid\": 99, \"tid\": 99, \"ts\": 8, \"dur\": 30}\n"
    " ],\n"
    " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 5, \"world_size\": 8}}\n";

/* One process, threads 100 and 101 launching on devices 1 and 0; no base time (absolute times). */
static const char TWO_GPUS[] =
    "{\"distributedInfo\": {\"rank\": \"2\"}, \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void attn_fwd_mma<bf16>(FwdParams)\", \"pid\": 1, \"tid\": 7, \"ts\": 100.000, \"dur\": 1.000,\n"
    "   \"args\": {\"device\": 1, \"stream\": 7, \"correlation\": 2}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void attn_fwd_mma<bf16>(FwdParams)\", \"pid\": 0, \"tid\": 7, \"ts\": 100.125, \"dur\": 1.000,\n"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 9, \"tid\": 101, \"ts\": 99, \"args\": {\"correlation\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 9, \"tid\": 100, \"ts\": 98, \"args\": {\"correlation\": 2}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ring step 0\", \"pid\": 9, \"tid\": 100, \"ts\": 97, \"dur\": 5},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ring step 1\", \"pid\": 9, \"tid\": 101, \"ts\": 96, \"dur\": 7},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ring step 2\", \"pid\": 9, \"tid\": 102, \"ts\": 95, \"dur\": 9}]}\n";

RS_TEST(test_reader_by_hand, "a Kineto file written by hand, into the raw store") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    const char *p = rs_test_path("one.json");
    rs_test_write_text(p, ONE_GPU);
    CU_ASSERT_EQUAL_FATAL(rs_import_read_kineto(&raw, p, &err), 0);
    CU_ASSERT_STRING_EQUAL(raw.gpu_name, "NVIDIA H200");
    CU_ASSERT_EQUAL_FATAL(raw.n_ranks, 1);
    const rs_raw_rank_t *r = &raw.ranks[0];
    CU_ASSERT_STRING_EQUAL(r->file, p);
    CU_ASSERT(r->rank_key == 5 && r->device == 3 && r->proc == -1);
    CU_ASSERT_EQUAL_FATAL(r->nk, 3); /* every kernel is kept (the instant event is no kernel) */
    const rs_raw_kernel_t *k = r->k;
    /* 10.0005 us: 10000 ns and the fourth decimal rounds up */
    CU_ASSERT(k[0].start_ns == BASE + 10001 && k[0].end_ns == BASE + 12501 && k[0].launch_ns == BASE + 9250);
    CU_ASSERT(k[0].order == 40 && k[0].device == 3 && k[0].stream == 21 && k[0].role == RS_KROLE_SENDRECV);
    CU_ASSERT_STRING_EQUAL(raw.names[k[0].name], "ncclDevKernel_SendRecv(x)");
    /* "Kernel", "stream 13", 1.5e1 us, no correlation id: no launch */
    CU_ASSERT(k[1].start_ns == BASE + 15000 && k[1].end_ns == BASE + 19000 && k[1].launch_ns == RS_RAW_NO_TIME);
    CU_ASSERT(k[1].order == -1 && k[1].stream == 13 && k[1].role == RS_KROLE_ATTN_FWD);
    /* a PyTorch elementwise kernel: a merge when it runs inside a ring step */
    CU_ASSERT(k[2].start_ns == BASE + 20000 && k[2].end_ns == BASE + 21000 && k[2].stream == 7 && k[2].role == RS_KROLE_MERGE);
    CU_ASSERT(k[0].comm == RS_RAW_NONE); /* no collective arguments */
    CU_ASSERT_EQUAL_FATAL(r->nr, 1); /* "optimizer step 3" is no ring step */
    CU_ASSERT(r->r[0].start_ns == BASE + 8000 && r->r[0].end_ns == BASE + 38000 && r->r[0].step == 2);
    CU_ASSERT_EQUAL(r->r[0].pass_hint, RS_PASS_FORWARD);
    /* a second file appends its ranks: two devices of one process, in device order; a range goes to
     * the device its thread launches on, a thread launching nothing loses its range */
    p = rs_test_path("two.json");
    rs_test_write_text(p, TWO_GPUS);
    CU_ASSERT_EQUAL_FATAL(rs_import_read_kineto(&raw, p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(raw.n_ranks, 3);
    CU_ASSERT_STRING_EQUAL(raw.gpu_name, "NVIDIA H200"); /* the first one seen */
    for (int d = 0; d < 2; d++) {
        r = &raw.ranks[1 + d];
        CU_ASSERT(r->device == d && r->rank_key == -1); /* distributedInfo's rank is the process's, not a device's */
        CU_ASSERT_EQUAL_FATAL(r->nk, 1);
        CU_ASSERT_EQUAL(r->k[0].start_ns, d == 0 ? 100125 : 100000);
        CU_ASSERT_EQUAL(r->k[0].launch_ns, d == 0 ? 99000 : 98000);
        CU_ASSERT_EQUAL_FATAL(r->nr, 1);
        CU_ASSERT_EQUAL(r->r[0].step, d == 0 ? 1 : 0); /* thread 101 launches on device 0 */
    }
    rs_raw_free(&raw);
}

RS_TEST(test_reader_refusals, "the reader's refusals") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    char msg[1300];
    const char *p = rs_test_path("other.json");
    rs_test_write_text(p, "{\"a\": [1, 2, 3]}");
    CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), -2); /* not a trace at all: the caller may skip it */
    snprintf(msg, sizeof msg, "%s: no \"traceEvents\" array: not a PyTorch profiler (Kineto) trace", p);
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    p = rs_test_path("cut.json");
    rs_test_write_text(p, "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1.0");
    rs_err_clear(&err);
    CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), -1);
    snprintf(msg, sizeof msg, "%s: truncated JSON: the text ends at byte 38 inside a value (", p); /* the whole text */
    if (strncmp(err.msg, msg, strlen(msg))) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT(strncmp(err.msg, msg, strlen(msg)) == 0);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    /* every number read is checked: its JSON type, finite and representable, its range; an event is
     * named by its index in traceEvents (traceEvents[1]: the kernel after a good one) */
    const char *const ts_bad[] = {"-5", "1e308", "\"abc\"", "null", "-0.0", "true"}, *const dur_bad[] = {"-400", "1e308", "true", "\"1\""};
    for (size_t i = 0; i < 10; i++) {
        const bool ts = i < 6;
        const char *lit = ts ? ts_bad[i] : dur_bad[i - 6];
        char text[1024];
        snprintf(text, sizeof text, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1},\n"
                 " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": %s, \"dur\": %s}]}\n", ts ? lit : "5", ts ? "1" : lit);
        p = rs_test_path("bad.json");
        rs_test_write_text(p, text);
        rs_err_clear(&err);
        CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), -1);
        snprintf(msg, sizeof msg, "%s: traceEvents[1]: %s %s: expected a number of microseconds in [0, %s]", p, ts ? "ts" : "dur", lit, ts ? "4e+15" : "8.64e+10");
        CU_ASSERT_STRING_EQUAL(err.msg, msg);
        CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    }
    /* a key missing, a container, an underflow, one kernel out of line; the base; a time on a
     * launch or a step range */
    const char *const texts[] = {
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"dur\": 1}]}",
        ": traceEvents[0]: ts missing: expected a number of microseconds in [0, 4e+15]",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"k\", \"ts\": 1}]}",
        ": traceEvents[0]: dur missing: expected a number of microseconds in [0, 8.64e+10]",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": [1], \"dur\": 1}]}",
        ": traceEvents[0]: ts an array or object: expected a number of microseconds in [0, 4e+15]",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1e-400, \"dur\": 1}]}",
        ": traceEvents[0]: ts 1e-400: not representable as a double (it underflows): expected a number of microseconds in [0, 4e+15]",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1}, 7,\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1.7e11, \"dur\": 1}]}",
        ": traceEvents[0] starts 170000 s (1.97 days) before traceEvents[2] ends: the kernels of one trace span at most 86400 s (24 h): a time out of line",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1, \"args\": {\"device\": -1}}]}",
        ": traceEvents[0]: args.device -1: expected an integer in [0, 65535]",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1, \"args\": {\"stream\": \"7\"}}]}",
        ": traceEvents[0]: args.stream \"7\": expected an integer in [0, 4294967295]",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 1, \"args\": {\"correlation\": 1.5}}]}",
        ": traceEvents[0]: args.correlation 1.5: expected an integer in [0, 4e+18]",
        "{\"baseTimeNanoseconds\": \"soon\", \"traceEvents\": []}", ": baseTimeNanoseconds \"soon\": expected an integer of nanoseconds in [0, 4e+18]",
        "{\"baseTimeNanoseconds\": -1, \"traceEvents\": []}", ": baseTimeNanoseconds -1: expected an integer of nanoseconds in [0, 4e+18]",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": \"x\", \"args\": {\"correlation\": 1}}]}",
        ": traceEvents[0]: ts \"x\": expected a number of microseconds in [0, 4e+15]",
        "{\"traceEvents\": [{}, {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ring step 1\", \"ts\": 1, \"dur\": -1}]}",
        ": traceEvents[1]: dur -1: expected a number of microseconds in [0, 8.64e+10]",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i += 2) {
        p = rs_test_path("bad2.json");
        rs_test_write_text(p, texts[i]);
        rs_err_clear(&err);
        CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), -1);
        snprintf(msg, sizeof msg, "%s%s", p, texts[i + 1]);
        CU_ASSERT_STRING_EQUAL(err.msg, msg);
    }
    /* a base written as a string of digits is read (and so is a kernel of an ignored category with
     * nonsense times: it is not read) */
    p = rs_test_path("base_text.json");
    rs_test_write_text(p, "{\"baseTimeNanoseconds\": \"1000\", \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, "
                          "\"dur\": 2}, {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f\", \"ts\": \"x\"}]}");
    rs_err_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rs_import_read_kineto(&raw, p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(raw.n_ranks, 1);
    CU_ASSERT(raw.ranks[0].nk == 1 && raw.ranks[0].k[0].start_ns == 2000 && raw.ranks[0].k[0].end_ns == 4000);
    rs_raw_free(&raw);
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    p = rs_test_path("nowhere.json");
    CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), -1);
    snprintf(msg, sizeof msg, "%s: cannot open: No such file or directory", p);
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
    CU_ASSERT_EQUAL(raw.n_ranks, 0);
    rs_raw_free(&raw);
}

RS_TEST(test_kineto_ranges, "Kineto with step ranges: every event, header, kernels") {
    fx_run_t run;
    const char *dir = it_kineto_dir("k_ranges", NULL, false, &run);
    rs_import_opts_t o = it_opts();
    rs_err_t err = {0};
    rs_import_t *im = it_import1(dir, &o, &err);
    if (!im) fprintf(stderr, "  %s\n", err.msg);
    it_check_import(&run, im, 0);
    CU_ASSERT(rs_import_info(im)->ranges);
    CU_ASSERT_EQUAL(rs_import_info(im)->format, RS_IMPORT_KINETO);
    CU_ASSERT_STRING_EQUAL(rs_import_info(im)->gpu_name, "NVIDIA H100 80GB HBM3");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(rs_import_trace(im, 0), "import.steps_from"), "ranges");
    rs_import_free(im);
    /* the same files with the ranges ignored: the launch order gives the same steps */
    o.use_ranges = false;
    im = it_import1(dir, &o, &err);
    it_check_import(&run, im, 0);
    CU_ASSERT(!rs_import_info(im)->ranges);
    rs_import_free(im);
    /* one pass asked for */
    o.n_passes = 1;
    o.passes[0] = RS_PASS_BACKWARD;
    im = it_import1(dir, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(im);
    CU_ASSERT_EQUAL(rs_import_n_traces(im), 1);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(rs_import_trace(im, 0), "pass"), "backward");
    rs_import_free(im);
    fx_free(&run);
}

RS_TEST(test_kineto_gzip_no_ranges_layers, "Kineto gzip without ranges, 3 ring passes, files out of order") {
    fx_opts_t fo;
    fx_opts_default(&fo);
    fo.ranges = false;
    fo.n_layers = 3;
    fo.filler = 5;
    fx_run_t run;
    const char *dir = it_kineto_dir("k_gz", &fo, true, &run);
    rs_err_t err = {0};
    for (int layer = 0; layer < 3; layer++) {
        rs_import_opts_t o = it_opts();
        o.occurrence = layer;
        rs_import_t *im = it_import1(dir, &o, &err);
        if (!im) fprintf(stderr, "  %s\n", err.msg);
        it_check_import(&run, im, layer);
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
    rs_import_opts_t o = it_opts();
    rs_import_t *im = rs_import_read(paths, 4, &o, &err);
    it_check_import(&run, im, 0);
    rs_import_free(im);
    fx_free(&run);
}

/* ringsim exec --launch threads: one process, one thread per GPU: every device is a rank. */
RS_TEST(test_event_groups, "each kernel's process group, through the reader's last-group cache: as the lookup finds it") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    /* groups alternating, the same text again, a description seen later, one name with other ranks */
    static const char *const pg[][3] = {{"1", "cp", "[0, 2]"}, {"0", "default_pg", "[0, 1, 2, 3]"}, {"1", "cp", "[0, 2]"}, {"1", "cp", "[0, 2]"},
                                        {"1", "cp", "[0, 4]"}, {"2", "", "[1, 3]"},            {"2", "dp", "[1, 3]"}, {"2", "", "[1, 3]"}};
    const size_t n = sizeof pg / sizeof pg[0];
    char text[8192] = "{\"traceEvents\": [";
    for (size_t i = 0; i < n; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv(x)\", \"ts\": %zu, \"dur\": 1, \"args\": "
                 "{\"device\": 0, \"Collective name\": \"send\", \"Process Group Name\": \"%s\", \"Process Group Description\": \"%s\", "
                 "\"Process Group Ranks\": \"%s\", \"Dst Rank\": \"2\", \"In msg nelems\": 4, \"dtype\": \"Float\"}}",
                 i ? ", " : "", 10 * i + 1, pg[i][0], pg[i][1], pg[i][2]);
    strcat(text, "]}");
    const char *p = rs_test_path("groups.json");
    rs_test_write_text(p, text);
    CU_ASSERT_EQUAL_FATAL(rs_import_read_kineto(&raw, p, &err), 0);
    CU_ASSERT_EQUAL_FATAL(raw.n_ranks, 1);
    CU_ASSERT_EQUAL_FATAL(raw.ranks[0].nk, n);
    CU_ASSERT_EQUAL(raw.n_groups, 4); /* '1' [0, 2], '0', '1' [0, 4], '2' [1, 3] */
    const uint32_t want[] = {0, 1, 0, 0, 2, 3, 3, 3};
    for (size_t i = 0; i < n; i++) {
        const rs_raw_kernel_t *k = &raw.ranks[0].k[i];
        CU_ASSERT_FATAL(k->comm != RS_RAW_NONE);
        const rs_raw_comm_t *c = &raw.comms[k->comm];
        CU_ASSERT_EQUAL(c->group, want[i]);
        CU_ASSERT(c->send_bytes == 16 && c->send_peer == 2);
        CU_ASSERT_STRING_EQUAL(raw.groups[c->group].name, pg[i][0]);
    }
    CU_ASSERT_STRING_EQUAL(raw.groups[3].desc, "dp"); /* the description seen later */
    CU_ASSERT(raw.groups[2].n == 2 && raw.groups[2].ranks[1] == 4);
    rs_raw_free(&raw);
}

/* A file of one NCCL send kernel (args ARGS) and one record_param_comms recv (RARGS), then the header
 * (after the events: what the ranks need is checked once the whole file is read; world NULL: no
 * world size). */
static int comm_file(const char *args, const char *rargs, const char *world, rs_raw_t *raw, rs_err_t *err) {
    char text[4096];
    snprintf(text, sizeof text,
             "{\"traceEvents\": [\n"
             " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv(x)\", \"ts\": 10, \"dur\": 2, \"args\": {\"device\": 0, "
             "\"grid\": [2, 1, 1], \"block\": [640, 1, 1], \"Collective name\": \"send\", \"Process Group Name\": \"1\", \"Process Group Ranks\": "
             "\"[0, 1, 2, 3]\", \"dtype\": \"BFloat16\", \"Group size\": 4, %s}},\n"
             " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"tid\": 5, \"ts\": 20, \"dur\": 1, \"args\": {\"Collective name\": "
             "\"recv\", \"Process Group Name\": \"1\", \"dtype\": \"Float\", %s}}],\n"
             " \"distributedInfo\": {\"rank\": 0%s%s}}\n",
             args, rargs, world ? ", \"world_size\": " : "", world ? world : "");
    const char *p = rs_test_path("comm.json");
    rs_test_write_text(p, text);
    rs_raw_free(raw);
    rs_err_clear(err);
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(raw, NULL, NULL, err), 0);
    return rs_import_read_kineto(raw, p, err);
}

/* One case of test_comm_args_strict's table (f: the args, the world size, the event, the message). */
static void comm_refused(char **f, void *raw) {
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(comm_file(f[0], f[1], f[2], raw, &err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: traceEvents[%s]: %s", rs_test_path("comm.json"), f[3], f[4]);
    if (strcmp(err.msg, want)) fprintf(stderr, "\n  %s\n  wanted %s\n", err.msg, want);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

RS_TEST(test_comm_args_strict, "NCCL arguments and the launch shape: read when right, each wrong one refused with its message") {
    rs_raw_t raw = {0};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    /* right: read as before (a peer as text, the message in elements of the dtype) */
    CU_ASSERT_EQUAL_FATAL(comm_file("\"In msg nelems\": 1024, \"Out msg nelems\": \"1024\", \"Dst Rank\": \"3\"", "\"In msg nelems\": 8, \"Src Rank\": 2", "4", &raw, &err), 0);
    CU_ASSERT_EQUAL_FATAL(raw.n_ranks, 1);
    CU_ASSERT_EQUAL_FATAL(raw.ranks[0].nk, 1);
    const rs_raw_kernel_t *x = &raw.ranks[0].k[0];
    CU_ASSERT(x->grid[0] == 2 && x->grid[1] == 1 && x->grid[2] == 1);
    CU_ASSERT_FATAL(x->comm != RS_RAW_NONE);
    CU_ASSERT(raw.comms[x->comm].send_peer == 3 && raw.comms[x->comm].send_bytes == 2048);
    CU_ASSERT(raw.groups[raw.comms[x->comm].group].n == 4);
    /* optional arguments absent: unknown, as before (no peer, no size, no shape) */
    CU_ASSERT_EQUAL_FATAL(comm_file("\"Rank\": 0", "\"Rank\": 0", "4", &raw, &err), 0);
    x = &raw.ranks[0].k[0];
    CU_ASSERT(raw.comms[x->comm].send_peer == -1 && raw.comms[x->comm].send_bytes == -1);
    /* a list the profiler cut: the group known by its name only */
    CU_ASSERT_EQUAL_FATAL(comm_file("\"Process Group Ranks\": \"[0, 1, ...]\", \"Dst Rank\": 1", "\"Src Rank\": 3", "4", &raw, &err), 0);
    CU_ASSERT(raw.groups[raw.comms[raw.ranks[0].k[0].comm].group].n == 0);
    /* no world size: the ranks are checked against their own range only */
    CU_ASSERT_EQUAL(comm_file("\"Dst Rank\": 70000", "\"Src Rank\": 3", NULL, &raw, &err), 0);
    /* each case: the kernel's args | the record_param_comms args | the world size | the event refused | its message */
    static const char bad[] =
        "\"In msg nelems\": -1 | \"Src Rank\": 1 | 4 | 0 | args.In msg nelems -1: expected an integer in [0, 9007199254740992]\n"
        "\"In msg nelems\": 1.5 | \"Src Rank\": 1 | 4 | 0 | args.In msg nelems 1.5: expected an integer in [0, 9007199254740992]\n"
        "\"In msg nelems\": 9007199254740993 | \"Src Rank\": 1 | 4 | 0 | args.In msg nelems 9007199254740993: expected an integer in [0, 9007199254740992]\n"
        "\"Out msg nelems\": \"many\" | \"Src Rank\": 1 | 4 | 0 | args.Out msg nelems \"many\": expected an integer in [0, 9007199254740992]\n"
        "\"Out msg nelems\": null | \"Src Rank\": 1 | 4 | 0 | args.Out msg nelems null: expected an integer in [0, 9007199254740992]\n"
        "\"Group size\": 0 | \"Src Rank\": 1 | 4 | 0 | args.Group size 0: expected an integer in [1, 16777216]\n"
        "\"Dst Rank\": -1 | \"Src Rank\": 1 | 4 | 0 | args.Dst Rank -1: expected an integer in [0, 16777215]\n"
        "\"Dst Rank\": true | \"Src Rank\": 1 | 4 | 0 | args.Dst Rank true: expected an integer in [0, 16777215]\n"
        "\"Dst Rank\": 1 | \"Src Rank\": [1] | 4 | 1 | args.Src Rank an array or object: expected an integer in [0, 16777215]\n"
        "\"Dst Rank\": 9 | \"Src Rank\": 1 | 4 | 0 | args.Dst Rank 9: beyond distributedInfo.world_size 4: expected a rank in [0, 3]\n"
        "\"Dst Rank\": 1 | \"Src Rank\": 4 | 4 | 1 | args.Src Rank 4: beyond distributedInfo.world_size 4: expected a rank in [0, 3]\n"
        "\"Dst Rank\": 1 | \"Src Rank\": 1 | 2 | 0 | args.Group size 4: more ranks than distributedInfo.world_size 2: expected at most 2\n"
        "\"Process Group Ranks\": \"[0, 1, 1, 3]\" | \"Src Rank\": 1 | 4 | 0 | args.Process Group Ranks \"[0, 1, 1, 3]\": rank 1 appears twice: expected a list of distinct ranks in [0, 16777215] (\"[0, 2, 4, 6]\")\n"
        "\"Process Group Ranks\": \"[0, one]\" | \"Src Rank\": 1 | 4 | 0 | args.Process Group Ranks \"[0, one]\": expected a list of distinct ranks in [0, 16777215] (\"[0, 2, 4, 6]\")\n"
        "\"Process Group Ranks\": [0, 1] | \"Src Rank\": 1 | 4 | 0 | args.Process Group Ranks an array or object: expected a non-empty string\n"
        "\"Dst Rank\": 1 | \"Process Group Ranks\": \"[0, 5]\", \"Src Rank\": 1 | 4 | 1 | args.Process Group Ranks (rank 5): beyond distributedInfo.world_size 4: expected a rank in [0, 3]\n"
        "\"Process Group Name\": 1 | \"Src Rank\": 1 | 4 | 0 | args.Process Group Name 1: expected a non-empty string\n"
        "\"dtype\": 2 | \"Src Rank\": 1 | 4 | 0 | args.dtype 2: expected a non-empty string\n"
        "\"Dst Rank\": 1 | \"Collective name\": 7 | 4 | 1 | args.Collective name 7: expected a non-empty string\n"
        "\"grid\": [2, 0, 1] | \"Src Rank\": 1 | 4 | 0 | args.grid[1] 0: expected an integer in [1, 2147483647]\n"
        "\"grid\": [-2, 1, 1] | \"Src Rank\": 1 | 4 | 0 | args.grid[0] -2: expected an integer in [1, 2147483647]\n"
        "\"grid\": [2, 1] | \"Src Rank\": 1 | 4 | 0 | args.grid: an array of 2 entries: expected an array of 3 integers (x, y, z), each in [1, 2147483647]\n"
        "\"grid\": [2, [1], 1] | \"Src Rank\": 1 | 4 | 0 | args.grid[1] an array or object: expected an integer in [1, 2147483647]\n"
        "\"grid\": {\"x\": 2} | \"Src Rank\": 1 | 4 | 0 | args.grid an array or object: expected an array of 3 integers (x, y, z), each in [1, 2147483647]\n"
        "\"block\": [128, 1, 0] | \"Src Rank\": 1 | 4 | 0 | args.block[2] 0: expected an integer in [1, 1024]\n"
        "\"grid\": [64, 1.5, 1] | \"Src Rank\": 1 | 4 | 0 | args.grid[1] 1.5: expected an integer in [1, 2147483647]\n"
        "\"grid\": [64, 1, \"1\"] | \"Src Rank\": 1 | 4 | 0 | args.grid[2] \"1\": expected an integer in [1, 2147483647]\n"
        "\"grid\": [64, 2147483648, 1] | \"Src Rank\": 1 | 4 | 0 | args.grid[1] 2147483648: expected an integer in [1, 2147483647]\n"
        "\"grid\": [64, 1, 1, 1] | \"Src Rank\": 1 | 4 | 0 | args.grid: an array of 4 entries: expected an array of 3 integers (x, y, z), each in [1, 2147483647]\n"
        "\"block\": [1025, 1, 1] | \"Src Rank\": 1 | 4 | 0 | args.block[0] 1025: expected an integer in [1, 1024]\n";
    tc_table(bad, 5, comm_refused, &raw);
    /* the header's own group lists */
    const char *p = rs_test_path("pg.json");
    rs_test_write_text(p, "{\"distributedInfo\": {\"world_size\": 4, \"pg_config\": [{\"pg_name\": \"0\", \"ranks\": [0, 1, 2, 3]}, "
                          "{\"pg_name\": \"1\", \"ranks\": [0, 2, 2]}]}, \"traceEvents\": []}");
    rs_raw_free(&raw);
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: distributedInfo.pg_config[1].ranks: rank 2 appears twice: expected a list of distinct ranks in [0, 16777215] "
             "(\"[0, 2, 4, 6]\")", p);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    rs_test_write_text(p, "{\"distributedInfo\": {\"world_size\": 4, \"pg_config\": [{\"pg_name\": \"0\", \"ranks\": [0, 1, 2, 7]}]}, \"traceEvents\": []}");
    rs_err_clear(&err);
    CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), -1);
    snprintf(want, sizeof want, "%s: distributedInfo.pg_config[0].ranks (rank 7): beyond distributedInfo.world_size 4: expected a rank in [0, 3]", p);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    rs_test_write_text(p, "{\"distributedInfo\": {\"pg_config\": [{\"pg_name\": \"0\", \"ranks\": [0, -1]}]}, \"traceEvents\": []}");
    rs_err_clear(&err);
    CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), -1);
    snprintf(want, sizeof want, "%s: distributedInfo.pg_config[0].ranks: an entry -1: expected a list of distinct ranks in [0, 16777215]", p);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    /* the header's rank and world size */
    const char *const hdr[][2] = {
        {"{\"distributedInfo\": {\"rank\": 4, \"world_size\": 4}, \"traceEvents\": []}",
         "distributedInfo.rank 4: beyond distributedInfo.world_size 4: expected a rank in [0, 3]"},
        {"{\"traceEvents\": [], \"distributedInfo\": {\"rank\": 0, \"world_size\": \"eight\"}}",
         "distributedInfo.world_size \"eight\": expected an integer in [1, 16777216]"},
        {"{\"distributedInfo\": {\"rank\": -1, \"world_size\": 4}, \"traceEvents\": []}", "distributedInfo.rank -1: expected an integer in [0, 16777215]"},
        {"{\"distributedInfo\": {\"rank\": [0], \"world_size\": 4}, \"traceEvents\": []}",
         "distributedInfo.rank an array or object: expected an integer in [0, 16777215]"},
    };
    for (size_t i = 0; i < sizeof hdr / sizeof hdr[0]; i++) {
        rs_test_write_text(p, hdr[i][0]);
        rs_err_clear(&err);
        CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), -1);
        snprintf(want, sizeof want, "%s: %s", p, hdr[i][1]);
        CU_ASSERT_STRING_EQUAL(err.msg, want);
    }
    /* a header's list longer than the reader keeps: the group by its name only */
    {
        static char big[6 * RS_TEST_BIG_GROUP + 256];
        size_t n = (size_t)snprintf(big, sizeof big, "{\"distributedInfo\": {\"pg_config\": [{\"pg_name\": \"0\", \"ranks\": [");
        for (int r = 0; r < RS_TEST_BIG_GROUP; r++) n += (size_t)snprintf(big + n, sizeof big - n, "%s%d", r ? "," : "", r);
        snprintf(big + n, sizeof big - n, "]}]}, \"traceEvents\": []}");
        rs_test_write_text(p, big);
        rs_raw_free(&raw);
        CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
        CU_ASSERT_EQUAL(rs_import_read_kineto(&raw, p, &err), 0);
        CU_ASSERT(raw.n_groups == 1 && raw.groups[0].n == 0);
    }
    rs_raw_free(&raw);
}

RS_TEST(test_one_process, "one process driving 4 GPUs") { it_check_one_process(false); }

/* Broken files through the import: one line naming the file. */
RS_TEST(test_bad_files, "broken files: one line naming the file") {
    rs_import_opts_t o = it_opts();
    fx_run_t run;
    const char *dir = it_kineto_dir("bad_ok", NULL, false, &run);
    /* truncated JSON, in the middle of an event */
    const char *cut = rs_test_fresh_dir("bad_cut");
    char p[1100];
    for (int r = 0; r < 4; r++) {
        char src[1100];
        snprintf(src, sizeof src, "%s/rank%d.pt.trace.json", dir, r);
        snprintf(p, sizeof p, "%s/rank%d.pt.trace.json", cut, r);
        it_truncate_copy(src, p, r == 2 ? rs_test_file_size(src) / 2 : rs_test_file_size(src));
    }
    it_expect_fail(cut, &o, "rank2.pt.trace.json: truncated JSON", RS_ERR_BAD_INPUT);
    /* gzip cut short */
    const char *gz = rs_test_fresh_dir("bad_gz");
    CU_ASSERT_EQUAL_FATAL(fx_write_kineto(&run, gz, true, 0), 0);
    char gz1[1100];
    snprintf(gz1, sizeof gz1, "%s/rank1.pt.trace.json.gz", gz);
    it_truncate_copy(gz1, rs_test_path("cut.json.gz"), rs_test_file_size(gz1) - 40);
    it_expect_fail(rs_test_path("cut.json.gz"), &o, "cut.json.gz: truncated", RS_ERR_BAD_INPUT);
    /* not JSON, not a trace */
    rs_test_write_text(rs_test_path("notjson.json"), "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": 1.0, } ]}");
    it_expect_fail(rs_test_path("notjson.json"), &o, "notjson.json: not valid JSON at byte", RS_ERR_BAD_INPUT);
    rs_test_write_text(rs_test_path("other.json"), "{\"a\": [1, 2, 3]}");
    it_expect_fail(rs_test_path("other.json"), &o, "other.json: no \"traceEvents\" array", RS_ERR_BAD_INPUT);
    fx_free(&run);
}

RS_TEST_PROGRAM_IN("import_kineto")
