/* output_target.h - where the bytes of an output path go (output.h's rules; used by the checks,
 * output_check.c, the writers, output_file.c, and the run's commit, output_run.c): the path with its
 * symbolic links followed, a descriptor of this process recognised, whether this process may write
 * there, and the placing of a finished temporary. Internal to model/1-base (not exported: out_*). */
#ifndef RS_OUTPUT_TARGET_H
#define RS_OUTPUT_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "output.h"
#include "util.h"

/* What a target is: a regular file (a temporary renamed over it), a device or FIFO (written in place),
 * a descriptor of this process (written in place), a regular file an MPI rank hands over to the
 * ringsim that launched it (the temporary is moved into that run's folder, which commits it:
 * rs_out_adopt). rs_file_t.kind holds the same values. */
enum { OUT_KIND_FILE = 0, OUT_KIND_DEVICE = 1, OUT_KIND_FD = 2, OUT_KIND_HAND = 3 };

/* The identity of path now (lstat: a canonical target is no link). Can't fail (missing: !exists). */
void out_ident_of(const char *path, out_ident_t *id);
/* The identity a stat result gives. */
void out_ident_st(const struct stat *st, out_ident_t *id);
/* true when both name the same file in the same state, or both are missing. */
bool out_ident_same(const out_ident_t *a, const out_ident_t *b);

typedef struct {
    int kind;               /* OUT_KIND_* */
    int fd;                 /* OUT_KIND_FD: the descriptor */
    bool exists;            /* st is valid */
    struct stat st;         /* the target (not a link) */
    char dir[PATH_MAX];     /* the canonical folder of the target */
    char target[PATH_MAX];  /* OUT_KIND_FILE, OUT_KIND_DEVICE: the canonical path */
} out_target_t;

/* "DIR" and "NAME" of path (DIR "." when there is no '/'; dir PATH_MAX bytes, name NAME_MAX + 1);
 * false when too long. */
bool out_split_path(const char *path, char *dir, char *name);
/* Join a folder and a name into out (PATH_MAX bytes; "/" + name stays "/name"); false when too long
 * (out truncated). */
bool out_join(char *out, const char *dir, const char *name);
/* Resolve path: symbolic links followed, the descriptors of this process recognised. Returns 0, or
 * -1 with why (a phrase without the path: "folder d does not exist", "is a directory"). */
int out_resolve(const char *path, out_target_t *t, char *why, size_t wl);
/* Can this process write the resolved target? Returns 0 or -1 with why. */
int out_writable(const out_target_t *t, char *why, size_t wl);
/* Move the file from to the name to: renamed on the same file system, else copied into to (created
 * or truncated) and from removed. Returns 0 or -1 with errno. */
int out_move(const char *from, const char *to);
/* Put the temporary tmp where it goes: rename over a regular file (target), write into a device
 * (target) or descriptor fd in place, hand it over (OUT_KIND_HAND: tmp "DIR/PID.SEQ.tmp" becomes
 * "DIR/PID.SEQ.out", with path in "DIR/PID.SEQ.path"); path names it in messages. The temporary is
 * gone afterwards.
 * Returns 0 or -1 with err ("PATH: cannot rename the temporary file: ...", "PATH: write failed: ..."). */
int out_place(const char *tmp, const char *target, const char *path, int kind, int fd, rs_err_t *err);

#endif /* RS_OUTPUT_TARGET_H */
