/* studies_fixtures.h - what the tests of studies/ share (studies_fixtures.c): the default profile's
 * machine, the walk's trace of a problem on it, a check that a sentence shows no nan or inf, a
 * report written by the built ringsim, a finished setup, a planning study's inputs, and what a
 * temporary file holds. */
#ifndef RS_STUDIES_FIXTURES_H
#define RS_STUDIES_FIXTURES_H

#include <stdbool.h>
#include <stdio.h>

#include "harness.h"
#include "machine.h"
#include "memory.h"
#include "schedule.h"
#include "setup.h"
#include "test_main.h"
#include "trace.h"

/* rs_setup_finish of s (a fatal assertion when it fails, its message on stderr). */
void rs_test_setup_finish(rs_setup_t *s);
/* A planning study's inputs: Llama-3-8B into *model, and a temporary file for its text (returned);
 * fatal assertions when either fails. */
FILE *rs_test_planning_inputs(rs_transformer_t *model);
/* A planning study's inputs *in (rs_plan_in_t, rs_infer_in_t): defaults(in), then Llama-3-8B and the
 * temporary file of rs_test_planning_inputs. */
#define RS_TEST_PLANNING_IN(in, defaults) (defaults(in), (in)->out = rs_test_planning_inputs(&(in)->config.model))
/* What was written to fp, read from its start (fp closed), NUL-terminated (malloc'd). */
char *rs_test_read_back(FILE *fp);

/* The default profile's machine as the CLI and the report build it (preset h100-sxm, bf16, no
 * overrides: its kernel curves and preset); dense: on the dense peak model instead (every zigzag
 * step computes the same). A failed assertion when it cannot be built. */
void rs_test_h100(rs_machine_t *m, bool dense);
/* The walk's trace of p on the dense h100-sxm machine, with the problem's header keys, sorted. */
rs_trace_t *rs_test_model_trace(const rs_problem_t *p);
/* No "nan" or "inf" as a word (case-insensitive) in s. */
bool rs_test_no_nan_word(const char *s);
/* `ringsim report -o DIR OPTS` into the scratch directory's NAME (exit 0 asserted, fatally);
 * returns DIR (valid until the next call). */
const char *rs_test_report(const char *name, const char *opts);
/* The file DIR/rel of the last rs_test_report, NUL-terminated (malloc'd), or NULL. */
char *rs_test_report_file(const char *rel);

#endif /* RS_STUDIES_FIXTURES_H */
