/* output_file.c - the writers of output files (output.h: rs_file_*, the "-"-or-file rs_output_*,
 * rs_out_read_path): a temporary beside the target (or in $TMPDIR for a device or descriptor),
 * checked writes, and the commit - at once outside a run, registered as pending inside one
 * (output_run.h) so that rs_out_finish commits every output together. */
#define _GNU_SOURCE /* mkostemp, strverscmp */
#include "output.h"
#include "output_run.h"
#include "output_target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void file_free(rs_file_t *f) {
    free(f->path), free(f->tmp_path), free(f->target);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

/* A new temporary for target t: beside it (a regular file), else in $TMPDIR. Returns the open
 * descriptor and its name in tmp, or -1 with errno. */
static int make_temp(const out_target_t *t, char *tmp, size_t len) {
    const unsigned long seq = out_next_seq();
    if (t->kind == OUT_KIND_HAND) {
        if (snprintf(tmp, len, "%s/%ld.%lu.tmp", out_handover_dir(), (long)getpid(), seq) >= (int)len) return errno = ENAMETOOLONG, -1;
        return open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (t->kind == OUT_KIND_FILE) {
        if (snprintf(tmp, len, "%s.tmp.%ld.%lu.ringsim", t->target, (long)getpid(), seq) >= (int)len) return errno = ENAMETOOLONG, -1;
        return open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    out_sweep_tmp();
    if (snprintf(tmp, len, "%s/ringsim-out.%ld.XXXXXX", out_tmp_base(), (long)getpid()) >= (int)len) return errno = ENAMETOOLONG, -1;
    return mkostemp(tmp, O_CLOEXEC);
}

static int file_start(rs_file_t *f, const char *path, bool reserve, rs_err_t *err) {
    memset(f, 0, sizeof *f);
    f->fd = -1;
    out_target_t t = {.kind = OUT_KIND_FD, .fd = 1};
    char why[PATH_MAX + 128], tmp[PATH_MAX + 64];
    if (strcmp(path, "-") != 0 && (out_resolve(path, &t, why, sizeof why) != 0 || out_writable(&t, why, sizeof why) != 0))
        return rs_errf(err, "%s: cannot write: %s", path, why);
    if (t.kind == OUT_KIND_FILE && out_handover_dir() && !out_in_stage(t.target)) { /* a rank's output (not a file of its own
                                                                                        temporary folders): the launching run commits it */
        t.kind = OUT_KIND_HAND;
    } else if (t.kind == OUT_KIND_FILE) {
        char name[NAME_MAX + 1];
        out_split_path(t.target, tmp, name);
        out_sweep_beside(t.dir, name);
    }
    const int fd = make_temp(&t, tmp, sizeof tmp);
    if (fd < 0) return rs_errf(err, "%s: cannot write: %s", path, strerror(errno));
    f->path = strdup(path), f->tmp_path = strdup(tmp), f->target = strdup(t.kind == OUT_KIND_FD ? "" : t.target);
    f->kind = t.kind, f->fd = t.fd;
    if (t.kind == OUT_KIND_FILE) { /* what the commit compares against (output_run.c: out_commit) */
        char partial[PATH_MAX + 16];
        if (t.exists) out_ident_st(&t.st, &f->was);
        out_ident_of(rs_out_partial_name(t.target, partial, sizeof partial), &f->was_partial);
    }
    if (!reserve) f->fp = fdopen(fd, "w");
    else close(fd);
    out_node_t *n = NULL;
    if (!f->path || !f->tmp_path || !f->target || (!reserve && !f->fp) ||
        (rs_out_active() && !(n = out_node_add(OUT_OPEN, tmp, f->target, path)))) {
        if (!reserve && !f->fp) close(fd);
        rs_file_abort(f);
        return rs_errf(err, "%s: out of memory", path);
    }
    if (n) n->id = f->was; /* what the target is at the open */
    return 0;
}

int rs_file_open(rs_file_t *f, const char *path, rs_err_t *err) { return file_start(f, path, false, err); }
int rs_file_reserve(rs_file_t *f, const char *path, rs_err_t *err) { return file_start(f, path, true, err); }

/* Close the temporary, checking every write. Returns 0 or -1 with err (temporary removed). */
static int file_close(rs_file_t *f, rs_err_t *err) {
    if (!f->fp) return 0;
    int bad = ferror(f->fp), e = errno;
    if (fclose(f->fp) != 0 && !bad) bad = 1, e = errno;
    f->fp = NULL;
    if (!bad) return 0;
    rs_errf(err, "%s: write failed: %s", f->path, strerror(e ? e : EIO));
    rs_file_abort(f);
    return -1;
}

const char *rs_out_partial_name(const char *path, char *buf, size_t len) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) dot = base + strlen(base); /* no extension (or a dot file): append */
    snprintf(buf, len, "%.*s.partial%s", (int)(dot - path), path, dot);
    return buf;
}

