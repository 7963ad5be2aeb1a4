/* fuzz_util.c - scratch files for the fuzz harnesses (fuzz.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define MAX_SLOTS 16

static char scratch[512];
static char paths[MAX_SLOTS][600];
static int n_paths;

/* Remove every file named so far and the folder. */
static void cleanup(void) {
    for (int i = 0; i < n_paths; i++) unlink(paths[i]);
    /* writers leave nothing else behind, but a failed one may: remove what is left */
    if (scratch[0] && rmdir(scratch) != 0 && errno == ENOTEMPTY)
        fprintf(stderr, "fuzz: %s is not empty; left in place\n", scratch);
}

static void ensure_scratch(void) {
    if (scratch[0]) return;
    const char *base = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/ringsim-fuzz-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(scratch)) {
        fprintf(stderr, "fuzz: cannot create %s: %s\n", scratch, strerror(errno));
        abort();
    }
    atexit(cleanup);
}

const char *rs_fuzz_path(const char *slot, const char *suffix) {
    ensure_scratch();
    char p[600];
    snprintf(p, sizeof p, "%s/%s%s", scratch, slot, suffix);
    for (int i = 0; i < n_paths; i++)
        if (!strcmp(paths[i], p)) return paths[i];
    if (n_paths == MAX_SLOTS) {
        fprintf(stderr, "fuzz: more than %d scratch files\n", MAX_SLOTS);
        abort();
    }
    snprintf(paths[n_paths], sizeof paths[0], "%s", p);
    return paths[n_paths++];
}

const char *rs_fuzz_file(const char *slot, const char *suffix, const uint8_t *data, size_t size) {
    const char *path = rs_fuzz_path(slot, suffix);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    bool ok = fd >= 0;
    for (size_t off = 0; ok && off < size;) {
        ssize_t w = write(fd, data + off, size - off);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        if (ok) off += (size_t)w;
    }
    if (fd >= 0 && close(fd) != 0) ok = false;
    if (!ok) {
        fprintf(stderr, "fuzz: cannot write %s: %s\n", path, strerror(errno));
        abort();
    }
    return path;
}

char *rs_fuzz_text(const uint8_t *data, size_t size) {
    char *t = malloc(size + 1);
    if (!t) abort();
    if (size) memcpy(t, data, size);
    t[size] = '\0';
    return t;
}

void rs_fuzz_note(const char *what, int rc, const char *msg) {
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("RS_FUZZ_VERBOSE") != NULL;
    if (verbose) fprintf(stderr, "  %s: %s\n", what, rc == 0 ? "accepted" : msg);
}

void rs_fuzz_check_refused(int rc, const char *msg) {
    RS_FUZZ_CHECK(rc == -1);
    RS_FUZZ_CHECK(msg[0] != '\0');
    for (const unsigned char *c = (const unsigned char *)msg; *c; c++) RS_FUZZ_CHECK(*c >= 0x20 && *c != 0x7f);
}

void rs_fuzz_check_refused_at(int rc, const char *msg, const char *origin, const uint8_t *data, size_t size) {
    rs_fuzz_check_refused(rc, msg);
    size_t n = strlen(origin);
    RS_FUZZ_CHECK(!strncmp(msg, origin, n) && msg[n] == ':');
    if (msg[n + 1] < '0' || msg[n + 1] > '9') return; /* no line cited */
    char *end;
    const long line = strtol(msg + n + 1, &end, 10);
    RS_FUZZ_CHECK(*end == ':');
    long lines = 0;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    if (size && data[size - 1] != '\n') lines++;
    if (line < 1 || line > lines + 1) fprintf(stderr, "fuzz: line %ld cited, the file has %ld\n", line, lines);
    RS_FUZZ_CHECK(line >= 1 && line <= lines + 1);
}
