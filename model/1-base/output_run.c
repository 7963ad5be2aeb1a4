/* output_run.c - the run of this process (output.h's rules 2 and 3): its registry of temporaries,
 * folders, pending commits and children (output_run.h), the signals that clean them up, the removal
 * of what killed runs left behind, the folders of a run (temporary, staged, created) and its end,
 * rs_out_finish, which commits or removes everything together. */
#define _GNU_SOURCE /* getdents64 via syscall, O_DIRECTORY */
#include "output.h"
#include "output_run.h"
#include "output_target.h"

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
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ================================================================================================
 * The registry
 * ============================================================================================== */
static struct {
    volatile pid_t owner;          /* the process whose run this is; 0: none */
    out_node_t *volatile head;         /* in registration order (a signal handler walks it) */
    out_node_t *tail;
    pthread_mutex_t lock;          /* appends and state changes from threads */
    unsigned long seq;             /* temporaries' sequence numbers */
    bool swept;                    /* dead PIDs' folders removed from $TMPDIR once */
    char hand[PATH_MAX];           /* a rank's hand-over folder (RINGSIM_RANK_OUT), or "" */
} R = {0, NULL, NULL, PTHREAD_MUTEX_INITIALIZER, 0, false, ""};

bool rs_out_active(void) { return R.owner != 0 && R.owner == getpid(); }

void rs_out_forget(void) { R.owner = 0; }

