/* estimate.h - what a run would cost, known before it starts: an estimate of its work (rank-steps),
 * time and memory, checked against caps derived from this machine. Each backend estimates
 * its own run (rs_walk_estimate, rs_sim_estimate, rs_exec_estimate, ...); a command sums the
 * estimates of everything it will run and refuses (exit 2) before running any of it when the sum is
 * above a cap, naming the estimate and the option that allows more.
 *
 * The caps: --max-time S (default 600 s of estimated run time) and --max-memory SIZE (default half of
 * this machine's physical memory, sysconf). The time constants are the per-rank-step costs of
 * docs/benchmarks.md: estimates are meant to within a small factor, not to the second.
 */
#ifndef RS_ESTIMATE_H
#define RS_ESTIMATE_H

#include <stdint.h>

#include "util.h"

typedef struct {
    double rank_steps;   /* (rank, step) pairs run */
    double time_s;       /* estimated run time, seconds */
    double mem_bytes;    /* estimated peak memory of this process and its children at once, bytes */
} rs_estimate_t;

typedef struct {
    double max_time_s;    /* --max-time; 0: RS_MAX_TIME_DEFAULT_S */
    double max_mem_bytes; /* --max-memory; 0: rs_mem_cap_default() */
} rs_limits_t;

#define RS_MAX_TIME_DEFAULT_S 600.0

/* The events of a run, as the estimates count them: none made, kept in memory (summarized), or
 * kept and written to a trace file. */
enum { RS_EST_NO_TRACE = 0, RS_EST_TRACE = 1, RS_EST_TRACE_FILE = 2 };

/* This machine's physical memory, bytes (sysconf; 16 GiB when it cannot tell). Can't fail. */
double rs_phys_mem_bytes(void);
/* The default memory cap: half the physical memory. Can't fail. */
double rs_mem_cap_default(void);
/* sum += e (the memory of runs that happen one after the other: the largest; work and time add up).
 * Can't fail. */
void rs_estimate_then(rs_estimate_t *sum, const rs_estimate_t *e);
/* Check e against the caps (l may be NULL: the defaults). Returns 0, or -1 with err: "WHAT: an
 * estimated 1.07e+09 rank-steps would take about 35 days (above --max-time 600 s: give --max-time
 * to allow more)" or "... would need about 7.5 GiB of memory (above --max-memory 62.8 GiB, half of
 * this machine's 126 GiB: give --max-memory to allow more)". */
int rs_limits_check(const char *what, const rs_estimate_t *e, const rs_limits_t *l, rs_err_t *err);
/* Bytes with a binary unit ("7.5 GiB") into buf. Returns buf. */
const char *rs_fmt_bytes(double bytes, char *buf, size_t len);
/* A duration in words ("35 days", "27 min", "4.2 s") into buf. Returns buf. */
const char *rs_fmt_duration(double t_s, char *buf, size_t len);

#endif /* RS_ESTIMATE_H */
