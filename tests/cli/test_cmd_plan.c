/* test_cmd_plan.c - `ringsim plan` as a user runs it: exit codes (0 ok, 1 runtime failure, 2 bad input),
 * one-line messages, no half-written output; the table's CSV and the longest-context CSV and figure;
 * with SimGrid, the ring split simulated as a job on fabric knobs. */
#include <stdlib.h>
#include <string.h>

#include "cmd_test.h"

RS_TEST(test_plan_does_not_fit, "plan_does_not_fit") {
    char args[1024];
    const char *csv = rs_test_path("nofit.csv");
    snprintf(args, sizeof args, "plan -m llama3-405b -S 4M --max-ranks 64 -p h100-sxm,h200 --csv %s", csv);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
    CU_ASSERT_EQUAL(rs_cmd_lines(rs_test_err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "does not fit"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "short by"));
    CU_ASSERT(rs_test_file_size(csv) < 0); /* no output on failure */
}

RS_TEST(test_plan_bad_split, "plan_bad_split") {
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b -S 1000 -N 8"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "divisible by 2N = 16"));
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b --global-batch 4 --dp 3"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "--dp 3"));
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b --price b200=3"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "--price b200=3: no such candidate in --profile h100-sxm"));
    /* a node holds at least one device (the table both planners share, cli/plan_opts.c) */
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b --gpus-per-node 0"), 2);
    CU_ASSERT_STRING_EQUAL(rs_test_err, "ringsim plan: --gpus-per-node 0: must be in [1, 1048576]\n");
}

RS_TEST(test_plan_ok_csv, "plan_ok_csv") {
    char args[2048];
    const char *csv = rs_test_path("plan.csv"), *mc = rs_test_path("maxctx.csv");
    snprintf(args, sizeof args, "plan -m llama3-8b -S 128K -N 64 -p h100-sxm --price 2.5 --csv %s --maxctx-csv %s --max-ranks 64",
             csv, mc);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "wins"));
    rs_test_expect_in_file(csv, (const char *[]){"profile,devices_per_node,seq_tokens", "H100-SXM,8,131072,64,1,64,", NULL});
    rs_test_expect_in_file(mc, (const char *[]){"profile,n_ranks,max_seq_tokens", "H100-SXM,64,", NULL});
    /* an unwritable output is bad input, found before any work (exit 2, as in every command) */
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m llama3-8b --csv /nonexistent-dir/x.csv"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "/nonexistent-dir/x.csv"));
}

/* -S max gives the longest context at each end of the memory model's range (docs/memory.md 3.6:
 * fragmentation 33% .. 0%) in the table's note and the CSV's seq_tokens_low, seq_tokens_high (the hand
 * derivation: test_plan max_seq_range); a given S leaves them empty. */
RS_TEST(test_plan_max_range, "plan_max_range") {
    const char *cmd = "plan -m ringattn-7b -p a100-sxm -N 8 -S max --precision fp32 --ckpt full --no-alternatives";
    char args[1024];
    CU_ASSERT_EQUAL(rs_test_ringsim(cmd), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# A100-SXM: longest context 493968, range 404816 .. 592800 (fragmentation 33% .. 0%"));
    const char *csv = rs_test_path("range.csv");
    snprintf(args, sizeof args, "%s --csv %s", cmd, csv);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    rs_test_expect_in_file(csv, (const char *[]){",bound,seq_tokens_low,seq_tokens_high\n", "A100-SXM,8,493968,8,1,8,",
                                                 ",404816,592800\n", NULL});
    snprintf(args, sizeof args, "plan -m ringattn-7b -p a100-sxm -N 8 -S 128K --no-alternatives --csv %s", csv);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    rs_test_expect_in_file(csv, (const char *[]){"A100-SXM,8,131072,8,1,8,", ",,\n", NULL});
    CU_ASSERT_EQUAL(rs_test_ringsim("plan -m ringattn-7b -p a100-sxm -N 8 -S 128K --no-alternatives"), 0);
    CU_ASSERT_PTR_NULL(strstr(rs_test_out, "longest context"));
}

/* The max-context figure through gnuplot and plots/maxctx.gp (skipped without gnuplot). */
RS_TEST(test_plan_figure, "plan_figure") {
    if (!rs_cmd_have_gnuplot()) {
        fprintf(stderr, "  (no gnuplot: figure not tested)\n");
        return;
    }
    char args[2048];
    const char *png = rs_test_path("maxctx.png");
    setenv("RINGSIM_PLOTS_DIR", RS_SOURCE_DIR "/plots", 1);
    snprintf(args, sizeof args, "plan -m llama2-7b -S max -N 16 --max-ranks 16 -p h100-sxm,mi300x --figure %s", png);
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 0);
    CU_ASSERT(rs_cmd_starts_with(png, "\x89PNG\r\n\x1a\n", 8));
    snprintf(args, sizeof args, "plan -m llama2-7b -S max -N 16 --figure %s", rs_test_path("x.gif"));
    CU_ASSERT_EQUAL(rs_test_ringsim(args), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, ".png, .pdf, .svg or .tex"));
}

