/* from_trace.h - calibrate / validate --from-trace FIRST [FILE...] (from_trace.c): the trace files and
 * the problem that fill what their headers lack, from the command line of a measuring study's
 * command (exec_opts.h); every other option given is refused, saying why it cannot apply. */
#ifndef RS_CLI_FROM_TRACE_H
#define RS_CLI_FROM_TRACE_H

#ifdef RINGSIM_HAVE_EXEC
#include "exec_opts.h"
#include "study_fromtrace.h"

/* The trace files (first, then the positional arguments after optind) into paths[] and o, the problem
 * of import's defaults (rs_setup_default) with the problem options given on the command line
 * (o->given says which), --dtype and --latency when given. Any other option given is refused,
 * except the command's own in applies (a comma list, "out,name"): "--blocks cannot be used with
 * --from-trace (the traces fix B: ...)". Returns 0 or -1 with err naming the option. */
int rs_cli_from_trace_opts(const rs_cli_exec_cmd_t *e, const char *first, const char *applies,
                           const char *paths[RS_TFIT_MAX_TRACES], rs_tfit_opts_t *o, rs_err_t *err);
/* rs_cli_check_files for --from-trace: the command's given file options and o's trace files as
 * inputs, checked before any work. Returns -1 to go on, or RS_EXIT_USAGE (printed). */
int rs_cli_check_trace_inputs(const char *name, const rs_cli_exec_cmd_t *e, const rs_tfit_opts_t *o);
#endif

#endif /* RS_CLI_FROM_TRACE_H */
