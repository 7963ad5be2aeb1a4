/* command_run.c - how a command reads its command line: its groups against its table entry, --help
 * or its hook, the usage line, the command line as text, the notes said before a table or
 * kept for the end (command_run.h). */
#include "command_run.h"

#include <stdarg.h>

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static rs_cli_help_hook_fn *help_hook;
static void *help_ctx;

void rs_cli_set_help_hook(rs_cli_help_hook_fn *hook, void *ctx) {
    help_hook = hook;
    help_ctx = ctx;
}

int rs_cli_command_parse(const rs_command_t *cmd, int argc, char **argv, rs_opt_group_t *groups, int n_groups,
                         rs_err_t *err) {
    int rc = rs_cli_parse(cmd->name, argc, argv, groups, n_groups, err);
    if (rc == 0 && cmd->max_args >= 0 && argc - optind > cmd->max_args)
        rc = rs_errf(err, "unexpected argument '%s' (see ringsim %s --help)", argv[optind + cmd->max_args], cmd->name);
    return rc;
}

int rs_cli_run_parse(const char *name, int argc, char **argv, rs_opt_group_t *groups, int n_groups, bool loud) {
    const rs_command_t *cmd = rs_cli_command(name);
    rs_err_t err = {0};
    int rc = rs_cli_command_parse(cmd, argc, argv, groups, n_groups, &err);
    if (rc == 1) {
        if (help_hook) {
            help_hook(help_ctx, cmd, groups, n_groups);
        } else if (loud) {
            fputs(cmd->usage, stdout);
            rs_cli_print_opts(stdout, groups, n_groups);
            if (cmd->notes) printf("\n%s", cmd->notes);
        }
        return RS_EXIT_OK;
    }
    if (rc < 0) {
        if (loud) fprintf(stderr, "ringsim %s: %s\n", cmd->name, err.msg);
        return RS_EXIT_USAGE;
    }
    return -1;
}

int rs_cli_usage(const char *name, bool loud, const rs_err_t *err) {
    if (loud) fprintf(stderr, "ringsim %s: %s\n", name, err->msg);
    return RS_EXIT_USAGE;
}

const char *rs_cli_command_line(char *buf, size_t len, int argc, char **argv) {
    snprintf(buf, len, "ringsim");
    char esc[4096]; /* control bytes (a newline in a file name) escaped: every header it goes into stays one line */
    for (int i = 0; i < argc && strlen(buf) + strlen(rs_escape(argv[i], esc, sizeof esc)) + 2 < len; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), " %s", esc);
    return buf;
}

static char kept_notes[sizeof(((rs_setup_t *)0)->kernel_notes)];

void rs_cli_kernel_notes(const rs_setup_t *s) { snprintf(kept_notes, sizeof kept_notes, "%s", s->kernel_notes); }

void rs_cli_setup_warning(const char *name, const rs_setup_t *s) {
    if (s->warning[0]) fprintf(stderr, "ringsim %s: warning: %s\n", name, s->warning);
}

static char closing[4600];

void rs_cli_closing_line(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(closing, sizeof closing, fmt, ap);
    va_end(ap);
}

/* The kernel curves' fallbacks as one line on stderr; nothing when there are none. */
static void say_kernel_notes(const char *notes) {
    if (notes[0]) fprintf(stderr, "ringsim: note: %s\n", notes);
}

void rs_cli_notes_now(const char *name, const rs_setup_t *s, const char *extra) {
    rs_cli_setup_warning(name, s);
    if (s->note[0]) fprintf(stderr, "ringsim %s: note: %s\n", name, s->note);
    if (extra && extra[0]) fprintf(stderr, "ringsim %s: note: %s\n", name, extra);
    say_kernel_notes(s->kernel_notes);
    fflush(stderr);
}

void rs_cli_notes_print(void) {
    say_kernel_notes(kept_notes); /* the curves' fallbacks, once */
    kept_notes[0] = '\0';
    fflush(stderr);
    if (closing[0]) printf("%s\n", closing); /* after the notes: the command's last line */
    closing[0] = '\0';
}