#ifdef RINGSIM_HAVE_SIM
/* ringsim plan --sim with fabric knobs: the ring split (N = 8 on nodes of 4, 2 replicas) as a job per
 * pass and NICs value; without background the ring is alone on its NICs (slowdown 1), ZeRO-3's
 * all-gather on the same NICs slows it (the plan assumes FSDP hidden). Knobs without --sim: exit 2. */
RS_TEST(test_job_plan, "job_plan") {
    char args[4096], csv[800];
    snprintf(csv, sizeof csv, "%s", rs_test_path("plan-cont.csv"));
    for (int bg = 0; bg < 2; bg++) {
        snprintf(args, sizeof args,
                 "plan -m llama3-8b --seq 32K --ranks 8 --gpus-per-node 4 --inter ib-ndr --global-batch 2 --dp 2 --sim "
                 "--nics 1,4 %s --contention-csv %s",
                 bg ? "--background fsdp" : "", csv);
        CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
        CU_ASSERT(rs_cmd_contains(rs_test_path("out.txt"), "# the ring split as a job (SimGrid): N ranks x 2 replica(s)"));
        char *t = rs_test_slurp(csv, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        int rows = 0;
        for (char *l = strstr(t, "\nseries,"); l && (l = strchr(l + 1, '\n')) && l[1]; rows++) {
            char *f = l + 1;
            for (int k = 0; k < 17 && f; k++) f = strchr(f, ',') + 1; /* slowdown */
            const double slow = strtod(f, NULL);
            if (bg) {
                CU_ASSERT(slow > 1.1);
            } else {
                RS_ASSERT_REL(slow, 1, 1e-9);
            }
        }
        CU_ASSERT_EQUAL(rows, 4); /* forward and backward x K = 1, 4 */
        free(t);
    }
    rs_cmd_expect_usage("plan -m llama3-8b --nics 1,4", "need --sim", NULL, NULL);
}
#endif

/* ringsim plan --sim under a launcher (PMI_SIZE=3, as mpirun or srun sets it) would simulate the same
 * plan on every rank and write its files from each: refused up front in one line (exit 2, no file);
 * the plan without --sim still runs. */
/* A budget of 16 devices for llama3-8b (nodes of 8, 8 KV heads, global batch 1): TP 1, 2, 4, 8 leave CP
 * 16, 8, 4, 2, split into 4, 3, 2, 1 Ring / Ulysses / USP splits (U dividing Hkv / TP): 10 rows, ranked
 * by step time, each with tp x cp x dp = 16; --compare puts the two candidates' best side by side. */
RS_TEST(test_plan_budget, "a budget of devices: every split once, ranked; --compare") {
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("plan -m llama3-8b -S 128K --gpus 16 -p h100-sxm --csv -"), 0);
    CU_ASSERT_EQUAL(rs_cmd_lines(rs_test_out), 11);
    CU_ASSERT_EQUAL(strncmp(rs_test_out, "rank,profile,devices,tp,cp,ulysses,ring,dp,", 43), 0);
    double last = 0;
    int rows = 0;
    for (const char *l = strchr(rs_test_out, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        char *e;
        const long rank = strtol(l + 1, &e, 10);
        const char *f = strchr(e + 1, ','); /* after the profile */
        const long dev = strtol(f + 1, &e, 10), tp = strtol(e + 1, &e, 10), cp = strtol(e + 1, &e, 10);
        (void)strtol(e + 1, &e, 10), (void)strtol(e + 1, &e, 10); /* ulysses, ring */
        const long dp = strtol(e + 1, &e, 10);
        CU_ASSERT_EQUAL(rank, ++rows);
        CU_ASSERT_EQUAL(dev, 16);
        CU_ASSERT_EQUAL(tp * cp * dp, 16);
        /* step_s: the 16th field */
        const char *g = l + 1;
        for (int k = 0; k < 15 && g; k++)
            if ((g = strchr(g, ','))) g++;
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        const double step = strtod(g, NULL);
        CU_ASSERT(step >= last);
        last = step;
    }
    CU_ASSERT_EQUAL(rows, 10);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("plan -m llama3-8b -S 128K --gpus 16 -p h100-sxm,h200 --compare"), 0);
    rs_test_expect_all(rs_test_out, (const char *[]){"# compare: llama3-8b at S=131072, global batch 1, 16 devices each",
                                                     "H100-SXM", "H200", "  step_s ", "  headroom_GiB ", "  bound ", NULL});
}

