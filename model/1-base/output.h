/* output.h - every file a run writes, through one module:
 *
 *  1. Checked before any work (rs_io_*): the folder of each output exists and is writable, no output
 *     is an input of the same command (compared by device + inode and by canonical path, never by
 *     string) and no two outputs share a target. One message per refusal, naming the option and the
 *     whole path; the command exits 2.
 *  2. Written to a temporary and committed together at the end of the run (rs_out_finish): a regular
 *     file (or a new one) is written to "TARGET.tmp.PID.ringsim" beside it and renamed over it; a
 *     symbolic link is followed to its target (the link stays a link); anything that is not a
 *     regular file - a character device such as /dev/null, a FIFO, a descriptor of this process such
 *     as /dev/stdout - is written in place at the commit (from a temporary in $TMPDIR), never
 *     replaced. A run that fails or is interrupted leaves none of its outputs.
 *  3. Temporaries (files, folders) and child processes are registered: SIGINT, SIGTERM and SIGHUP
 *     end the children, remove the temporaries and then end the process as the signal would. Their
 *     names carry the PID ("out.csv.tmp.1234.ringsim", "$TMPDIR/ringsim-sim.1234.XXXXXX") so that a
 *     later run removes those a killed run (SIGKILL) left behind, once that PID is gone.
 *
 * rs_file_open / rs_file_commit / rs_file_abort (below) are this module's writers; rs_output_open is
 * the one "-"-or-file opening. Outside a run (rs_out_begin not called: library tests, forked
 * children) a commit renames at once. Every commit of a regular file is checked for a race: under
 * its folder's lock, the target must be missing or still the file the run saw first (output_run.h:
 * out_commit), else the other run's output is kept and this one discarded.
 *
 * The module's files: output_check.c (rule 1), output_run.c (the run: rules 2 and 3, its registry
 * output_run.h), output_file.c (the writers), output_target.c (where a path's bytes go,
 * output_target.h).
 */
#ifndef RS_OUTPUT_H
#define RS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "util.h"

/* ---------------------------------------------------------------------------------------------------
 * Output files (the rules: above): written to a temporary, committed
 * by rs_file_commit - at once outside a run, together at the end of a run (rs_out_finish) inside one.
 * A failed run calls rs_file_abort() (or fails) and leaves no half-written file under the final name.
 * ------------------------------------------------------------------------------------------------- */
/* What a target was at a moment (output_target.c: out_ident_*): missing, or which file (device,
 * inode and change time: a rename over it or a new file in its place changes one of them); a folder
 * also by its entries' names and inodes (a file renamed into it changes them even within one tick of
 * the file-time clock). A commit finding another file there than the one it saw lost a race. */
typedef struct {
    bool exists;
    dev_t dev;
    ino_t ino;
    struct timespec ctim;
    unsigned long long entries; /* a folder: a hash of its entries (names, inodes); else 0 */
} out_ident_t;

typedef struct {
    FILE *fp;        /* write here (NULL after rs_file_reserve: another program writes tmp_path) */
    char *path;      /* final name, as given */
    char *tmp_path;  /* temporary name */
    char *target;    /* where the bytes go: path with symbolic links followed */
    int kind;        /* 0: a regular file, renamed over; 1: a device or FIFO, 2: a descriptor: written in place;
                      * 3: a rank's output, handed over to the run that launched it (rs_out_adopt) */
    int fd;          /* kind 2: the descriptor */
    out_ident_t was, was_partial; /* kind 0: the target and its partial name (rs_out_partial_name) at the open */
} rs_file_t;

/* Open a temporary for path (a regular file beside its target, else in $TMPDIR). Returns 0 or -1
 * with err naming the path and the reason. */
int rs_file_open(rs_file_t *f, const char *path, rs_err_t *err);
/* As rs_file_open, but the temporary is left closed (f->fp NULL) for another program to write
 * (gnuplot); commit or abort it the same way. */
int rs_file_reserve(rs_file_t *f, const char *path, rs_err_t *err);
/* Close the temporary (checking every write) and commit it: at once outside a run, at the end of
 * the run inside one. Returns 0 or -1 with err (the temporary is removed). */
