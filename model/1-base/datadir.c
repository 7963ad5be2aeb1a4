/* datadir.c - the installed data directory (datadir.h). */
#define _GNU_SOURCE /* dladdr */
#include "datadir.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Relative paths of the install layout (cmake/Install.cmake); a build without them finds nothing. */
#ifndef RS_DATADIR_FROM_LIBDIR
#define RS_DATADIR_FROM_LIBDIR NULL
#endif
#ifndef RS_DATADIR_FROM_BINDIR
#define RS_DATADIR_FROM_BINDIR NULL
#endif

static char data_dir[PATH_MAX];
static pthread_once_t data_once = PTHREAD_ONCE_INIT;

/* dir(object) + "/" + rel, canonical, into data_dir when it holds plots/style.gp. */
static int try_base(const char *object, const char *rel) {
    if (!object || !rel) return 0;
    char dir[PATH_MAX], cand[2 * PATH_MAX + 2], real[PATH_MAX], probe[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", object);
    char *slash = strrchr(dir, '/');
    if (!slash) return 0;
    *slash = 0;
    snprintf(cand, sizeof cand, "%s/%s", dir, rel);
    if (!realpath(cand, real)) return 0;
    snprintf(probe, sizeof probe, "%s/plots/style.gp", real);
    if (access(probe, R_OK) != 0) return 0;
    snprintf(data_dir, sizeof data_dir, "%s", real);
    return 1;
}

static void find_data_dir(void) {
    Dl_info info;
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = 0;
    if (dladdr((void *)&rs_data_dir, &info) && info.dli_fname && strchr(info.dli_fname, '/') &&
        (try_base(info.dli_fname, RS_DATADIR_FROM_LIBDIR) || try_base(info.dli_fname, RS_DATADIR_FROM_BINDIR)))
        return;
    if (n > 0) try_base(exe, RS_DATADIR_FROM_BINDIR);
}

const char *rs_data_dir(void) {
    pthread_once(&data_once, find_data_dir);
    return data_dir[0] ? data_dir : NULL;
}

const char *rs_data_path(char *dst, size_t len, const char *sub) {
    const char *d = rs_data_dir();
    if (!d) return NULL;
    snprintf(dst, len, "%s/%s", d, sub);
    return dst;
}
