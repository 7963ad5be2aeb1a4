/* test_cmd_model.c - `ringsim model` end to end: output against the library, bad input (exit 2, one line
 * naming the parameter, no output file), --help, CSV/JSON/trace outputs. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machine.h"
#include "setup.h"
#include "cost.h"
#include "test_main.h"
#include "cmd_test.h"
#include "harness.h"
#include "trace.h"

static void expect_usage_error(const char *args, const char *needle) {
    const char *path = rs_test_path("never.csv");
    char full[2048];
    snprintf(full, sizeof full, "model %s --csv %s", args, path);
    int rc = rs_test_ringsim(full);
    CU_ASSERT_EQUAL(rc, 2);
    if (!strstr(rs_test_err, needle)) fprintf(stderr, "  stderr '%s' lacks '%s'\n", rs_test_err, needle);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, needle));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "ringsim model: "));
    /* exactly one line */
    char *nl = strchr(rs_test_err, '\n');
    CU_ASSERT(nl != NULL && nl[1] == 0);
    CU_ASSERT(rs_test_file_size(path) < 0);
}

RS_TEST(test_bad_input, "bad input: exit 2, one line, no output file") {
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
    expect_usage_error("--host-cost -1", "--host-cost -1: seconds per transfer must be a number in [0, 10], got '-1'");
    expect_usage_error("--host-cost 1e-6:x", "--host-cost 1e-6:x: seconds per byte must be a number in [0, 0.001], got 'x'");
    expect_usage_error("--host-cost :3", "--host-cost :3: expected S or S:S_PER_BYTE");
    expect_usage_error("--straggler 9:2", "--straggler 9:2: rank 9 must be in [0, 7] (N = 8 ranks)");
    expect_usage_error("--straggler 09:2.0", "--straggler 09:2.0: rank 9 must be in [0, 7]"); /* the value as given */
    expect_usage_error("--profile no-such-gpu", "--profile no-such-gpu: unknown hardware profile 'no-such-gpu'");
    expect_usage_error("--inter no-such-tier", "--inter no-such-tier: unknown tier 'no-such-tier'");
    expect_usage_error("--bogus", "unknown option");
    expect_usage_error("-zN 4", "unknown option '-z'");               /* not the argument before the cluster */
    expect_usage_error("--causal=1", "option '--causal' takes no value");
    /* the inference variants (docs/inference.md) */
    expect_usage_error("--cached 1000", "--cached 1000: must be divisible by 2*N = 16: the cache is sharded by the zigzag layout");
    expect_usage_error("--layout striped --cached 4100", "--cached 4100: must be divisible by N = 8");
    expect_usage_error("--pass decode --no-causal --cached 64K", "--pass decode: needs the causal mask");
    expect_usage_error("--pass decode --ring pass-kv --cached 64K", "--pass decode: runs as --ring pass-q");
    expect_usage_error("--cached 64K --pass backward", "--cached 65536: a KV cache is an inference input");
    expect_usage_error("--ring pass-x", "--ring pass-x: expected pass-kv");
}

RS_TEST(test_help_lists_options_with_defaults, "--help lists every option with its default") {
    CU_ASSERT_EQUAL(rs_test_ringsim("model --help"), 0);
    const char *must[] = {"--seq", "[128K]", "--ranks", "--kv-heads", "--layout", "--pass", "--tile", "--profile",
                          "[h100-sxm]", "--flops", "--bw", "--latency", "--csv", "--json", "--trace", "--chrome"};
    for (unsigned i = 0; i < sizeof must / sizeof must[0]; i++) {
        if (!strstr(rs_test_out, must[i])) fprintf(stderr, "  --help lacks %s\n", must[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, must[i]));
    }
}

