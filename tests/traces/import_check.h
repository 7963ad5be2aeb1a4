/* import_check.h - what the import's tests share (import_check.c): the traced problem, fixture runs
 * written to files, and the checks of an import against the fixture's ground truth. */
#ifndef RS_TEST_IMPORT_CHECK_H
#define RS_TEST_IMPORT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "import.h"
#include "import_fixtures.h"

#define IT_DATA RS_SOURCE_DIR "/tests/fixtures/data"

/* The default problem with S = 32K on 4 ranks (what the fixtures trace). */
rs_problem_t it_problem(void);
/* rs_import_opts_default with it_problem(). */
rs_import_opts_t it_opts(void);
/* rs_import_read of one path. */
rs_import_t *it_import1(const char *path, const rs_import_opts_t *o, rs_err_t *err);

/* Same events and role events: keys, peers, FLOPs, bytes equal; times and busy times within tol_s. */
void it_same_events(const rs_trace_t *want, const rs_trace_t *got, double tol_s);
/* The import of run matches fx_expected for every pass it holds (that occurrence, replica 0): the
 * problem header, every event and role event, the kernels behind every (rank, step). */
void it_check_import(const fx_run_t *run, rs_import_t *im, int occurrence);

/* Generate the run of fo (NULL: fx_opts_default) into *run and write it as Kineto files into the
 * fresh scratch directory name (gzip or not); the directory's path (valid for the next 7
 * rs_test_fresh_dir calls). */
const char *it_kineto_dir(const char *name, const fx_opts_t *fo, bool gzip, fx_run_t *run);
/* ringsim exec --launch threads: one process, one thread per GPU, one file (Kineto, or nsys when
 * nsys), with and without step ranges: every device is a rank, the import matches the fixture. */
void it_check_one_process(bool nsys);
/* Write run as an nsys SQLite export rs_test_dir/name.sqlite (through name.sql) into db[0..len). */
void it_nsys_db(const fx_run_t *run, const char *name, char *db, size_t len);
/* Copy the first keep bytes of src to dst. */
void it_truncate_copy(const char *src, const char *dst, long keep);
/* Decompressed bytes of a gzip file (NUL-terminated, malloc'd), NULL on error. */
char *it_gunzip(const char *path);

/* The import of path fails with one line holding needle, and code. */
void it_expect_fail(const char *path, const rs_import_opts_t *o, const char *needle, rs_errc_t code);
/* The default fixture (ranges or not) changed by tweak, written as Kineto into the scratch directory
 * name: its import fails with one line holding needle, as bad input. */
void it_bad_kineto(const char *name, void (*tweak)(fx_opts_t *), bool ranges, const char *needle);

#endif /* RS_TEST_IMPORT_CHECK_H */
