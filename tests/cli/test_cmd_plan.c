/* test_plan_cli.c - `ringsim memory` and `ringsim plan` as a user runs them: exit codes (0 ok, 1 runtime
 * failure, 2 bad input), one-line messages, no half-written output. */
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_main.h"

extern char **environ;

static char out_text[1 << 16], err_text[1 << 14];

static void slurp(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
}

/* Run ringsim with args (NULL-terminated); returns the exit code, fills out_text and err_text. */
static int run(const char *const *args) {
    char *argv[32];
    int n = 0;
    argv[n++] = RS_BINARY_DIR "/bin/ringsim";
    for (; *args && n < 31; args++) argv[n++] = (char *)*args;
    argv[n] = NULL;
    const char *o = "/tmp/rs_test_plan_cli.out", *e = "/tmp/rs_test_plan_cli.err";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    int status = 0;
    waitpid(pid, &status, 0);
    slurp(o, out_text, sizeof out_text);
    slurp(e, err_text, sizeof err_text);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void test_memory_ok(void) {
    const char *a[] = {"memory", "-m", "llama3-8b", "-S", "1M", "-N", "32", "-p", "h100-sxm", NULL};
    CU_ASSERT_EQUAL(run(a), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "total"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "fits"));
    /* the optimizer line: 8030261248 * 12 / 32 */
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "3011347968 B"));
}

static void test_memory_bad(void) {
    const char *a[] = {"memory", "-m", "llama3-8b", "-S", "1M", "-N", "32", "--ulysses", "16", NULL};
    CU_ASSERT_EQUAL(run(a), 2);
    CU_ASSERT_EQUAL(lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "KV heads"));
    const char *path = "/tmp/rs_test_plan_cli_model.json";
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\n  \"transformer\": {\n    \"name\": \"x\",\n    \"heads\": 2\n  }\n}\n", f);
    fclose(f);
    const char *b[] = {"memory", "-m", path, NULL};
    CU_ASSERT_EQUAL(run(b), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, ":4:5: transformer.heads: unknown key"));
    unlink(path);
    const char *c[] = {"memory", "-m", "llama3-8b", "-S", "1000", "-N", "3", NULL};
    CU_ASSERT_EQUAL(run(c), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--seq 1000"));
}

static void test_plan_does_not_fit(void) {
    const char *csv = "/tmp/rs_test_plan_cli_nofit.csv";
    unlink(csv);
    const char *a[] = {"plan", "-m", "llama3-405b", "-S", "4M", "--max-ranks", "64", "-p", "h100-sxm,h200",
                       "--csv", csv, NULL};
    CU_ASSERT_EQUAL(run(a), 2);
    CU_ASSERT_EQUAL(lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "does not fit"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "short by"));
    CU_ASSERT_EQUAL(access(csv, F_OK), -1); /* no output on failure */
}

static void test_plan_bad_split(void) {
    const char *a[] = {"plan", "-m", "llama3-8b", "-S", "1000", "-N", "8", NULL};
    CU_ASSERT_EQUAL(run(a), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "divisible by 2N = 16"));
    const char *b[] = {"plan", "-m", "llama3-8b", "--global-batch", "4", "--dp", "3", NULL};
    CU_ASSERT_EQUAL(run(b), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--dp 3"));
    const char *c[] = {"plan", "-m", "llama3-8b", "--price", "b200=3", NULL};
    CU_ASSERT_EQUAL(run(c), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--price b200=3: no such candidate in --profile h100-sxm"));
}

static void test_plan_ok_csv(void) {
    const char *csv = "/tmp/rs_test_plan_cli.csv", *mc = "/tmp/rs_test_plan_cli_maxctx.csv";
    unlink(csv);
    unlink(mc);
    const char *a[] = {"plan", "-m", "llama3-8b", "-S", "128K", "-N", "64", "-p", "h100-sxm", "--price", "2.5",
                       "--csv", csv, "--maxctx-csv", mc, "--max-ranks", "64", NULL};
    CU_ASSERT_EQUAL(run(a), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "wins"));
    char buf[8192];
    slurp(csv, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "profile,devices_per_node,seq_tokens"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "H100-SXM,8,131072,64,1,64,"));
    slurp(mc, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "profile,n_ranks,max_seq_tokens"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "H100-SXM,64,"));
    unlink(csv);
    unlink(mc);
    /* an unwritable output is bad input, found before any work (exit 2, as in every command) */
    const char *b[] = {"plan", "-m", "llama3-8b", "--csv", "/nonexistent-dir/x.csv", NULL};
    CU_ASSERT_EQUAL(run(b), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "/nonexistent-dir/x.csv"));
}

