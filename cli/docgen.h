/* docgen.h - the command and option tables as the man pages (man_pages.c) and the shell completion
 * (completion.c) read them (docgen.c): every command is run with --help while a help hook
 * (rs_cli_set_help_hook) takes its option groups instead of printing them, so the pages and the
 * completion read the very rows --help prints - no second copy of any text. The values an option's
 * argument completes to come from the table too: a CHOICE row's choices; for a CUSTOM row, the words
 * of its argument and help text that its own parser accepts ("fp32|tf32|bf16|fp16|fp8" -> the five
 * dtypes); a NAME|FILE argument of --profile, --inter or --model completes the presets of that kind
 * and files. Both run at build time (cli/CMakeLists.txt).
 */
#ifndef RS_CLI_DOCGEN_H
#define RS_CLI_DOCGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "commands.h"
#include "options.h"
#include "util.h"

#define RS_DOC_MAX_ROWS 160

/* How an option's argument (or a command's positional arguments) completes. */
typedef enum { RS_DOC_NONE = 0, RS_DOC_FREE, RS_DOC_WORDS, RS_DOC_FILES, RS_DOC_DIRS, RS_DOC_PRESETS } rs_doc_values_t;

/* One option row as documented. */
typedef struct {
    const rs_opt_t *o;        /* the row */
    const char *section;      /* heading printed before it, or NULL */
    rs_doc_values_t vk;       /* what its argument completes to */
    char words[512];          /* RS_DOC_WORDS / RS_DOC_PRESETS: space-separated words */
} rs_doc_row_t;

/* One command as documented: its rows in --help order (sections and built-in rows included). */
typedef struct {
    const rs_command_t *cmd;
    bool built;               /* the command is in this build (its tables were read) */
    int n;                    /* rows */
    rs_doc_row_t rows[RS_DOC_MAX_ROWS];
} rs_doc_cmd_t;

/* The help hook (command_run.h) that reads a command's groups into ctx, an rs_doc_cmd_t: its rows in
 * --help order, with the section headings and the built-in rows. Can't fail (rows past
 * RS_DOC_MAX_ROWS are dropped). */
void rs_doc_take_groups(void *ctx, const rs_command_t *cmd, rs_opt_group_t *groups, int n_groups);
/* Every command of rs_commands, its tables read (run with --help under the hook), into a malloc'd
 * array (free it) of *n_out entries. NULL on OOM. */
rs_doc_cmd_t *rs_doc_read_commands(int *n_out);
/* The n characters of w appended to the space-separated words of buf (len bytes) unless there
 * already. Can't fail (truncates). */
void rs_doc_append_word(char *buf, size_t len, const char *w, size_t n);
/* The names of a NULL-terminated list (NULL: none) appended to buf as rs_doc_append_word. */
void rs_doc_append_names(char *buf, size_t len, const char *const *names);
/* The presets a NAME argument of option o names (by its name: profile, inter, model), or NULL. */
const char *const *rs_doc_preset_names(const rs_opt_t *o);

/* The man page of one command, ringsim-NAME.1, on f (man_pages.c). Can't fail (f's errors are its
 * writer's). */
void rs_doc_man_page(FILE *f, const rs_doc_cmd_t *d);
/* One command's case of the bash and of the zsh completion function (completion.c). Can't fail. */
void rs_doc_bash_command(FILE *f, const rs_doc_cmd_t *d);
void rs_doc_zsh_command(FILE *f, const rs_doc_cmd_t *d);

/* The man pages (ringsim.1 and ringsim-NAME.1 per command) into dir (man_pages.c), and the completion
 * script of shell ("bash" or "zsh") on out (completion.c). Return 0 or -1 with err. */
int rs_cli_write_man(const char *dir, rs_err_t *err);
int rs_cli_write_completion(FILE *out, const char *shell, rs_err_t *err);

#endif /* RS_CLI_DOCGEN_H */
