/* exec_npy.c - float32 .npy files (exec_npy.h). */
#include "exec_npy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

int rs_npy_write_f32(const char *path, const float *data, int ndim, const int64_t *shape, rs_err_t *err) {
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    size_t count = 1;
    for (int i = 0; i < ndim; i++) {
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%" PRId64 "%s", shape[i], ndim == 1 ? "," : (i + 1 < ndim ? ", " : ""));
        count *= (size_t)shape[i];
    }
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    rs_file_t f;
    if (rs_file_open(&f, path, err) < 0) return -1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    size_t hlen = (size_t)n + pad + 1;
    pre[8] = (unsigned char)(hlen & 0xff);
    pre[9] = (unsigned char)(hlen >> 8);
    fwrite(pre, 1, 10, f.fp);
    fwrite(dict, 1, (size_t)n, f.fp);
    for (size_t i = 0; i < pad; i++) fputc(' ', f.fp);
    fputc('\n', f.fp);
    /* little-endian host assumed (x86-64, aarch64) */
    if (fwrite(data, sizeof(float), count, f.fp) != count) {
        rs_file_abort(&f);
        return rs_errf(err, "%s: write failed: %s", path, strerror(errno));
    }
    return rs_file_commit(&f, err);
}

int rs_npy_read_header(const char *path, rs_npy_header_t *h, rs_err_t *err) {
    const int max_dim = RS_NPY_MAX_DIM;
    FILE *fp = fopen(path, "rb");
    if (!fp) return rs_errf(err, "%s: %s", path, strerror(errno));
    unsigned char pre[10];
    if (fread(pre, 1, 10, fp) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0 || pre[6] != 1) {
        fclose(fp);
        return rs_errf(err, "%s: not an .npy file (format 1.0)", path);
    }
    size_t hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
    char hdr[65536];
    if (fread(hdr, 1, hlen, fp) != hlen) {
        fclose(fp);
        return rs_errf(err, "%s: truncated header", path);
    }
    fclose(fp);
    hdr[hlen] = 0;
    const char *dp = strstr(hdr, "'descr': '"), *sp = strstr(hdr, "'shape': (");
    if (!dp || !sp) return rs_errf(err, "%s: header lacks descr or shape", path);
    dp += 10;
    size_t i = 0;
    while (dp[i] && dp[i] != '\'' && i + 1 < sizeof h->descr) h->descr[i] = dp[i], i++;
    h->descr[i] = 0;
    sp += 10;
    h->ndim = 0;
    while (*sp && *sp != ')') {
        char *end;
        long long v = strtoll(sp, &end, 10);
        if (end == sp) break;
        if (h->ndim >= max_dim) return rs_errf(err, "%s: more than %d dimensions", path, max_dim);
        h->shape[h->ndim++] = v;
        sp = end;
        while (*sp == ',' || *sp == ' ') sp++;
    }
    return 0;
}

int rs_npy_save_tensor(const char *dir, const char *name, const float *data, const int64_t shape[4], rs_err_t *err) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    return rs_npy_write_f32(path, data, 4, shape, err);
}
