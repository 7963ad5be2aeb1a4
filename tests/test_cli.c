/* test_cli.c - `ringsim model` end to end: output against the library, bad input (exit 2, one line
 * naming the parameter, no output file), --help, CSV/JSON/trace outputs. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw.h"
#include "model.h"
#include "test_main.h"
#include "trace.h"

#define RINGSIM RS_BINARY_DIR "/bin/ringsim"

static char out_buf[1 << 16], err_buf[1 << 14];
static char tmpdir[256];

/* Run `ringsim ARGS` (a shell word list); capture stdout/stderr; return the exit code. */
static int run(const char *args) {
    char cmd[2048], so[300], se[300];
    snprintf(so, sizeof so, "%s/stdout", tmpdir);
    snprintf(se, sizeof se, "%s/stderr", tmpdir);
    snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", RINGSIM, args, so, se);
    int st = system(cmd);
    FILE *f = fopen(so, "r");
    size_t n = f ? fread(out_buf, 1, sizeof out_buf - 1, f) : 0;
    out_buf[n] = 0;
    if (f) fclose(f);
    f = fopen(se, "r");
    n = f ? fread(err_buf, 1, sizeof err_buf - 1, f) : 0;
    err_buf[n] = 0;
    if (f) fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void expect_usage_error(const char *args, const char *needle) {
    char path[512], full[1024];
    snprintf(path, sizeof path, "%s/never.csv", tmpdir);
    snprintf(full, sizeof full, "model %s --csv %s", args, path);
    int rc = run(full);
    CU_ASSERT_EQUAL(rc, 2);
    if (!strstr(err_buf, needle)) fprintf(stderr, "  stderr '%s' lacks '%s'\n", err_buf, needle);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_buf, needle));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_buf, "ringsim model: "));
    /* exactly one line */
    char *nl = strchr(err_buf, '\n');
    CU_ASSERT(nl != NULL && nl[1] == 0);
    CU_ASSERT(!exists(path));
}

static void test_bad_input(void) {
    expect_usage_error("--ranks 0", "--ranks 0: must be in [1,");
    expect_usage_error("--seq 1000", "--seq 1000: must be divisible by 2*N = 16 for the zigzag layout");
    expect_usage_error("--layout contiguous --seq 1001", "--seq 1001: must be divisible by N = 8");
    expect_usage_error("--heads 6 --kv-heads 4", "--heads 6: must be a multiple of --kv-heads 4");
    expect_usage_error("--flops nan", "--flops nan: must be finite");
    expect_usage_error("--bw -5", "--bw -5: must be in");
    expect_usage_error("--bw inf", "--bw inf: must be finite");
    expect_usage_error("--seq 3G --batch 64", "overflows 64 bits");
    expect_usage_error("--seq 12Q", "--seq 12Q: unknown suffix");
    expect_usage_error("--layout diagonal", "--layout diagonal: expected contiguous, striped, zigzag");
    expect_usage_error("--overlap 1.5", "--overlap 1.5: must be in [0, 1]");
    expect_usage_error("--host-cost -1", "--host-cost -1: must be in [0, 10]");
    expect_usage_error("--host-cost 1e-6:x", "--host-cost (per byte) x: not a number");
    expect_usage_error("--host-cost :3", "--host-cost :3: expected S or S:S_PER_BYTE");
    expect_usage_error("--straggler 9:2", "straggler rank 9");
    expect_usage_error("--profile no-such-gpu", "no-such-gpu");
    expect_usage_error("--bogus", "unknown option");
}

