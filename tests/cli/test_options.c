/* test_options.c - the option parser (cli/options.c) on hand-made tables: every kind of row, the
 * ranges and messages of bad values, unknown and malformed options, the seen bits, --help as the
 * rows print, the built-in rows after the command's own groups, file options as inputs and outputs. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli_test.h"
#include "harness.h"
#include "options.h"
#include "test_main.h"

typedef struct {
    bool flag;
    int64_t size;
    int count;
    double rate;
    const char *name;
    char buf[8];
    const char *mode;
    int even;
    const char *in, *out;
} demo_t;

static int parse_even(void *dst, const char *arg, rs_err_t *err) {
    const int v = atoi(arg);
    if (v % 2) return rs_errf(err, "--even %s: must be even", arg);
    ((demo_t *)dst)->even = v;
    return 0;
}

#define O(field) offsetof(demo_t, field)
static const rs_opt_t demo_opts[] = {
    {"flag", 'f', NULL, "off", "a flag", RS_ARG_TRUE, O(flag), 0, 0, NULL, NULL, "Demo:"},
    {"no-flag", 0, NULL, NULL, "clear it", RS_ARG_FALSE, O(flag), 0, 0, NULL, NULL, NULL},
    {"size", 's', "N", "4K", "a size", RS_ARG_SIZE, O(size), 1, 8192, NULL, NULL, NULL},
    {"count", 'n', "N", "1", "an int\non two lines", RS_ARG_INT, O(count), 0, 10, NULL, NULL, NULL},
    {"rate", 0, "X", NULL, "a rate", RS_ARG_DOUBLE, O(rate), 0, 1e9, NULL, NULL, NULL},
    {"name", 0, "TEXT", NULL, "a string", RS_ARG_STRING, O(name), 0, 0, NULL, NULL, NULL},
    {"buf", 0, "TEXT", NULL, "a copy", RS_ARG_BUF, O(buf), 0, 8, NULL, NULL, NULL},
    {"mode", 'm', "M", "a", "a choice", RS_ARG_CHOICE, O(mode), 0, 0, "a|b|c", NULL, NULL},
    {"even", 0, "N", NULL, "an even number", RS_ARG_CUSTOM, 0, 0, 0, NULL, parse_even, "Files:"},
    {"in", 0, "FILE", NULL, "an input", RS_ARG_IN, O(in), 0, 0, NULL, NULL, NULL},
    {"out", 'o', "FILE", NULL, "an output", RS_ARG_OUT, O(out), 0, 0, NULL, NULL, NULL},
};
#undef O

/* argv from shell-like words (no quoting), argv[0] "demo"; parsed into d (zeroed first). */
static int parse_words(const char *words, demo_t *d, rs_opt_group_t *g, rs_err_t *err) {
    int argc;
    char **argv = rs_cli_test_argv("demo", words, &argc);
    memset(d, 0, sizeof *d);
    *g = RS_OPT_GROUP(demo_opts, d);
    return rs_cli_parse("demo", argc, argv, g, 1, err);
}

static void expect_refused(const char *words, const char *msg) {
    demo_t d;
    rs_opt_group_t g;
    rs_err_t err = {0};
    rs_cli_test_expect_refused(words, parse_words(words, &d, &g, &err), &err, msg);
}

