/* meter.h - progress on a terminal: one line on stderr that names what runs, how far it is and the
 * time left, redrawn at most every 0.1 s and erased when the work ends.
 *
 * Nothing is drawn when stderr is not a terminal or when quiet (-q: rs_meter_quiet), so files,
 * pipes and logs never see it. Meters nest: one started while another runs joins its line
 * ("report [2/6] sweeps | sweep 12/40 points (30%), 8 s left"); the innermost meter gives the
 * percentage and the time left (elapsed / done x remaining) when it has a total, else the time it
 * has run. While a meter runs, a thread redraws the line every 0.5 s, so a caller blocked in a long
 * step (a child process) still shows its time going. A meter is a plain struct on the caller's stack;
 * start and end must pair (end is a no-op for a meter that never started).
 */
#ifndef RS_METER_H
#define RS_METER_H

#include <stdbool.h>

typedef struct {
    char what[64];      /* what runs: "sim zigzag forward", "report" */
    const char *unit;   /* what is counted: "points", "rank-steps", NULL = nothing */
    double total;       /* units to do; 0 = unknown (no percentage, no time left) */
    double done;        /* units done */
    double t0_s;        /* rs_now_s() at the start */
    char detail[96];    /* the current phase or a figure: "sweeps", "1.2 ms simulated" */
    bool active;        /* started and not ended */
} rs_meter_t;

/* Quiet (-q): no meter draws in this process. Can't fail. */
void rs_meter_quiet(bool quiet);
/* true when a meter would draw: not quiet, and stderr is a terminal - or RINGSIM_METER is 1 (0: never),
 * as a process re-launched under mpirun tells its ranks (exec/exec_launch.c). Can't fail. */
bool rs_meter_on(void);

/* Start m (what: at most 63 characters; unit may be NULL; total 0 = unknown) and draw it. Can't fail. */
void rs_meter_start(rs_meter_t *m, const char *what, double total, const char *unit);
/* done units so far, and the detail (printf format; NULL keeps the previous). Redrawn when the
 * detail changes or 0.1 s have passed since the last drawing. Can't fail. */
void rs_meter_update(rs_meter_t *m, double done, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* m ends: erased when it was the outermost meter, else the line goes back to the enclosing ones.
 * Can't fail. */
void rs_meter_end(rs_meter_t *m);
/* Erase the line before writing other text to the terminal; it stays away until the next update.
 * Can't fail. */
void rs_meter_hide(void);

/* "12 s", "3 min 20 s", "2 h 05 min": a duration for people (seconds >= 0). Returns buf. */
const char *rs_meter_duration(double seconds, char *buf, int len);

#endif /* RS_METER_H */
