/* test_job_opts.c - the options of a job of concurrent rings (cli/job_opts.c): what the degrees,
 * lists and background options store, the exact message of each refusal (a list's item quotes the
 * whole list), --cp against -N, the background sized from a model by hand, and what ringsim sim
 * refuses to build. */
#include <string.h>

#include "cli_test.h"
#include "job_opts.h"
#include "test_main.h"

#ifdef RINGSIM_HAVE_SIM
static rs_cli_job_t job;

static int parse_job(const char *words, rs_opt_group_t *g, rs_err_t *err) {
    int argc;
    char **argv = rs_cli_test_argv("sim", words, &argc);
    rs_cli_job_init(&job);
    *g = rs_cli_job_group(&job, NULL);
    return rs_cli_parse("sim", argc, argv, g, 1, err);
}

static void expect_refused(const char *words, const char *msg) {
    rs_opt_group_t g;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(parse_job(words, &g, &err), -1);
    if (strcmp(err.msg, msg)) fprintf(stderr, "\n  '%s': '%s', want '%s'\n", words, err.msg, msg);
    CU_ASSERT_STRING_EQUAL(err.msg, msg);
}

RS_TEST(test_values, "the job's values") {
    rs_opt_group_t g;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(parse_job("--tp 2 --dp 3 --cp 4 --devices 24 --order tp-cp-dp,cp-tp-dp --fabric flat,rail --nics 1,2 "
                                    "--nodes-per-leaf 4 --oversub 1,2.5 --background fsdp --bg-group dp --bg-bytes 1M",
                                    &g, &err),
                          0);
    const rs_contention_knobs_t *k = &job.k;
    CU_ASSERT_EQUAL(k->tp, 2);
    CU_ASSERT_EQUAL(k->dp, 3);
    CU_ASSERT_EQUAL(job.cp, 4);
    CU_ASSERT_EQUAL(k->devices, 24);
    CU_ASSERT_EQUAL_FATAL(k->n_orders, 2);
    CU_ASSERT_EQUAL(k->orders[0][0], RS_DIM_TP);
    CU_ASSERT_EQUAL(k->orders[1][0], RS_DIM_CP);
    CU_ASSERT_EQUAL_FATAL(k->n_fabrics, 2);
    CU_ASSERT_EQUAL(k->fabrics[1], RS_FABRIC_RAIL);
    CU_ASSERT_EQUAL_FATAL(k->n_nics, 2);
    CU_ASSERT_EQUAL(k->nics[1], 2);
    CU_ASSERT_EQUAL(k->nodes_per_leaf, 4);
    CU_ASSERT_EQUAL_FATAL(k->n_oversubs, 2);
    RS_ASSERT_REL(k->oversubs[1], 2.5, 1e-15);
    CU_ASSERT_EQUAL(k->background.kind, RS_BG_FSDP);
    CU_ASSERT_EQUAL(k->background.group, RS_BG_GROUP_DP);
    RS_ASSERT_REL(job.bg_bytes, 1048576, 1e-15);
    CU_ASSERT(g.seen != 0); /* any of them makes the command simulate a job */
}

RS_TEST(test_messages, "refusals: exact messages") {
    expect_refused("--nics 1,x", "--nics 1,x: 'x': not an integer (expected e.g. 4096, 128K, 1M; range [1, 1048576])");
    expect_refused("--nics x", "--nics x: not an integer (expected e.g. 4096, 128K, 1M; range [1, 1048576])");
    expect_refused("--fabric flat,mesh", "--fabric flat,mesh: 'mesh': expected flat, leaf-spine or rail");
    expect_refused("--fabric mesh", "--fabric mesh: expected flat, leaf-spine or rail");
    expect_refused("--oversub 0.5",
                   "--oversub 0.5: must be >= 1 (leaf downlink : uplink capacity; 1 = non-blocking), a number in [1, 1e+06]");
    expect_refused("--nics 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
                   "--nics 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17: at most 16 values");
    expect_refused("--nics ,,", "--nics ',,': expected a value or a comma list");
    char longlist[2200] = "--order ";
    while (strlen(longlist) < 2100) strcat(longlist, "tp-cp-dp,");
    expect_refused(longlist, "--order: list too long");
    expect_refused("--background some", "--background some: expected none, dp (gradient all-reduce) or fsdp (all-gather, reduce-scatter)");
    expect_refused("--bg-group tp", "--bg-group tp: expected dp-cp or dp");
    expect_refused("--bg-bytes 0", "--bg-bytes 0: must be in [1, 1125899906842624]");
    expect_refused("--tp 0", "--tp 0: must be in [1, 16777216]");
}