/* The CSV equals what the library computes for the same problem and profile. */
static void csv_matches_library(const char *extra, double host_o, double host_per_byte) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "model --csv - --seq 64K --ranks 16 --layout all --pass both%s", extra);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(cmd), 0);
    rs_hw_t hw;
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    m.cal.host_s_per_xfer = host_o, m.cal.host_s_per_byte = host_per_byte;
    char *save = NULL, *line = strtok_r(rs_test_out, "\n", &save); /* header */
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "makespan_s"));
    int rows = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char layout[32], pass[32], bound[32];
        long long s, n, b;
        double tc, tm, ts, mk, cmk, ovl, bal, frac, load;
        CU_ASSERT_EQUAL_FATAL(sscanf(line, "%31[^,],%31[^,],%lld,%lld,%lld,%lf,%lf,%31[^,],%lf,%lf,%lf,%lf,%lf,%lf,%lf", layout,
                                     pass, &s, &n, &b, &tc, &tm, bound, &ts, &mk, &cmk, &ovl, &bal, &frac, &load), 15);
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
        rs_model_walk(sch, &m, RS_NO_SINK, NULL, &w, NULL);
        RS_ASSERT_REL(tc, c.t_comp_s, 1e-15);
        RS_ASSERT_REL(tm, c.t_comm_s, 1e-15);
        RS_ASSERT_REL(mk, w.makespan_s, 1e-15);
        RS_ASSERT_REL(ovl, c.t_comp_s / c.t_step_s, 1e-15);
        RS_ASSERT_REL(bal, w.busy_mean_s / w.makespan_s, 1e-12);
        RS_ASSERT_REL(frac, (double)w.flops_useful / (16 * w.peak_flops_per_s * w.makespan_s), 1e-15);
        RS_ASSERT_REL(load, w.busy_mean_s / w.busy_max_s, 1e-12);
        rs_schedule_free(sch);
        rows++;
    }
    CU_ASSERT_EQUAL(rows, 6);
}

RS_TEST(test_csv_matches_library, "CSV equals the library's closed form and walk") {
    csv_matches_library("", 0, 0);
    csv_matches_library(" --host-cost 2e-5:1e-12", 2e-5, 1e-12); /* the option reaches the model */
}

RS_TEST(test_json_and_traces, "JSON and predicted traces") {
    char args[4096];
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("model --json - --layout zigzag --pass forward"), 0);
    json_error_t jerr;
    json_t *root = json_loads(rs_test_out, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *e = json_array_get(json_object_get(root, "entries"), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "layout")), "zigzag");
    /* H100 + Llama-3-8B attention: B_min = 989e12 / (450e9 x 0.822) / 4 (NVLink 4 at the rate p2p reaches) */
    RS_ASSERT_REL(json_real_value(json_object_get(e, "b_min_tokens")), 989e12 / (450e9 * 0.822) / 4, 1e-12);
    json_decref(root);

    /* a predicted trace per entry; it reads back and holds every rank's steps */
    snprintf(args, sizeof args, "model --ranks 4 --seq 8K --layout zigzag,striped --pass backward --trace %s --chrome %s",
             rs_test_path("t.csv"), rs_test_path("t.json"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    rs_err_t err;
    rs_trace_t *t = rs_trace_read_csv(rs_test_path("t-striped-backward.csv"), &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* backward N = 4: 5 steps x 4 ranks step events, 4 x 4 compute, 5 x 4 x (send + recv) */
    CU_ASSERT_EQUAL(rs_trace_count(t), 20 + 16 + 40);
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "layout"), "striped");
    CU_ASSERT_STRING_EQUAL(rs_trace_get_meta(t, "hw"), "H100-SXM");
    rs_trace_free(t);
    CU_ASSERT(rs_test_file_size(rs_test_path("t-zigzag-backward.json")) >= 0);
}

