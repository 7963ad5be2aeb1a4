/* replay.c - run a fuzz harness's entry point on files, without libFuzzer (fuzz.h).
 *
 *   replay_NAME PATH...    each PATH a file or a folder (its files, in name order; dot files and
 *                          README* skipped)
 * Prints one line per file before running it (a crash names its input). Exit 0 when every file ran,
 * 1 when a PATH cannot be read or no file was found (a replay of nothing is a broken test); a broken
 * contract or a sanitizer report aborts. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) abort();
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap) break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        fprintf(stderr, "replay: %s: read error\n", path);
        return -1;
    }
    printf("replay: %s (%zu bytes)\n", path, n);
    fflush(stdout);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Replay the files of dir in name order; adds to *count. Returns 0 or -1. */
static int run_dir(const char *dir, int *count) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !strncmp(e->d_name, "README", 6)) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names) abort();
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) abort();
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i]) != 0) rc = -1;
            else ++*count;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    int count = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            if (run_dir(argv[i], &count) != 0) rc = 1;
        } else if (run_file(argv[i]) != 0) {
            rc = 1;
        } else {
            count++;
        }
    }
    if (count == 0) {
        fprintf(stderr, "replay: no input files given\n");
        rc = 1;
    }
    printf("replay: %d files, %s\n", count, rc ? "FAILED" : "all ran");
    return rc;
}
