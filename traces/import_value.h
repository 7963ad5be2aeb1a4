/* import_value.h - private to traces/import*.c: every number a trace reader takes from a file goes
 * through one of two validating accessors (import_value.c): a JSON value as the Kineto reader saw it
 * (its type and literal), or a column of an SQLite row (the nsys reader). Each checks the type (a
 * number, an integer), that it is finite and representable, and the range of its rule; a refusal is
 * one line naming the file, the event (traceEvents[I]) or the table and row, the field, the value
 * and what is accepted (RS_ERR_BAD_INPUT). The rules (the ranges of times, durations and clock
 * bases) are the RS_V_* below; docs/import.md "What is checked" lists them. */
#ifndef RS_IMPORT_VALUE_H
#define RS_IMPORT_VALUE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "import_raw.h"

/* The longest time one trace covers: the kernels of a file, and of all files together, lie within
 * it (a profiler keeps its buffers in memory: seconds to minutes of a run). */
#define RS_V_MAX_SPAN_NS ((int64_t)86400 * 1000000000)

/* The JSON type of a value as read (RS_JV_ABSENT: the key was not in the object). */
typedef enum { RS_JV_ABSENT = 0, RS_JV_NUMBER, RS_JV_STRING, RS_JV_BOOL, RS_JV_NULL, RS_JV_CONTAINER } rs_jv_type_t;

typedef struct {
    uint8_t type;      /* rs_jv_type_t */
    uint8_t len;       /* bytes of text kept (a longer literal is marked cut) */
    bool cut;          /* the literal was longer than text */
    char text[61];     /* the literal as written (a number, a string, true/false) */
} rs_jv_t;

/* v becomes a value of this type with the literal s[0..len) (NULL for null and containers). */
void rs_jv_set(rs_jv_t *v, rs_jv_type_t type, const char *s, size_t len);

/* What a field accepts. */
typedef struct {
    const char *field;  /* its name in the file: "ts", "start", "baseTimeNanoseconds" */
    const char *unit;   /* "microseconds", "nanoseconds"; NULL for an id */
    double lo, hi;      /* accepted range, in the file's unit */
    int64_t scale;      /* 1000: microseconds with up to 3 decimals read as nanoseconds; 1: an integer */
    bool required;      /* absent (or SQL NULL) is refused */
    bool text_ok;       /* JSON: a string holding a number is read as the number */
} rs_vrule_t;

extern const rs_vrule_t RS_V_KINETO_TS, RS_V_KINETO_DUR, RS_V_KINETO_BASE, RS_V_NSYS_START, RS_V_NSYS_END, RS_V_NSYS_EPOCH;
extern const rs_vrule_t RS_V_KINETO_DEVICE, RS_V_KINETO_STREAM, RS_V_KINETO_CORR, RS_V_NSYS_DEVICE, RS_V_NSYS_STREAM, RS_V_NSYS_CORR, RS_V_NSYS_PID,
    RS_V_NSYS_GRID;
/* A communication's arguments (Kineto's NCCL kernels and record_param_comms): message sizes, the
 * group's size, a point-to-point peer (a global rank); a kernel's grid and block, per dimension. */
extern const rs_vrule_t RS_V_KINETO_IN_NELEMS, RS_V_KINETO_OUT_NELEMS, RS_V_KINETO_GROUP_SIZE, RS_V_KINETO_SRC, RS_V_KINETO_DST;
extern const rs_vrule_t RS_V_KINETO_GRID[3], RS_V_KINETO_BLOCK[3];
/* The header's distributedInfo.rank and .world_size. */
extern const rs_vrule_t RS_V_KINETO_RANK, RS_V_KINETO_WORLD;

/* The largest rank a trace may name (a world of 2^24 ranks): rank lists and peers. */
#define RS_V_MAX_RANK 16777215

/* Where a value is, for messages: a Kineto file's traceEvents[index] (table NULL), an nsys table's
 * row (index: its 1-based position in the query), or a header field (index -1). */