/* The max-context figure through gnuplot and plots/maxctx.gp (skipped without gnuplot). */
static void test_plan_figure(void) {
    if (system("command -v gnuplot > /dev/null 2>&1") != 0) {
        fprintf(stderr, "  (no gnuplot: figure not tested)\n");
        return;
    }
    const char *png = "/tmp/rs_test_plan_cli_maxctx.png";
    unlink(png);
    setenv("RINGSIM_PLOTS_DIR", RS_SOURCE_DIR "/plots", 1);
    const char *a[] = {"plan", "-m", "llama2-7b", "-S", "max", "-N", "16", "--max-ranks", "16", "-p",
                       "h100-sxm,mi300x", "--figure", png, NULL};
    CU_ASSERT_EQUAL(run(a), 0);
    unsigned char magic[8] = {0};
    FILE *f = fopen(png, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fread(magic, 1, 8, f), 8u);
    fclose(f);
    CU_ASSERT_EQUAL(memcmp(magic, "\x89PNG\r\n\x1a\n", 8), 0);
    unlink(png);
    const char *b[] = {"plan", "-m", "llama2-7b", "-S", "max", "-N", "16", "--figure", "/tmp/x.gif", NULL};
    CU_ASSERT_EQUAL(run(b), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, ".png, .pdf or .svg"));
}


/* plan --inference: bad input exits 2 with one line naming the option and the rule, and writes nothing. */
static void test_infer_bad(void) {
    const char *csv = "/tmp/rs_test_plan_cli_infer_bad.csv";
    unlink(csv);
    static const struct {
        const char *args[12];
        const char *msg;
    } cases[] = {
        {{"--tp", "3"}, "--tp 3: must divide the 8 devices of a node"},
        {{"--nodes", "2", "-S", "1002"}, "--seq 1002: must be divisible by 2*N = 4 for the zigzag layout (N = 2 CP ranks"},
        {{"--nodes", "2", "--cached", "102"}, "--cached 102: must be divisible by 2*N = 4: the cache is sharded"},
        {{"--decode-batch", "4", "--no-causal"}, "--decode-batch 4: decode needs the causal mask"},
        {{"--nodes", "2,1"}, "--nodes 2,1: sizes must increase"},
        {{"--nodes", "0"}, "--nodes 0: '0' is not a size in [1, 1048576]"},
        {{"--linear-dtype", "fp16"}, "--linear-dtype fp16: expected bf16 or fp8"},
        {{"--linear-eff", "2"}, "--linear-eff"},
        {{"--figure", "/tmp/rs_test_plan_cli_infer.gif"}, "--figure /tmp/rs_test_plan_cli_infer.gif: expected a file name ending in .png"},
        {{"--boundary-csv", "/tmp/rs_test_plan_cli_infer_bad.csv"}, "--boundary-csv /tmp/rs_test_plan_cli_infer_bad.csv: the same file as the output --csv"},
        {{"-p", "no-such-gpu"}, "no-such-gpu"},
        {{"--boundary-figure", "/tmp/rs_test_plan_cli_infer_b.png"}, "--boundary-figure: the pass-kv/pass-q boundary needs a cached prefix"},
        {{"--cached", "64K", "--boundary-figure", "/tmp/rs_test_plan_cli_infer_b.png"}, "no (profile, nodes, P > 0) has a crossing to draw"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *a[24] = {"plan", "--inference", "-m", "llama3-8b", "--csv", csv};
        int n = 6;
        for (int i = 0; cases[k].args[i]; i++) a[n++] = cases[k].args[i];
        a[n] = NULL;
        CU_ASSERT_EQUAL(run(a), 2);
        CU_ASSERT_EQUAL(lines(err_text), 1);
        if (!strstr(err_text, cases[k].msg)) fprintf(stderr, "\n  expected '%s' in '%s'\n", cases[k].msg, err_text);
        CU_ASSERT_PTR_NOT_NULL(strstr(err_text, cases[k].msg));
        CU_ASSERT_EQUAL(access(csv, F_OK), -1);
    }
    const char *b[] = {"plan", "--inference", NULL};
    CU_ASSERT_EQUAL(run(b), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--model is required"));
    /* --help lists the inference options */
    const char *h[] = {"plan", "--inference", "--help", NULL};
    CU_ASSERT_EQUAL(run(h), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "--cached P,P,..."));
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "--boundary-figure"));
}

