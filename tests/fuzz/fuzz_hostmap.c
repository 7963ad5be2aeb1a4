/* fuzz_hostmap.c - the map readers of the simulator: the rank-to-host map (--hostmap:
 * rs_hostmap_load, sim/platform.h) and the device map of a job of rings (--map:
 * rs_placement_load_map, sim/job.h), both on the same bytes.
 *
 * Input: the first byte sets the rank count N = 1 + byte (1..256): the hostmap's ranks and the map's
 * ring size; the rest is the file.
 * Contract checked, for both: a refused file gives a one-line message starting with the file's name
 * (a line it cites is one of the file's) and leaves the result empty; an accepted file is text (a
 * NUL byte is refused). An accepted hostmap maps every rank 0..N-1 to a non-empty host name without
 * blanks or '#', each from a real line of the file; an accepted device map holds at least one ring
 * of N ranks, every device in [0, D) and placed once, at most one ring per line of the file. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "job.h"
#include "platform.h"

static void check_hostmap(const char *path, int64_t n, const uint8_t *data, size_t size, long lines) {
    rs_hostmap_t hm;
    memset(&hm, 0xA5, sizeof hm); /* the reader must set every field */
    rs_err_t err = {0};
    int rc = rs_hostmap_load(path, n, &hm, &err);
    rs_fuzz_note("rs_hostmap_load", rc, err.msg);
    if (rc != 0) {
        rs_fuzz_check_refused_at(rc, err.msg, path, data, size);
        RS_FUZZ_CHECK(hm.n_ranks == 0 && hm.host == NULL && hm.line == NULL);
        rs_hostmap_free(&hm);
        return;
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
}

static void check_map(const char *path, int64_t n, const uint8_t *data, size_t size, long lines) {
    rs_placement_t pl;
    memset(&pl, 0xA5, sizeof pl);
    rs_err_t err = {0};
    int rc = rs_placement_load_map(path, n, 0, &pl, &err);
    rs_fuzz_note("rs_placement_load_map", rc, err.msg);
    if (rc != 0) {
        rs_fuzz_check_refused_at(rc, err.msg, path, data, size);
        RS_FUZZ_CHECK(pl.device == NULL);
        rs_placement_free(&pl);
        return;
    }
    RS_FUZZ_CHECK(memchr(data, '\0', size) == NULL);
    RS_FUZZ_CHECK(pl.ring_ranks == n && pl.n_rings >= 1 && pl.n_rings <= lines && pl.device != NULL);
    const int64_t total = pl.n_rings * n;
    RS_FUZZ_CHECK(pl.devices >= total && pl.devices <= (1 << 24));
    char *used = calloc((size_t)pl.devices, 1);
    RS_FUZZ_CHECK(used != NULL);
    for (int64_t i = 0; i < total; i++) {
        const int64_t d = pl.device[i];
        RS_FUZZ_CHECK(d >= 0 && d < pl.devices && !used[d]);
        used[d] = 1;
    }
    free(used);
    rs_placement_free(&pl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const int64_t n = 1 + (int64_t)data[0];
    data++, size--;
    long lines = 0;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    if (size && data[size - 1] != '\n') lines++;

    const char *path = rs_fuzz_file("input", ".map", data, size);
    check_hostmap(path, n, data, size, lines);
    check_map(path, n, data, size, lines);
    return 0;
}