/* A node, appended (fully built before it is linked: the handler may walk the list at any time). */
out_node_t *out_node_add(int state, const char *tmp, const char *target, const char *path) {
    out_node_t *n = calloc(1, sizeof *n);
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

out_node_t *out_node_find(int state, const char *tmp) {
    for (out_node_t *n = R.head; n; n = n->next)
        if (n->state == state && n->tmp && !strcmp(n->tmp, tmp)) return n;
    return NULL;
}


void out_node_pend(out_node_t *n, int kind, int fd, const char *target) {
    pthread_mutex_lock(&R.lock);
    for (out_node_t *o = R.head; o; o = o->next) /* the same target committed again: the later one wins */
        if (o != n && o->state == OUT_PENDING && kind != OUT_KIND_FD && !strcmp(o->target, target)) {
            unlink(o->tmp);
            o->state = OUT_DONE;
        }
    n->kind = kind, n->fd = fd;
    n->state = OUT_PENDING;
    pthread_mutex_unlock(&R.lock);
}

const char *out_pending_tmp(const char *target) {
    const char *found = NULL;
    for (out_node_t *n = R.head; n; n = n->next) /* the last one committed wins, as at the end */
        if (n->state == OUT_PENDING && n->target && !strcmp(n->target, target)) found = n->tmp;
    return found;
}

/* Inside a staged folder (its files are committed at once, the folder at the end). */
bool out_in_stage(const char *target) {
    for (out_node_t *n = R.head; n; n = n->next) {
        const size_t l = n->tmp ? strlen(n->tmp) : 0;
        if ((n->state == OUT_STAGE || n->state == OUT_TMPDIR) && l && !strncmp(target, n->tmp, l) && target[l] == '/') return true;
    }
    return false;
}

/* The record of what target was at the run's checks, or NULL. */
static const out_node_t *seen_node(const char *target) {
    if (!rs_out_active()) return NULL;
    for (const out_node_t *n = R.head; n; n = n->next)
        if (n->state == OUT_SEEN && !strcmp(n->target, target)) return n;
    return NULL;
}

void out_seen(const char *target, const out_ident_t *id) {
    if (!rs_out_active() || seen_node(target)) return; /* the first look counts */
    out_node_t *n = out_node_add(OUT_DONE, NULL, target, NULL);
    if (!n) return;
    n->id = *id;
    n->state = OUT_SEEN;
}

const char *out_handover_dir(void) { return rs_out_active() && R.hand[0] ? R.hand : NULL; }

unsigned long out_next_seq(void) {
    pthread_mutex_lock(&R.lock);
    const unsigned long seq = R.seq++;
    pthread_mutex_unlock(&R.lock);
    return seq;
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

void out_remove_tree(const char *path) { remove_tree_at(AT_FDCWD, path, 0); }

/* ================================================================================================
 * Signals
 * ============================================================================================== */
/* Signals: end the children, remove every temporary, then end as the signal would. */
static void on_signal(int sig) {
    if (R.owner == getpid()) {
        for (out_node_t *n = R.head; n; n = n->next)
            if (n->state == OUT_CHILD) kill(n->group ? -n->pid : n->pid, SIGTERM);
        for (out_node_t *n = R.head; n; n = n->next) {
            if ((n->state == OUT_OPEN || n->state == OUT_PENDING) && n->tmp) unlink(n->tmp);
            if ((n->state == OUT_TMPDIR || n->state == OUT_STAGE) && n->tmp) out_remove_tree(n->tmp);
        }
        for (int pass = 0; pass < 16; pass++) /* output folders this run created, when empty now: innermost first */
            for (out_node_t *n = R.head; n; n = n->next)
                if (n->state == OUT_MKDIR && n->tmp) rmdir(n->tmp);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int handled[] = {SIGINT, SIGTERM, SIGHUP};

/* Block the handled signals (a commit is not interrupted half-way); old: the mask to restore. */
static void block_handled(sigset_t *old) {
    sigset_t block;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) sigaddset(&block, handled[i]);
    sigprocmask(SIG_BLOCK, &block, old);
}

/* A run that ends by exit() elsewhere (not through main's rs_out_finish) failed: remove its outputs. */
static void at_exit(void) { rs_out_finish(false, NULL); }

void rs_out_begin(void) {
    static bool registered = false;
    if (!registered) registered = atexit(at_exit) == 0;
    R.owner = getpid();
    /* a rank of a job this project's launcher started (exec_launch.c): its outputs go to the launching
     * run, which commits them; the variable is not passed on to this process's own children */
    const char *hand = getenv("RINGSIM_RANK_OUT");
    struct stat st;
    R.hand[0] = 0;
    if (hand && *hand && strlen(hand) < sizeof R.hand && stat(hand, &st) == 0 && S_ISDIR(st.st_mode)) snprintf(R.hand, sizeof R.hand, "%s", hand);
    unsetenv("RINGSIM_RANK_OUT");
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
void out_sweep_beside(const char *dir, const char *name) {
    DIR *d = opendir(dir);
    if (!d) return;
    char prefix[NAME_MAX + 8], p[PATH_MAX];
    snprintf(prefix, sizeof prefix, "%s.tmp.", name);
    for (struct dirent *e; (e = readdir(d));) {
        const size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 8, ".ringsim") != 0) continue;
        const long pid = pid_after(e->d_name, prefix, '.');
        if (pid > 0 && dead(pid) && out_join(p, dir, e->d_name)) out_remove_tree(p);
    }
    closedir(d);
}

/* $TMPDIR or /tmp. */
const char *out_tmp_base(void) {
    const char *b = getenv("TMPDIR");
    return b && *b ? b : "/tmp";
}

/* Remove "$TMPDIR/ringsim-WHAT.PID.XXXXXX" of dead PIDs that this user owns. */
void out_sweep_tmp(void) {
    if (R.swept) return;
    R.swept = true;
    DIR *d = opendir(out_tmp_base());
    if (!d) return;
    char p[PATH_MAX];
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "ringsim-", 8) != 0) continue;
        const char *dot = strchr(e->d_name + 8, '.');
        if (!dot) continue;
        char *end = NULL;
        const long pid = strtol(dot + 1, &end, 10);
        struct stat st;
        if (!out_join(p, out_tmp_base(), e->d_name)) continue;
        if (end != dot + 1 && *end == '.' && strlen(end) == 7 && dead(pid) && lstat(p, &st) == 0 && st.st_uid == getuid())
            out_remove_tree(p);
    }
    closedir(d);
}

/* ================================================================================================
 * Folders and children
 * ============================================================================================== */