/* The per-GPU attention speedup of each candidate over the first: (attn_ms x N) of the first over its
 * own, from the starred (fastest) rows of the plan's table. */
static void speedups(const char *out, const char *const *names, int n, double *x) {
    double gpu_ms[8] = {0};
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char name[64];
        long long g, tp, seq, nr, dp;
        char layout[32], split[32], fits[8];
        double mem, attn;
        if (sscanf(l, "* %63s %lld %lld %lld %lld %lld %31s %31s %7s %lf %lf", name, &g, &tp, &seq, &nr, &dp, layout, split, fits, &mem,
                   &attn) != 11)
            continue;
        for (int i = 0; i < n; i++)
            if (!strcmp(name, names[i])) gpu_ms[i] = attn * (double)nr;
    }
    for (int i = 0; i < n; i++) {
        CU_ASSERT_TRUE_FATAL(gpu_ms[i] > 0);
        x[i] = gpu_ms[0] / gpu_ms[i];
    }
}

/* Llama-3-70B at 1M tokens on H100-SXM, B200 and MI300X: the per-GPU attention speedups over the H100
 * lie within what the public kernel benchmarks behind the profiles give for the same kernels
 * (docs/profiles.md, "Attention across devices": FlashAttention-2 B200/H100 0.79-1.23 over head_dim 64
 * and 128, forward and backward; aiter on MI300X / FlashAttention-2 on H100 1.20-1.61; cuDNN B200/H100
 * 2.18-2.87 (forward: its B200 backward has no published curve: the forward times the H100's backward /
 * forward ratio); aiter / cuDNN on H100
 * 0.76-1.02);
 * --impl and --kernel choose as in model, and are refused as model refuses them. */
RS_TEST(test_plan_speedups_within_benchmarks, "plan: B200 and MI300X per-GPU attention over H100 within the published kernel ranges; --impl, --kernel") {
    const char *const names[] = {"H100-SXM", "B200", "MI300X"};
    double x[3];
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("plan -m llama3-70b -S 1M -p h100-sxm,b200,mi300x"), 0);
    speedups(rs_test_out, names, 3, x);
    CU_ASSERT(x[1] >= 0.79 && x[1] <= 1.23);
    CU_ASSERT(x[2] >= 1.20 && x[2] <= 1.61);
    CU_ASSERT_PTR_NULL(strstr(rs_test_out, "bare"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("plan -m llama3-70b -S 1M -p h100-sxm,b200,mi300x --impl te"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# B200: attention as the te preset issues its calls, at kernel cudnn's published rates"));
    /* the curves' fallbacks, one header line per candidate, as model says them */
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\n# H100-SXM: note: kernel cudnn has no forward shifted curve"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\n# B200: note: kernel cudnn's forward full curve (head_dim 128) has one point, 1024x1024 tokens: "
                                               "its shape over sequence length borrowed from its forward full curve (head_dim 64)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "kernel cudnn has no forward causal curve for head_dim 128: its full curve times its head_dim 64 "
                                               "causal / full ratio at each shape"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "kernel cudnn has no measured backward here: its backward rates are its forward rates "
                                               "times h100-sxm's cudnn backward / forward ratio at each shape"));
    speedups(rs_test_out, names, 3, x);
    /* the B200's cuDNN backward is its forward times the H100 cuDNN's backward / forward ratio (no published
     * backward): the fwd+bwd speedup stays in the forward range */
    CU_ASSERT(x[1] >= 2.18 && x[1] <= 2.87);
    CU_ASSERT(x[2] >= 0.76 && x[2] <= 1.02);
    /* --kernel: FlashAttention-3 on the H100 under the flash-attn preset */
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("plan -m llama3-8b -S 128K -p h100-sxm --kernel flash-attn-3"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# H100-SXM: attention as the flash-attn preset issues its calls, at kernel flash-attn-3's published rates"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("plan -m llama3-8b -S 128K -p h100-sxm --impl none"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# H100-SXM: attention at the bare datasheet peak F = 989 TFLOP/s (an upper bound, not a kernel rate)"));
    rs_cmd_expect_usage("plan -m llama3-8b --impl bogus", "--impl bogus: expected ringsim, flash-attn, te or none", NULL, NULL);
    rs_cmd_expect_usage("plan -m llama3-8b -p a100-sxm --impl ringsim", "--impl ringsim: profile A100-SXM names no kernel for it", NULL, NULL);
    rs_cmd_expect_usage("plan -m llama3-8b --kernel nope", "--kernel nope: profile H100-SXM has no such kernel", NULL, NULL);
}

RS_TEST_MAIN(.suite = "ringsim plan", .scratch = "cmd_plan")
