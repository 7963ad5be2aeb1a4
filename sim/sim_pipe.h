/* sim_pipe.h - internal to sim/: the records the SimGrid child sends its parent on a pipe (sim.c
 * reads them, sim_child.c writes them; sim_pipe.c).
 *
 * One record = one tag byte + a fixed struct, in the child's byte order (both ends are one build):
 *   'S' sim_text_rec_t      the child entered a stage (code SIM_STAGE_*; tells the parent what an
 *                           abort means)
 *   'E' rs_event_t          one trace event (only when the caller wants a trace)
 *   'X' sim_text_rec_t      the child's error, one line (code: its rs_errc_t - RS_ERR_BAD_INPUT for
 *                           a missing host or route, the child then exits 2; RS_ERR_RUNTIME)
 *   'R' sim_summary_rec_t   the results, followed by 2 x n_steps doubles (step ends, step maxima)
 *   'J' a job's per ring, hop and link results (job_child.h), before 'R'
 *   'P' sim_progress_rec_t  how far the simulation is (simulated time, rank-steps done), every
 *                           SIM_PROGRESS_S of wall time, only when the caller draws a meter (meter.h)
 */
#ifndef RS_SIM_PIPE_H
#define RS_SIM_PIPE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "meter.h"
#include "sim.h"
#include "trace.h"

enum { SIM_STAGE_INIT = 0, SIM_STAGE_LOAD, SIM_STAGE_CHECK, SIM_STAGE_RUN, SIM_STAGE_DONE };

typedef struct {
    int32_t code;    /* 'S': SIM_STAGE_*; 'X': the error's rs_errc_t */
    char text[1000]; /* 'S': what is being done, for messages; 'X': the error, one line */
} sim_text_rec_t;

typedef struct {
    double makespan_s, t_comp_max_s, t_comm_max_s; /* as rs_sim_result_t */
    double busy_max_s, busy_mean_s;                 /* as rs_sim_result_t */
    double sim_wall_s;                              /* wall time of simgrid_run() */
    uint64_t flops_useful, flops_exec;              /* totals */
    int64_t comm_bound_steps, rank_steps, n_steps;  /* counts; n_steps doubles x 2 follow */
    int64_t activities;                             /* SimGrid activities started (sim_run.h) */
    int32_t engine;                                 /* the engine that ran (rs_sim_engine_t) */
} sim_summary_rec_t;

typedef struct {
    double sim_time_s;                              /* simulated clock */
    int64_t rank_steps, total;                      /* done, to do */
} sim_progress_rec_t;

#define SIM_PROGRESS_S 0.2 /* wall seconds between 'P' records */

/* ---------------------------------------------------------------------------------------------------
 * Child: each writes its tag and record to out. Can't fail (a write error shows in ferror(out)).
 * ------------------------------------------------------------------------------------------------- */
void sim_put_rec(FILE *out, char tag, const void *rec, size_t size);
/* A text record, flushed (the parent must know the stage if SimGrid aborts next): 'S' entering
 * stage `code`, or 'X' the child's error of kind `code` (rs_errc_t). */
void sim_put_text(FILE *out, char tag, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void sim_put_textv(FILE *out, char tag, int code, const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));
/* 'E': one event. */
void sim_put_event(FILE *out, const rs_event_t *ev);
/* 'P', flushed. */
void sim_put_progress(FILE *out, const sim_progress_rec_t *r);
/* 'R': the summary, then its sum->n_steps step ends and step maxima. */
void sim_put_results(FILE *out, const sim_summary_rec_t *sum, const double *step_end, const double *step_max);

/* ---------------------------------------------------------------------------------------------------
 * Parent
 * ------------------------------------------------------------------------------------------------- */
/* Read exactly n bytes. Returns 1, 0 on EOF before the first byte, -1 on error or short read. */
int sim_read_full(int fd, void *buf, size_t n);

/* What the parent read from the pipe. */
typedef struct {
    sim_text_rec_t stage;     /* the last stage the child entered */
    sim_text_rec_t child_err; /* its 'X' record (when have_err) */
    sim_summary_rec_t sum;    /* its 'R' record (when have_sum) */
    bool have_err, have_sum;
    bool io_bad;              /* a read error, a short record, an unknown tag or an 'R' of other than steps */
    bool oom;                 /* out of memory keeping the events or the results */
} sim_collected_t;

/* Read the child's records until EOF or the first bad one: events into trace (when non-NULL), the
 * step figures and a job's results into out, progress into meter (when non-NULL), the rest into c
 * (whose stage the caller initialises). Can't fail (c says what went wrong). */
void sim_collect(int fd, int64_t steps, rs_trace_t *trace, rs_meter_t *meter, rs_sim_result_t *out, sim_collected_t *c);

#endif /* RS_SIM_PIPE_H */
