/* test_import_nsys.c - the Nsight Systems SQLite reader (traces/import_nsys.c): a small export
 * written by hand read into the raw store (processes from globalPid, the ring order from MPI_RANKS,
 * the session start, launches by process and correlation id, NVTX ranges of both kinds, shortName
 * without demangledName, the GPU name), the fixtures imported (NVTX text, textId, no NVTX, MPI_RANKS,
 * one process driving 4 GPUs), and the refusals with their exact messages. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "import_check.h"
#include "import_fixtures_names.h"
#include "import_readers.h"
#include "test_main.h"
#include "traces_check.h"

#define T0 1000000LL /* the session start */

/* Processes 7 and 9 (globalPid = pid << 24), one GPU each; MPI_RANKS puts 9 first. */
static const char SMALL[] =
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, streamId INTEGER,\n"
    "  correlationId INTEGER, globalPid INTEGER, shortName INTEGER NOT NULL);\n"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER);\n"
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT, globalTid INTEGER);\n"
    "CREATE TABLE TARGET_INFO_GPU (name TEXT);\n"
    "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER);\n"
    "CREATE TABLE MPI_RANKS (globalTid INTEGER, rank INTEGER);\n"
    "INSERT INTO StringIds VALUES (1, 'ncclDevKernel_SendRecv(x)'), (2, 'flash_fwd_kernel'), (3, 'elementwise_kernel');\n"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (105, 120, 1, 7, 6, 7 << 24, 2), (100, 110, 1, 21, 5, 7 << 24, 1),\n"
    "  (200, 230, 0, 21, 5, 9 << 24, 1), (130, 140, 1, 7, 7, 7 << 24, 3);\n"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (90, 91, (7 << 24) + 1, 5), (95, 96, (7 << 24) + 1, 6),\n"
    "  (180, 181, (9 << 24) + 2, 5), (185, 186, (9 << 24) + 2, 5), (50, 51, (9 << 24) + 2, 99);\n"
    "INSERT INTO NVTX_EVENTS VALUES (80, 150, 59, 'ring_attn.fwd.step_0', (7 << 24) + 1), (170, 210, 60, 'ring step 1', (9 << 24) + 2),\n"
    "  (10, NULL, 59, 'ring step 5', (9 << 24) + 2), (10, 20, 34, 'ring step 6', (9 << 24) + 2), (10, 20, 59, 'other', (9 << 24) + 2);\n"
    "INSERT INTO TARGET_INFO_GPU VALUES (NULL), ('NVIDIA H100 80GB HBM3');\n"
    "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1000000);\n"
    "INSERT INTO MPI_RANKS VALUES ((9 << 24) + 2, 0), ((7 << 24) + 1, 1);\n";

/* rs_test_dir/name.sqlite from the SQL text. */
static const char *make_db(const char *name, const char *sql) {
    char p[1100];
    snprintf(p, sizeof p, "%s.sql", name);
    rs_test_write_text(rs_test_path(p), sql);
    snprintf(p, sizeof p, "%s.sqlite", name);
    char s[1100];
    snprintf(s, sizeof s, "%s/%s.sql", rs_test_dir, name);
    CU_ASSERT_EQUAL_FATAL(fx_sql_to_sqlite(s, rs_test_path(p)), 0);
    return rs_test_path(p);
}

