/* test_cmd_sim.c - `ringsim sim` end to end: the golden trace byte for byte, bad input (exit 2, a
 * message naming the file and host or route, no trace file), --platform-out round trip, --help; a job
 * of concurrent rings (its bad input and its tables; sweep, plan --sim and report with fabric knobs
 * are tested with their commands).
 *
 * Golden files: tests/fixtures/golden/sim_small.csv and .json, from the command in GOLDEN_ARGS with the fixed
 * profile tests/fixtures/golden/sim_profile.json. After an intended change, regenerate them with
 *   RS_UPDATE_GOLDEN=1 build/tests/test_cmd_sim
 * and review the diff. */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_test.h"

#define GOLDEN RS_SOURCE_DIR "/tests/fixtures/golden"
#define GOLDEN_ARGS                                                                                         \
    "sim -p " GOLDEN "/sim_profile.json -N 4 -S 4K -L zigzag -P backward --causal --jitter 0.1 --seed 3 " \
    "--straggler 1:1.25 --degrade 2:2 --impl none" /* the dense model at the profile's F (its own file has no kernel curves) */

static void compare_golden(const char *produced, const char *golden) {
    size_t la = 0, lb = 0;
    char *a = rs_test_slurp(produced, &la), *b = rs_test_slurp(golden, &lb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    if (getenv("RS_UPDATE_GOLDEN")) {
        FILE *fp = fopen(golden, "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fwrite(a, 1, la, fp);
        fclose(fp);
        fprintf(stderr, "  updated %s\n", golden);
    } else {
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        bool same = la == lb && memcmp(a, b, la) == 0;
        if (!same) {
            size_t i = 0;
            while (i < la && i < lb && a[i] == b[i]) i++;
            fprintf(stderr, "  %s differs from %s at byte %zu (sizes %zu, %zu)\n", produced, golden, i, la, lb);
        }
        CU_ASSERT(same);
    }
    free(a);
    free(b);
}

/* ------------------------------------------------------------------------------------------------ */
RS_TEST(test_golden, "golden_trace_byte_for_byte") {
    char args[4096];
    snprintf(args, sizeof args, GOLDEN_ARGS " --trace %s --chrome %s", rs_test_path("g.csv"), rs_test_path("g.json"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    compare_golden(rs_test_path("g.csv"), GOLDEN "/sim_small.csv");
    compare_golden(rs_test_path("g.json"), GOLDEN "/sim_small.json");
    /* the same input twice: byte-identical */
    snprintf(args, sizeof args, GOLDEN_ARGS " --trace %s", rs_test_path("g2.csv"));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    compare_golden(rs_test_path("g2.csv"), GOLDEN "/sim_small.csv");
    CU_ASSERT(rs_cmd_contains(rs_test_path("out.txt"), "0.00e+00")); /* rel_diff to the walk */
}

static const char *PLAT_HEAD = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                               "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
                               "<host id=\"a\" speed=\"1e15f\"/><host id=\"b\" speed=\"1e15f\"/>\n"
                               "<link id=\"l\" bandwidth=\"1e11Bps\" latency=\"0s\"/>\n";

RS_TEST(test_bad_input, "bad_input_exit2_no_trace") {
    char plat[800], map[800], trace[800], text[2048], args[4096];
    snprintf(plat, sizeof plat, "%s", rs_test_path("p.xml"));
    snprintf(map, sizeof map, "%s", rs_test_path("p.map"));
    snprintf(trace, sizeof trace, "%s", rs_test_path("bad.csv"));
    /* malformed platform: the file, no trace */
    snprintf(text, sizeof text, "%s<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route\n</zone></platform>\n", PLAT_HEAD);
    rs_test_write_text(plat, text);
    snprintf(args, sizeof args, "sim -N 2 -S 4K --platform %s --trace %s", plat, trace);
    rs_cmd_expect_usage(args, plat, "Parse error", trace);
    /* a mapping naming a missing host: hostmap:line and the host */
    snprintf(text, sizeof text,
             "%s<route src=\"a\" dst=\"b\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n</zone></platform>\n", PLAT_HEAD);
    rs_test_write_text(plat, text);
    rs_test_write_text(map, "a\nnope\n");
    snprintf(args, sizeof args, "sim -N 2 -S 4K --platform %s --hostmap %s --trace %s", plat, map, trace);
    char where[1000];
    snprintf(where, sizeof where, "%s:2: host 'nope' (rank 1)", map);
    rs_cmd_expect_usage(args, where, NULL, trace);
    /* no route b -> a */
    rs_test_write_text(map, "a\nb\n");
    rs_cmd_expect_usage(args, "no route from host 'b' (rank 1) to host 'a' (rank 0)", plat, trace);
    /* unknown --cfg key: SimGrid's message */
    snprintf(args, sizeof args, "sim -N 2 -S 4K --cfg network/bogus-key:1 --trace %s", trace);
    rs_cmd_expect_usage(args, "Bad config key: network/bogus-key", NULL, trace);
    /* malformed --cfg, missing platform file, hostmap without platform */
    rs_cmd_expect_usage("sim --cfg nocolon", "--cfg 'nocolon'", NULL, NULL);
    snprintf(args, sizeof args, "sim --platform %s/none.xml", rs_test_dir);
    rs_cmd_expect_usage(args, "none.xml", NULL, NULL);
    rs_cmd_expect_usage("sim --hostmap x.map", "--hostmap x.map needs --platform", NULL, NULL);
    /* the two overlap models together */
    rs_cmd_expect_usage("sim --slowdown 1.5 --overlap 0.5", "--overlap", "--slowdown", NULL);
}

/* --platform-out writes the generated platform; simulating on it as a user platform gives the same
 * makespan (printed with %.17g in --csv -) to 1e-12: a user platform runs SimGrid's full network
 * update (network/optim:Full, docs/sim.md), which rounds differently in the last digits. */
RS_TEST(test_platform_out, "platform_out_round_trip") {
    char plat[800], args[4096];
    snprintf(plat, sizeof plat, "%s", rs_test_path("gen.xml"));
    snprintf(args, sizeof args, "sim -N 16 -S 32K --gpus-per-node 8 --inter ib-ndr -L striped --causal --platform-out %s --csv -",
             plat);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    char *a = rs_test_slurp(rs_test_path("out.txt"), NULL);
    CU_ASSERT(rs_cmd_contains(plat, "nic7-up"));
    snprintf(args, sizeof args, "sim -N 16 -S 32K --gpus-per-node 8 --inter ib-ndr -L striped --causal --platform %s --csv -", plat);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    char *b = rs_test_slurp(rs_test_path("out.txt"), NULL);
    /* row: layout,pass,seq,n,B,makespan_s,walk_makespan_s,... : the first 5 fields equal, both
     * makespans to 1e-12 */
    const char *ra = strchr(a, '\n'), *rb = strchr(b, '\n');
    CU_ASSERT_FATAL(ra && rb);
    int commas = 0;
    size_t i = 1;
    while (ra[i] && ra[i] == rb[i] && commas < 5) commas += ra[i++] == ',';
    CU_ASSERT_EQUAL_FATAL(commas, 5);
    char *ea, *eb;
    const double ma = strtod(ra + i, &ea), mb = strtod(rb + i, &eb);
    RS_ASSERT_REL(ma, mb, 1e-12);
    RS_ASSERT_REL(strtod(ea + 1, NULL), strtod(eb + 1, NULL), 1e-12);
    CU_ASSERT(ma > 0);
    free(a);
    free(b);
}

RS_TEST(test_help, "help_lists_options") {
    CU_ASSERT_EQUAL(rs_test_ringsim("sim --help"), 0);
    const char *opts[] = {"--platform FILE", "--hostmap FILE", "--platform-out FILE", "--network-model", "--cfg KEY:VALUE",
                          "--trace FILE", "--chrome FILE", "--straggler", "--gpus-per-node", "--tp T", "--map FILE",
                          "--fabric F", "--nics K", "--oversub O", "--background B", "--hops FILE", NULL};
    for (int i = 0; opts[i]; i++) CU_ASSERT(rs_cmd_contains(rs_test_path("out.txt"), opts[i]));
}

/* ------------------------------------------------------------------------------------------------
 * Concurrent rings
 * ---------------------------------------------------------------------------------------------- */
/* Bad job input: exit 2, one line naming the option and the rule, no output file. */
RS_TEST(test_job_bad_input, "job_bad_input") {
    char map[800], csv[800], args[4096];
    snprintf(map, sizeof map, "%s", rs_test_path("job.map"));
    snprintf(csv, sizeof csv, "%s", rs_test_path("job.csv"));
    snprintf(args, sizeof args, "sim -N 8 -S 64K --tp 8 --dp 3 --devices 256 --csv %s", csv);
    rs_cmd_expect_usage(args, "--tp 8 --cp 8 --dp 3: 192 devices, but --devices 256", "the degrees must multiply to the device count",
                 csv);
    snprintf(args, sizeof args, "sim -N 8 -S 64K --tp 2 --gpus-per-node 8 --nics 16 --csv %s", csv);
    rs_cmd_expect_usage(args, "--nics 16", "K <= G", csv);
    snprintf(args, sizeof args, "sim -N 8 -S 64K --tp 2 --fabric leaf-spine --oversub 0.5 --csv %s", csv);
    rs_cmd_expect_usage(args, "--oversub 0.5: must be >= 1", NULL, csv);
    rs_test_write_text(map, "0 1 2 3\n4 5 6 3\n");
    snprintf(args, sizeof args, "sim -N 4 -S 16K --map %s --csv %s", map, csv);
    char where[1000];
    snprintf(where, sizeof where, "%s:2: device 3 already holds ring 0 rank 3 (line 1)", map);
    rs_cmd_expect_usage(args, where, "a device holds one rank", csv);
    rs_cmd_expect_usage("sim -N 8 -S 64K --cp 16", "--cp 16 and -N 8", NULL, NULL);
    rs_cmd_expect_usage("sim -N 8 -S 64K --fabric mesh", "--fabric mesh: expected flat, leaf-spine or rail", NULL, NULL);
    rs_cmd_expect_usage("sim -N 8 -S 64K --tp 2 --background dp", "--background dp: size it with --model", NULL, NULL);
    rs_cmd_expect_usage("sim -N 8 -S 64K --tp 2 --degrade 1:2", "--degrade", NULL, NULL);
    snprintf(args, sizeof args, "sim -N 8 -S 64K --tp 2 --trace %s", csv);
    rs_cmd_expect_usage(args, "--trace", NULL, csv);
    rs_cmd_expect_usage("sim -N 8 -S 64K --hops -", "--hops reports a job", NULL, NULL);
}

/* A job end to end: 8 rings through one NIC per node: the table names the saturated NIC, the ring
 * CSV has one row per ring at 1/8 of the NIC, the hop and link CSVs their rows; --platform-out
 * writes the fabric (one DijkstraCache zone). */
RS_TEST(test_job_run, "job_run") {
    char args[4096], plat[800], hops[800], links[800];
    snprintf(plat, sizeof plat, "%s", rs_test_path("fabric.xml"));
    snprintf(hops, sizeof hops, "%s", rs_test_path("hops.csv"));
    snprintf(links, sizeof links, "%s", rs_test_path("links.csv"));
    snprintf(args, sizeof args,
             "sim -S 32K --cp 4 --tp 8 --gpus-per-node 8 --inter ib-ndr --nics 1 --platform-out %s --hops %s --links %s",
             plat, hops, links);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT(rs_cmd_contains(rs_test_path("out.txt"), "# job: tp 8 x cp 4 x dp 1, order tp-cp-dp: 8 rings of 4 ranks on 32 devices"));
    CU_ASSERT(rs_cmd_contains(rs_test_path("out.txt"), "# saturates: nic"));
    CU_ASSERT(rs_cmd_contains(rs_test_path("out.txt"), "0.1250 nic"));
    CU_ASSERT(rs_cmd_contains(plat, "routing=\"DijkstraCache\""));
    CU_ASSERT(rs_cmd_contains(hops, "layout,pass,ring,rank,src_device,dst_device,inter,nominal_bw,achieved_bw"));
    CU_ASSERT(rs_cmd_contains(links, "nic0.0-up,47000000000,")); /* ib-ndr: 50 GB/s x 0.94, the rate p2p reaches */
    snprintf(args, sizeof args, "sim -S 32K --cp 4 --tp 8 --gpus-per-node 8 --inter ib-ndr --nics 1 --csv -");
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    char *t = rs_test_slurp(rs_test_path("out.txt"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int rows = 0;
    for (char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        rows++;
        char *f = l + 1;
        for (int k = 0; k < 9 && f; k++) f = strchr(f, ',') + 1; /* worst_ratio */
        RS_ASSERT_REL(strtod(f, NULL), 0.125, 1e-9);
    }
    CU_ASSERT_EQUAL(rows, 8);
    free(t);
}

/* How each run was folded, in the CSV and JSON beside the table's "# folded:" line: a non-causal
 * contiguous ring of 4 on one flat tier folds by its rotation (4 ranks, one simulated), --no-fold runs
 * whole (1); a job of 16 rings on rails folds into 16 copies of one (docs/sim.md "Folding"). */
RS_TEST(test_fold_copies_out, "fold_copies in the CSV and JSON") {
    const char *ring = "sim -N 4 -S 16K --no-causal -L contiguous -P forward --impl none --gpus-per-node 0";
    char args[1024];
    snprintf(args, sizeof args, "%s --csv -", ring);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, ",activities,engine,fold_copies\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, ",activity,4\n"));
    snprintf(args, sizeof args, "%s --no-fold --csv -", ring);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, ",activity,1\n"));
    snprintf(args, sizeof args, "%s --json -", ring);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\"fold_copies\": 4"));
    const char *job = "sim -S 32K --tp 8 --cp 4 --dp 2 --gpus-per-node 8 --inter ib-ndr --fabric rail -P forward --impl none";
    snprintf(args, sizeof args, "%s -q", job);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# folded: 16 identical copies of 16 rank-steps"));
    snprintf(args, sizeof args, "%s --csv -", job);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, ",peak_rss_bytes,fold_copies\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, ",16\nzigzag,forward,")); /* every ring's row */
    snprintf(args, sizeof args, "%s --json -", job);
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "\"fold_copies\": 16"));
}

