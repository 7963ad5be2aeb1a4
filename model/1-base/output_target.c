/* output_target.c - where the bytes of an output path go: links followed, descriptors of this
 * process recognised, writability checked, a finished temporary put in place (output_target.h). */
#define _GNU_SOURCE /* O_DIRECTORY, realpath */
#include "output_target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool out_split_path(const char *path, char *dir, char *name) {
    const char *slash = strrchr(path, '/');
    if (!slash) return snprintf(dir, PATH_MAX, ".") > 0 && snprintf(name, NAME_MAX + 1, "%s", path) <= NAME_MAX;
    const size_t dl = slash == path ? 1 : (size_t)(slash - path);
    if (dl >= PATH_MAX) return false;
    memcpy(dir, path, dl);
    dir[dl] = 0;
    return snprintf(name, NAME_MAX + 1, "%s", slash + 1) <= NAME_MAX;
}

/* The descriptor a canonical folder + name stands for ("/proc/PID/fd/N" of this process), or -1. */
static int fd_of(const char *realdir, const char *name) {
    char self[64];
    snprintf(self, sizeof self, "/proc/%ld/fd", (long)getpid());
    if (strcmp(realdir, self) != 0 && strcmp(realdir, "/proc/self/fd") != 0) return -1;
    char *end = NULL;
    long fd = strtol(name, &end, 10);
    return end != name && !*end && fd >= 0 && fd < INT_MAX ? (int)fd : -1;
}

/* Join a folder and a name ("/" + name stays "/name"); false when too long (out truncated). */
bool out_join(char *out, const char *dir, const char *name) {
    return snprintf(out, PATH_MAX, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name) < PATH_MAX;
}

/* Resolve path: symbolic links followed, the descriptors of this process recognised. Returns 0, or
 * -1 with why (a phrase without the path: "folder d does not exist", "is a directory"). */
int out_resolve(const char *path, out_target_t *t, char *why, size_t wl) {
    memset(t, 0, sizeof *t);
    t->fd = -1;
    char cur[PATH_MAX], dir[PATH_MAX], name[NAME_MAX + 1], full[PATH_MAX];
    if (!*path) return snprintf(why, wl, "empty path"), -1;
    if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur) return snprintf(why, wl, "path too long"), -1;
    for (int hop = 0; hop < 40; hop++) {
        if (!out_split_path(cur, dir, name)) return snprintf(why, wl, "path too long"), -1;
        if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) return snprintf(why, wl, "is a directory"), -1;
        if (!realpath(dir, t->dir)) {
            const int e = errno;
            if (e == ENOENT) return snprintf(why, wl, "folder %s does not exist", dir), -1;
            if (e == ENOTDIR) return snprintf(why, wl, "%s is not a folder", dir), -1;
            return snprintf(why, wl, "folder %s: %s", dir, strerror(e)), -1;
        }
        const int fd = fd_of(t->dir, name);
        if (fd >= 0) {
            const int fl = fcntl(fd, F_GETFL);
            if (fl < 0) return snprintf(why, wl, "descriptor %d is not open", fd), -1;
            if ((fl & O_ACCMODE) == O_RDONLY) return snprintf(why, wl, "descriptor %d is not open for writing", fd), -1;
            t->kind = OUT_KIND_FD, t->fd = fd;
            t->exists = fstat(fd, &t->st) == 0;
            return 0;
        }
        if (!out_join(full, t->dir, name)) return snprintf(why, wl, "path too long"), -1;
        struct stat ls;
        if (lstat(full, &ls) != 0) {
            if (errno != ENOENT) return snprintf(why, wl, "cannot access: %s", strerror(errno)), -1;
            snprintf(t->target, sizeof t->target, "%s", full);
            return 0;
        }
        if (S_ISLNK(ls.st_mode)) {
            char link[PATH_MAX];
            const ssize_t n = readlink(full, link, sizeof link - 1);
            if (n < 0) return snprintf(why, wl, "cannot read the link: %s", strerror(errno)), -1;
            link[n] = 0;
            if (link[0] == '/') snprintf(cur, sizeof cur, "%s", link);
            else if (snprintf(cur, sizeof cur, "%s/%s", t->dir, link) >= (int)sizeof cur) return snprintf(why, wl, "path too long"), -1;
            continue;
        }
        if (S_ISDIR(ls.st_mode)) return snprintf(why, wl, "is a directory"), -1;
        if (S_ISSOCK(ls.st_mode)) return snprintf(why, wl, "is a socket"), -1;
        t->kind = S_ISREG(ls.st_mode) ? OUT_KIND_FILE : OUT_KIND_DEVICE;
        t->exists = true;
        t->st = ls;
        snprintf(t->target, sizeof t->target, "%s", full);
        return 0;
    }
    return snprintf(why, wl, "too many levels of symbolic links"), -1;
}

