/* doc_demo.h - a small command and its option table, read as the man pages and the completion read
 * every command (docgen.h): shared by test_docgen.c, test_man_pages.c and test_completion.c. */
#ifndef RS_TEST_CLI_DOC_DEMO_H
#define RS_TEST_CLI_DOC_DEMO_H

#include <stddef.h>
#include <string.h>

#include "docgen.h"

typedef struct {
    const char *out, *dir, *mode, *profile, *backend;
    int dtype;
    int64_t count;
    bool flag;
} demo_t;

/* accepts fp32 and bf16 only */
static int demo_parse_dtype(void *dst, const char *arg, rs_err_t *err) {
    if (strcmp(arg, "fp32") && strcmp(arg, "bf16")) return rs_errf(err, "--dtype %s: expected fp32 or bf16", arg);
    ((demo_t *)dst)->dtype = arg[0] == 'b';
    return 0;
}

#define DEMO_O(field) offsetof(demo_t, field)
static const rs_opt_t demo_opts[] = {
    {"out", 'o', "FILE", "none", "the output (\"-\" = stdout)\non two lines", RS_ARG_OUT, DEMO_O(out), 0, 0, NULL, NULL, "Output:"},
    {"dir", 0, "DIR", NULL, "a folder", RS_ARG_OUTDIR, DEMO_O(dir), 0, 0, NULL, NULL, NULL},
    {"mode", 'm', "M", "fast", "how: fast or slow", RS_ARG_CHOICE, DEMO_O(mode), 0, 0, "fast|slow", NULL, "Running:"},
    {"dtype", 0, "T", "bf16", "fp32|bf16: what it computes in", RS_ARG_CUSTOM, 0, 0, 0, NULL, demo_parse_dtype, NULL},
    {"profile", 'p', "NAME|FILE", "h100-sxm", "a device profile", RS_ARG_IN, DEMO_O(profile), 0, 0, NULL, NULL, NULL},
    {"count", 0, "N", "1", "how many [at most 9] (repeatable)", RS_ARG_SIZE, DEMO_O(count), 1, 9, NULL, NULL, NULL},
    {"flag", 0, NULL, "off", "a flag", RS_ARG_TRUE, DEMO_O(flag), 0, 0, NULL, NULL, NULL},
    {"backend", 0, "cpu|gpu", "cpu", "the executor", RS_ARG_STRING, DEMO_O(backend), 0, 0, NULL, NULL, NULL},
};
#undef DEMO_O

static const rs_command_t demo_cmd = {"demo", "a demo command", NULL, NULL, 0,
                                      "usage: ringsim demo [options]\n"
                                      "       ringsim demo --flag\n\n"
                                      "Does a demo: one paragraph\n"
                                      "on two lines.\n\n"
                                      "  an indented line\n\n",
                                      ".dots and -dashes \\ in the notes.\n"};

/* The demo command as documented: its groups through the help hook's reader. */
static inline void demo_doc(rs_doc_cmd_t *d, demo_t *v) {
    memset(d, 0, sizeof *d);
    memset(v, 0, sizeof *v);
    rs_opt_group_t g = RS_OPT_GROUP(demo_opts, v);
    rs_doc_take_groups(d, &demo_cmd, &g, 1);
}

/* What f (a memstream) holds after write(f, d). */
static inline char *demo_text(void (*write)(FILE *, const rs_doc_cmd_t *), const rs_doc_cmd_t *d) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    write(f, d);
    fclose(f);
    return text;
}

#endif /* RS_TEST_CLI_DOC_DEMO_H */
