/* test_util.c - what the test programs share (test_util.h). */
#include "test_util.h"

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char rs_test_dir[512];
char rs_test_out[1 << 20], rs_test_err[1 << 16];

int rs_test_scratch(const char *name) {
    snprintf(rs_test_dir, sizeof rs_test_dir, "%s/tests/%s-XXXXXX", RS_BINARY_DIR, name);
    if (mkdtemp(rs_test_dir)) return 0;
    perror(rs_test_dir);
    return -1;
}

static void rm_rf(const char *dir) {
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[1024];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) rm_rf(p);
        else remove(p);
    }
    if (d) closedir(d);
    rmdir(dir);
}

void rs_test_cleanup(void) {
    if (rs_test_dir[0]) rm_rf(rs_test_dir);
}

const char *rs_test_path(const char *name) {
    static char buf[8][1024];
    static int k = 0;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", rs_test_dir, name);
    return buf[k];
}

const char *rs_test_fresh_dir(const char *name) {
    static char buf[8][1024]; /* its own: rs_test_path calls do not overwrite it */
    static int k = 0;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", rs_test_dir, name);
    rm_rf(buf[k]);
    mkdir(buf[k], 0777);
    return buf[k];
}

/* A file's first len - 1 bytes into buf, NUL-terminated. */
static void load(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = 0;
    if (f) fclose(f);
}

int rs_test_ringsim(const char *args) {
    char cmd[8192], so[1024], se[1024];
    snprintf(so, sizeof so, "%s", rs_test_path("out.txt"));
    snprintf(se, sizeof se, "%s", rs_test_path("err.txt"));
    snprintf(cmd, sizeof cmd, "timeout 120 %s/bin/ringsim %s >%s 2>%s", RS_BINARY_DIR, args, so, se);
    int st = system(cmd);
    load(so, rs_test_out, sizeof rs_test_out);
    load(se, rs_test_err, sizeof rs_test_err);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *rs_test_slurp(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)(n > 0 ? n : 0) + 1);
    size_t got = b && n > 0 ? fread(b, 1, (size_t)n, fp) : 0;
    if (b) b[got] = '\0';
    fclose(fp);
    if (len) *len = got;
    return b;
}

void rs_test_write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
}

int rs_test_temp_files(void) {
    DIR *d = opendir(rs_test_dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    return n;
}

long rs_test_file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}