int rs_file_commit(rs_file_t *f, rs_err_t *err);
/* A partial result (an interrupted sweep's finished points), committed at once, even inside a run,
 * and never over the output itself: a regular file goes to rs_out_partial_name(path) beside it
 * ("out.csv" -> "out.partial.csv"), so that a previous complete output stays; a device or descriptor
 * is written in place (nothing there to lose). Returns 0 or -1 with err (the temporary removed). */
int rs_file_commit_partial(rs_file_t *f, rs_err_t *err);
/* The name rs_file_commit_partial(f) writes to, into buf (truncated to len): rs_out_partial_name(f->path)
 * for a regular file, f->path itself for a device or descriptor. Returns buf. */
const char *rs_file_partial_path(const rs_file_t *f, char *buf, size_t len);
/* The name a partial result of output path goes to: ".partial" before the extension of the file's
 * name ("d/out.csv" -> "d/out.partial.csv", "out" -> "out.partial"). Returns buf (truncated to len). */
const char *rs_out_partial_name(const char *path, char *buf, size_t len);
/* Close and remove the temporary file. Can't fail. */
void rs_file_abort(rs_file_t *f);

/* An output that is a file (rs_file_open: a temporary, committed by rs_output_close) or, for the
 * path "-", stdout (written at once). Every command's "-"-or-file output opens through this. */
typedef struct {
    FILE *fp;       /* write here: the temporary, or stdout */
    rs_file_t file; /* the temporary (unused for stdout) */
    bool to_stdout; /* path was "-" */
} rs_output_t;

/* Open path ("-" = stdout). Returns 0 or -1 with err as rs_file_open. */
int rs_output_open(rs_output_t *o, const char *path, rs_err_t *err);
/* Commit the file (rs_file_commit); stdout is left to the command's end, which checks it once (a
 * full disk: "stdout: write error: No space left on device"). Returns 0 or -1 with rs_file_commit's
 * err. */
int rs_output_close(rs_output_t *o, rs_err_t *err);
/* Remove the file's temporary (stdout: nothing to undo). Can't fail. */
void rs_output_abort(rs_output_t *o);

/* ---------------------------------------------------------------------------------------------------
 * The checks before any work
 * ------------------------------------------------------------------------------------------------- */
typedef struct {
    int n;                 /* entries used */
    int cap;               /* allocated */
    struct rs_io_entry *e; /* the files: inputs, outputs and output folders */
} rs_io_plan_t;

/* An empty plan. Can't fail. */
void rs_io_init(rs_io_plan_t *p);
/* An input of the command (what: "--profile", "REF"); path NULL, empty or not an existing file is
 * skipped (its reader reports it). A comma-separated list is split when list is true (sweep's -p).
 * Returns 0 or -1 (out of memory, reported by rs_io_check). */
int rs_io_input(rs_io_plan_t *p, const char *what, const char *path, bool list);
/* An output file ("-" = stdout; NULL skipped) and an output folder (it may be missing when its
 * parent folder is writable; create: rs_io_make_dirs creates it). Return 0 or -1 as rs_io_input. */
int rs_io_output(rs_io_plan_t *p, const char *what, const char *path);
int rs_io_output_dir(rs_io_plan_t *p, const char *what, const char *path, bool create);
/* Check the plan: every output writable where it is (folder exists, is a folder, is writable; a
 * device or descriptor is writable; not a directory), none is an input, no two share a target (two
 * writers of the same character device, e.g. /dev/null, are allowed). Returns 0 or -1 with err:
 * "--csv x.csv: is the input REF x.csv: an output never replaces an input", "--trace o.csv: also
 * the output of --csv o.csv: give each output its own file", "--csv d/x.csv: folder d does not
 * exist". */
int rs_io_check(const rs_io_plan_t *p, rs_err_t *err);
/* After rs_io_check: create the missing output folders marked create (rs_out_mkdir: removed again
 * when the run fails). Returns 0 or -1 with err. */
int rs_io_make_dirs(const rs_io_plan_t *p, rs_err_t *err);
/* Free the plan. Can't fail. */
void rs_io_free(rs_io_plan_t *p);

