/* output.c - every file a run writes: checks, temporaries, commit at the end, signals (output.h). */
#define _GNU_SOURCE /* getdents64 via syscall, O_DIRECTORY */
#include "output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { KIND_FILE = 0, KIND_DEVICE = 1, KIND_FD = 2 };

/* ================================================================================================
 * Targets: where the bytes of a path go
 * ============================================================================================== */
typedef struct {
    int kind;               /* KIND_* */
    int fd;                 /* KIND_FD: the descriptor */
    bool exists;            /* st is valid */
    struct stat st;         /* the target (not a link) */
    char dir[PATH_MAX];     /* the canonical folder of the target */
    char target[PATH_MAX];  /* KIND_FILE, KIND_DEVICE: the canonical path */
} target_t;

/* "DIR" and "NAME" of path (DIR "." when there is no '/'); false when too long. */
static bool split_path(const char *path, char *dir, char *name) {
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
static bool join(char *out, const char *dir, const char *name) {
    return snprintf(out, PATH_MAX, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name) < PATH_MAX;
}

/* Resolve path: symbolic links followed, the descriptors of this process recognised. Returns 0, or
 * -1 with why (a phrase without the path: "folder d does not exist", "is a directory"). */
static int resolve(const char *path, target_t *t, char *why, size_t wl) {
    memset(t, 0, sizeof *t);
    t->fd = -1;
    char cur[PATH_MAX], dir[PATH_MAX], name[NAME_MAX + 1], full[PATH_MAX];
    if (!*path) return snprintf(why, wl, "empty path"), -1;
    if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur) return snprintf(why, wl, "path too long"), -1;
    for (int hop = 0; hop < 40; hop++) {
        if (!split_path(cur, dir, name)) return snprintf(why, wl, "path too long"), -1;
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
            t->kind = KIND_FD, t->fd = fd;
            t->exists = fstat(fd, &t->st) == 0;
            return 0;
        }
        if (!join(full, t->dir, name)) return snprintf(why, wl, "path too long"), -1;
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
        t->kind = S_ISREG(ls.st_mode) ? KIND_FILE : KIND_DEVICE;
        t->exists = true;
        t->st = ls;
        snprintf(t->target, sizeof t->target, "%s", full);
        return 0;
    }
    return snprintf(why, wl, "too many levels of symbolic links"), -1;
}