/* --impl, --kernel, --flops; fallback notes once on stderr; a bad kernels section names file:line. */
RS_TEST(test_kernel_options, "--impl, --kernel, --flops, notes, bad kernels input") {
    expect_usage_error("--impl bogus", "--impl bogus: expected ringsim, flash-attn, te or none");
    expect_usage_error("--impl te --kernel nope",
                       "--kernel nope: profile H100-SXM has no such kernel (its kernels: flash-attn-2, flash-attn-3, cudnn, ringsim-mma)");
    expect_usage_error("--profile a100-sxm --impl ringsim", "--impl ringsim: profile A100-SXM names no kernel for it");
    expect_usage_error("--kernel cudnn --impl none", "--kernel cudnn: needs an implementation preset");
    /* a curve without points */
    char path[512], args[1024];
    snprintf(path, sizeof path, "%s", rs_test_path("bad-kernels.json"));
    rs_test_write_text(path, "{\n  \"name\": \"x\",\n  \"device\": {\"flops_per_s\": {\"bf16\": 1e15}, \"memory_bytes\": 8e10, "
          "\"memory_bw_bytes_per_s\": 3e12, \"devices_per_node\": 8},\n  \"tiers\": {\"intra\": \"nvlink4\"},\n"
          "  \"kernels\": {\"list\": [{\"name\": \"k\", \"curves\": [\n    {\"dtype\": \"bf16\", \"head_dim\": 128, "
          "\"pass\": \"forward\", \"mask\": \"full\", \"points\": []}]}]}\n}\n");
    snprintf(args, sizeof args, "--profile %s", path);
    char want[700];
    snprintf(want, sizeof want, "%s:6:75: kernels.list[0].curves[0].points: needs 1 to 24 points", path);
    expect_usage_error(args, want);
    /* the default (flash-attn on H100-SXM): one note line for the curves' fallbacks */
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("model --layout striped --pass forward --seq 64K"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "ringsim: note: kernel flash-attn-2 has no forward shifted curve: using its causal curve"));
    char *nl = strchr(rs_test_err, '\n');
    CU_ASSERT(nl != NULL && nl[1] == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# compute: the attention steps as the flash-attn preset issues its calls, at kernel flash-attn-2"));
    /* --flops alone: the dense peak, no note */
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("model --flops 989e12 --layout zigzag --pass forward"), 0);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# compute: the attention steps at the user-given --flops 989 TFLOP/s x eff(B) (the dense model)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# rates: attention user-given (--flops 989 TFLOP/s x eff...)"));
    /* --impl te: the cudnn kernel, dK,dV in bf16 on the wire (JSON and the library agree) */
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("model --impl te --json - --layout zigzag --pass backward --seq 64K"), 0);
    json_error_t jerr;
    json_t *root = json_loads(rs_test_out, 0, &jerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(root, "impl")), "te");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(root, "kernel")), "cudnn");
    json_t *e = json_array_get(json_object_get(root, "entries"), 0);
    rs_hw_t hw;
    rs_machine_t m;
    CU_ASSERT_EQUAL_FATAL(rs_hw_load("h100-sxm", &hw, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_from_hw(&hw, RS_DTYPE_BF16, &m, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(rs_machine_set_kernel(&m, RS_IMPL_TE, hw.kernels.impl_kernel[RS_IMPL_TE], NULL), 0);
    rs_problem_t p;
    rs_problem_default(&p);
    p.seq_tokens = 65536, p.pass = RS_PASS_BACKWARD, p.grad_bytes = 2;
    rs_closed_t c;
    CU_ASSERT_EQUAL_FATAL(rs_model_closed(&p, &m, &c, NULL), 0);
    RS_ASSERT_REL(json_real_value(json_object_get(e, "t_comm_s")), c.t_comm_s, 1e-15);
    RS_ASSERT_REL(json_real_value(json_object_get(e, "t_comp_s")), c.t_comp_s, 1e-15);
    RS_ASSERT_REL(c.t_comm_s, 3e-6 + (65536.0 / 8) * 2 * 128 * 8 * (2 + 2) / (450e9 * 0.822), 1e-12); /* K,V + dK,dV in bf16 */
    json_decref(root);
}

/* pass-q without a cache runs (exit 0) and says its pass-kv equivalent on stderr; an inference
 * problem runs the forward only; its trace header names the variant and reads back. */
/* As a terminal shows a run: the curves' note once, before the table's first line; a refusal made
 * after the rates are resolved (the run's size against --max-time) alone, with no note and no warning
 * of --allow-implausible before it. */
RS_TEST(test_notes_before_table, "the notes once before the table, a refused run one line") {
    rs_cmd_expect_notes_first("model -L zigzag -P forward", "# ringsim model: S=131072 N=8 ");
    rs_cmd_expect_notes_first("model -L all -P both --csv m.csv", "# ringsim model: S=131072 N=8 ");
    rs_cmd_expect_notes_first("model -L zigzag -P forward --csv -", "layout,pass,seq_tokens,");
    const char *big = "this run: an estimated 1.8e+11 rank-steps would take about 90 min";
    rs_cmd_expect_refused_alone("model -N 100000 -S 200000", big);
    rs_cmd_expect_refused_alone("model --flops 2000T --allow-implausible -N 100000 -S 200000", big);
    /* the warning is said once, with the notes, when the run goes on */
    char *t = NULL;
    CU_ASSERT_EQUAL(rs_cmd_tty("model --flops 2000T --allow-implausible -L zigzag -P forward", &t), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(strncmp(t, "ringsim model: warning: --flops 2e+15: above H100-SXM's datasheet bf16 peak", 75), 0);
    const char *nl = strchr(t, '\n');
    CU_ASSERT_FATAL(nl != NULL);
    CU_ASSERT_PTR_NULL(strstr(nl, "warning:"));
    CU_ASSERT_EQUAL(strncmp(nl + 1, "# ringsim model: ", 17), 0);
    free(t);
}

RS_TEST(test_inference_runs, "inference: pass-q note, forward only, trace header") {
    CU_ASSERT_EQUAL(rs_test_ringsim("model --ring pass-q -L zigzag"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "note: --ring pass-q without a cache (--cached 0): the same FLOPs as --ring pass-kv"));
    CU_ASSERT_PTR_NULL(strstr(rs_test_out, "zigzag     backward"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "zigzag     forward"));
    char args[1024];
    snprintf(args, sizeof args, "model -N 4 -S 8K --cached 64K --ring pass-q -L zigzag --trace %s", rs_test_path("q.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# inference: pass-q, P=65536 cached tokens"));
    rs_err_t err;
    rs_trace_t *t = rs_trace_read_csv(rs_test_path("q.csv"), &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    rs_problem_t p;
    CU_ASSERT_EQUAL(rs_trace_problem(t, &p, &err), 0);
    CU_ASSERT_EQUAL(p.ring, RS_RING_PASS_Q);
    CU_ASSERT_EQUAL(p.cached_tokens, 65536);
    CU_ASSERT(!p.decode);
    /* N = 4: 5 steps x 4 ranks step events, 4 x 4 compute, 3 x 4 x (send + recv) Q, 4 x (send + recv) return */
    CU_ASSERT_EQUAL(rs_trace_count(t), 20 + 16 + 24 + 8);
    rs_trace_free(t);
}

/* The index of column name in a CSV header line (-1: none). */
static int csv_column(const char *header, const char *name) {
    int i = 0;
    const size_t n = strlen(name);
    for (const char *f = header; f; f = strchr(f, ','), f = f ? f + 1 : NULL, i++)
        if (!strncmp(f, name, n) && (f[n] == ',' || f[n] == '\n' || f[n] == '\0')) return i;
    return -1;
}

/* Field i of a CSV line as a number ("nan" reads as NaN). */
static double csv_field(const char *line, int i) {
    const char *f = line;
    for (int k = 0; k < i && f; k++) f = strchr(f, ','), f = f ? f + 1 : NULL;
    return f ? strtod(f, NULL) : NAN;
}

/* The ranges the table's comment lines print, in the CSV and the JSON: each column equals the
 * library's closed form and walk of the same problem on the machine at the point, --bound fast and
 * --bound slow (rs_machine_spec_build), and the JSON's fields of the same names equal the CSV's. */
RS_TEST(test_ranges_csv_json, "the ranges (B_fixed, --bound fast / slow) in the CSV and the JSON") {
    const char *args = "model -S 64K -N 8 -L contiguous,zigzag -P both";
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --csv - ", args);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(cmd), 0);
    char *csv = strdup(rs_test_out);
    snprintf(cmd, sizeof cmd, "%s --json - ", args);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(cmd), 0);
    json_error_t jerr;
    json_t *root = json_loads(rs_test_out, 0, &jerr), *entries = json_object_get(root, "entries");
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_EQUAL_FATAL(json_array_size(entries), 4);
    static const char *const cols[] = {"work_s", "fixed_s", "b_fixed_tokens", "b_fixed_fast_tokens", "b_fixed_slow_tokens",
                                       "makespan_fast_s", "makespan_slow_s", "balance_efficiency_fast",
                                       "balance_efficiency_slow", "t_comm_fast_s", "t_comm_slow_s"};
    enum { NC = sizeof cols / sizeof cols[0] };
    int at[NC];
    for (int i = 0; i < NC; i++) {
        at[i] = csv_column(csv, cols[i]);
        CU_ASSERT_FATAL(at[i] > 0);
    }
    static rs_setup_t c; /* the library's: the same problem and the default profile */
    rs_setup_default(&c);
    c.problem.seq_tokens = 65536, c.problem.n_ranks = 8;
    c.n_layouts = 2, c.layouts[0] = RS_LAYOUT_CONTIGUOUS, c.layouts[1] = RS_LAYOUT_ZIGZAG;
    c.n_passes = 2, c.passes[0] = RS_PASS_FORWARD, c.passes[1] = RS_PASS_BACKWARD;
    CU_ASSERT_EQUAL_FATAL(rs_setup_finish(&c, NULL), 0);
    rs_machine_t mb[3] = {c.machine};
    for (int b = 0; b < 2; b++) {
        rs_machine_spec_t sp = c.spec;
        sp.bound = b == 0 ? RS_BOUND_FAST : RS_BOUND_SLOW;
        CU_ASSERT_EQUAL_FATAL(rs_machine_spec_build(&sp, &c.hw, 8, &mb[1 + b], NULL), 0);
    }
    const char *line = strchr(csv, '\n');
    int rows = 0;
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++, rows++) {
            CU_ASSERT_PTR_NOT_NULL_FATAL(line);
            line++;
            const rs_problem_t p = rs_setup_problem(&c, i, j);
            CU_ASSERT_EQUAL(strncmp(line, rs_layout_name(p.layout), strlen(rs_layout_name(p.layout))), 0);
            rs_schedule_t *sch = rs_schedule_create(&p, NULL);
            rs_closed_t cl[3];
            rs_walk_t w[3];
            for (int b = 0; b < 3; b++) {
                CU_ASSERT_EQUAL_FATAL(rs_model_b_star(&p, &mb[b], &cl[b], NULL), 0);
                CU_ASSERT_EQUAL_FATAL(rs_model_walk(sch, &mb[b], RS_NO_SINK, NULL, &w[b], NULL), 0);
            }
            rs_schedule_free(sch);
            const double want[NC] = {cl[0].work_s, cl[0].fixed_s, cl[0].b_fixed_tokens, cl[1].b_fixed_tokens,
                                     cl[2].b_fixed_tokens, w[1].makespan_s, w[2].makespan_s, w[1].balance_efficiency,
                                     w[2].balance_efficiency, cl[1].t_comm_s, cl[2].t_comm_s};
            json_t *e = json_array_get(entries, (size_t)rows);
            for (int k = 0; k < NC; k++) {
                const double got = csv_field(line, at[k]);
                RS_ASSERT_REL(got, want[k], 1e-15);
                RS_ASSERT_REL(json_real_value(json_object_get(e, cols[k])), got, 1e-15);
            }
            /* the ends differ where the uncertain figures move them: B_fixed lower, T_comm shorter at the fast end */
            CU_ASSERT(want[3] < want[2] && want[2] < want[4]);
            CU_ASSERT(want[9] < want[10]);
            line = strchr(line, '\n');
        }
    CU_ASSERT_EQUAL(rows, 4);
    json_decref(root);
    free(csv);
}

/* The perturbations against N (setup.h): the value as given when the command line gave it, else made
 * from the numbers; a list's item error quotes the whole list. */
RS_TEST(test_setup_messages, "setup: perturbations against N and list items quote the value") {
    rs_setup_t c;
    rs_setup_default(&c);
    rs_err_t err = {0};
    c.spec.perturb.n_stragglers = 1, c.spec.perturb.straggler_rank[0] = 8, c.spec.perturb.straggler_factor[0] = 2;
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&c, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--straggler 8:2: rank 8 must be in [0, 7] (N = 8 ranks)");
    c.perturb_args[0][0] = "8:2.00";
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&c, 8, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--straggler 8:2.00: rank 8 must be in [0, 7] (N = 8 ranks)");
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&c, 9, &err), 0);
    c.spec.perturb.n_degraded = 1, c.spec.perturb.degraded_hop[0] = 9, c.spec.perturb.degraded_factor[0] = 1.5;
    CU_ASSERT_EQUAL(rs_setup_check_perturb(&c, 9, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--degrade 9:1.5: hop 9 must be in [0, 8] (hop p is the link p -> p+1 mod N, N = 9)");
    rs_errf(&err, "--profile b: unknown hardware profile 'b'");
    rs_setup_list_err(&err, "--profile", "b", "a,b");
    CU_ASSERT_STRING_EQUAL(err.msg, "--profile a,b: unknown hardware profile 'b'");
    rs_errf(&err, "b:3:1: bad");
    rs_setup_list_err(&err, "--profile", "b", "a,b"); /* a file's message: kept */
    CU_ASSERT_STRING_EQUAL(err.msg, "b:3:1: bad");
}

/* What every shipped device profile prints: model and sim name the attention rate's source on their
 * "# rates:" line and in JSON (measured, published or estimated, never the bare peak), plan's header
 * names the kernel; only --impl none prints the bare datasheet peak, and says it is one (a profile with a
 * calibration curve rates it instead). */
RS_TEST(test_every_profile_names_its_attention_rate, "every shipped profile: model, sim, JSON, plan name a sourced attention rate, the bare peak only when said") {
    static const char *const kinds[] = {"# rates: attention measured (", "# rates: attention published (", "# rates: attention estimated ("};
    int n = 0;
    for (const char *const *name = rs_hw_preset_names(); *name; name++, n++) {
        char args[512];
        const char *cmds[] = {"model -p %s -S 128K -N 8", "sim -p %s -S 16K -N 4"};
        for (int c = 0; c < 2; c++) {
            snprintf(args, sizeof args, cmds[c], *name);
            CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
            bool sourced = false;
            for (int k = 0; k < 3; k++) sourced |= strstr(rs_test_out, kinds[k]) != NULL;
            if (!sourced || strstr(rs_test_out, "bare")) fprintf(stderr, "  %s: %.300s\n", args, rs_test_out);
            CU_ASSERT(sourced);
            CU_ASSERT_PTR_NULL(strstr(rs_test_out, "bare"));
        }
        snprintf(args, sizeof args, "model -p %s -S 128K -N 8 --json -", *name);
        CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
        json_t *j = json_loads(rs_test_out, 0, NULL);
        const json_t *attn = json_object_get(json_object_get(j, "rates"), "attention");
        const char *kind = json_string_value(json_object_get(attn, "kind")), *src = json_string_value(json_object_get(attn, "source"));
        CU_ASSERT_TRUE(kind && src && *src && strcmp(kind, "user-given") != 0 && !strstr(src, "bare"));
        json_decref(j);
        snprintf(args, sizeof args, "plan -m llama3-8b -S 128K -p %s", *name);
        CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "attention as the flash-attn preset issues its calls, at kernel "));
        CU_ASSERT_PTR_NULL(strstr(rs_test_out, "bare"));
        snprintf(args, sizeof args, "model -p %s -S 128K -N 8 --impl none", *name);
        CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
        rs_hw_t hw;
        CU_ASSERT_EQUAL_FATAL(rs_hw_load(*name, &hw, NULL), 0);
        if (hw.cal.n_eff > 0) { /* a profile with a calibration curve: the dense model is F x eff(B), sourced */
            CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# compute: the attention steps at F x eff(B) = "));
            CU_ASSERT_PTR_NULL(strstr(rs_test_out, "bare"));
            continue;
        }
        CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# compute: the attention steps at the bare datasheet peak F = "));
        CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "(an upper bound, not a kernel rate)"));
    }
    CU_ASSERT(n >= 14);
}

RS_TEST_MAIN(.suite = "ringsim model", .scratch = "cli")
