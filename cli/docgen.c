/* docgen.c - man pages and shell completion from the command table (commands.c) and the option
 * tables: `ringsim --man-dir DIR` writes ringsim.1 and ringsim-NAME.1, `ringsim --completion bash|zsh`
 * prints the completion script (cli.h). Both run at build time (cli/CMakeLists.txt).
 *
 * Every command is run with --help while a help hook (rs_cli_set_help_hook) takes its option groups
 * instead of printing them, so the pages and the completion read the very rows --help prints: no
 * second copy of any text. The values an option's argument completes to come from the table too:
 * a CHOICE row's choices; for a CUSTOM row, the words of its argument and help text that its own
 * parser accepts ("fp32|tf32|bf16|fp16|fp8" -> the five dtypes); a NAME|FILE argument of --profile,
 * --inter or --model completes the presets of that kind and files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "memory.h"
#include "profile.h"
#ifdef RINGSIM_HAVE_PLOTS
#include "plot.h"
#include "output.h"
#endif

#define MAX_ROWS 160

/* How an option's argument completes. */
typedef enum { V_NONE = 0, V_FREE, V_WORDS, V_FILES, V_DIRS, V_PRESETS } vkind_t;

typedef struct {
    const rs_opt_t *o;        /* the row */
    const char *section;      /* heading printed before it, or NULL */
    vkind_t vk;               /* its argument */
    char words[512];          /* V_WORDS / V_PRESETS: space-separated words */
} row_t;

typedef struct {
    const rs_command_t *cmd;
    bool built;               /* the command is in this build (its tables were read) */
    int n;                    /* rows */
    row_t rows[MAX_ROWS];
} cmd_doc_t;

/* ---------------------------------------------------------------------------------------------------
 * Reading the tables
 * ------------------------------------------------------------------------------------------------- */
static void append_word(char *buf, size_t len, const char *w, size_t n) {
    const size_t have = strlen(buf);
    for (const char *p = buf; *p;) { /* no duplicates */
        const size_t m = strcspn(p, " ");
        if (m == n && !strncmp(p, w, n)) return;
        p += m + (p[m] == ' ');
    }
    snprintf(buf + have, len - have, "%s%.*s", have ? " " : "", (int)n, w);
}

static void append_names(char *buf, size_t len, const char *const *names) {
    for (; names && *names; names++) append_word(buf, len, *names, strlen(*names));
}

/* The presets a NAME argument of this option names (by option name), or NULL. */
static const char *const *preset_names(const rs_opt_t *o) {
    if (!strcmp(o->name, "profile")) return rs_hw_preset_names();
    if (!strcmp(o->name, "inter")) return rs_tier_preset_names();
    if (!strcmp(o->name, "model")) return rs_transformer_preset_names();
    return NULL;
}

/* The words of text (lowercase, digits, '-') that the row's own parser accepts, into row->words
 * (none when it accepts anything: a free-form argument). */
static void probe_words(row_t *r, void *dst, const char *text) {
    rs_err_t err;
    char nonsense[] = "zq-no-such-value-zq";
    if (r->o->parse(dst, nonsense, &err) == 0) return;
    for (const char *p = text; p && *p;) {
        const size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
        if (n > 0 && n < 40 && p[0] != '-' && strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-") == n) {
            char w[48];
            snprintf(w, sizeof w, "%.*s", (int)n, p);
            rs_err_t err;
            if (r->o->parse(dst, w, &err) == 0) append_word(r->words, sizeof r->words, w, n);
        }
        p += n ? n : 1;
    }
}

