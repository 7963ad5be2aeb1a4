/* test_dtype.c - the data types (dtype.c): names, bytes per element, parsing (case-insensitive). */
#include <string.h>

#include "dtype.h"
#include "test_main.h"

RS_TEST(test_dtypes, "names, bytes and parsing of every dtype") {
    const char *names[] = {"fp32", "tf32", "bf16", "fp16", "fp8"};
    const int64_t bytes[] = {4, 4, 2, 2, 1};
    for (int k = 0; k < RS_DTYPE_COUNT; k++) {
        CU_ASSERT_STRING_EQUAL(rs_dtype_name((rs_dtype_t)k), names[k]);
        CU_ASSERT_EQUAL(rs_dtype_bytes((rs_dtype_t)k), bytes[k]);
        rs_dtype_t t;
        CU_ASSERT_EQUAL(rs_dtype_parse(names[k], &t), 0);
        CU_ASSERT_EQUAL(t, (rs_dtype_t)k);
    }
    rs_dtype_t t;
    CU_ASSERT_EQUAL(rs_dtype_parse("BF16", &t), 0);
    CU_ASSERT_EQUAL(t, RS_DTYPE_BF16);
    CU_ASSERT_EQUAL(rs_dtype_parse("int8", &t), -1);
}

RS_TEST_PROGRAM("dtype")