RS_TEST(test_reader_by_hand, "an nsys export written by hand, into the raw store") {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    const char *db = make_db("small", SMALL);
    if (rs_import_read_nsys(&raw, db, &err) != 0) fprintf(stderr, "  %s\n", err.msg);
    CU_ASSERT_STRING_EQUAL(raw.gpu_name, "NVIDIA H100 80GB HBM3");
    CU_ASSERT_EQUAL_FATAL(raw.n_ranks, 2);
    const rs_raw_rank_t *r0 = &raw.ranks[0], *r1 = &raw.ranks[1];
    CU_ASSERT_STRING_EQUAL(r0->file, db);
    CU_ASSERT(r0->proc == 9 && r0->device == 0 && r0->rank_key == 0);
    CU_ASSERT(r1->proc == 7 && r1->device == 1 && r1->rank_key == 1);
    CU_ASSERT_EQUAL_FATAL(r0->nk, 1);
    /* the first launch of its correlation id counts */
    CU_ASSERT(r0->k[0].start_ns == T0 + 200 && r0->k[0].end_ns == T0 + 230 && r0->k[0].launch_ns == T0 + 180);
    CU_ASSERT(r0->k[0].order == 5 && r0->k[0].stream == 21 && r0->k[0].role == RS_KROLE_SENDRECV);
    CU_ASSERT_EQUAL_FATAL(r1->nk, 3); /* every kernel is kept, by start */
    CU_ASSERT(r1->k[0].start_ns == T0 + 100 && r1->k[0].end_ns == T0 + 110 && r1->k[0].launch_ns == T0 + 90);
    CU_ASSERT(r1->k[1].start_ns == T0 + 105 && r1->k[1].launch_ns == T0 + 95 && r1->k[1].role == RS_KROLE_ATTN_FWD);
    CU_ASSERT(r1->k[2].start_ns == T0 + 130 && r1->k[2].end_ns == T0 + 140 && r1->k[2].role == RS_KROLE_MERGE); /* elementwise */
    CU_ASSERT_STRING_EQUAL(raw.names[r1->k[1].name], "flash_fwd_kernel");
    /* push/pop and start/end ranges with an end; marks, open ranges and other names are not steps */
    CU_ASSERT_EQUAL_FATAL(r1->nr, 1);
    CU_ASSERT(r1->r[0].start_ns == T0 + 80 && r1->r[0].end_ns == T0 + 150 && r1->r[0].step == 0 && r1->r[0].pass_hint == RS_PASS_FORWARD);
    CU_ASSERT_EQUAL_FATAL(r0->nr, 1);
    CU_ASSERT(r0->r[0].start_ns == T0 + 170 && r0->r[0].step == 1 && r0->r[0].pass_hint == -1);
    rs_raw_free(&raw);
}

/* path's read fails (rc: -1 a broken export, -2 not an nsys export at all) with "path: " + msg. */
static void expect_read_fail(const char *path, int rc, const char *msg) {
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    CU_ASSERT_EQUAL(rs_import_read_nsys(&raw, path, &err), rc);
    char want[1400];
    snprintf(want, sizeof want, "%s: %s", path, msg);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    CU_ASSERT_EQUAL(raw.n_ranks, 0);
    rs_raw_free(&raw);
}

