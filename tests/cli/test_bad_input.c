/* test_bad_input.c - the bad-input suite: every case of tests/cli/bad_input.tab runs the
 * built `ringsim` in a scratch folder under a watchdog (timeout -k 5 60) and must
 *   - exit with the code the row gives (2 for bad input, 1 for a failed write to stdout),
 *   - print one line on stderr, "ringsim ...", holding the row's fragment (the parameter or
 *     file:line and the accepted range); a failed write (exit 1) may come after the run's notes
 *     (notes and warnings, one line each, said before its outputs), the error still the last line,
 *   - leave no file the row names as must-not-exist, no temporary ("*.tmp.*" in the scratch folder,
 *     anything in its private $TMPDIR),
 *   - leave every file the setup lines made (the inputs; the row's untouched files among them)
 *     byte for byte and type for type as it was.
 *
 * Table format (one case a line; fields separated by " || "):
 *   EXIT || ARGS (shell words after `ringsim`, run in the scratch folder) || FRAGMENT || MUST-NOT-EXIST || UNTOUCHED
 * "@ COMMAND" lines set the scratch folder up (sh, $R = the binary, $SRC = the source tree); '#'
 * lines and blank lines are comments. The table holds at least 150 cases (checked). */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ranges.h"
#include "test_main.h"
#include "harness.h"

#define MAX_FILES 256

typedef struct {
    char name[256];  /* entry of the scratch folder */
    int type;        /* 1 link, 2 folder, 3 regular file, 4 other (lstat) */
    long size;       /* bytes; -1 for a folder */
    uint64_t hash;   /* FNV-1a of the bytes (a link: of its target's name) */
} snap_t;

static snap_t snaps[MAX_FILES];
static int n_snaps;

static uint64_t fnv(const char *b, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)b[i]) * 1099511628211ULL;
    return h;
}

/* The entry name of the scratch folder as it is now. Returns 0, or -1 when it does not exist. */
static int snap_of(const char *name, snap_t *s) {
    struct stat st;
    const char *path = rs_test_path(name);
    if (lstat(path, &st) != 0) return -1;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->type = S_ISLNK(st.st_mode) ? 1 : S_ISDIR(st.st_mode) ? 2 : S_ISREG(st.st_mode) ? 3 : 4; /* link, folder, file, other */
    s->size = S_ISDIR(st.st_mode) ? -1 : (long)st.st_size;
    s->hash = 0;
    if (S_ISLNK(st.st_mode)) {
        char t[1024];
        ssize_t k = readlink(path, t, sizeof t);
        s->hash = fnv(t, k > 0 ? (size_t)k : 0);
    } else if (S_ISREG(st.st_mode)) {
        size_t len = 0;
        char *b = rs_test_slurp(path, &len);
        s->hash = b ? fnv(b, len) : 0;
        free(b);
    }
    return 0;
}

/* Every entry of the scratch folder but the driver's own (out.txt, err.txt, tmp). */
static void snapshot(void) {
    DIR *d = opendir(rs_test_dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    n_snaps = 0;
    for (struct dirent *e; (e = readdir(d)) && n_snaps < MAX_FILES;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "out.txt") ||
            !strcmp(e->d_name, "err.txt") || !strcmp(e->d_name, "tmp"))
            continue;
        if (snap_of(e->d_name, &snaps[n_snaps]) == 0) n_snaps++;
    }
    closedir(d);
}

/* Split line at " || " into at most n fields (trimmed). Returns the count. */
static int split(char *line, char **f, int n) {
    int k = 0;
    for (char *p = line; p && k < n;) {
        char *sep = strstr(p, " || ");
        if (sep) *sep = '\0';
        while (*p == ' ') p++;
        size_t len = strlen(p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\n')) p[--len] = '\0';
        f[k++] = p;
        p = sep ? sep + 4 : NULL;
    }
    return k;
}

/* sh -c "cd SCRATCH && ..." with $R and $SRC set. Returns the exit code, -1 when killed. */
static int shell(const char *body, bool capture) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && export R='%s/bin/ringsim' SRC='%s' TMPDIR='%s/tmp' && { %s ; }%s", rs_test_dir, RS_BINARY_DIR,
             RS_SOURCE_DIR, rs_test_dir, body, capture ? " >out.txt 2>err.txt" : "");
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int fails;

static void failf(int ln, const char *args, const char *what) {
    fprintf(stderr, "  bad_input.tab:%d: ringsim %s: %s\n", ln, args, what);
    fails++;
}

/* Whether line (up to its '\n') is a note or warning a run says once its input is accepted, before
 * its outputs: "ringsim: note: ...", "ringsim NAME: note: ..." or "ringsim NAME: warning: ...". */
static bool run_note(const char *line) {
    if (!strchr(line, '\n')) return false;
    if (!strncmp(line, "ringsim: note: ", 15)) return true;
    if (strncmp(line, "ringsim ", 8) != 0) return false;
    const char *after = line + 8 + strspn(line + 8, "abcdefghijklmnopqrstuvwxyz"); /* after NAME */
    return after > line + 8 && (!strncmp(after, ": note: ", 8) || !strncmp(after, ": warning: ", 11));
}