int rs_out_tmpdir(const char *what, char *dir, size_t len, rs_err_t *err) {
    out_sweep_tmp();
    if (snprintf(dir, len, "%s/ringsim-%s.%ld.XXXXXX", out_tmp_base(), what, (long)getpid()) >= (int)len)
        return rs_errf(err, "%s: path too long for a temporary folder", out_tmp_base());
    if (!mkdtemp(dir)) return rs_errf(err, "cannot create a temporary folder in %s: %s", out_tmp_base(), strerror(errno));
    if (rs_out_active() && !out_node_add(OUT_TMPDIR, dir, NULL, NULL)) {
        out_remove_tree(dir);
        return rs_errf(err, "out of memory");
    }
    return 0;
}

void rs_out_tmpdir_remove(const char *dir) {
    if (!dir || !*dir) return;
    out_remove_tree(dir);
    out_node_t *n = rs_out_active() ? out_node_find(OUT_TMPDIR, dir) : NULL;
    if (n) n->state = OUT_DONE;
}

int rs_out_mkdir(const char *path, rs_err_t *err) {
    if (mkdir(path, 0777) == 0) {
        char real[PATH_MAX];
        if (rs_out_active() && realpath(path, real)) out_node_add(OUT_MKDIR, real, NULL, path);
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
    if (!out_split_path(dir, pdir, name) || !*name || !realpath(pdir, real)) return rs_errf(err, "%s: folder %s does not exist", dir, pdir);
    if (!out_join(canon, real, name)) return rs_errf(err, "%s: path too long", dir);
    out_sweep_beside(real, name);
    if (snprintf(stage, len, "%s.tmp.%ld.0.ringsim", canon, (long)getpid()) >= (int)len) return rs_errf(err, "%s: path too long", dir);
    if (mkdir(stage, 0777) != 0) return rs_errf(err, "%s: cannot create: %s", stage, strerror(errno));
    out_node_t *n = out_node_add(OUT_STAGE, stage, canon, dir);
    if (!n) {
        rmdir(stage);
        return rs_errf(err, "out of memory");
    }
    out_ident_of(canon, &n->id);
    n->kind = !n->id.exists; /* 1: missing now, so created at the end and never merged into */
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
        if (!out_join(a, from, e->d_name) || !out_join(b, to, e->d_name) || lstat(a, &st) != 0) continue;
        if (S_ISDIR(st.st_mode) && depth < 16) rc = merge_tree(a, b, depth + 1, err);
        else if (rename(a, b) != 0) rc = rs_errf(err, "%s: cannot move into place: %s", b, strerror(errno));
    }
    closedir(d);
    return rc;
}

/* Move folder from to the new name to, which must not exist: renameat2(RENAME_NOREPLACE), so that of
 * two runs that both found it missing, the second fails instead of replacing the first's (a file
 * system without RENAME_NOREPLACE: rename, which still refuses a non-empty folder). Returns 0 or -1
 * with errno. */