/* What the run was asked and what it did: -P both with --background dp notes that the forward rows
 * run without it (the all-reduce is the backward's) and the backward row has it; the header names
 * the rates the steps were costed at (the preset's calls on the kernel's curves, or the bare peak). */
RS_TEST(test_said, "background_pass_note_and_rate_source") {
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("sim -S 32K --cp 4 --tp 2 --gpus-per-node 8 --inter ib-ndr -L zigzag -P both "
                                          "--background dp --bg-bytes 4M -q"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_err, "ringsim sim: note: --background dp: the gradient all-reduce runs in the "
                                               "backward pass; the forward rows run without it\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# background all-reduce: 2 groups of 4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# compute: the attention steps as the flash-attn preset issues its calls, at kernel "));
    CU_ASSERT_EQUAL_FATAL(rs_test_ringsim("sim -S 32K -N 4 --impl none -P forward -q"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rs_test_out, "# compute: the attention steps at the bare datasheet peak"));
    CU_ASSERT_PTR_NULL(strstr(rs_test_err, "--background"));
}

/* As a terminal shows a run: the curves' note once, before the table's first line; with a job, the
 * background's note and then the curves' before the header; a run refused for its size alone. */
RS_TEST(test_notes_before_table, "the notes once before the table, a refused run one line") {
    rs_cmd_expect_notes_first("sim -N 4 -S 8K -L zigzag -P forward -q", "# ringsim sim: ");
    char *t = NULL;
    CU_ASSERT_EQUAL(rs_cmd_tty("sim -S 32K --cp 4 --tp 2 --gpus-per-node 8 --inter ib-ndr -L zigzag -P both --background dp "
                               "--bg-bytes 4M -q", &t), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(strncmp(t, "ringsim sim: note: --background dp: the gradient all-reduce runs in the backward pass", 84), 0);
    const char *nl = strchr(t, '\n');
    CU_ASSERT_FATAL(nl != NULL);
    CU_ASSERT_EQUAL(strncmp(nl + 1, "ringsim: note: kernel ", 22), 0);
    nl = strchr(nl + 1, '\n');
    CU_ASSERT(nl && nl[1] == '#');
    CU_ASSERT(nl && !strstr(nl, "note:"));
    free(t);
    rs_cmd_expect_refused_alone("sim -N 32768 -S 1M", "this run: an estimated 2.15e+09 rank-steps would take about 20.7 days");
}

RS_TEST_MAIN(.suite = "sim_cli", .scratch = "sim_cli")