/* Can this process write the resolved target? Returns 0 or -1 with why. */
int out_writable(const out_target_t *t, char *why, size_t wl) {
    if (t->kind == OUT_KIND_FD) return 0; /* resolve checked its mode */
    if (t->kind == OUT_KIND_DEVICE) {
        if (access(t->target, W_OK) != 0) return snprintf(why, wl, "cannot write: %s", strerror(errno)), -1;
        return 0;
    }
    if (access(t->dir, W_OK | X_OK) != 0)
        return snprintf(why, wl, "folder %s is not writable: %s", t->dir, strerror(errno)), -1;
    /* access() says yes to root on a folder that takes no new file (/proc, a read-only /sys): create
     * the temporary's name once (SEQ 0: no writer uses it) and remove it */
    char probe[PATH_MAX + 64];
    if (snprintf(probe, sizeof probe, "%s.tmp.%ld.0.ringsim", t->target, (long)getpid()) >= (int)sizeof probe)
        return snprintf(why, wl, "path too long"), -1;
    const int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) return snprintf(why, wl, "folder %s takes no new file: %s", t->dir, strerror(errno)), -1;
    if (fd >= 0) close(fd), unlink(probe);
    return 0;
}

/* Copy the file at from into descriptor to. Returns 0 or -1 with errno. */
static int copy_into(const char *from, int to) {
    const int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) return -1;
    char buf[1 << 16];
    ssize_t n;
    int rc = 0;
    while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno != EINTR) rc = -1;
            continue;
        }
        for (ssize_t off = 0; rc == 0 && off < n;) {
            const ssize_t w = write(to, buf + off, (size_t)(n - off));
            if (w < 0 && errno != EINTR) rc = -1;
            if (w > 0) off += w;
        }
    }
    const int e = errno;
    close(in);
    errno = e;
    return rc;
}

int out_move(const char *from, const char *to) {
    if (rename(from, to) == 0) return 0;
    if (errno != EXDEV) return -1;
    const int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int rc = fd < 0 || copy_into(from, fd) != 0 ? -1 : 0;
    const int e = errno;
    if (fd >= 0 && close(fd) != 0 && rc == 0) rc = -1;
    else errno = e;
    unlink(from);
    return rc;
}

void out_ident_st(const struct stat *st, out_ident_t *id) {
    *id = (out_ident_t){.exists = true, .dev = st->st_dev, .ino = st->st_ino, .ctim = st->st_ctim};
}

/* The entries of folder path, as one order-free hash: the sum over entries of FNV-1a over the name
 * and the inode. */
static unsigned long long entries_hash(const char *path) {
    DIR *d = opendir(path);
    unsigned long long sum = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        unsigned long long h = 1469598103934665603ULL;
        for (const char *c = e->d_name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
        for (int i = 0; i < 8; i++) h = (h ^ ((unsigned long long)e->d_ino >> (8 * i) & 0xff)) * 1099511628211ULL;
        sum += h;
    }
    if (d) closedir(d);
    return sum;
}

void out_ident_of(const char *path, out_ident_t *id) {
    struct stat st;
    if (lstat(path, &st) != 0) {
        *id = (out_ident_t){.exists = false};
        return;
    }
    out_ident_st(&st, id);
    if (S_ISDIR(st.st_mode)) id->entries = entries_hash(path);
}

bool out_ident_same(const out_ident_t *a, const out_ident_t *b) {
    if (!a->exists || !b->exists) return a->exists == b->exists;
    return a->dev == b->dev && a->ino == b->ino && a->ctim.tv_sec == b->ctim.tv_sec && a->ctim.tv_nsec == b->ctim.tv_nsec &&
           a->entries == b->entries;
}

/* Hand the temporary "DIR/PID.SEQ.tmp" over to the run that launched this rank: path into
 * "DIR/PID.SEQ.path", then the bytes renamed to "DIR/PID.SEQ.out" (rs_out_adopt reads both). */
static int hand_over(const char *tmp, const char *path) {
    char base[PATH_MAX], name[PATH_MAX + 8];
    const size_t l = strlen(tmp);
    if (l < 4 || l >= sizeof base || strcmp(tmp + l - 4, ".tmp") != 0) return errno = EINVAL, -1;
    memcpy(base, tmp, l - 4);
    base[l - 4] = 0;
    snprintf(name, sizeof name, "%s.path", base);
    const int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    const size_t n = strlen(path);
    const bool ok = write(fd, path, n) == (ssize_t)n;
    if (close(fd) != 0 || !ok) return unlink(name), errno = errno ? errno : EIO, -1;
    snprintf(name, sizeof name, "%s.out", base);
    return rename(tmp, name);
}

/* Put the temporary where it goes: rename over a regular file, write into a device or descriptor
 * in place, hand it over. The temporary is gone afterwards. Returns 0 or -1 with err. */
int out_place(const char *tmp, const char *target, const char *path, int kind, int fd, rs_err_t *err) {
    int rc = 0;
    if (kind == OUT_KIND_HAND) {
        if (hand_over(tmp, path) != 0) rc = rs_errf(err, "%s: cannot hand the output over to the launching run: %s", path, strerror(errno));
    } else if (kind == OUT_KIND_FILE) {
        if (rename(tmp, target) != 0) rc = rs_errf(err, "%s: cannot rename the temporary file: %s", path, strerror(errno));
    } else {
        if (kind == OUT_KIND_FD) fflush(kind == OUT_KIND_FD && fd == 2 ? stderr : stdout);
        const int to = kind == OUT_KIND_FD ? fd : open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (to < 0 || copy_into(tmp, to) != 0) rc = rs_errf(err, "%s: write failed: %s", path, strerror(errno));
        if (kind != OUT_KIND_FD && to >= 0 && close(to) != 0 && rc == 0)
            rc = rs_errf(err, "%s: write failed: %s", path, strerror(errno));
    }
    unlink(tmp);
    return rc;
}