RS_TEST(test_every_kind, "every kind of row, seen bits, --help") {
    demo_t d;
    rs_opt_group_t g;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(parse_words("-f --size 2K -n 3 --rate 0.5G --name x --buf abcdefg -m b --even 4 --in a,b -o o.csv pos",
                                      &d, &g, &err),
                          0);
    CU_ASSERT(d.flag);
    CU_ASSERT_EQUAL(d.size, 2048);
    CU_ASSERT_EQUAL(d.count, 3);
    RS_ASSERT_REL(d.rate, 0.5e9, 1e-15);
    CU_ASSERT_STRING_EQUAL(d.name, "x");
    CU_ASSERT_STRING_EQUAL(d.buf, "abcdefg");
    CU_ASSERT_STRING_EQUAL(d.mode, "b");
    CU_ASSERT_EQUAL(d.even, 4);
    CU_ASSERT_STRING_EQUAL(d.in, "a,b");
    CU_ASSERT_STRING_EQUAL(d.out, "o.csv");
    CU_ASSERT_EQUAL(optind, 20); /* "pos": demo, then 19 words of options */
    /* every row but --no-flag was given: bits 0 and 2..10 */
    CU_ASSERT_EQUAL(g.seen, 0x7fdull);
    CU_ASSERT(rs_cli_given(&g, "rate"));
    CU_ASSERT(!rs_cli_given(&g, "no-flag"));
    CU_ASSERT(!rs_cli_given(&g, "nosuch"));
    /* the file options' values; a given option that is no file has none */
    CU_ASSERT_STRING_EQUAL(rs_cli_given_path(&g, 1, "in"), "a,b");
    CU_ASSERT_STRING_EQUAL(rs_cli_given_path(&g, 1, "out"), "o.csv");
    CU_ASSERT_PTR_NULL(rs_cli_given_path(&g, 1, "name"));
    /* a second parse starts afresh: the flag cleared, the seen bits of this one only */
    CU_ASSERT_EQUAL_FATAL(parse_words("-f --no-flag", &d, &g, &err), 0);
    CU_ASSERT(!d.flag);
    CU_ASSERT_EQUAL(g.seen, 0x3ull);
    CU_ASSERT_PTR_NULL(rs_cli_given_path(&g, 1, "in"));
    /* --help ends the parse with 1: what follows is not read */
    CU_ASSERT_EQUAL(parse_words("--size 2K --help --size 99K", &d, &g, &err), 1);
    CU_ASSERT_EQUAL(parse_words("-h", &d, &g, &err), 1);
}

RS_TEST(test_messages, "bad values and options: exact messages") {
    expect_refused("--size 9K", "--size 9K: must be in [1, 8192]");
    expect_refused("--size 0", "--size 0: must be in [1, 8192]");
    expect_refused("-n 11", "--count 11: must be in [0, 10]");
    expect_refused("--count 2Q", "--count 2Q: unknown suffix 'Q' (accepted: K, M, G, T = powers of 1024); range [0, 10]");
    expect_refused("--rate 2G", "--rate 2G: must be in [0, 1e+09]");
    expect_refused("--buf 12345678", "--buf 12345678: at most 7 characters");
    expect_refused("-m d", "--mode d: expected a, b or c");
    expect_refused("--mode ab", "--mode ab: expected a, b or c");
    expect_refused("--even 3", "--even 3: must be even");
    expect_refused("--nope", "unknown option '--nope' (see ringsim demo --help)");
    expect_refused("-z", "unknown option '-z' (see ringsim demo --help)");
    expect_refused("-fz", "unknown option '-z' (see ringsim demo --help)"); /* in a cluster */
    expect_refused("--size", "option '--size' needs a value (see ringsim demo --help)");
    expect_refused("-s", "option '-s' needs a value (see ringsim demo --help)");
    expect_refused("--flag=1", "option '--flag' takes no value (see ringsim demo --help)");
}

RS_TEST(test_lists, "comma lists and skipped rows") {
    CU_ASSERT(rs_cli_in_list("a,bb,c", "bb"));
    CU_ASSERT(rs_cli_in_list("a,bb,c", "c"));
    CU_ASSERT(!rs_cli_in_list("a,bb,c", "b"));
    CU_ASSERT(!rs_cli_in_list("a,bb", "bb,"));
    CU_ASSERT(!rs_cli_in_list(NULL, "a"));
    CU_ASSERT(!rs_cli_in_list("", "a"));
    rs_opt_group_t g = RS_OPT_GROUP(demo_opts, NULL);
    g.skip = "rate,mode";
    CU_ASSERT(!rs_cli_offered(&g, &demo_opts[4]));
    CU_ASSERT(rs_cli_offered(&g, &demo_opts[3]));
    /* a skipped row is unknown to the parser */
    demo_t d = {0};
    g.dst = &d;
    char *argv[] = {"demo", "--rate", "1", NULL};
    rs_err_t err = {0};
    CU_ASSERT_EQUAL(rs_cli_parse("demo", 3, argv, &g, 1, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "unknown option '--rate' (see ringsim demo --help)");
}

/* Rows of a second table: one a command's own (marked own), one after them. */
typedef struct {
    bool quiet;
    int64_t k;
} more_t;
static const rs_opt_t more_opts[] = {
    {"k", 'k', "K", "2", "more of the command's own", RS_ARG_SIZE, offsetof(more_t, k), 1, 9, NULL, NULL, NULL},
};
static const rs_opt_t late_opts[] = {
    {"late", 0, NULL, "off", "a shared row", RS_ARG_TRUE, offsetof(more_t, quiet), 0, 0, NULL, NULL, "Shared:"},
};
static const rs_opt_t quiet_opts[] = {
    {"quiet", 'q', NULL, "off", "its own quiet", RS_ARG_TRUE, offsetof(more_t, quiet), 0, 0, NULL, NULL, NULL},
};

static char *print_to_text(const rs_opt_group_t *groups, int n) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rs_cli_print_opts(f, groups, n);
    fclose(f);
    return text;
}

