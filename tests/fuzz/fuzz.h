/* fuzz.h - what the fuzz harnesses (tests/fuzz/fuzz_*.c) share.
 *
 * Each harness defines LLVMFuzzerTestOneInput(), the libFuzzer entry point: it feeds one input to a
 * reader and checks the reader's contract on the result (an accepted input gives values in their
 * documented ranges and reads back the same after writing; a refused one gives a message). The same
 * file links either with libFuzzer (RINGSIM_FUZZ=ON, clang: fuzzing) or with replay.c (every build:
 * the CTest replay of tests/fuzz/regressions/<harness>/ and the seed corpora).
 */
#ifndef RS_FUZZ_H
#define RS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libFuzzer's entry point: run one input. Returns 0 (a broken contract aborts). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write data to a file named "<slot><suffix>" in this process's scratch folder (created on first use
 * under $TMPDIR or /tmp and removed at exit) and return its path (valid until the next call with the
 * same slot). The readers under test take paths. Aborts when the file cannot be written. */
const char *rs_fuzz_file(const char *slot, const char *suffix, const uint8_t *data, size_t size);
/* Path of "<slot><suffix>" in the scratch folder without writing it (for writers' outputs). */
const char *rs_fuzz_path(const char *slot, const char *suffix);
/* A copy of data with a NUL appended (free it). */
char *rs_fuzz_text(const uint8_t *data, size_t size);

/* Say what a reader decided ("accepted" or its message) when RS_FUZZ_VERBOSE is set (replay -v). */
void rs_fuzz_note(const char *what, int rc, const char *msg);

/* A refused input's message: rc is -1 and msg one non-empty line of text (util.h: rs_err_t). */
void rs_fuzz_check_refused(int rc, const char *msg);

/* The same, and msg starts with origin (the file: "path:line: ..." or "path: ..."); a line it cites
 * is one of the file's (data, size: its bytes), or the one after its last (what was expected at the
 * end). */
void rs_fuzz_check_refused_at(int rc, const char *msg, const char *origin, const uint8_t *data, size_t size);

/* A broken contract: print where and what, then abort (libFuzzer keeps the input as a crash). */
#define RS_FUZZ_CHECK(cond)                                                                   \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "%s:%d: contract broken: %s\n", __FILE__, __LINE__, #cond);       \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

#endif /* RS_FUZZ_H */