/* Can this process write the resolved target? Returns 0 or -1 with why. */
static int writable(const target_t *t, char *why, size_t wl) {
    if (t->kind == KIND_FD) return 0; /* resolve checked its mode */
    if (t->kind == KIND_DEVICE) {
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

/* ================================================================================================
 * The plan: checks before any work
 * ============================================================================================== */
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
    if (!split_path(path, dir, name) || !*name) return snprintf(why, wl, "path too long"), -1;
    if (!realpath(dir, real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
        return snprintf(why, wl, "folder %s does not exist", dir), -1;
    if (access(real, W_OK | X_OK) != 0) return snprintf(why, wl, "folder %s is not writable: %s", dir, strerror(errno)), -1;
    if (!join(id->canon, real, name)) return snprintf(why, wl, "path too long"), -1;
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
    target_t t;
    if (!strcmp(e->path, "-")) {
        t = (target_t){.kind = KIND_FD, .fd = 1};
        t.exists = fstat(1, &t.st) == 0;
    } else if (resolve(e->path, &t, why, wl) != 0 || writable(&t, why, wl) != 0) {
        return -1;
    }
    if (t.exists) ident_st(id, &t.st);
    if (t.kind == KIND_FD) snprintf(id->canon, sizeof id->canon, "descriptor %d", t.fd);
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
        if (ident_of(&p->e[i], &id[i], why, sizeof why) != 0) rc = rs_errf(err, "%s %s: %s", p->e[i].what, p->e[i].path, why);
    for (int i = 0; i < p->n && rc == 0; i++) {
        const struct rs_io_entry *a = &p->e[i];
        if (a->role == IO_IN) continue;
        for (int j = 0; j < p->n && rc == 0; j++) {
            const struct rs_io_entry *b = &p->e[j];
            if (j == i || id[j].skip || !same(&id[i], &id[j])) continue;
            if (b->role == IO_IN)
                rc = rs_errf(err, "%s %s: the same file as the input %s %s: an output never replaces an input", a->what, a->path,
                             b->what, b->path);
            else if (j < i && !(id[i].chr && id[j].chr))
                rc = rs_errf(err, "%s %s: the same file as the output %s %s: give each output its own file", a->what, a->path,
                             b->what, b->path);
        }
    }
    free(id);
    return rc;
}

/* ================================================================================================
 * The run: registered temporaries, children, pending commits
 * ============================================================================================== */
enum { N_OPEN = 1, N_PENDING, N_DONE, N_TMPDIR, N_STAGE, N_MKDIR, N_CHILD };

typedef struct node {
    struct node *volatile next;
    volatile sig_atomic_t state;   /* N_* (N_DONE: nothing left to do) */
    char *tmp;                     /* the temporary file or folder */
    char *target;                  /* the final path (canonical) */
    char *path;                    /* as given, for messages */
    int kind, fd;                  /* KIND_*, the descriptor */
    pid_t pid;                     /* N_CHILD */
    bool group;                    /* N_CHILD: its process group */
} node_t;

static struct {
    volatile pid_t owner;          /* the process whose run this is; 0: none */
    node_t *volatile head;         /* in registration order (a signal handler walks it) */
    node_t *tail;
    pthread_mutex_t lock;          /* appends and state changes from threads */
    unsigned long seq;             /* temporaries' sequence numbers */
    bool swept;                    /* dead PIDs' folders removed from $TMPDIR once */
} R = {0, NULL, NULL, PTHREAD_MUTEX_INITIALIZER, 0, false};

bool rs_out_active(void) { return R.owner != 0 && R.owner == getpid(); }

void rs_out_forget(void) { R.owner = 0; }

/* A node, appended (fully built before it is linked: the handler may walk the list at any time). */
static node_t *node_add(int state, const char *tmp, const char *target, const char *path) {
    node_t *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->tmp = tmp ? strdup(tmp) : NULL;
    n->target = target ? strdup(target) : NULL;
    n->path = path ? strdup(path) : NULL;
    n->fd = -1;
    if ((tmp && !n->tmp) || (target && !n->target) || (path && !n->path)) {
        free(n->tmp), free(n->target), free(n->path), free(n);
        return NULL;
    }
    n->state = state;
    pthread_mutex_lock(&R.lock);
    if (R.tail) R.tail->next = n;
    else R.head = n;
    R.tail = n;
    pthread_mutex_unlock(&R.lock);
    return n;
}

static node_t *node_find(int state, const char *tmp) {
    for (node_t *n = R.head; n; n = n->next)
        if (n->state == state && n->tmp && !strcmp(n->tmp, tmp)) return n;
    return NULL;
}

/* Remove a folder and everything in it, with system calls only (async-signal-safe). */
static void remove_tree_at(int parent, const char *name, int depth) {
    if (unlinkat(parent, name, 0) == 0 || errno == ENOENT) return;
    const int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    char buf[4096];
    for (int pass = 0; pass < 4 && depth < 16; pass++) { /* again while entries were found: removing may skip some */
        bool any = false;
        lseek(fd, 0, SEEK_SET);
        for (long n; (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0;)
            for (long off = 0; off < n;) {
                struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);
                off += d->d_reclen;
                if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) continue;
                any = true;
                remove_tree_at(fd, d->d_name, depth + 1);
            }
        if (!any) break;
    }
    close(fd);
    unlinkat(parent, name, AT_REMOVEDIR);
}

static void remove_tree(const char *path) { remove_tree_at(AT_FDCWD, path, 0); }

/* Signals: end the children, remove every temporary, then end as the signal would. */
static void on_signal(int sig) {
    if (R.owner == getpid()) {
        for (node_t *n = R.head; n; n = n->next)
            if (n->state == N_CHILD) kill(n->group ? -n->pid : n->pid, SIGTERM);
        for (node_t *n = R.head; n; n = n->next) {
            if ((n->state == N_OPEN || n->state == N_PENDING) && n->tmp) unlink(n->tmp);
            if ((n->state == N_TMPDIR || n->state == N_STAGE) && n->tmp) remove_tree(n->tmp);
        }
        for (int pass = 0; pass < 16; pass++) /* output folders this run created, when empty now: innermost first */
            for (node_t *n = R.head; n; n = n->next)
                if (n->state == N_MKDIR && n->tmp) rmdir(n->tmp);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int handled[] = {SIGINT, SIGTERM, SIGHUP};

/* A run that ends by exit() elsewhere (not through main's rs_out_finish) failed: remove its outputs. */
static void at_exit(void) { rs_out_finish(false, NULL); }

void rs_out_begin(void) {
    static bool registered = false;
    if (!registered) registered = atexit(at_exit) == 0;
    R.owner = getpid();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) sigaddset(&sa.sa_mask, handled[i]);
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        struct sigaction old;
        sigaction(handled[i], NULL, &old);
        if (old.sa_handler != SIG_IGN) sigaction(handled[i], &sa, NULL); /* nohup keeps SIGHUP ignored */
    }
}

/* ================================================================================================
 * Dead PIDs' temporaries
 * ============================================================================================== */
/* true when pid names no process any more. */
static bool dead(long pid) { return pid > 0 && pid != getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }

/* The PID in "PREFIX<digits>SUFFIX..." after prefix, or -1. */
static long pid_after(const char *s, const char *prefix, char sep) {
    const size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0) return -1;
    char *end = NULL;
    long pid = strtol(s + n, &end, 10);
    return end != s + n && *end == sep ? pid : -1;
}

/* Remove "NAME.tmp.PID.SEQ.ringsim" of dead PIDs beside target (a killed run's temporaries). */
static void sweep_beside(const char *dir, const char *name) {
    DIR *d = opendir(dir);
    if (!d) return;
    char prefix[NAME_MAX + 8], p[PATH_MAX];
    snprintf(prefix, sizeof prefix, "%s.tmp.", name);
    for (struct dirent *e; (e = readdir(d));) {
        const size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 8, ".ringsim") != 0) continue;
        const long pid = pid_after(e->d_name, prefix, '.');
        if (pid > 0 && dead(pid) && join(p, dir, e->d_name)) remove_tree(p);
    }
    closedir(d);
}