static void test_help_lists_options_with_defaults(void) {
    CU_ASSERT_EQUAL(run("model --help"), 0);
    const char *must[] = {"--seq", "[128K]", "--ranks", "--kv-heads", "--layout", "--pass", "--tile", "--profile",
                          "[h100-sxm]", "--flops", "--bw", "--latency", "--csv", "--json", "--trace", "--chrome"};
    for (unsigned i = 0; i < sizeof must / sizeof must[0]; i++) {
        if (!strstr(out_buf, must[i])) fprintf(stderr, "  --help lacks %s\n", must[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(out_buf, must[i]));
    }
}

/* The CSV equals what the library computes for the same problem and profile. */
static void csv_matches_library(const char *extra, double host_o, double host_per_byte) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "model --csv - --seq 64K --ranks 16 --layout all --pass both%s", extra);
    CU_ASSERT_EQUAL_FATAL(run(cmd), 0);
    rs_hw_t hw;
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    m.host_s_per_xfer = host_o, m.host_s_per_byte = host_per_byte;
    char *save = NULL, *line = strtok_r(out_buf, "\n", &save); /* header */
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "makespan_s"));
    int rows = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char layout[32], pass[32], bound[32];
        long long s, n, b;
        double tc, tm, ts, mk, cmk, eff;
        CU_ASSERT_EQUAL_FATAL(sscanf(line, "%31[^,],%31[^,],%lld,%lld,%lld,%lf,%lf,%31[^,],%lf,%lf,%lf,%lf", layout,
                                     pass, &s, &n, &b, &tc, &tm, bound, &ts, &mk, &cmk, &eff), 12);
        rs_problem_t p;
        rs_problem_default(&p);
        p.seq_tokens = 65536;
        p.n_ranks = 16;
        CU_ASSERT_EQUAL(rs_layout_parse(layout, &p.layout), 0);
        CU_ASSERT_EQUAL(rs_pass_parse(pass, &p.pass), 0);
        rs_schedule_t *sch = rs_schedule_create(&p, NULL);
        rs_closed_t c;
        rs_walk_t w;
        rs_model_closed(&p, &m, &c, NULL);
        rs_model_walk(sch, &m, NULL, NULL, &w, NULL);
        RS_ASSERT_REL(tc, c.t_comp_s, 1e-15);
        RS_ASSERT_REL(tm, c.t_comm_s, 1e-15);
        RS_ASSERT_REL(mk, w.makespan_s, 1e-15);
        RS_ASSERT_REL(eff, w.efficiency, 1e-15);
        rs_schedule_free(sch);
        rows++;
    }
    CU_ASSERT_EQUAL(rows, 6);
}

static void test_csv_matches_library(void) {
    csv_matches_library("", 0, 0);
    csv_matches_library(" --host-cost 2e-5:1e-12", 2e-5, 1e-12); /* the option reaches the model */
}

static void test_json_and_traces(void) {
    char args[1024], path[512];
    CU_ASSERT_EQUAL_FATAL(run("model --json - --layout zigzag --pass forward"), 0);
    json_error_t jerr;
    json_t *root = json_loads(out_buf, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *e = json_array_get(json_object_get(root, "entries"), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "layout")), "zigzag");
    /* H100 + Llama-3-8B attention: B_min = 989e12 / 450e9 / 4 */
    RS_ASSERT_REL(json_real_value(json_object_get(e, "b_min_tokens")), 989e12 / 450e9 / 4, 1e-12);
    json_decref(root);

    /* a predicted trace per entry; it reads back and holds every rank's steps */
    snprintf(args, sizeof args, "model --ranks 4 --seq 8K --layout zigzag,striped --pass backward --trace %s/t.csv "
                                "--chrome %s/t.json", tmpdir, tmpdir);
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    snprintf(path, sizeof path, "%s/t-striped-backward.csv", tmpdir);
    rs_err_t err;
    rs_trace_t *t = rs_trace_read_csv(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* backward N = 4: 5 steps x 4 ranks step events, 4 x 4 compute, 5 x 4 x (send + recv) */
    CU_ASSERT_EQUAL(rs_trace_count(t), 20 + 16 + 40);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "layout"), "striped");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "hw"), "H100-SXM");
    rs_trace_free(t);
    snprintf(path, sizeof path, "%s/t-zigzag-backward.json", tmpdir);
    CU_ASSERT(exists(path));
}