RS_TEST(test_reader_refusals, "the reader's refusals") {
    expect_read_fail(make_db("nostrings", "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, shortName INTEGER);\n"), -2,
                     "no StringIds table (the kernel names): not an nsys SQLite export");
    expect_read_fail(make_db("nokernels", "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);\n"), -2,
                     "no CUPTI_ACTIVITY_KIND_KERNEL table: no CUDA kernels were traced (profile with nsys profile -t cuda,nvtx)");
    expect_read_fail(make_db("nocols", "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);\n"
                                       "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (begin INTEGER, end INTEGER, shortName INTEGER);\n"),
                     -1, "CUPTI_ACTIVITY_KIND_KERNEL lacks start, end or demangledName/shortName columns");
    rs_test_write_text(rs_test_path("text.sqlite"), "{\"traceEvents\": []} and more text than a header\n");
    expect_read_fail(rs_test_path("text.sqlite"), -1, "SQLite error reading the schema: file is not a database");
    /* every number read is checked: its SQL type, its range, end >= start, the span of the kernels,
     * the session start; the row is its place in the table (1-based) */
    const char *tab = "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);\n"
                      "INSERT INTO StringIds VALUES (1, 'flash_fwd_kernel');\n"
                      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, shortName INTEGER);\n";
    /* a start of each SQL type: NULL, text, a fraction, negative; then an end too large, before
     * its start, and one kernel a day out of line */
    const char *const start_bad[] = {"NULL", "NULL", "'abc'", "the text \"abc\"", "1.5", "1.5", "-5", "-5"};
    for (size_t i = 0; i < 7; i++) {
        char sql[1024], name[16], msg[300];
        snprintf(name, sizeof name, "bad%zu", i);
        const char *rows = i == 4 ? "(1, 2, 1), (3, 1e300, 1)" : i == 5 ? "(1, 2, 1), (300, 200, 1)" : "(1, 2, 1), (1000000, 2000000, 1)";
        if (i == 6) rows = "(1000, 2000, 1), (100000000000000, 100000000000010, 1)";
        char r4[128];
        if (i < 4) snprintf(r4, sizeof r4, "(1, 2, 1), (%s, 5, 1)", start_bad[2 * i]), rows = r4;
        snprintf(sql, sizeof sql, "%sINSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES %s;\n", tab, rows);
        if (i < 4) snprintf(msg, sizeof msg, "CUPTI_ACTIVITY_KIND_KERNEL row 2: start %s: expected an integer of nanoseconds in [0, 4e+18]", start_bad[2 * i + 1]);
        else if (i == 4) snprintf(msg, sizeof msg, "CUPTI_ACTIVITY_KIND_KERNEL row 2: end 1.0000000000000001e+300: expected an integer of nanoseconds in [0, 4e+18]");
        else if (i == 5) snprintf(msg, sizeof msg, "CUPTI_ACTIVITY_KIND_KERNEL row 2: end 200 ns is before start 300 ns: expected end >= start");
        else snprintf(msg, sizeof msg, "CUPTI_ACTIVITY_KIND_KERNEL row 1 starts 100000 s (1.16 days) before CUPTI_ACTIVITY_KIND_KERNEL row 2 ends: the kernels "
                      "of one trace span at most 86400 s (24 h): a time out of line");
        expect_read_fail(make_db(name, sql), -1, msg);
    }
    /* a kernel's ids: device, stream, correlation id (NULL: unknown), globalPid, grid */
    const char *ids = "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);\nINSERT INTO StringIds VALUES (1, 'flash_fwd_kernel');\n"
                      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, shortName, deviceId, streamId, correlationId, globalPid, gridX, gridY, gridZ);\n"
                      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ";
    const char *const id_rows[] = {"(1, 2, 1, 'gpu0', 7, 1, 0, 1, 1, 1)", "deviceId the text \"gpu0\": expected an integer in [0, 65535]",
                                   "(1, 2, 1, 0, -7, 1, 0, 1, 1, 1)", "streamId -7: expected an integer in [0, 4294967295]",
                                   "(1, 2, 1, 0, 7, 2.5, 0, 1, 1, 1)", "correlationId 2.5: expected an integer in [0, 4e+18]",
                                   "(1, 2, 1, 0, 7, 1, NULL, 1, 1, 1)", "globalPid NULL: expected an integer in [0, 9e+18]",
                                   "(1, 2, 1, 0, 7, 1, 0, 1, 1, 3000000000)", "gridX/Y/Z 3000000000: expected an integer in [0, 2147483647]"};
    for (size_t i = 0; i < sizeof id_rows / sizeof id_rows[0]; i += 2) {
        char q[1024], name[16], msg[300];
        snprintf(q, sizeof q, "%s%s;\n", ids, id_rows[i]);
        snprintf(name, sizeof name, "ids%zu", i / 2);
        snprintf(msg, sizeof msg, "CUPTI_ACTIVITY_KIND_KERNEL row 1: %s", id_rows[i + 1]);
        expect_read_fail(make_db(name, q), -1, msg);
    }
    char sql[2048];
    snprintf(sql, sizeof sql, "%sINSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 1);\n"
             "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs);\nINSERT INTO TARGET_INFO_SESSION_START_TIME VALUES ('soon');\n", tab);
    expect_read_fail(make_db("epoch_text", sql), -1, "TARGET_INFO_SESSION_START_TIME row 1: utcEpochNs the text \"soon\": expected an integer of "
                     "nanoseconds in [0, 4e+18]");
    /* a kernel "table" that is a view over a recursive CTE that never ends: stopped by the step budget */
    snprintf(sql, sizeof sql, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);\n"
             "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r) "
             "SELECT n AS start, n + 1 AS end, 1 AS shortName FROM r;\n");
    const char *loop = make_db("loop", sql);
    rs_raw_t raw;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_raw_init(&raw, NULL, NULL, &err), 0);
    CU_ASSERT_EQUAL(rs_import_read_nsys(&raw, loop, &err), -1);
    char want[1400];
    snprintf(want, sizeof want, "%s: reading kernel names stopped after 2e+07 SQLite steps and ", loop);
    CU_ASSERT_NSTRING_EQUAL(err.msg, want, strlen(want));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, " s (the budget of this file: 2e+07 steps, 600 s): a view or trigger that does not end; not an nsys export"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
    rs_raw_free(&raw);
    /* GEMMs only: read, then refused by the import with the kernels it saw */
    const char *gemm = make_db("noring", "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);\n"
                                         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, shortName INTEGER);\n"
                                         "INSERT INTO StringIds VALUES (1, 'sm90_xmma_gemm_bf16bf16');\n"
                                         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 1), (3, 4, 1);\n");
    rs_import_opts_t o = it_opts();
    rs_err_clear(&err);
    CU_ASSERT_PTR_NULL(it_import1(gemm, &o, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "noring.sqlite: 1 rank with GPU kernels (2 kernel(s), the most frequent 2 x 'sm90_xmma_gemm_bf16bf16'): "
                                       "a ring needs at least 2 ranks (give every rank's trace)"));
    CU_ASSERT_EQUAL(err.code, RS_ERR_BAD_INPUT);
}

