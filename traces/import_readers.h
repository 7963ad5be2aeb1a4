/* import_readers.h - private to traces/import*.c: the trace readers, each appending the raw ranks of
 * one file to the raw store (import_raw.h): Kineto JSON (import_kineto.c), Nsight Systems SQLite
 * (import_nsys.c), rocprofv3 kernel trace CSV (import_rocprof.c). import.c picks one per file by its format (import_files.h). Every number they use
 * from a file goes through the validating accessors of import_value.h; the nsys reader runs every
 * statement under a step and time budget. */
#ifndef RS_IMPORT_READERS_H
#define RS_IMPORT_READERS_H

#include "import_raw.h"

/* Append the ranks of one file. 0, or -1 with err "path: what is wrong" (a value refused: "path:
 * traceEvents[I]: ..." / "path: TABLE row R: ..."), or -2 (err set) when the
 * file is not a trace of the tool at all (a JSON without traceEvents, a database without the kernel
 * table): then nothing was appended. */
int rs_import_read_kineto(rs_raw_t *raw, const char *path, rs_err_t *err);
int rs_import_read_nsys(rs_raw_t *raw, const char *path, rs_err_t *err);
int rs_import_read_rocprof(rs_raw_t *raw, const char *path, rs_err_t *err);

#endif /* RS_IMPORT_READERS_H */