/* plan --inference: the CSV's KV cache and weights of Llama-3-405B on one node, TP 8, T = 128K by hand:
 * 126 layers x 131072 tokens x 2 x 1 KV head x 128 x 2 bytes = 8455716864; 405.85e9 parameters x 2 / 8. */
static void test_infer_csv(void) {
    const char *csv = "/tmp/rs_test_plan_cli_infer.csv", *bcsv = "/tmp/rs_test_plan_cli_infer_b.csv";
    unlink(csv);
    unlink(bcsv);
    const char *a[] = {"plan", "--inference", "-m", "llama3-405b", "--nodes", "1,2", "-S", "128K", "--cached", "0,64K",
                       "--csv", csv, "--boundary-csv", bcsv, NULL};
    CU_ASSERT_EQUAL(run(a), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "pass-kv wins"));
    char buf[1 << 14];
    slurp(csv, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "series,profile,devices_per_node,tp,nodes,cp,new_tokens,cached_tokens,context_tokens,best"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "H100-SXM:n1,H100-SXM,8,8,1,1,131072,0,131072,pass-kv,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",8455716864,"));
    CU_ASSERT_EQUAL(lines(buf), 5);
    slurp(bcsv, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "series,profile,nodes,cp,cached_tokens,cross_tokens,cross_ratio,comm_bound_ratio"));
    /* TP 8 of 128/8 heads: Hq 16, Hkv 1 per device, d e = 256: 2 x 256 / (2 x 16 x 256 + 64 - 2 x 256) */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "H100-SXM:n2,H100-SXM,2,2,65536,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",0.066115702479338845\n"));
    unlink(csv);
    unlink(bcsv);
}

/* plan --inference's two figures through the plot module (skipped without gnuplot). */
static void test_infer_figures(void) {
    if (system("command -v gnuplot > /dev/null 2>&1") != 0) {
        fprintf(stderr, "  (no gnuplot: figures not tested)\n");
        return;
    }
    const char *png = "/tmp/rs_test_plan_cli_ttft.png", *bpng = "/tmp/rs_test_plan_cli_boundary.svg";
    unlink(png);
    unlink(bpng);
    setenv("RINGSIM_PLOTS_DIR", RS_SOURCE_DIR "/plots", 1);
    const char *a[] = {"plan", "--inference", "-m", "llama3-70b", "--nodes", "1,2", "-S", "8K,32K,128K", "--cached", "16K",
                       "--figure", png, "--boundary-figure", bpng, NULL};
    CU_ASSERT_EQUAL(run(a), 0);
    unsigned char magic[8] = {0};
    FILE *f = fopen(png, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fread(magic, 1, 8, f), 8u);
    fclose(f);
    CU_ASSERT_EQUAL(memcmp(magic, "\x89PNG\r\n\x1a\n", 8), 0);
    char buf[1 << 16];
    slurp(bpng, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<svg"));
    unlink(png);
    unlink(bpng);
}

static const rs_test_case_t cases[] = {
    {"memory_ok", test_memory_ok},
    {"memory_bad", test_memory_bad},
    {"plan_does_not_fit", test_plan_does_not_fit},
    {"plan_bad_split", test_plan_bad_split},
    {"plan_ok_csv", test_plan_ok_csv},
    {"plan_figure", test_plan_figure},
    {"infer_bad", test_infer_bad},
    {"infer_csv", test_infer_csv},
    {"infer_figures", test_infer_figures},
    {NULL, NULL},
};

int main(void) {
    if (access(RS_BINARY_DIR "/bin/ringsim", X_OK)) {
        printf("skipped: %s/bin/ringsim not built\n", RS_BINARY_DIR);
        return RS_TEST_SKIP;
    }
    return rs_test_main1("plan_cli", cases);
}