/* What the argument of row r (of a group filling dst) completes to. */
static void classify(row_t *r, void *dst) {
    const rs_opt_t *o = r->o;
    const char *arg = o->arg ? o->arg : "";
    if (o->kind == RS_ARG_TRUE || o->kind == RS_ARG_FALSE) {
        r->vk = V_NONE;
    } else if (o->kind == RS_ARG_CHOICE) {
        r->vk = V_WORDS;
        for (const char *c = o->choices; *c;) {
            const size_t m = strcspn(c, "|");
            append_word(r->words, sizeof r->words, c, m);
            c += m + (c[m] == '|');
        }
    } else if (preset_names(o) && (strstr(arg, "NAME") || strchr(arg, ','))) {
        r->vk = V_PRESETS;
        append_names(r->words, sizeof r->words, preset_names(o));
    } else if (strstr(arg, "DIR")) {
        r->vk = V_DIRS;
    } else if (strstr(arg, "FILE")) {
        r->vk = V_FILES;
    } else if (o->kind == RS_ARG_CUSTOM) {
        probe_words(r, dst, arg);
        probe_words(r, dst, o->help);
        r->vk = r->words[0] ? V_WORDS : V_FREE;
    } else if (o->kind == RS_ARG_STRING && strchr(arg, '|')) { /* "cpu|gpu": lowercase alternatives */
        for (const char *c = arg; *c;) {
            const size_t m = strcspn(c, "|");
            if (strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789-") >= m) append_word(r->words, sizeof r->words, c, m);
            c += m + (c[m] == '|');
        }
        r->vk = r->words[0] ? V_WORDS : V_FREE;
    } else {
        r->vk = V_FREE;
    }
}

static void add_row(cmd_doc_t *d, const rs_opt_t *o, const char *section, void *dst) {
    if (d->n >= MAX_ROWS) return;
    row_t *r = &d->rows[d->n++];
    memset(r, 0, sizeof *r);
    r->o = o;
    r->section = section;
    classify(r, dst);
}

/* The help hook: the rows in --help order, with the section headings and the built-in rows. */
static void take_groups(void *ctx, const rs_command_t *cmd, rs_opt_group_t *groups, int n_groups) {
    cmd_doc_t *d = ctx;
    d->cmd = cmd;
    d->built = true;
    const rs_opt_t *builtin[2];
    const int n_builtin = rs_cli_builtins(groups, n_groups, builtin), own = rs_cli_own_groups(groups, n_groups);
    for (int g = 0; g < n_groups; g++) {
        const char *section = NULL;
        for (int i = 0; i < groups[g].n; i++) {
            const rs_opt_t *o = &groups[g].opts[i];
            if (o->section) section = o->section;
            if (!rs_cli_offered(&groups[g], o)) continue;
            add_row(d, o, section, groups[g].dst);
            section = NULL;
        }
        for (int i = 0; g == own - 1 && i < n_builtin; i++) add_row(d, builtin[i], NULL, NULL);
    }
}

/* Read every command's tables (run with --help under the hook). NULL on OOM. */
static cmd_doc_t *read_commands(int *n_out) {
    int n = 0;
    while (rs_commands[n].name) n++;
    cmd_doc_t *docs = calloc((size_t)n, sizeof *docs);
    if (!docs) return NULL;
    for (int i = 0; i < n; i++) {
        docs[i].cmd = &rs_commands[i];
        if (!rs_commands[i].run) continue;
        char name[64], help[] = "--help";
        snprintf(name, sizeof name, "%s", rs_commands[i].name);
        char *argv[] = {name, help, NULL};
        rs_cli_set_help_hook(take_groups, &docs[i]);
        rs_commands[i].run(2, argv);
        rs_cli_set_help_hook(NULL, NULL);
    }
    *n_out = n;
    return docs;
}

/* ---------------------------------------------------------------------------------------------------
 * Man pages (roff, man macros)
 * ------------------------------------------------------------------------------------------------- */
/* n characters of s as roff text: '\' and '-' escaped, a '.' or '\'' opening a line made literal. */
static void roff(FILE *f, const char *s, size_t n, bool line_start) {
    for (size_t i = 0; i < n && s[i]; i++) {
        const char c = s[i];
        if (line_start && (c == '.' || c == '\'')) fputs("\\&", f);
        if (c == '\\') fputs("\\e", f);
        else if (c == '-') fputs("\\-", f);
        else fputc(c, f);
        line_start = c == '\n';
    }
}

static void roff_str(FILE *f, const char *s) { roff(f, s, strlen(s), false); }

/* A block of --help text: lines flush left are filled into paragraphs (a blank line separates
 * them); indented lines keep their layout (.nf). */
static void roff_block(FILE *f, const char *text) {
    bool nf = false, in_par = false;
    for (const char *p = text; p && *p;) {
        const size_t n = strcspn(p, "\n");
        const bool blank = strspn(p, " ") >= n, indented = !blank && p[0] == ' ';
        if (blank) {
            if (nf) fputs(".fi\n", f);
            nf = false;
            if (in_par) fputs(".PP\n", f);
            in_par = false;
        } else {
            if (indented && !nf) fputs(".nf\n", f);
            if (!indented && nf) fputs(".fi\n", f);
            nf = indented;
            roff(f, p, n, true);
            fputc('\n', f);
            in_par = true;
        }
        p += n + (p[n] == '\n');
    }
    if (nf) fputs(".fi\n", f);
}

static void man_header(FILE *f, const char *title, const char *name, const char *summary) {
    fprintf(f, ".\\\" generated by `ringsim --man-dir` from cli/commands.c and the option tables: do not edit\n");
    fputs(".TH ", f);
    roff_str(f, title);
    fprintf(f, " 1 \"\" \"ringsim %s\" \"ringsim manual\"\n.SH NAME\n", RINGSIM_VERSION);
    roff_str(f, name);
    fputs(" \\- ", f);
    roff_str(f, summary);
    fputc('\n', f);
}

/* One option: .TP, "-S, --seq TOKENS", its help (filled) and its default. */
static void man_option(FILE *f, const rs_opt_t *o) {
    fputs(".TP\n", f);
    if (o->short_name) fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
    fputs("\\fB\\-\\-", f);
    roff_str(f, o->name);
    fputs("\\fR", f);
    if (o->arg) {
        fputs(" \\fI", f);
        roff_str(f, o->arg);
        fputs("\\fR", f);
    }
    fputc('\n', f);
    char help[1024];
    snprintf(help, sizeof help, "%s", o->help);
    for (char *c = help; *c; c++)
        if (*c == '\n') *c = ' ';
    roff(f, help, strlen(help), true);
    if (o->def) {
        fputs(" (default: ", f);
        roff_str(f, o->def);
        fputc(')', f);
    }
    fputc('\n', f);
}

/* ringsim-NAME.1 */
static int man_command(const char *dir, const cmd_doc_t *d, rs_err_t *err) {
    const rs_command_t *c = d->cmd;
    char path[4096], title[96], name[96];
    snprintf(path, sizeof path, "%s/ringsim-%s.1", dir, c->name);
    snprintf(name, sizeof name, "ringsim-%s", c->name);
    snprintf(title, sizeof title, "RINGSIM-%s", c->name);
    for (char *t = title; *t; t++)
        if (*t >= 'a' && *t <= 'z') *t = (char)(*t - 'a' + 'A');
    rs_file_t out;
    if (rs_file_open(&out, path, err)) return -1;
    FILE *f = out.fp;
    man_header(f, title, name, c->summary);
    /* usage: "usage: LINE" and lines indented under it up to the first blank line, then the text */
    const char *u = c->usage, *body = strstr(u, "\n\n");
    body = body ? body + 2 : u + strlen(u);
    fputs(".SH SYNOPSIS\n.nf\n", f);
    for (const char *p = u; p < body && *p;) {
        size_t n = strcspn(p, "\n");
        const char *line = p;
        if (!strncmp(line, "usage: ", 7)) line += 7;
        line += strspn(line, " ");
        if (line < p + n) {
            roff(f, line, (size_t)(p + n - line), true);
            fputc('\n', f);
        }
        p += n + (p[n] == '\n');
    }
    fputs(".fi\n.SH DESCRIPTION\n", f);
    roff_block(f, body);
    if (!d->built) {
        fputs(".PP\nNot available in this build: ", f);
        roff_str(f, c->missing ? c->missing : "");
        fputs(".\n", f);
    }
    if (d->n > 0) fputs(".SH OPTIONS\n", f);
    for (int i = 0; i < d->n; i++) {
        if (d->rows[i].section) { /* "Output:" -> .SS "Output" */
            const char *h = d->rows[i].section;
            size_t n = strlen(h);
            while (n > 0 && (h[n - 1] == ':' || h[n - 1] == ' ')) n--;
            fputs(".SS \"", f);
            roff(f, h, n, false);
            fputs("\"\n", f);
        }
        man_option(f, d->rows[i].o);
    }
    if (c->notes) {
        fputs(".SH NOTES\n", f);
        roff_block(f, c->notes);
    }
    fputs(".SH SEE ALSO\n.BR ringsim (1)\n", f);
    return rs_file_commit(&out, err);
}

/* ringsim.1: the program, its commands, environment and files. */
static int man_main(const char *dir, const cmd_doc_t *docs, int n, rs_err_t *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/ringsim.1", dir);
    rs_file_t out;
    if (rs_file_open(&out, path, err)) return -1;
    FILE *f = out.fp;
    man_header(f, "RINGSIM", "ringsim", rs_cli_about);
    fputs(".SH SYNOPSIS\n.nf\n\\fBringsim\\fR \\fICOMMAND\\fR [\\fIoptions\\fR]\n\\fBringsim\\fR \\fICOMMAND\\fR "
          "\\fB\\-\\-help\\fR\n\\fBringsim\\fR \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n.fi\n.SH DESCRIPTION\n", f);
    roff_block(f, rs_cli_description);
    fputs(".SH COMMANDS\n", f);
    for (int i = 0; i < n; i++) {
        fputs(".TP\n.B ", f);
        roff_str(f, docs[i].cmd->name);
        fputc('\n', f);
        roff_str(f, docs[i].cmd->summary);
        fputs(" (\\%\\fBringsim\\-", f);
        roff_str(f, docs[i].cmd->name);
        fputs("\\fR(1))\n", f);
    }
    fputs(".SH ENVIRONMENT\n", f);
    for (const rs_cli_env_t *e = rs_cli_environment; e->name; e++) {
        fputs(".TP\n.B ", f);
        roff_str(f, e->name);
        fputc('\n', f);
        roff_str(f, e->text);
        fputc('\n', f);
    }
    fputs(".SH FILES\n", f);
    roff_block(f, rs_cli_files);
    fputs(".SH SEE ALSO\n", f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n.BR ringsim\\-" : ".BR ringsim\\-", f);
        roff_str(f, docs[i].cmd->name);
        fputs(" (1)", f);
    }
    fputc('\n', f);
    return rs_file_commit(&out, err);
}

int rs_cli_write_man(const char *dir, rs_err_t *err) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return rs_errf(err, "%s: cannot create: %s", dir, strerror(errno));
    int n = 0, rc = 0;
    cmd_doc_t *docs = read_commands(&n);
    if (!docs) return rs_errf(err, "out of memory");
    for (int i = 0; i < n && rc == 0; i++) rc = man_command(dir, &docs[i], err);
    if (rc == 0) rc = man_main(dir, docs, n, err);
    free(docs);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------
 * Shell completion
 * ------------------------------------------------------------------------------------------------- */
/* Positional arguments: what a command's words complete to (words: plot kinds, presets). */
static vkind_t positional(const rs_command_t *c, char *words, size_t len) {
    words[0] = 0;
    if (c->max_args == 0) return V_NONE;
#ifdef RINGSIM_HAVE_PLOTS
    if (!strcmp(c->name, "plot")) {
        for (int k = 0; k < RS_PLOT_KIND_COUNT; k++) {
            const char *name = rs_plot_kind_name((rs_plot_kind_t)k);
            append_word(words, len, name, strlen(name));
        }
        return V_WORDS; /* the kind first, then files (the completion scripts handle the order) */
    }
#endif
    if (!strcmp(c->name, "profiles")) {
        append_names(words, len, rs_hw_preset_names());
        append_names(words, len, rs_tier_preset_names());
        return V_PRESETS;
    }
    return V_FILES;
}

/* bash: one function; per command its options, the ones taking an argument and their values. */
static void bash_values(FILE *f, const row_t *r) {
    switch (r->vk) {
    case V_WORDS: fprintf(f, "COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return;;\n", r->words); break;
    case V_PRESETS: fprintf(f, "COMPREPLY=($(compgen -W '%s' -- \"$cur\") $(compgen -f -- \"$cur\")); return;;\n", r->words); break;
    case V_FILES: fputs("COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n", f); break;
    case V_DIRS: fputs("COMPREPLY=($(compgen -d -- \"$cur\")); return;;\n", f); break;
    default: fputs("return;;\n", f); break; /* a number or free text: nothing to offer */
    }
}

static void bash_command(FILE *f, const cmd_doc_t *d) {
    fprintf(f, "    %s)\n        opts='", d->cmd->name);
    for (int i = 0; i < d->n; i++) {
        const rs_opt_t *o = d->rows[i].o;
        fprintf(f, "%s--%s", i ? " " : "", o->name);
        if (o->short_name) fprintf(f, " -%c", o->short_name);
    }
    fputs("'\n        case \"$prev\" in\n", f);
    for (int i = 0; i < d->n; i++) {
        const row_t *r = &d->rows[i];
        if (r->vk == V_NONE) continue;
        fprintf(f, "        --%s", r->o->name);
        if (r->o->short_name) fprintf(f, "|-%c", r->o->short_name);
        fputs(") ", f);
        bash_values(f, r);
    }
    fputs("        esac\n"
          "        if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); return; fi\n", f);
    char words[2048];
    const vkind_t vk = positional(d->cmd, words, sizeof words);
    if (vk == V_WORDS) /* plot: the kind, then the data file */
        fprintf(f, "        if (( npos == 0 )); then COMPREPLY=($(compgen -W '%s' -- \"$cur\")); "
                   "else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n", words);
    else if (vk == V_PRESETS)
        fprintf(f, "        COMPREPLY=($(compgen -W '%s' -- \"$cur\") $(compgen -f -- \"$cur\"))\n", words);
    else if (vk == V_FILES)
        fputs("        COMPREPLY=($(compgen -f -- \"$cur\"))\n", f);
    fputs("        ;;\n", f);
}

static void bash_script(FILE *f, const cmd_doc_t *docs, int n) {
    fputs("# bash completion for ringsim: generated by `ringsim --completion bash` from its option tables (do not edit)\n"
          "_ringsim() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts i npos=0\n"
          "    COMPREPLY=()\n"
          "    if (( COMP_CWORD == 1 )); then\n"
          "        COMPREPLY=($(compgen -W '", f);
    for (int i = 0; i < n; i++) fprintf(f, "%s ", docs[i].cmd->name);
    fputs("--help --version' -- \"$cur\"))\n        return\n    fi\n"
          "    if [[ $cur == --*=* ]]; then prev=${cur%%=*}; cur=${cur#*=}; fi\n"
          "    for (( i = 2; i < COMP_CWORD; i++ )); do  # positional words before this one\n"
          "        [[ ${COMP_WORDS[i]} == -* ]] || [[ ${COMP_WORDS[i-1]} == -* ]] || (( npos++ ))\n"
          "    done\n"
          "    case ${COMP_WORDS[1]} in\n", f);
    for (int i = 0; i < n; i++)
        if (docs[i].built) bash_command(f, &docs[i]);
    fputs("    esac\n}\ncomplete -o filenames -F _ringsim ringsim\n", f);
}

/* zsh: text inside a single-quoted _arguments spec's [description]. */
static void zsh_desc(FILE *f, const char *s) {
    for (; *s && *s != '\n'; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else if (*s == '[' || *s == ']' || *s == ':' || *s == '\\') fprintf(f, "\\%c", *s);
        else fputc(*s, f);
    }
}

static void zsh_action(FILE *f, const row_t *r) {
    switch (r->vk) {
    case V_WORDS: fprintf(f, ":(%s)", r->words); break;
    case V_PRESETS: fprintf(f, ":_ringsim_presets %s", r->o->name); break;
    case V_FILES: fputs(":_files", f); break;
    case V_DIRS: fputs(":_files -/", f); break;
    default: fputs(":", f); break;
    }
}

static void zsh_command(FILE *f, const cmd_doc_t *d) {
    fprintf(f, "    (%s)\n      _arguments -s -S \\\n", d->cmd->name);
    for (int i = 0; i < d->n; i++) {
        const row_t *r = &d->rows[i];
        const rs_opt_t *o = r->o;
        const bool arg = r->vk != V_NONE, many = strstr(o->help, "repeatable") != NULL;
        fputs("        ", f);
        if (o->short_name)
            fprintf(f, "'%s(-%c --%s)'{-%c%s,--%s%s}'", many ? "*" : "", o->short_name, o->name, o->short_name,
                    arg ? "+" : "", o->name, arg ? "=" : "");
        else
            fprintf(f, "'%s--%s%s", many ? "*" : "", o->name, arg ? "=" : "");
        fputc('[', f);
        zsh_desc(f, o->help);
        fputc(']', f);
        if (arg) {
            fputc(':', f);
            zsh_desc(f, o->arg ? o->arg : "VALUE");
            zsh_action(f, r);
        }
        fputs("' \\\n", f);
    }
    char words[2048];
    const vkind_t vk = positional(d->cmd, words, sizeof words);
    if (vk == V_WORDS) fprintf(f, "        '1:kind:(%s)' '*:file:_files'\n", words);
    else if (vk == V_PRESETS) fputs("        '*:profile:_ringsim_presets profiles'\n", f);
    else if (vk == V_FILES) fputs("        '*:file:_files'\n", f);
    else fputs("        && return\n", f);
    fputs("      ;;\n", f);
}

static void zsh_script(FILE *f, const cmd_doc_t *docs, int n) {
    fputs("#compdef ringsim\n"
          "# zsh completion for ringsim: generated by `ringsim --completion zsh` from its option tables (do not edit)\n"
          "_ringsim_presets() {  # $1: profile, inter, model or profiles\n"
          "  local -a presets\n"
          "  case $1 in\n", f);
    char w[4096];
    const char *const kinds[] = {"profile", "inter", "model"};
    for (size_t k = 0; k < 3; k++) {
        rs_opt_t o = {.name = kinds[k]};
        w[0] = 0;
        append_names(w, sizeof w, preset_names(&o));
        fprintf(f, "    (%s) presets=(%s) ;;\n", kinds[k], w);
    }
    w[0] = 0;
    append_names(w, sizeof w, rs_hw_preset_names());
    append_names(w, sizeof w, rs_tier_preset_names());
    fprintf(f, "    (profiles) presets=(%s) ;;\n  esac\n"
               "  _alternative \"presets:preset:(${presets[*]})\" 'files:file:_files'\n}\n\n"
               "_ringsim() {\n  local -a commands\n  commands=(\n", w);
    for (int i = 0; i < n; i++) {
        fprintf(f, "    '%s:", docs[i].cmd->name);
        zsh_desc(f, docs[i].cmd->summary);
        fputs("'\n", f);
    }
    fputs("  )\n  if (( CURRENT == 2 )); then\n    _describe -t commands 'ringsim command' commands\n    return\n  fi\n"
          "  local cmd=$words[2]\n  shift words\n  (( CURRENT-- ))\n  case $cmd in\n", f);
    for (int i = 0; i < n; i++)
        if (docs[i].built) zsh_command(f, &docs[i]);
    fputs("  esac\n}\n\n_ringsim \"$@\"\n", f);
}

int rs_cli_write_completion(FILE *out, const char *shell, rs_err_t *err) {
    if (strcmp(shell, "bash") && strcmp(shell, "zsh")) return rs_errf(err, "--completion %s: expected bash or zsh", shell);
    int n = 0;
    cmd_doc_t *docs = read_commands(&n);
    if (!docs) return rs_errf(err, "out of memory");
    if (!strcmp(shell, "bash")) bash_script(out, docs, n);
    else zsh_script(out, docs, n);
    free(docs);
    return fflush(out) == 0 ? 0 : rs_errf(err, "--completion: write error");
}