/* The checks after one case (its exit code want, its stderr in err). */
static void check_case(int ln, char **f, int want, const char *err) {
    char msg[2048];
    /* a failed write (exit 1) comes after the run was accepted: its notes may precede the error line */
    const char *last = err;
    while (want == 1 && run_note(last)) last = strchr(last, '\n') + 1;
    const char *nl = strchr(last, '\n');
    if (strncmp(last, "ringsim ", 8) != 0 || !nl || nl[1] != '\0') {
        snprintf(msg, sizeof msg, "stderr is not %s 'ringsim ...': '%.1500s'", want == 1 ? "the run's notes and one line" : "one line",
                 err);
        failf(ln, f[1], msg);
    }
    if (!strstr(last, f[2])) {
        snprintf(msg, sizeof msg, "stderr's last line '%.1000s' lacks '%.500s'", last, f[2]);
        failf(ln, f[1], msg);
    }
    char names[2][1024];
    snprintf(names[0], sizeof names[0], "%s", f[3]);
    snprintf(names[1], sizeof names[1], "%s", f[4]);
    for (char *save = NULL, *t = strtok_r(names[0], " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        snap_t s;
        if (snap_of(t, &s) == 0) snprintf(msg, sizeof msg, "%s exists (it must not)", t), failf(ln, f[1], msg);
    }
    for (char *save = NULL, *t = strtok_r(names[1], " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        bool known = false;
        for (int i = 0; i < n_snaps; i++) known |= !strcmp(snaps[i].name, t);
        if (!known) snprintf(msg, sizeof msg, "untouched file %s is not one the setup made", t), failf(ln, f[1], msg);
    }
    for (int i = 0; i < n_snaps; i++) {
        snap_t now;
        if (snap_of(snaps[i].name, &now) != 0 || now.type != snaps[i].type || now.size != snaps[i].size ||
            now.hash != snaps[i].hash)
            snprintf(msg, sizeof msg, "input %.255s was changed or removed", snaps[i].name), failf(ln, f[1], msg);
    }
    /* temporaries: none in the folder, none in its $TMPDIR; a new entry is removed for the next case */
    DIR *d = opendir(rs_test_dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strstr(e->d_name, ".tmp.")) snprintf(msg, sizeof msg, "temporary %s left", e->d_name), failf(ln, f[1], msg);
    }
    if (d) closedir(d);
    d = opendir(rs_test_path("tmp"));
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') snprintf(msg, sizeof msg, "tmp/%s left in $TMPDIR", e->d_name), failf(ln, f[1], msg);
    if (d) closedir(d);
}

RS_TEST(test_table, "every case of tests/cli/bad_input.tab") {
    CU_ASSERT_EQUAL_FATAL(rs_test_scratch("bad_input"), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(rs_test_path("tmp"), 0777), 0);
    FILE *fp = fopen(RS_SOURCE_DIR "/tests/cli/bad_input.tab", "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char line[4096];
    int ln = 0, cases = 0;
    bool snapped = false;
    fails = 0;
    while (fgets(line, sizeof line, fp)) {
        ln++;
        if (line[0] == '#' || line[0] == '\n') continue;
        if (line[0] == '@') {
            CU_ASSERT_FALSE(snapped); /* setup lines come first */
            line[strcspn(line, "\n")] = '\0';
            if (shell(line + 1, false) != 0) failf(ln, line + 1, "setup command failed");
            continue;
        }
        if (!snapped) snapshot(), snapped = true;
        char *f[5];
        if (split(line, f, 5) != 5) {
            failf(ln, line, "expected 5 fields separated by ' || '");
            continue;
        }
        cases++;
        char body[4200];
        snprintf(body, sizeof body, "timeout -k 5 60 \"$R\" %s", f[1]);
        const int rc = shell(body, true);
        char *err = rs_test_slurp(rs_test_path("err.txt"), NULL);
        if (rc != atoi(f[0])) {
            char msg[1400];
            snprintf(msg, sizeof msg, "exit %d, want %s (stderr '%.1000s')", rc, f[0], err ? err : "");
            failf(ln, f[1], msg);
        }
        check_case(ln, f, atoi(f[0]), err ? err : "");
        free(err);
        shell("rm -rf tmp/* tmp/.[!.]*", false);
    }
    fclose(fp);
    printf("\n  %d cases, %d failures\n", cases, fails);
    CU_ASSERT(cases >= 150);
    CU_ASSERT_EQUAL(fails, 0);
    if (fails == 0) rs_test_cleanup();
}

/* One truth for ranges: each option rs_ranges[] names refuses a value above its row's max with the
 * row's range ("--flops 1e+30: must be in [1, 1e+20]"), read back from the message as numbers. */
RS_TEST(test_option_ranges, "options take their range from ranges.h") {
    CU_ASSERT_EQUAL_FATAL(rs_test_scratch("ranges"), 0);
    int checked = 0;
    for (const rs_range_info_t *r = rs_ranges; r->quantity; r++) {
        char opts[256];
        snprintf(opts, sizeof opts, "%s", r->options);
        for (char *save = NULL, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
            while (*o == ' ') o++;
            if (strncmp(o, "--", 2) != 0 || strchr(o, ' ')) continue; /* "plan --price", "--host-cost S": own tests */
            char args[512], want[300];
            const double above = r->integer ? r->max * 2 : r->max * 1e3;
            snprintf(args, sizeof args, "model %s %.17g", o, above);
            CU_ASSERT_EQUAL(rs_test_ringsim(args), 2);
            snprintf(want, sizeof want, "%s %.17g: must be in [", o, above);
            const char *at = strstr(rs_test_err, want);
            double lo = -1, hi = -1;
            if (!at || sscanf(at + strlen(want), "%lf, %lf]", &lo, &hi) != 2)
                fprintf(stderr, "  %s: '%s' lacks '%s'\n", o, rs_test_err, want);
            CU_ASSERT_EQUAL(lo, r->min);
            CU_ASSERT_EQUAL(hi, r->max);
            checked++;
        }
    }
    CU_ASSERT_EQUAL(checked, 10); /* --flops --bw --inter-bw --latency --launch-overhead --host-call --overlap --slowdown --jitter
                                    * --gpus-per-node */
    rs_test_cleanup();
}

RS_TEST_PROGRAM("bad input")
