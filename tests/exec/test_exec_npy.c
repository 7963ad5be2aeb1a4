/* test_exec_npy.c - .npy files (exec/exec_npy.c): a written array read back (the header's descr and
 * shape, its padding to 64 bytes, the data), the refusals of the header reader with their messages,
 * and --save-io's file name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec_npy.h"
#include "test_main.h"

static char dir[64];

static void path_of(char *out, size_t n, const char *name) { snprintf(out, n, "%s/%s", dir, name); }

/* Bytes of a file into buf (at most cap); returns the size, -1 when unreadable. */
static long slurp(const char *path, unsigned char *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    long n = (long)fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void write_bytes(const char *path, const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(b, 1, n, f), n);
    fclose(f);
}

/* A 2 x 3 x 4 array written and read back: magic and version 1.0, the header dict with descr <f4,
 * C order and the shape, padded with spaces to a multiple of 64 bytes and ended by a newline, then
 * the 24 floats in order; a 1-d shape is written "(5,)". */
RS_TEST(test_round_trip, "round_trip") {
    char path[128];
    path_of(path, sizeof path, "a.npy");
    float data[24];
    for (int i = 0; i < 24; i++) data[i] = 0.5f * (float)i - 3.0f;
    const int64_t shape[3] = {2, 3, 4};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_npy_write_f32(path, data, 3, shape, &err), 0);
    unsigned char b[512];
    const long n = slurp(path, b, sizeof b);
    CU_ASSERT_EQUAL_FATAL(n, 128 + 24 * 4); /* a 118-byte dict after the 10-byte prefix: one 128-byte header */
    CU_ASSERT_EQUAL(memcmp(b, "\x93NUMPY\x01\x00", 8), 0);
    CU_ASSERT_EQUAL(b[8] | (b[9] << 8), 118);
    const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }";
    CU_ASSERT_EQUAL(memcmp(b + 10, dict, sizeof dict - 1), 0);
    for (size_t i = 10 + sizeof dict - 1; i < 127; i++) CU_ASSERT_EQUAL(b[i], ' ');
    CU_ASSERT_EQUAL(b[127], '\n');
    CU_ASSERT_EQUAL(memcmp(b + 128, data, sizeof data), 0);
    rs_npy_header_t h;
    CU_ASSERT_EQUAL_FATAL(rs_npy_read_header(path, &h, &err), 0);
    CU_ASSERT_STRING_EQUAL(h.descr, "<f4");
    CU_ASSERT_EQUAL(h.ndim, 3);
    CU_ASSERT(h.shape[0] == 2 && h.shape[1] == 3 && h.shape[2] == 4);
    const int64_t one[1] = {5};
    CU_ASSERT_EQUAL_FATAL(rs_npy_write_f32(path, data, 1, one, &err), 0);
    CU_ASSERT(slurp(path, b, sizeof b) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr((const char *)b + 10, "'shape': (5,), }"));
    CU_ASSERT_EQUAL_FATAL(rs_npy_read_header(path, &h, &err), 0);
    CU_ASSERT(h.ndim == 1 && h.shape[0] == 5);
    unlink(path);
}

/* The reader refuses, saying why: a missing file (the system's reason), a file that is not .npy 1.0,
 * a header shorter than its length field, one without descr or shape, more than 8 dimensions. */
RS_TEST(test_refusals, "refusals") {
    char path[128], want[256];
    rs_npy_header_t h;
    rs_err_t err = {0};
    path_of(path, sizeof path, "missing.npy");
    CU_ASSERT_EQUAL(rs_npy_read_header(path, &h, &err), -1);
    snprintf(want, sizeof want, "%s: %s", path, strerror(ENOENT));
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    path_of(path, sizeof path, "bad.npy");
    write_bytes(path, "\x93NUMPY\x02\x00\x10\x00", 10); /* version 2.0 */
    CU_ASSERT_EQUAL(rs_npy_read_header(path, &h, &err), -1);
    snprintf(want, sizeof want, "%s: not an .npy file (format 1.0)", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    write_bytes(path, "\x93NUMPY\x01\x00\x40\x00{'descr'", 18); /* 64 header bytes announced, 8 there */
    CU_ASSERT_EQUAL(rs_npy_read_header(path, &h, &err), -1);
    snprintf(want, sizeof want, "%s: truncated header", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    const char nodescr[] = "\x93NUMPY\x01\x00\x0f\x00{'shape': (3,)}"; /* 15 header bytes */
    write_bytes(path, nodescr, sizeof nodescr - 1);
    CU_ASSERT_EQUAL(rs_npy_read_header(path, &h, &err), -1);
    snprintf(want, sizeof want, "%s: header lacks descr or shape", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    float x[512] = {0};
    const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2};
    CU_ASSERT_EQUAL_FATAL(rs_npy_write_f32(path, x, 9, nine, &err), 0);
    CU_ASSERT_EQUAL(rs_npy_read_header(path, &h, &err), -1);
    snprintf(want, sizeof want, "%s: more than 8 dimensions", path);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    unlink(path);
}

/* --save-io's file: DIR/NAME.npy, a 4-dimensional array. */
RS_TEST(test_save_tensor, "save_tensor") {
    const float data[6] = {1, 2, 3, 4, 5, 6};
    const int64_t shape[4] = {1, 2, 3, 1};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(rs_npy_save_tensor(dir, "dK", data, shape, &err), 0);
    char path[128];
    path_of(path, sizeof path, "dK.npy");
    rs_npy_header_t h;
    CU_ASSERT_EQUAL_FATAL(rs_npy_read_header(path, &h, &err), 0);
    CU_ASSERT(h.ndim == 4 && h.shape[0] == 1 && h.shape[1] == 2 && h.shape[2] == 3 && h.shape[3] == 1);
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_size, 128 + 6 * 4);
    unlink(path);
}

/* The folder of the test's files. */
static int setup(void) {
    snprintf(dir, sizeof dir, "/tmp/rs_test_npy_XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static void teardown(void) { rmdir(dir); }

RS_TEST_MAIN(.suite = "exec_npy", .setup = setup, .teardown = teardown)