typedef struct {
    const char *file;
    const char *table;
    int64_t index;
} rs_vat_t;

/* The JSON value v under rule r into *out (nanoseconds for a time; the integer otherwise). Returns 0
 * (*out set), 1 when v is absent and the rule allows it (*out untouched), or -1 with err. */
int rs_value_json(const rs_vat_t *at, const rs_vrule_t *r, const rs_jv_t *v, int64_t *out, rs_err_t *err);
/* Column col of the current row of st under rule r (an INTEGER, or a REAL holding one): as
 * rs_value_json (1 for a NULL the rule allows). */
int rs_value_sql(const rs_vat_t *at, const rs_vrule_t *r, sqlite3_stmt *st, int col, int64_t *out, rs_err_t *err);
/* A value that must be text (a collective's name, a process group's name, a dtype): 0 when v is a
 * non-empty string, 1 when absent, -1 with err naming field (refused: another type, "") otherwise. */
int rs_value_json_text(const rs_vat_t *at, const char *field, const rs_jv_t *v, rs_err_t *err);

/* A JSON array of (at most) three values as read: a kernel's grid or block. */
typedef struct {
    rs_jv_t whole; /* the value itself (RS_JV_ABSENT: no such key) */
    bool array;    /* it is an array (not an object) */
    int n;         /* its entries (only the first 3 kept in v) */
    rs_jv_t v[3];
} rs_jv_dim3_t;

/* The dimensions d under the rules r[0..3) (x, y, z) into out: 0, 1 when absent (out untouched), or
 * -1 with err (not an array of three integers, or one out of its range, named "args.grid[1]"). */
int rs_value_json_dim3(const rs_vat_t *at, const rs_vrule_t r[3], const rs_jv_dim3_t *d, int32_t out[3], rs_err_t *err);

/* A list of ranks written as text, field's value s: "[0, 2, 4, 6]", ranges "0-3", a list cut after
 * its first entries ("[0, 1, ..., 29, ...]": Kineto's profiler writes at most 30). Its ranks into
 * out[0..cap) (*n of them; *cut when the list was cut or has more than cap ranks: not all are known),
 * the largest into *max_rank (-1 for none). 0, or -1 with err: not a list of integers, a rank above
 * RS_V_MAX_RANK, a rank twice. */
int rs_value_ranks(const rs_vat_t *at, const char *field, const char *s, int32_t *out, int cap, int *n, bool *cut, int64_t *max_rank, rs_err_t *err);
/* ranks[0..n) are distinct (the field named as by rs_value_ranks, shown: the list as written, NULL
 * when it was not text). 0, or -1 with err. */
int rs_value_ranks_distinct(const rs_vat_t *at, const char *field, const char *shown, const int32_t *ranks, int n, rs_err_t *err);

/* An integer written as text ("7", "-3", "7.0"): 0 (*v set) or -1 when it is none that fits. The
 * tolerant reading of ids and counts (a stream, a correlation id, a rank), unknown when unreadable. */
int rs_value_i64_text(const char *s, size_t len, int64_t *v);
/* An interval's end against its start (both in nanoseconds, fields named by the rules). 0 or -1 with
 * err. */
int rs_value_order(const rs_vat_t *at, const char *start_field, int64_t start_ns, const char *end_field, int64_t end_ns, rs_err_t *err);

/* The earliest start and latest end of a file's kernels, and where they are. */
typedef struct {
    int64_t lo_ns, hi_ns, lo_at, hi_at;
} rs_vspan_t;

void rs_vspan_init(rs_vspan_t *s);
void rs_vspan_add(rs_vspan_t *s, int64_t start_ns, int64_t end_ns, int64_t at);
/* The span against RS_V_MAX_SPAN_NS (at: the file and table; its index unused). 0 or -1 with err
 * naming the first and the last kernel. */
int rs_vspan_check(const rs_vspan_t *s, const rs_vat_t *at, rs_err_t *err);

#endif /* RS_IMPORT_VALUE_H */
