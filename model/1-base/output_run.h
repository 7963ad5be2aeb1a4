/* output_run.h - the registry of a run (output.h's rules 2 and 3): the temporaries, staged and
 * created folders, pending commits and child processes of this process's run, which rs_out_finish
 * commits or removes and a signal removes. The writers (output_file.c) register their temporaries
 * here. Internal to model/1-base (not exported: out_*). */
#ifndef RS_OUTPUT_RUN_H
#define RS_OUTPUT_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "output_target.h"

/* What a registered entry is (OUT_DONE: nothing left to do). */
enum { OUT_OPEN = 1, OUT_PENDING, OUT_DONE, OUT_TMPDIR, OUT_STAGE, OUT_MKDIR, OUT_CHILD, OUT_SEEN };

typedef struct out_node {
    struct out_node *volatile next;
    volatile sig_atomic_t state;   /* OUT_* */
    char *tmp;                     /* the temporary file or folder */
    char *target;                  /* the final path (canonical) */
    char *path;                    /* as given, for messages */
    int kind, fd;                  /* OUT_KIND_* (output_target.h; OUT_STAGE: 1 when the folder was missing at the start), the descriptor */
    pid_t pid;                     /* OUT_CHILD */
    bool group;                    /* OUT_CHILD: its process group */
    out_ident_t id;                /* OUT_OPEN/OUT_PENDING (at the open), OUT_STAGE, OUT_SEEN (at the run's checks): what
                                    * target was then; a commit finding another file there lost a race (output.h) */
} out_node_t;

/* A node, appended (fully built before it is linked: the signal handler may walk the list at any
 * time); tmp, target and path are copied (each may be NULL). NULL when out of memory. */
out_node_t *out_node_add(int state, const char *tmp, const char *target, const char *path);
/* The node in state whose temporary is tmp, or NULL. */
out_node_t *out_node_find(int state, const char *tmp);
/* Make n a pending commit of a file of that kind and descriptor into target; an earlier pending
 * commit of the same target (not a descriptor) is dropped: the later one wins. */
void out_node_pend(out_node_t *n, int kind, int fd, const char *target);
/* The temporary of the last pending commit into target (canonical), or NULL. */
const char *out_pending_tmp(const char *target);
/* true when target lies inside a staged or temporary folder of the run (its files are committed at
 * once, the folder at the end). */
bool out_in_stage(const char *target);

/* Record what target (canonical) is at the run's checks (rs_io_check), once per target: its
 * commit compares against this rather than the later open. Can't fail (out of memory: not kept). */
void out_seen(const char *target, const out_ident_t *id);
/* The one commit of a finished temporary (out_place's arguments; every writer's, inside a run or
 * not, pending or at once): a regular file under the lock of its folder (flock: every ringsim commit
 * there takes it), renamed over target only when target is missing or still the file this run saw
 * first (at the run's checks, out_seen, else was: at the open); otherwise another run committed there
 * meanwhile and this output is discarded. Other kinds are placed as out_place does. The temporary is
 * gone afterwards. Returns 0 or -1 with err ("PATH: replaced by another run meanwhile: that run's
 * output is kept, this run's is discarded", "PATH: created by ...", out_place's). */
int out_commit(const char *tmp, const char *target, const char *path, int kind, int fd, const out_ident_t *was, rs_err_t *err);
/* The folder this rank hands its outputs over to (RINGSIM_RANK_OUT at rs_out_begin, an existing
 * folder), or NULL: not a rank of a ringsim-launched job, or outside a run. */
const char *out_handover_dir(void);

/* The next sequence number of a temporary's name ("NAME.tmp.PID.SEQ.ringsim"). Thread-safe. */
unsigned long out_next_seq(void);
/* $TMPDIR or /tmp. */
const char *out_tmp_base(void);
/* Remove "NAME.tmp.PID.SEQ.ringsim" of dead PIDs in folder dir (a killed run's temporaries). */
void out_sweep_beside(const char *dir, const char *name);
/* Remove "$TMPDIR/ringsim-WHAT.PID.XXXXXX" of dead PIDs that this user owns (once per process). */
void out_sweep_tmp(void);
/* Remove a folder and everything in it, with system calls only (async-signal-safe). */
void out_remove_tree(const char *path);

#endif /* RS_OUTPUT_RUN_H */