/* ---------------------------------------------------------------------------------------------------
 * The run: commit or remove everything together; temporaries and children; signals
 * ------------------------------------------------------------------------------------------------- */
/* Start the run of this process (main): outputs are committed by rs_out_finish from now on; SIGINT,
 * SIGTERM and SIGHUP clean up as above. Can't fail. */
void rs_out_begin(void);
/* End the run: ok - commit every pending output (rename; copy into a device or descriptor), in the
 * order they were committed by their writers; !ok - remove them. Staged folders (rs_out_stage_dir)
 * are merged into their targets or removed likewise, output folders this run created and left empty
 * are removed on failure. Returns 0, or -1 with err when a commit failed (the outputs not yet
 * committed are removed then). */
int rs_out_finish(bool ok, rs_err_t *err);
/* true inside a run of this process (rs_out_begin called, rs_out_finish not yet). */
bool rs_out_active(void);

/* The path to read an output of this run at: its temporary while the output is pending (written,
 * not yet committed: a figure drawn from the run's own CSV), else path itself. Returns buf or path. */
const char *rs_out_read_path(const char *path, char *buf, size_t len);

/* A temporary folder "$TMPDIR/ringsim-WHAT.PID.XXXXXX" into dir (len >= 64): registered, so that a
 * signal or rs_out_finish removes it with its files; the first call of a process also removes the
 * folders of dead PIDs left in $TMPDIR. Returns 0 or -1 with err. */
int rs_out_tmpdir(const char *what, char *dir, size_t len, rs_err_t *err);
/* Remove a temporary folder (and every file in it) and unregister it. Can't fail. */
void rs_out_tmpdir_remove(const char *dir);

/* A folder written as one output (a report): created as "DIR.tmp.PID.ringsim" (into stage, len >= 64
 * + strlen(dir)), its files committed at once inside it; rs_out_finish(true) moves it to dir (when dir
 * exists at this call: each file into it, replacing files of the same name; when dir is missing at
 * this call it is created at the end exclusively - renameat2 RENAME_NOREPLACE - and a run that finds
 * it made by another run meanwhile fails with "DIR: created by another run meanwhile"), rs_out_finish(false) or a signal
 * removes it. Returns 0 or -1 with err. */
int rs_out_stage_dir(const char *dir, char *stage, size_t len, rs_err_t *err);
/* Commit the staged folder stage (rs_out_stage_dir) now, before the run ends, so that its command
 * can say it was written only once it is (a report: "written to DIR/report.md"). Outside a run: 0.
 * Returns 0 or -1 with err as rs_out_finish ("DIR: created by another run meanwhile: ..."). */
int rs_out_stage_commit(const char *stage, rs_err_t *err);
/* mkdir for an output folder of this run (0777 & umask; an existing folder is fine): removed by
 * rs_out_finish(false) when it is empty then. Returns 0 or -1 with err "PATH: cannot create: ...". */
int rs_out_mkdir(const char *path, rs_err_t *err);

/* The outputs the ranks of a job this run launched handed over (a rank's run, started with
 * RINGSIM_RANK_OUT=dir in its environment, writes its regular-file outputs' temporaries into dir and,
 * when it succeeds, leaves each there as "PID.SEQ.out" with its path in "PID.SEQ.path"): each is
 * committed as an output of this run (rs_file_commit: pending until rs_out_finish), in each rank's
 * order. The ranks thus never replace a file themselves, and their temporaries lie in dir, a
 * registered temporary folder of this run (rs_out_tmpdir), removed on every end of the run. Returns 0
 * or -1 with err (the rest not committed). */
int rs_out_adopt(const char *dir, rs_err_t *err);

/* A child process a signal must end with this process (group: its whole process group). Can't fail;
 * rs_out_child_done forgets it once reaped. */
void rs_out_child(pid_t pid, bool group);
void rs_out_child_done(pid_t pid);

/* In a forked child: it no longer owns the run (its signals end it plainly; nothing of the parent's
 * is removed by it). Can't fail; async-signal-safe. */
void rs_out_forget(void);

#endif /* RS_OUTPUT_H */
