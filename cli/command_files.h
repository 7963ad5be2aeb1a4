/* command_files.h - a command's files (command_files.c): every input and output checked before any
 * work (through the output module, model/1-base/output.h), the output path of one (layout, pass)
 * entry, and a JSON document written atomically. */
#ifndef RS_CLI_COMMAND_FILES_H
#define RS_CLI_COMMAND_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"
#include "output.h"
#include "schedule.h"
#include "setup.h"
#include "util.h"

/* The command's files checked before any work (output.h): every given IN, IN_BUF, OUT and OUTDIR
 * option of the groups but those named in skip, and what plan holds already (positional inputs,
 * output paths the command derives); the missing output folders are made. Frees plan. Returns -1 to
 * go on, or RS_EXIT_USAGE after "ringsim NAME: --csv x.csv: the same file as the input ..." (printed
 * when loud). */
int rs_cli_check_files(const char *name, const rs_opt_group_t *groups, int n_groups, rs_io_plan_t *plan, const char *skip,
                       bool loud);

/* rs_cli_check_files for a command that writes its --trace and --chrome options per (layout, pass)
 * entry of the setup (rs_cli_entry_path): those paths instead of the options' values. Returns as
 * rs_cli_check_files. */
int rs_cli_check_entry_files(const char *name, const rs_setup_t *c, const rs_opt_group_t *groups, int n_groups, bool loud);

/* The output path of one (layout, pass) entry: path itself when only one entry is written, else
 * "out.csv" -> "out-zigzag-forward.csv" (the suffix goes before the extension). Can't fail
 * (truncates to len). */
void rs_cli_entry_path(char *dst, size_t len, const char *path, const rs_problem_t *p, bool several);

/* Write a jansson tree (a json_t *, taken: it is released) as indented JSON with exact reals to
 * path, atomically ("-" = stdout). Returns 0 or -1 with err. */
int rs_cli_write_json(const char *path, void *root, rs_err_t *err);

/* The sources of m's rates as a jansson object (a json_t *, new reference): {"attention": {"kind":
 * "published", "source": "..."}, "merge_bw": ..., "intra_bw", "inter_bw", "latency", "launch"}
 * (rate_source.h). Can't fail (NULL only when out of memory). */
void *rs_cli_rates_json(const rs_machine_t *m);

#endif /* RS_CLI_COMMAND_FILES_H */
