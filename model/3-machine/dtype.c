/* dtype.c - the data types by name and size (dtype.h). */
#include "dtype.h"

#include <strings.h>

static const char *const dtype_names[RS_DTYPE_COUNT] = {"fp32", "tf32", "bf16", "fp16", "fp8"};
static const int64_t dtype_bytes[RS_DTYPE_COUNT] = {4, 4, 2, 2, 1};

const char *rs_dtype_name(rs_dtype_t t) {
    return (t >= 0 && t < RS_DTYPE_COUNT) ? dtype_names[t] : "?";
}

int rs_dtype_parse(const char *s, rs_dtype_t *out) {
    if (!s) return -1;
    for (int k = 0; k < RS_DTYPE_COUNT; k++) {
        if (!strcasecmp(s, dtype_names[k])) {
            *out = (rs_dtype_t)k;
            return 0;
        }
    }
    return -1;
}

int64_t rs_dtype_bytes(rs_dtype_t t) { return (t >= 0 && t < RS_DTYPE_COUNT) ? dtype_bytes[t] : 0; }