static int rename_new(const char *from, const char *to) {
    if (syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    return rename(from, to);
}

/* The longest wait for another run's commit in the same folder. */
enum { LOCK_WAIT_MS = 10000 };

/* Lock the folder target lies in (flock: every ringsim commit there takes it, so that looking at the
 * target and replacing it is one step among runs). Returns the descriptor to close, -1 when the file
 * system has no such lock (the commit goes on unlocked), -2 when another run held it LOCK_WAIT_MS. */
static int lock_folder(const char *target) {
    char dir[PATH_MAX], name[NAME_MAX + 1];
    if (!out_split_path(target, dir, name)) return -1;
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    for (int waited_ms = 0;; waited_ms += 5) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
        if (errno != EWOULDBLOCK && errno != EINTR) return close(fd), -1;
        if (waited_ms >= LOCK_WAIT_MS) return close(fd), -2;
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
}

/* The refusal of a run that lost the race for the output path: another run committed there after
 * this run first looked (output.h). */
static int lost(const char *path, const char *how, rs_err_t *err) {
    return rs_errf(err, "%s: %s by another run meanwhile: that run's output is kept, this run's is discarded", path, how);
}

static int locked_out(const char *path, rs_err_t *err) {
    return rs_errf(err, "%s: its folder stayed locked by another run's commit for %d s: this run's output is discarded", path, LOCK_WAIT_MS / 1000);
}

int out_commit(const char *tmp, const char *target, const char *path, int kind, int fd, const out_ident_t *was, rs_err_t *err) {
    if (kind != OUT_KIND_FILE) return out_place(tmp, target, path, kind, fd, err);
    const out_node_t *seen = seen_node(target);
    const out_ident_t first = seen ? seen->id : *was;
    const int lock = lock_folder(target);
    out_ident_t now;
    out_ident_of(target, &now);
    int rc;
    if (lock == -2) rc = locked_out(path, err);
    else if (now.exists && !out_ident_same(&first, &now)) rc = lost(path, first.exists ? "replaced" : "created", err);
    else rc = out_place(tmp, target, path, kind, fd, err);
    unlink(tmp);
    if (lock >= 0) close(lock);
    return rc;
}

/* Commit a staged folder, under the lock of the folder it goes into: created when it was missing at
 * the start (and still is), merged into the existing folder when that is the one this run saw at the
 * start; otherwise another run committed there meanwhile. Returns 0 or -1 with err. */
static int commit_stage(out_node_t *n, rs_err_t *err) {
    const int lock = lock_folder(n->target);
    out_ident_t now;
    out_ident_of(n->target, &now);
    int rc = 0;
    if (lock == -2) {
        rc = locked_out(n->path, err);
    } else if (n->kind == 1) { /* the folder was missing at the start: it is created now, or the run fails */
        if (rename_new(n->tmp, n->target) != 0)
            rc = errno == EEXIST || errno == ENOTEMPTY ? lost(n->path, "created", err)
                                                       : rs_errf(err, "%s: cannot move into place: %s", n->path, strerror(errno));
    } else if (!now.exists) {
        if (rename(n->tmp, n->target) != 0) rc = rs_errf(err, "%s: cannot move into place: %s", n->path, strerror(errno));
    } else if (!out_ident_same(&n->id, &now)) {
        rc = lost(n->path, "replaced", err);
    } else {
        rc = merge_tree(n->tmp, n->target, 0, err);
    }
    out_remove_tree(n->tmp);
    if (lock >= 0) close(lock);
    return rc;
}

int rs_out_stage_commit(const char *stage, rs_err_t *err) {
    out_node_t *n = rs_out_active() ? out_node_find(OUT_STAGE, stage) : NULL;
    if (!n) return 0; /* outside a run the folder is written in place */
    sigset_t old;
    block_handled(&old);
    const int rc = commit_stage(n, err);
    n->state = OUT_DONE;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void rs_out_child(pid_t pid, bool group) {
    if (!rs_out_active()) return;
    out_node_t *n = out_node_add(OUT_DONE, NULL, NULL, NULL);
    if (!n) return;
    n->pid = pid, n->group = group;
    n->state = OUT_CHILD;
}

void rs_out_child_done(pid_t pid) {
    if (!rs_out_active()) return;
    for (out_node_t *n = R.head; n; n = n->next)
        if (n->state == OUT_CHILD && n->pid == pid) n->state = OUT_DONE;
}

/* ================================================================================================
 * The end of the run
 * ============================================================================================== */
int rs_out_finish(bool ok, rs_err_t *err) {
    if (!rs_out_active()) return 0;
    sigset_t old;
    block_handled(&old);
    int rc = 0;
    for (out_node_t *n = R.head; n; n = n->next) {
        if (n->state == OUT_PENDING && ok && rc == 0) rc = out_commit(n->tmp, n->target, n->path, n->kind, n->fd, &n->id, err);
        else if (n->state == OUT_STAGE && ok && rc == 0) rc = commit_stage(n, err);
        else if (n->state == OUT_OPEN || n->state == OUT_PENDING) unlink(n->tmp);
        else if (n->state == OUT_STAGE || n->state == OUT_TMPDIR) out_remove_tree(n->tmp);
        if (n->state != OUT_MKDIR && n->state != OUT_SEEN) n->state = OUT_DONE; /* what was seen: for the later commits */
    }
    for (int pass = 0; pass < 16 && (!ok || rc != 0); pass++) /* folders this run created, innermost first */
        for (out_node_t *n = R.head; n; n = n->next)
            if (n->state == OUT_MKDIR && rmdir(n->tmp) == 0) n->state = OUT_DONE;
    pthread_mutex_lock(&R.lock);
    for (out_node_t *n = R.head, *next; n; n = next) {
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