RS_TEST(test_nsys, "nsys: NVTX text, textId, no NVTX, MPI_RANKS") {
    for (int variant = 0; variant < 4; variant++) {
        fx_opts_t fo;
        fx_opts_default(&fo);
        fo.n_layers = 2;
        fo.ranges = variant != 2;           /* 2: a file without NVTX */
        fo.nvtx_text_id = variant == 1;     /* 1: registered strings */
        fo.mpi_ranks = variant == 3;        /* 3: devices permuted, MPI_RANKS gives the ring order */
        fx_run_t run;
        CU_ASSERT_EQUAL_FATAL(fx_generate(&fo, &run), 0);
        char db[1100];
        it_nsys_db(&run, "nsys", db, sizeof db);
        for (int layer = 0; layer < 2; layer++) {
            rs_import_opts_t o = it_opts();
            o.occurrence = layer;
            rs_err_t err = {0};
            rs_import_t *im = it_import1(db, &o, &err);
            if (!im) fprintf(stderr, "  variant %d: %s\n", variant, err.msg);
            it_check_import(&run, im, layer);
            CU_ASSERT_EQUAL(rs_import_info(im)->format, RS_IMPORT_NSYS);
            CU_ASSERT_EQUAL(rs_import_info(im)->ranges, fo.ranges);
            rs_import_free(im);
        }
        fx_free(&run);
    }
}

/* ringsim exec --launch threads: one process, one thread per GPU: every device is a rank. */
RS_TEST(test_one_process, "one process driving 4 GPUs") { it_check_one_process(true); }

/* Through the import: an export without kernels, one without attention (--kernel-regex fixes it). */
RS_TEST(test_bad_files, "no kernel table, no attention kernel") {
    rs_import_opts_t o = it_opts();
    rs_test_write_text(rs_test_path("nokernel.sql"), "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n"
                                                     "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT);\n");
    CU_ASSERT_EQUAL_FATAL(fx_sql_to_sqlite(rs_test_path("nokernel.sql"), rs_test_path("nokernel.sqlite")), 0);
    it_expect_fail(rs_test_path("nokernel.sqlite"), &o, "nokernel.sqlite: no CUPTI_ACTIVITY_KIND_KERNEL table", RS_ERR_BAD_INPUT);
    fx_opts_t fn;
    fx_opts_default(&fn);
    fn.no_attention = true;
    fx_run_t run2;
    CU_ASSERT_EQUAL_FATAL(fx_generate(&fn, &run2), 0);
    char db[1100];
    it_nsys_db(&run2, "noattn", db, sizeof db);
    it_expect_fail(db, &o, "noattn.sqlite: rank 0: no attention kernel", RS_ERR_BAD_INPUT);
    rs_import_opts_t ok = it_opts();
    ok.kernel_regex = "custom_ring_attention_";
    rs_err_t err;
    rs_import_t *im = it_import1(db, &ok, &err);
    for (size_t i = 0; i < run2.nk; i++) /* named by --kernel-regex: attention now */
        if (!strcmp(run2.k[i].name, K_CUSTOM_FWD) || !strcmp(run2.k[i].name, K_CUSTOM_BWD))
            run2.k[i].role = run2.k[i].pass == RS_PASS_FORWARD ? RS_KROLE_ATTN_FWD : RS_KROLE_ATTN_BWD;
    it_check_import(&run2, im, 0);
    rs_import_free(im);
    fx_free(&run2);
}

RS_TEST_PROGRAM_IN("import_nsys")