RS_TEST(test_cp_and_background, "--cp against -N; the background's size") {
    rs_opt_group_t g;
    rs_err_t err = {0};
    static rs_setup_t c;
    rs_setup_default(&c);
    CU_ASSERT_EQUAL_FATAL(parse_job("--cp 4", &g, &err), 0);
    job.any = true;
    CU_ASSERT_EQUAL(rs_cli_job_apply(&job, &c, true, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--cp 4 and -N 8: the CP degree is the ring's rank count (give one)");
    CU_ASSERT_EQUAL(rs_cli_job_apply(&job, &c, false, &err), 0);
    CU_ASSERT_EQUAL(c.problem.n_ranks, 4);
    CU_ASSERT_EQUAL_FATAL(parse_job("--background dp", &g, &err), 0);
    CU_ASSERT_EQUAL(rs_cli_job_background(&job, &c.problem, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--background dp: size it with --model NAME (a preset, e.g. llama3-8b) or --bg-bytes SIZE");
    CU_ASSERT_EQUAL_FATAL(parse_job("--background dp --model nosuch", &g, &err), 0);
    CU_ASSERT_EQUAL(rs_cli_job_background(&job, &c.problem, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nosuch"));
    CU_ASSERT_EQUAL_FATAL(parse_job("--background dp --bg-bytes 3M", &g, &err), 0);
    CU_ASSERT_EQUAL(rs_cli_job_background(&job, &c.problem, &err), 0);
    RS_ASSERT_REL(job.k.background.param_bytes, 3145728, 1e-15);
    RS_ASSERT_REL(job.k.background.grad_bytes, 3145728, 1e-15);
    /* Llama-3-8B's layer over TP 2: (2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336) / 2 + 2 x 4096 norm
     * elements = 109060096, in bf16 activations (2 bytes) and fp32 gradients (4) */
    CU_ASSERT_EQUAL_FATAL(parse_job("--background fsdp --model llama3-8b --tp 2", &g, &err), 0);
    rs_problem_t p = c.problem;
    p.act_bytes = 2, p.grad_bytes = 4;
    CU_ASSERT_EQUAL_FATAL(rs_cli_job_background(&job, &p, &err), 0);
    RS_ASSERT_REL(job.k.background.param_bytes, 109060096.0 * 2, 1e-15);
    RS_ASSERT_REL(job.k.background.grad_bytes, 109060096.0 * 4, 1e-15);
    CU_ASSERT_STRING_EQUAL(job.k.background.model, "llama3-8b");
}

RS_TEST(test_build_refusals, "what ringsim sim does not build") {
    rs_opt_group_t g;
    rs_err_t err = {0};
    static rs_setup_t c;
    rs_setup_default(&c);
    rs_job_t j;
    CU_ASSERT_EQUAL_FATAL(parse_job("--tp 2 --nics 1,2", &g, &err), 0);
    CU_ASSERT_EQUAL(rs_cli_job_build(&job, &c, &j, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--nics: ringsim sim simulates one value (sweep lists with ringsim sweep or plan --sim)");
    CU_ASSERT_EQUAL_FATAL(parse_job("--order tp-cp-dp,cp-tp-dp", &g, &err), 0);
    CU_ASSERT_EQUAL(rs_cli_job_build(&job, &c, &j, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--order: ringsim sim simulates one value (sweep lists with ringsim sweep or plan --sim)");
    CU_ASSERT_EQUAL_FATAL(parse_job("--map m.txt --dp 2", &g, &err), 0);
    CU_ASSERT_EQUAL(rs_cli_job_build(&job, &c, &j, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "--map m.txt places every ring itself: --tp and --dp do not apply");
}

RS_TEST_PROGRAM("job options")
#else
RS_TEST_SKIPPED("no SimGrid in this build")
#endif
