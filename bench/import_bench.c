/* import_bench.c - `ringsim import` on a large Kineto trace: time and peak RSS (docs/benchmarks.md).
 *
 * Generates (not stored) a PyTorch-profiler trace of a ring-attention run, N ranks x 8 ring passes of
 * each kind, one JSON file per rank, with tests/fixtures/import_fixtures.c: about half of the bytes are GPU
 * kernels with their CPU ops, launches and flows (attention, SendRecv, merges, other work), the rest
 * Python stack events. Then, each in a child process (wait4 gives its peak RSS), side by side:
 *   read     read the bytes (zlib's gzread, as the import does): the I/O floor;
 *   yajl     parse them with yajl and no callbacks: the parser floor;
 *   jansson  load one rank's file as a DOM (json_load_file), what a non-streaming reader holds;
 *   import   rs_import_read on every file: the figure the targets are about.
 * usage: bench_import [--mb TOTAL_MB] [--ranks N] [--dir DIR] [--gzip] [--keep]
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "import.h"
#include "import_fixtures.h"
#include "util.h"

typedef struct {
    double wall_s;
    double rss_mb;
    int ok;
} result_t;

static char g_dir[512];
static int g_ranks = 4;
static bool g_gzip;

static int job_read(void) {
    char path[1024];
    static unsigned char buf[1 << 16];
    uint64_t n = 0;
    for (int r = 0; r < g_ranks; r++) {
        snprintf(path, sizeof path, "%s/rank%d.pt.trace.json%s", g_dir, r, g_gzip ? ".gz" : "");
        gzFile f = gzopen(path, "rb");
        if (!f) return 1;
        int k;
        while ((k = gzread(f, buf, sizeof buf)) > 0) n += (uint64_t)k;
        gzclose(f);
    }
    return n > 0 ? 0 : 1;
}

static int job_yajl(void) {
    char path[1024];
    static unsigned char buf[1 << 16];
    yajl_callbacks cb;
    memset(&cb, 0, sizeof cb);
    for (int r = 0; r < g_ranks; r++) {
        snprintf(path, sizeof path, "%s/rank%d.pt.trace.json%s", g_dir, r, g_gzip ? ".gz" : "");
        gzFile f = gzopen(path, "rb");
        yajl_handle h = yajl_alloc(&cb, NULL, NULL);
        int k, bad = !f;
        while (!bad && (k = gzread(f, buf, sizeof buf)) > 0) bad = yajl_parse(h, buf, (size_t)k) != yajl_status_ok;
        bad = bad || yajl_complete_parse(h) != yajl_status_ok;
        yajl_free(h);
        if (f) gzclose(f);
        if (bad) return 1;
    }
    return 0;
}

static int job_jansson(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/rank0.pt.trace.json", g_dir);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    int ok = j && json_array_size(json_object_get(j, "traceEvents")) > 0;
    json_decref(j);
    return ok ? 0 : 1;
}

static int job_import(void) {
    rs_import_opts_t o;
    rs_import_opts_default(&o);
    o.problem.seq_tokens = 32768;
    const char *paths[1] = {g_dir};
    rs_err_t err;
    rs_import_t *im = rs_import_read(paths, 1, &o, &err);
    if (!im) {
        fprintf(stderr, "bench_import: %s\n", err.msg);
        return 1;
    }
    int ok = rs_import_n_traces(im) == 2 && rs_import_info(im)->occurrences[RS_PASS_FORWARD] == 8;
    rs_import_free(im);
    return ok ? 0 : 1;
}

/* Run job in a child; its wall time and peak RSS (getrusage in the child, sent through a pipe). */
static result_t measure(int (*job)(void)) {
    result_t res = {0, 0, 0};
    int fd[2];
    if (pipe(fd) != 0) return res;
    double t0 = rs_now_s();
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        double t = rs_now_s();
        int rc = job();
        double r[2] = {rs_now_s() - t, 0};
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        r[1] = (double)ru.ru_maxrss / 1024.0;
        if (write(fd[1], r, sizeof r) != (ssize_t)sizeof r) rc = 1;
        _exit(rc);
    }
    close(fd[1]);
    double r[2] = {0, 0};
    ssize_t got = pid > 0 ? read(fd[0], r, sizeof r) : -1;
    close(fd[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return res;
    res.wall_s = got == (ssize_t)sizeof r ? r[0] : rs_now_s() - t0;
    res.rss_mb = r[1];
    res.ok = got == (ssize_t)sizeof r && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    return res;
}

/* Bytes of JSON (uncompressed). */
static uint64_t json_bytes(void) {
    static unsigned char buf[1 << 16];
    char path[1024];
    uint64_t n = 0;
    for (int r = 0; r < g_ranks; r++) {
        snprintf(path, sizeof path, "%s/rank%d.pt.trace.json%s", g_dir, r, g_gzip ? ".gz" : "");
        gzFile f = gzopen(path, "rb");
        int k;
        while (f && (k = gzread(f, buf, sizeof buf)) > 0) n += (uint64_t)k;
        if (f) gzclose(f);
    }
    return n;
}

static uint64_t dir_bytes(void) {
    uint64_t n = 0;
    char path[1024];
    for (int r = 0; r < g_ranks; r++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/rank%d.pt.trace.json%s", g_dir, r, g_gzip ? ".gz" : "");
        if (stat(path, &st) == 0) n += (uint64_t)st.st_size;
    }
    return n;
}

int main(int argc, char **argv) {
    double mb = 200;
    bool keep = false;
    const char *base = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc) mb = atof(argv[++i]);
        else if (!strcmp(argv[i], "--ranks") && i + 1 < argc) g_ranks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc) base = argv[++i];
        else if (!strcmp(argv[i], "--gzip")) g_gzip = true;
        else if (!strcmp(argv[i], "--keep")) keep = true;
        else {
            fprintf(stderr, "usage: bench_import [--mb TOTAL_MB] [--ranks N] [--dir DIR] [--gzip] [--keep]\n");
            return 2;
        }
    }
    if (!(mb >= 1 && mb <= 100000) || g_ranks < 2 || g_ranks > 64) {
        fprintf(stderr, "bench_import: --mb in [1, 100000], --ranks in [2, 64]\n");
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "%s/rs_bench_import.%d", base, (int)getpid());
    if (mkdir(g_dir, 0777) != 0) {
        fprintf(stderr, "bench_import: %s: %s\n", g_dir, strerror(errno));
        return 1;
    }
    /* kernels + their CPU events ~1.7 kB each: half the bytes; Python events pad the rest */
    fx_opts_t fo;
    fx_opts_default(&fo);
    fo.n_ranks = g_ranks;
    fo.n_layers = 8;
    fo.ranges = true;
    double per_rank = mb * 1e6 / g_ranks;
    fo.filler = (int)(per_rank / 2 / 1700 / (fo.n_layers * (2 * g_ranks + 1)));
    fx_run_t run;
    double t0 = rs_now_s();
    if (fx_generate(&fo, &run) != 0 || fx_write_kineto(&run, g_dir, g_gzip, (uint64_t)per_rank) != 0) {
        fprintf(stderr, "bench_import: generating the fixture failed\n");
        return 1;
    }
    size_t n_ring = 0;
    for (size_t i = 0; i < run.nk; i++) n_ring += run.k[i].in_step; /* attention, p2p, merges of a ring step */
    double total_mb = (double)json_bytes() / 1e6;
    printf("fixture: %d ranks, %.1f MB of JSON (%.1f MB on disk%s), %zu kernels (%zu in ring steps), generated in %.1f s\n",
           g_ranks, total_mb, (double)dir_bytes() / 1e6, g_gzip ? ", gzip" : "", run.nk, n_ring, rs_now_s() - t0);
    fx_free(&run);
    struct {
        const char *name;
        int (*job)(void);
    } jobs[] = {{"read", job_read}, {"yajl", job_yajl}, {"jansson", job_jansson}, {"import", job_import}};
    result_t res[4];
    printf("%-8s %10s %12s %8s  %s\n", "job", "wall_s", "peak_rss_MB", "ok", "what");
    const char *what[4] = {"gzread every file (I/O floor)", "yajl parse, no callbacks (parser floor)",
                           "jansson DOM of rank 0's file only", "rs_import_read of every file"};
    for (int j = 0; j < 4; j++) {
        if (j == 2 && g_gzip) continue;
        res[j] = measure(jobs[j].job);
        printf("%-8s %10.3f %12.1f %8s  %s\n", jobs[j].name, res[j].wall_s, res[j].rss_mb, res[j].ok ? "yes" : "FAILED", what[j]);
    }
    printf("import: %.1f MB/s of JSON; %.2fx the yajl-only parse; peak RSS %.1f MB for %.1f MB of JSON (targets: < 10 s, < 300 MB)\n",
           total_mb / res[3].wall_s, res[3].wall_s / res[1].wall_s, res[3].rss_mb, total_mb);
    if (!keep) {
        char path[1024];
        for (int r = 0; r < g_ranks; r++) {
            snprintf(path, sizeof path, "%s/rank%d.pt.trace.json%s", g_dir, r, g_gzip ? ".gz" : "");
            unlink(path);
        }
        rmdir(g_dir);
    } else {
        printf("kept: %s\n", g_dir);
    }
    return res[3].ok ? 0 : 1;
}
