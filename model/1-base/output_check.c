/* output_check.c - the checks before any work (output.h's rule 1, rs_io_*): every output writable
 * where it is, none an input of the same command, no two sharing a target, compared by device +
 * inode and by canonical path. */
#define _GNU_SOURCE /* realpath, strndup */
#include "output.h"
#include "output_run.h"
#include "output_target.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { IO_IN = 0, IO_OUT, IO_DIR, IO_MKDIR };

struct rs_io_entry {
    int role;             /* IO_* */
    char *what;           /* "--csv", "REF" */
    char *path;           /* as given */
};

void rs_io_init(rs_io_plan_t *p) { memset(p, 0, sizeof *p); }

void rs_io_free(rs_io_plan_t *p) {
    for (int i = 0; i < p->n; i++) free(p->e[i].what), free(p->e[i].path);
    free(p->e);
    memset(p, 0, sizeof *p);
}

static int add(rs_io_plan_t *p, int role, const char *what, const char *path, size_t len) {
    if (p->n == p->cap) {
        const int cap = p->cap ? 2 * p->cap : 16;
        struct rs_io_entry *e = realloc(p->e, (size_t)cap * sizeof *e);
        if (!e) return p->cap = -1, -1;
        p->e = e, p->cap = cap;
    }
    char *w = strdup(what ? what : "output"), *s = strndup(path, len);
    if (!w || !s) return free(w), free(s), p->cap = -1, -1;
    p->e[p->n++] = (struct rs_io_entry){role, w, s};
    return 0;
}

int rs_io_input(rs_io_plan_t *p, const char *what, const char *path, bool list) {
    if (p->cap < 0) return -1;
    if (!path || !*path) return 0;
    if (!list) return add(p, IO_IN, what, path, strlen(path));
    for (const char *c = path; *c;) {
        const size_t n = strcspn(c, ",");
        if (n && add(p, IO_IN, what, c, n) != 0) return -1;
        c += n + (c[n] == ',');
    }
    return 0;
}

int rs_io_output(rs_io_plan_t *p, const char *what, const char *path) {
    if (p->cap < 0) return -1;
    return path ? add(p, IO_OUT, what, path, strlen(path)) : 0;
}

int rs_io_output_dir(rs_io_plan_t *p, const char *what, const char *path, bool create) {
    if (p->cap < 0) return -1;
    return path ? add(p, create ? IO_MKDIR : IO_DIR, what, path, strlen(path)) : 0;
}

int rs_io_make_dirs(const rs_io_plan_t *p, rs_err_t *err) {
    for (int i = 0; i < p->n; i++)
        if (p->e[i].role == IO_MKDIR && rs_out_mkdir(p->e[i].path, err) != 0) return -1;
    return 0;
}

/* What two entries are compared by: device + inode (when the file exists) and the canonical path. */
typedef struct {
    bool has_st;
    dev_t dev;
    ino_t ino;
    bool chr;               /* a character device (several outputs may share /dev/null) */
    char canon[PATH_MAX];   /* "" when unknown */
    bool skip;              /* an input that does not exist (its reader reports it) */
} ident_t;

static void ident_st(ident_t *id, const struct stat *st) {
    id->has_st = true, id->dev = st->st_dev, id->ino = st->st_ino, id->chr = S_ISCHR(st->st_mode);
}

/* The identity of an output folder; -1 with why when it cannot be one. */
static int dir_ident(const char *path, ident_t *id, char *why, size_t wl) {
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return snprintf(why, wl, "exists and is not a folder"), -1;
        if (access(path, W_OK | X_OK) != 0) return snprintf(why, wl, "folder is not writable: %s", strerror(errno)), -1;
        ident_st(id, &st);
        if (!realpath(path, id->canon)) id->canon[0] = 0;
        return 0;
    }
    char dir[PATH_MAX], name[NAME_MAX + 1], real[PATH_MAX];
    if (!out_split_path(path, dir, name) || !*name) return snprintf(why, wl, "path too long"), -1;
    if (!realpath(dir, real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
        return snprintf(why, wl, "folder %s does not exist", dir), -1;
    if (access(real, W_OK | X_OK) != 0) return snprintf(why, wl, "folder %s is not writable: %s", dir, strerror(errno)), -1;
    if (!out_join(id->canon, real, name)) return snprintf(why, wl, "path too long"), -1;
    return 0;
}

/* The identity of entry e; -1 with why when an output cannot be written there. */
static int ident_of(const struct rs_io_entry *e, ident_t *id, char *why, size_t wl) {
    memset(id, 0, sizeof *id);
    if (e->role == IO_IN) {
        struct stat st;
        if (stat(e->path, &st) != 0) return id->skip = true, 0;
        ident_st(id, &st);
        if (!realpath(e->path, id->canon)) id->canon[0] = 0;
        return 0;
    }
    if (e->role == IO_DIR || e->role == IO_MKDIR) return dir_ident(e->path, id, why, wl);
    out_target_t t;
    if (!strcmp(e->path, "-")) {
        t = (out_target_t){.kind = OUT_KIND_FD, .fd = 1};
        t.exists = fstat(1, &t.st) == 0;
    } else if (out_resolve(e->path, &t, why, wl) != 0 || out_writable(&t, why, wl) != 0) {
        return -1;
    }
    if (t.exists) ident_st(id, &t.st);
    if (t.kind == OUT_KIND_FILE) { /* what the target is now: its commit checks no other run replaced it meanwhile */
        out_ident_t seen = {.exists = false};
        if (t.exists) out_ident_st(&t.st, &seen);
        out_seen(t.target, &seen);
    }
    if (t.kind == OUT_KIND_FD) snprintf(id->canon, sizeof id->canon, "descriptor %d", t.fd);
    else snprintf(id->canon, sizeof id->canon, "%s", t.target);
    return 0;
}

static bool same(const ident_t *a, const ident_t *b) {
    if (a->has_st && b->has_st && a->dev == b->dev && a->ino == b->ino) return true;
    return a->canon[0] && !strcmp(a->canon, b->canon);
}

int rs_io_check(const rs_io_plan_t *p, rs_err_t *err) {
    if (p->cap < 0) return rs_errf(err, "out of memory");
    ident_t *id = calloc((size_t)p->n + 1, sizeof *id);
    if (!id) return rs_errf(err, "out of memory");
    int rc = 0;
    char why[PATH_MAX + 128];
    for (int i = 0; i < p->n && rc == 0; i++)
        if (ident_of(&p->e[i], &id[i], why, sizeof why) != 0) rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: %s", p->e[i].what, p->e[i].path, why);
    for (int i = 0; i < p->n && rc == 0; i++) {
        const struct rs_io_entry *a = &p->e[i];
        if (a->role == IO_IN) continue;
        for (int j = 0; j < p->n && rc == 0; j++) {
            const struct rs_io_entry *b = &p->e[j];
            if (j == i || id[j].skip || !same(&id[i], &id[j])) continue;
            if (b->role == IO_IN)
                rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: the same file as the input %s %s: an output never replaces an input", a->what, a->path,
                             b->what, b->path);
            else if (j < i && !(id[i].chr && id[j].chr))
                rc = rs_errc(err, RS_ERR_BAD_INPUT, "%s %s: the same file as the output %s %s: give each output its own file", a->what, a->path,
                             b->what, b->path);
        }
    }
    free(id);
    return rc;
}
