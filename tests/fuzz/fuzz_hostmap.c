/* fuzz_hostmap.c - the rank-to-host map reader (rs_hostmap_load, sim/platform.h).
 *
 * Input: the first byte sets the rank count N = 1 + byte (1..256); the rest is the file.
 * Contract checked: a refused file gives a message and leaves the map empty; an accepted one maps
 * every rank 0..N-1 to a non-empty host name without blanks or '#', each from a real line of the
 * file, and a file holding a NUL byte is not text (refused). */
#include <string.h>

#include "fuzz.h"
#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const int64_t n = 1 + (int64_t)data[0];
    data++, size--;
    long lines = 0;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    if (size && data[size - 1] != '\n') lines++;

    const char *path = rs_fuzz_file("input", ".hostmap", data, size);
    rs_hostmap_t hm;
    memset(&hm, 0xA5, sizeof hm); /* the reader must set every field */
    rs_err_t err = {{0}};
    int rc = rs_hostmap_load(path, n, &hm, &err);
    rs_fuzz_note("rs_hostmap_load", rc, err.msg);
    if (rc != 0) {
        rs_fuzz_check_refused_at(rc, err.msg, path, data, size);
        RS_FUZZ_CHECK(hm.n_ranks == 0 && hm.host == NULL && hm.line == NULL);
        rs_hostmap_free(&hm);
        return 0;
    }
    RS_FUZZ_CHECK(memchr(data, '\0', size) == NULL);
    RS_FUZZ_CHECK(hm.n_ranks == n);
    for (int64_t r = 0; r < n; r++) {
        const char *h = hm.host[r];
        RS_FUZZ_CHECK(h != NULL && h[0] != '\0');
        RS_FUZZ_CHECK(strpbrk(h, " \t\r\n#") == NULL);
        RS_FUZZ_CHECK(hm.line[r] >= 1 && hm.line[r] <= lines);
    }
    rs_hostmap_free(&hm);
    RS_FUZZ_CHECK(hm.host == NULL && hm.n_ranks == 0);
    return 0;
}