const char *rs_file_partial_path(const rs_file_t *f, char *buf, size_t len) {
    if (f->kind == OUT_KIND_FILE || f->kind == OUT_KIND_HAND) return rs_out_partial_name(f->path, buf, len);
    snprintf(buf, len, "%s", f->path);
    return buf;
}

static int commit(rs_file_t *f, bool partial, rs_err_t *err) {
    if (file_close(f, err) != 0) return -1;
    out_node_t *n = rs_out_active() ? out_node_find(OUT_OPEN, f->tmp_path) : NULL;
    if (n && !partial && !out_in_stage(f->target)) {
        out_node_pend(n, f->kind, f->fd, f->target);
        file_free(f);
        return 0;
    }
    char target[PATH_MAX + 16], path[PATH_MAX + 16];
    const bool aside = partial && (f->kind == OUT_KIND_FILE || f->kind == OUT_KIND_HAND);
    if (aside) rs_out_partial_name(f->target, target, sizeof target), rs_out_partial_name(f->path, path, sizeof path);
    const int rc = out_commit(f->tmp_path, aside ? target : f->target, aside ? path : f->path, f->kind, f->fd, aside ? &f->was_partial : &f->was, err);
    if (n) n->state = OUT_DONE;
    file_free(f);
    return rc;
}

int rs_file_commit(rs_file_t *f, rs_err_t *err) { return commit(f, false, err); }
int rs_file_commit_partial(rs_file_t *f, rs_err_t *err) { return commit(f, true, err); }

void rs_file_abort(rs_file_t *f) {
    if (f->fp) fclose(f->fp);
    f->fp = NULL;
    if (f->tmp_path) {
        out_node_t *n = rs_out_active() ? out_node_find(OUT_OPEN, f->tmp_path) : NULL;
        unlink(f->tmp_path);
        if (n) n->state = OUT_DONE;
    }
    file_free(f);
}

int rs_output_open(rs_output_t *o, const char *path, rs_err_t *err) {
    memset(o, 0, sizeof *o);
    if (!strcmp(path, "-")) {
        o->to_stdout = true;
        o->fp = stdout;
        return 0;
    }
    if (rs_file_open(&o->file, path, err) != 0) return -1;
    o->fp = o->file.fp;
    return 0;
}

int rs_output_close(rs_output_t *o, rs_err_t *err) {
    if (o->to_stdout) return 0; /* stdout is checked once, at the command's end (its write error, with errno) */
    return rs_file_commit(&o->file, err);
}

void rs_output_abort(rs_output_t *o) {
    if (!o->to_stdout && o->fp) rs_file_abort(&o->file);
    o->fp = NULL;
}

const char *rs_out_read_path(const char *path, char *buf, size_t len) {
    out_target_t t;
    char why[256];
    if (!rs_out_active() || !strcmp(path, "-") || out_resolve(path, &t, why, sizeof why) != 0 || t.kind != OUT_KIND_FILE) return path;
    const char *found = out_pending_tmp(t.target); /* the last one committed wins, as at the end */
    if (!found || snprintf(buf, len, "%s", found) >= (int)len) return path;
    return buf;
}


/* The path a handed-over output "DIR/NAME.out" goes to (its "DIR/NAME.path"), into path. Returns 0
 * or -1 with errno. */
static int handed_path(const char *dir, const char *name, char *path, size_t len) {
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s/%.*s.path", dir, (int)(strlen(name) - 4), name) >= (int)sizeof p) return errno = ENAMETOOLONG, -1;
    const int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    const ssize_t n = read(fd, path, len - 1);
    close(fd);
    if (n <= 0) return errno = EINVAL, -1;
    path[n] = 0;
    return 0;
}

static int by_version(const struct dirent **a, const struct dirent **b) { return strverscmp((*a)->d_name, (*b)->d_name); }

static int handed_out(const struct dirent *e) {
    const size_t l = strlen(e->d_name);
    return l > 4 && !strcmp(e->d_name + l - 4, ".out");
}

int rs_out_adopt(const char *dir, rs_err_t *err) {
    struct dirent **list = NULL;
    const int n = scandir(dir, &list, handed_out, by_version); /* "PID.SEQ.out": each rank's in its order */
    if (n < 0) return rs_errf(err, "%s: cannot read the ranks' outputs: %s", dir, strerror(errno));
    int rc = 0;
    char path[PATH_MAX], from[PATH_MAX];
    for (int i = 0; i < n; i++) {
        rs_file_t f;
        if (rc == 0 && handed_path(dir, list[i]->d_name, path, sizeof path) != 0)
            rc = rs_errf(err, "%s: a rank's output has no name: %s", list[i]->d_name, strerror(errno));
        else if (rc == 0 && out_join(from, dir, list[i]->d_name) && rs_file_reserve(&f, path, err) == 0) {
            if (out_move(from, f.tmp_path) != 0) {
                rc = rs_errf(err, "%s: cannot take the rank's output: %s", path, strerror(errno));
                rs_file_abort(&f);
            } else {
                rc = rs_file_commit(&f, err);
            }
        } else if (rc == 0) {
            rc = -1;
        }
        free(list[i]);
    }
    free(list);
    return rc;
}