RS_TEST(test_help_text, "--help text: sections, own groups, built-in rows") {
    more_t m = {0};
    demo_t d = {0};
    rs_opt_group_t groups[3] = {RS_OPT_GROUP(demo_opts, &d), {more_opts, 1, &m, NULL, 0, true}, RS_OPT_GROUP(late_opts, &m)};
    groups[0].skip = "rate,name,buf,mode,even,in"; /* "Files:" still heads --out */
    CU_ASSERT_EQUAL(rs_cli_own_groups(groups, 3), 2);
    CU_ASSERT_EQUAL(rs_cli_own_groups(groups, 0), 0);
    char *text = print_to_text(groups, 3);
    /* "  %-24s %-44s [%s]": the option, its help, its default; further help lines under the first */
    const char *want =
        "Demo:\n"
        "  -f, --flag               a flag                                       [off]\n"
        "      --no-flag            clear it\n"
        "  -s, --size N             a size                                       [4K]\n"
        "  -n, --count N            an int\n"
        "                           on two lines                                 [1]\n"
        "Files:\n"
        "  -o, --out FILE           an output\n"
        "  -k, --k K                more of the command's own                    [2]\n"
        "  -h, --help               this help\n"
        "  -q, --quiet              no progress on stderr (it shows only on a terminal) [off]\n"
        "Shared:\n"
        "      --late               a shared row                                 [off]\n";
    if (strcmp(text, want)) fprintf(stderr, "\n%s", text);
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
    /* a section whose rows are all skipped has no heading */
    groups[0].skip = "rate,name,buf,mode,even,in,out";
    text = print_to_text(groups, 1);
    CU_ASSERT_PTR_NULL(strstr(text, "Files:"));
    free(text);
    /* a command with its own quiet row gets only --help built in */
    const rs_opt_t *builtin[2];
    rs_opt_group_t q[2] = {RS_OPT_GROUP(demo_opts, &d), RS_OPT_GROUP(quiet_opts, &m)};
    CU_ASSERT_EQUAL(rs_cli_builtins(q, 2, builtin), 1);
    CU_ASSERT_STRING_EQUAL(builtin[0]->name, "help");
    CU_ASSERT_EQUAL(rs_cli_builtins(q, 1, builtin), 2);
    CU_ASSERT_STRING_EQUAL(builtin[1]->name, "quiet");
}

/* The file options go to the output module's plan: an output that is an input is refused there. */
RS_TEST(test_files_to_plan, "file options into the output module's plan") {
    CU_ASSERT_EQUAL_FATAL(rs_test_scratch("options"), 0);
    char words[1200];
    const char *x = rs_test_path("x.csv");
    rs_test_write_text(x, "data\n");
    snprintf(words, sizeof words, "--in %s --out %s --name %s", x, x, x);
    demo_t d;
    rs_opt_group_t g;
    rs_err_t err = {0};
    CU_ASSERT_EQUAL_FATAL(parse_words(words, &d, &g, &err), 0);
    rs_io_plan_t plan;
    rs_io_init(&plan);
    CU_ASSERT_EQUAL(rs_cli_io_add(&plan, &g, 1, NULL), 0);
    CU_ASSERT_EQUAL(rs_io_check(&plan, &err), -1);
    char want[2400];
    snprintf(want, sizeof want, "--out %s: the same file as the input --in %s: an output never replaces an input", x, x);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    rs_io_free(&plan);
    /* skipped by name: nothing left to refuse */
    rs_io_init(&plan);
    CU_ASSERT_EQUAL(rs_cli_io_add(&plan, &g, 1, "in"), 0);
    CU_ASSERT_EQUAL(rs_io_check(&plan, &err), 0);
    rs_io_free(&plan);
    rs_test_cleanup();
}

RS_TEST_PROGRAM("options")
