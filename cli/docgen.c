/* docgen.c - the command and option tables as the man pages and the completion read them (docgen.h). */
#include "docgen.h"

#include <stdlib.h>
#include <string.h>

#include "command_run.h"
#include "memory.h"
#include "profile.h"

void rs_doc_append_word(char *buf, size_t len, const char *w, size_t n) {
    const size_t have = strlen(buf);
    for (const char *p = buf; *p;) { /* no duplicates */
        const size_t m = strcspn(p, " ");
        if (m == n && !strncmp(p, w, n)) return;
        p += m + (p[m] == ' ');
    }
    snprintf(buf + have, len - have, "%s%.*s", have ? " " : "", (int)n, w);
}

void rs_doc_append_names(char *buf, size_t len, const char *const *names) {
    for (; names && *names; names++) rs_doc_append_word(buf, len, *names, strlen(*names));
}

const char *const *rs_doc_preset_names(const rs_opt_t *o) {
    if (!strcmp(o->name, "profile")) return rs_hw_preset_names();
    if (!strcmp(o->name, "inter")) return rs_tier_preset_names();
    if (!strcmp(o->name, "model")) return rs_transformer_preset_names();
    return NULL;
}

/* The words of text (lowercase, digits, '-') that the row's own parser accepts, into row->words
 * (none when it accepts anything: a free-form argument). */
static void probe_words(rs_doc_row_t *r, void *dst, const char *text) {
    rs_err_t err;
    char nonsense[] = "zq-no-such-value-zq";
    if (r->o->parse(dst, nonsense, &err) == 0) return;
    for (const char *p = text; p && *p;) {
        const size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
        if (n > 0 && n < 40 && p[0] != '-' && strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-") == n) {
            char w[48];
            snprintf(w, sizeof w, "%.*s", (int)n, p);
            rs_err_t err;
            if (r->o->parse(dst, w, &err) == 0) rs_doc_append_word(r->words, sizeof r->words, w, n);
        }
        p += n ? n : 1;
    }
}

/* What the argument of row r (of a group filling dst) completes to. */
static void classify(rs_doc_row_t *r, void *dst) {
    const rs_opt_t *o = r->o;
    const char *arg = o->arg ? o->arg : "";
    if (o->kind == RS_ARG_TRUE || o->kind == RS_ARG_FALSE) {
        r->vk = RS_DOC_NONE;
    } else if (o->kind == RS_ARG_CHOICE) {
        r->vk = RS_DOC_WORDS;
        for (const char *c = o->choices; *c;) {
            const size_t m = strcspn(c, "|");
            rs_doc_append_word(r->words, sizeof r->words, c, m);
            c += m + (c[m] == '|');
        }
    } else if (rs_doc_preset_names(o) && (strstr(arg, "NAME") || strchr(arg, ','))) {
        r->vk = RS_DOC_PRESETS;
        rs_doc_append_names(r->words, sizeof r->words, rs_doc_preset_names(o));
    } else if (strstr(arg, "DIR")) {
        r->vk = RS_DOC_DIRS;
    } else if (strstr(arg, "FILE")) {
        r->vk = RS_DOC_FILES;
    } else if (o->kind == RS_ARG_CUSTOM) {
        probe_words(r, dst, arg);
        probe_words(r, dst, o->help);
        r->vk = r->words[0] ? RS_DOC_WORDS : RS_DOC_FREE;
    } else if (o->kind == RS_ARG_STRING && strchr(arg, '|')) { /* "cpu|gpu": lowercase alternatives */
        for (const char *c = arg; *c;) {
            const size_t m = strcspn(c, "|");
            if (strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789-") >= m) rs_doc_append_word(r->words, sizeof r->words, c, m);
            c += m + (c[m] == '|');
        }
        r->vk = r->words[0] ? RS_DOC_WORDS : RS_DOC_FREE;
    } else {
        r->vk = RS_DOC_FREE;
    }
}

static void add_row(rs_doc_cmd_t *d, const rs_opt_t *o, const char *section, void *dst) {
    if (d->n >= RS_DOC_MAX_ROWS) return;
    rs_doc_row_t *r = &d->rows[d->n++];
    memset(r, 0, sizeof *r);
    r->o = o;
    r->section = section;
    classify(r, dst);
}

void rs_doc_take_groups(void *ctx, const rs_command_t *cmd, rs_opt_group_t *groups, int n_groups) {
    rs_doc_cmd_t *d = ctx;
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

rs_doc_cmd_t *rs_doc_read_commands(int *n_out) {
    int n = 0;
    while (rs_commands[n].name) n++;
    rs_doc_cmd_t *docs = calloc((size_t)n, sizeof *docs);
    if (!docs) return NULL;
    for (int i = 0; i < n; i++) {
        docs[i].cmd = &rs_commands[i];
        if (!rs_commands[i].run) continue;
        char name[64], help[] = "--help";
        snprintf(name, sizeof name, "%s", rs_commands[i].name);
        char *argv[] = {name, help, NULL};
        rs_cli_set_help_hook(rs_doc_take_groups, &docs[i]);
        rs_commands[i].run(2, argv);
        rs_cli_set_help_hook(NULL, NULL);
    }
    *n_out = n;
    return docs;
}