/* --impl, --kernel, --flops; fallback notes once on stderr; a bad kernels section names file:line. */
static void test_kernel_options(void) {
    expect_usage_error("--impl bogus", "--impl bogus: expected ringsim, flash-attn, te or none");
    expect_usage_error("--impl te --kernel nope",
                       "--kernel nope: profile H100-SXM has no such kernel (its kernels: flash-attn-2, flash-attn-3, cudnn, ringsim-mma)");
    expect_usage_error("--profile a100-sxm --impl ringsim", "--impl ringsim: profile A100-SXM names no kernel for it");
    expect_usage_error("--kernel cudnn --impl none", "--kernel cudnn: needs an implementation preset");
    /* a curve of one point */
    char path[512], args[1024];
    snprintf(path, sizeof path, "%s/bad-kernels.json", tmpdir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\n  \"name\": \"x\",\n  \"device\": {\"flops_per_s\": {\"bf16\": 1e15}, \"memory_bytes\": 8e10, "
          "\"memory_bw_bytes_per_s\": 3e12, \"devices_per_node\": 8},\n  \"tiers\": {\"intra\": \"nvlink4\"},\n"
          "  \"kernels\": {\"list\": [{\"name\": \"k\", \"curves\": [\n    {\"dtype\": \"bf16\", \"head_dim\": 128, "
          "\"pass\": \"forward\", \"mask\": \"full\", \"points\": [[512, 512, 1e14]]}]}]}\n}\n", f);
    fclose(f);
    snprintf(args, sizeof args, "--profile %s", path);
    char want[700];
    snprintf(want, sizeof want, "%s:6:75: kernels.list[0].curves[0].points: needs 2 to 24 points", path);
    expect_usage_error(args, want);
    /* the default (flash-attn on H100-SXM): one note line for the curves' fallbacks */
    CU_ASSERT_EQUAL_FATAL(run("model --layout striped --pass forward --seq 64K"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_buf, "ringsim: note: kernel flash-attn-2 has no forward shifted curve: using its causal curve"));
    char *nl = strchr(err_buf, '\n');
    CU_ASSERT(nl != NULL && nl[1] == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_buf, "# compute: the attention steps as the flash-attn preset issues its calls, at kernel flash-attn-2"));
    /* --flops alone: the dense peak, no note */
    CU_ASSERT_EQUAL_FATAL(run("model --flops 989e12 --layout zigzag --pass forward"), 0);
    CU_ASSERT_STRING_EQUAL(err_buf, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(out_buf, "# compute: the attention steps at the dense peak F x eff(B) = 989 TFLOP/s"));
    /* --impl te: the cudnn kernel, dK,dV in bf16 on the wire (JSON and the library agree) */
    CU_ASSERT_EQUAL_FATAL(run("model --impl te --json - --layout zigzag --pass backward --seq 64K"), 0);
    json_error_t jerr;
    json_t *root = json_loads(out_buf, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(root, "impl")), "te");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(root, "kernel")), "cudnn");
    json_t *e = json_array_get(json_object_get(root, "entries"), 0);
    rs_hw_t hw;
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    m.impl = RS_IMPL_TE, m.kernel = hw.kernels.impl_kernel[RS_IMPL_TE];
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 65536, p.pass = RS_PASS_BACKWARD, p.grad_bytes = 2;
    rs_closed_t c;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &c, NULL), 0);
    RS_ASSERT_REL(json_real_value(json_object_get(e, "t_comm_s")), c.t_comm_s, 1e-15);
    RS_ASSERT_REL(json_real_value(json_object_get(e, "t_comp_s")), c.t_comp_s, 1e-15);
    RS_ASSERT_REL(c.t_comm_s, 3e-6 + (65536.0 / 8) * 2 * 128 * 8 * (2 + 2) / 450e9, 1e-12); /* K,V + dK,dV in bf16 */
    json_decref(root);
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ringsim-test-cli-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    static const rs_test_case_t cases[] = {
        {"bad input: exit 2, one line, no output file", test_bad_input},
        {"--help lists every option with its default", test_help_lists_options_with_defaults},
        {"CSV equals the library's closed form and walk", test_csv_matches_library},
        {"JSON and predicted traces", test_json_and_traces},
        {"--impl, --kernel, --flops, notes, bad kernels input", test_kernel_options},
        {NULL, NULL}};
    static const rs_test_suite_t suites[] = {{"ringsim model", cases}};
    int rc = rs_test_main(suites, 1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