/* $TMPDIR or /tmp. */
static const char *tmp_base(void) {
    const char *b = getenv("TMPDIR");
    return b && *b ? b : "/tmp";
}

/* Remove "$TMPDIR/ringsim-WHAT.PID.XXXXXX" of dead PIDs that this user owns. */
static void sweep_tmp(void) {
    if (R.swept) return;
    R.swept = true;
    DIR *d = opendir(tmp_base());
    if (!d) return;
    char p[PATH_MAX];
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "ringsim-", 8) != 0) continue;
        const char *dot = strchr(e->d_name + 8, '.');
        if (!dot) continue;
        char *end = NULL;
        const long pid = strtol(dot + 1, &end, 10);
        struct stat st;
        if (!join(p, tmp_base(), e->d_name)) continue;
        if (end != dot + 1 && *end == '.' && strlen(end) == 7 && dead(pid) && lstat(p, &st) == 0 && st.st_uid == getuid())
            remove_tree(p);
    }
    closedir(d);
}

/* ================================================================================================
 * Writers
 * ============================================================================================== */
static void file_free(rs_file_t *f) {
    free(f->path), free(f->tmp_path), free(f->target);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

/* A new temporary for target t: beside it (a regular file), else in $TMPDIR. Returns the open
 * descriptor and its name in tmp, or -1 with errno. */
static int make_temp(const target_t *t, char *tmp, size_t len) {
    pthread_mutex_lock(&R.lock);
    const unsigned long seq = R.seq++;
    pthread_mutex_unlock(&R.lock);
    if (t->kind == KIND_FILE) {
        if (snprintf(tmp, len, "%s.tmp.%ld.%lu.ringsim", t->target, (long)getpid(), seq) >= (int)len) return errno = ENAMETOOLONG, -1;
        return open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    sweep_tmp();
    if (snprintf(tmp, len, "%s/ringsim-out.%ld.XXXXXX", tmp_base(), (long)getpid()) >= (int)len) return errno = ENAMETOOLONG, -1;
    return mkostemp(tmp, O_CLOEXEC);
}

static int file_start(rs_file_t *f, const char *path, bool reserve, rs_err_t *err) {
    memset(f, 0, sizeof *f);
    f->fd = -1;
    target_t t = {.kind = KIND_FD, .fd = 1};
    char why[PATH_MAX + 128], tmp[PATH_MAX + 64];
    if (strcmp(path, "-") != 0 && (resolve(path, &t, why, sizeof why) != 0 || writable(&t, why, sizeof why) != 0))
        return rs_errf(err, "%s: cannot write: %s", path, why);
    if (t.kind == KIND_FILE) {
        char name[NAME_MAX + 1];
        split_path(t.target, tmp, name);
        sweep_beside(t.dir, name);
    }
    const int fd = make_temp(&t, tmp, sizeof tmp);
    if (fd < 0) return rs_errf(err, "%s: cannot write: %s", path, strerror(errno));
    f->path = strdup(path), f->tmp_path = strdup(tmp), f->target = strdup(t.kind == KIND_FD ? "" : t.target);
    f->kind = t.kind, f->fd = t.fd;
    if (!reserve) f->fp = fdopen(fd, "w");
    else close(fd);
    if (!f->path || !f->tmp_path || !f->target || (!reserve && !f->fp) ||
        (rs_out_active() && !node_add(N_OPEN, tmp, f->target, path))) {
        if (!reserve && !f->fp) close(fd);
        rs_file_abort(f);
        return rs_errf(err, "%s: out of memory", path);
    }
    return 0;
}

int rs_file_open(rs_file_t *f, const char *path, rs_err_t *err) { return file_start(f, path, false, err); }
int rs_file_reserve(rs_file_t *f, const char *path, rs_err_t *err) { return file_start(f, path, true, err); }

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

/* Put the temporary where it goes: rename over a regular file, write into a device or descriptor
 * in place. The temporary is gone afterwards. Returns 0 or -1 with err. */
static int place(const char *tmp, const char *target, const char *path, int kind, int fd, rs_err_t *err) {
    int rc = 0;
    if (kind == KIND_FILE) {
        if (rename(tmp, target) != 0) rc = rs_errf(err, "%s: cannot rename the temporary file: %s", path, strerror(errno));
    } else {
        if (kind == KIND_FD) fflush(kind == KIND_FD && fd == 2 ? stderr : stdout);
        const int to = kind == KIND_FD ? fd : open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (to < 0 || copy_into(tmp, to) != 0) rc = rs_errf(err, "%s: write failed: %s", path, strerror(errno));
        if (kind != KIND_FD && to >= 0 && close(to) != 0 && rc == 0)
            rc = rs_errf(err, "%s: write failed: %s", path, strerror(errno));
    }
    unlink(tmp);
    return rc;
}

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

/* Inside a staged folder (its files are committed at once, the folder at the end). */
static bool in_stage(const char *target) {
    for (node_t *n = R.head; n; n = n->next) {
        const size_t l = n->tmp ? strlen(n->tmp) : 0;
        if ((n->state == N_STAGE || n->state == N_TMPDIR) && l && !strncmp(target, n->tmp, l) && target[l] == '/') return true;
    }
    return false;
}

static int commit(rs_file_t *f, bool now, rs_err_t *err) {
    if (file_close(f, err) != 0) return -1;
    node_t *n = rs_out_active() ? node_find(N_OPEN, f->tmp_path) : NULL;
    if (n && !now && !in_stage(f->target)) {
        pthread_mutex_lock(&R.lock);
        for (node_t *o = R.head; o; o = o->next) /* the same target committed again: the later one wins */
            if (o != n && o->state == N_PENDING && f->kind != KIND_FD && !strcmp(o->target, f->target)) {
                unlink(o->tmp);
                o->state = N_DONE;
            }
        n->kind = f->kind, n->fd = f->fd;
        n->state = N_PENDING;
        pthread_mutex_unlock(&R.lock);
        file_free(f);
        return 0;
    }
    const int rc = place(f->tmp_path, f->target, f->path, f->kind, f->fd, err);
    if (n) n->state = N_DONE;
    file_free(f);
    return rc;
}

int rs_file_commit(rs_file_t *f, rs_err_t *err) { return commit(f, false, err); }
int rs_file_commit_now(rs_file_t *f, rs_err_t *err) { return commit(f, true, err); }

void rs_file_abort(rs_file_t *f) {
    if (f->fp) fclose(f->fp);
    f->fp = NULL;
    if (f->tmp_path) {
        node_t *n = rs_out_active() ? node_find(N_OPEN, f->tmp_path) : NULL;
        unlink(f->tmp_path);
        if (n) n->state = N_DONE;
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
    target_t t;
    char why[256];
    if (!rs_out_active() || !strcmp(path, "-") || resolve(path, &t, why, sizeof why) != 0 || t.kind != KIND_FILE) return path;
    const char *found = NULL;
    for (node_t *n = R.head; n; n = n->next) /* the last one committed wins, as at the end */
        if (n->state == N_PENDING && n->target && !strcmp(n->target, t.target)) found = n->tmp;
    if (!found || snprintf(buf, len, "%s", found) >= (int)len) return path;
    return buf;
}

/* ================================================================================================
 * Folders and children
 * ============================================================================================== */
int rs_out_tmpdir(const char *what, char *dir, size_t len, rs_err_t *err) {
    sweep_tmp();
    if (snprintf(dir, len, "%s/ringsim-%s.%ld.XXXXXX", tmp_base(), what, (long)getpid()) >= (int)len)
        return rs_errf(err, "%s: path too long for a temporary folder", tmp_base());
    if (!mkdtemp(dir)) return rs_errf(err, "cannot create a temporary folder in %s: %s", tmp_base(), strerror(errno));
    if (rs_out_active() && !node_add(N_TMPDIR, dir, NULL, NULL)) {
        remove_tree(dir);
        return rs_errf(err, "out of memory");
    }
    return 0;
}

void rs_out_tmpdir_remove(const char *dir) {
    if (!dir || !*dir) return;
    remove_tree(dir);
    node_t *n = rs_out_active() ? node_find(N_TMPDIR, dir) : NULL;
    if (n) n->state = N_DONE;
}

int rs_out_mkdir(const char *path, rs_err_t *err) {
    if (mkdir(path, 0777) == 0) {
        char real[PATH_MAX];
        if (rs_out_active() && realpath(path, real)) node_add(N_MKDIR, real, NULL, path);
        return 0;
    }
    struct stat st;
    if (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
    return rs_errf(err, "%s: cannot create: %s", path, errno == EEXIST ? "exists and is not a folder" : strerror(errno));
}

int rs_out_stage_dir(const char *dir, char *stage, size_t len, rs_err_t *err) {
    if (!rs_out_active()) {
        if (snprintf(stage, len, "%s", dir) >= (int)len) return rs_errf(err, "%s: path too long", dir);
        return rs_out_mkdir(dir, err);
    }
    char canon[PATH_MAX], pdir[PATH_MAX], name[NAME_MAX + 1], real[PATH_MAX];
    if (!split_path(dir, pdir, name) || !*name || !realpath(pdir, real)) return rs_errf(err, "%s: folder %s does not exist", dir, pdir);
    if (!join(canon, real, name)) return rs_errf(err, "%s: path too long", dir);
    sweep_beside(real, name);
    if (snprintf(stage, len, "%s.tmp.%ld.0.ringsim", canon, (long)getpid()) >= (int)len) return rs_errf(err, "%s: path too long", dir);
    if (mkdir(stage, 0777) != 0) return rs_errf(err, "%s: cannot create: %s", stage, strerror(errno));
    if (!node_add(N_STAGE, stage, canon, dir)) {
        rmdir(stage);
        return rs_errf(err, "out of memory");
    }
    return 0;
}

/* Move the files of folder from into folder to (created when missing), replacing files of the same
 * name. Returns 0 or -1 with err. */
static int merge_tree(const char *from, const char *to, int depth, rs_err_t *err) {
    if (mkdir(to, 0777) != 0 && errno != EEXIST) return rs_errf(err, "%s: cannot create: %s", to, strerror(errno));
    DIR *d = opendir(from);
    if (!d) return rs_errf(err, "%s: cannot read: %s", from, strerror(errno));
    int rc = 0;
    char a[PATH_MAX], b[PATH_MAX];
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (!join(a, from, e->d_name) || !join(b, to, e->d_name) || lstat(a, &st) != 0) continue;
        if (S_ISDIR(st.st_mode) && depth < 16) rc = merge_tree(a, b, depth + 1, err);
        else if (rename(a, b) != 0) rc = rs_errf(err, "%s: cannot move into place: %s", b, strerror(errno));
    }
    closedir(d);
    return rc;
}

static int commit_stage(node_t *n, rs_err_t *err) {
    struct stat st;
    int rc = 0;
    if (lstat(n->target, &st) != 0) {
        if (rename(n->tmp, n->target) != 0) rc = rs_errf(err, "%s: cannot move into place: %s", n->path, strerror(errno));
    } else {
        rc = merge_tree(n->tmp, n->target, 0, err);
    }
    remove_tree(n->tmp);
    return rc;
}

void rs_out_child(pid_t pid, bool group) {
    if (!rs_out_active()) return;
    node_t *n = node_add(N_DONE, NULL, NULL, NULL);
    if (!n) return;
    n->pid = pid, n->group = group;
    n->state = N_CHILD;
}

void rs_out_child_done(pid_t pid) {
    if (!rs_out_active()) return;
    for (node_t *n = R.head; n; n = n->next)
        if (n->state == N_CHILD && n->pid == pid) n->state = N_DONE;
}

/* ================================================================================================
 * The end of the run
 * ============================================================================================== */
int rs_out_finish(bool ok, rs_err_t *err) {
    if (!rs_out_active()) return 0;
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) sigaddset(&block, handled[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    int rc = 0;
    for (node_t *n = R.head; n; n = n->next) {
        if (n->state == N_PENDING && ok && rc == 0) rc = place(n->tmp, n->target, n->path, n->kind, n->fd, err);
        else if (n->state == N_STAGE && ok && rc == 0) rc = commit_stage(n, err);
        else if (n->state == N_OPEN || n->state == N_PENDING) unlink(n->tmp);
        else if (n->state == N_STAGE || n->state == N_TMPDIR) remove_tree(n->tmp);
        if (n->state != N_MKDIR) n->state = N_DONE;
    }
    for (int pass = 0; pass < 16 && (!ok || rc != 0); pass++) /* folders this run created, innermost first */
        for (node_t *n = R.head; n; n = n->next)
            if (n->state == N_MKDIR && rmdir(n->tmp) == 0) n->state = N_DONE;
    pthread_mutex_lock(&R.lock);
    for (node_t *n = R.head, *next; n; n = next) {
        next = n->next;
        free(n->tmp), free(n->target), free(n->path), free(n);
    }
    R.head = R.tail = NULL;
    R.owner = 0;
    pthread_mutex_unlock(&R.lock);
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        struct sigaction cur;
        sigaction(handled[i], NULL, &cur);
        if (cur.sa_handler == on_signal) signal(handled[i], SIG_DFL);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}
