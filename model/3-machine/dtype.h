/* dtype.h - the data types a device computes in and a problem moves: names, parsing and bytes per
 * element. Every reader of a dtype name (options, profiles, kernel curves) goes through these. */
#ifndef RS_DTYPE_H
#define RS_DTYPE_H

#include <stdint.h>

typedef enum { RS_DTYPE_FP32 = 0, RS_DTYPE_TF32, RS_DTYPE_BF16, RS_DTYPE_FP16, RS_DTYPE_FP8, RS_DTYPE_COUNT } rs_dtype_t;

/* "fp32", "tf32", "bf16", "fp16", "fp8"; "?" for a value out of range. Can't fail. */
const char *rs_dtype_name(rs_dtype_t t);
/* The dtype called s (case-insensitive): 0 and *out, or -1 when s names none (or is NULL). */
int rs_dtype_parse(const char *s, rs_dtype_t *out);
/* Bytes per element: 4, 4, 2, 2, 1; 0 for a value out of range. Can't fail. */
int64_t rs_dtype_bytes(rs_dtype_t t);

#endif /* RS_DTYPE_H */
