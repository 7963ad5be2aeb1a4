/* test_docgen.c - the tables as the man pages and the completion read them (cli/docgen.c): a small
 * command's rows in --help order with their section headings and the built-in rows, and what each
 * argument completes to (a choice's words, the words its own parser accepts, presets and files,
 * files, folders, nothing); every command of the build read under the help hook. */
#include <stdlib.h>

#include "doc_demo.h"
#include "profile.h"
#include "test_main.h"

RS_TEST(test_rows, "a command's rows and what they complete to") {
    static rs_doc_cmd_t d;
    demo_t v;
    demo_doc(&d, &v);
    CU_ASSERT_PTR_EQUAL(d.cmd, &demo_cmd);
    CU_ASSERT(d.built);
    CU_ASSERT_EQUAL_FATAL(d.n, 10); /* 8 rows, then --help and --quiet */
    static const char *const names[] = {"out", "dir", "mode", "dtype", "profile", "count", "flag", "backend", "help", "quiet"};
    for (int i = 0; i < 10; i++) CU_ASSERT_STRING_EQUAL(d.rows[i].o->name, names[i]);
    CU_ASSERT_STRING_EQUAL(d.rows[0].section, "Output:");
    CU_ASSERT_PTR_NULL(d.rows[1].section);
    CU_ASSERT_STRING_EQUAL(d.rows[2].section, "Running:");
    static const rs_doc_values_t vk[] = {RS_DOC_FILES, RS_DOC_DIRS,  RS_DOC_WORDS, RS_DOC_WORDS, RS_DOC_PRESETS,
                                         RS_DOC_FREE,  RS_DOC_NONE,  RS_DOC_WORDS, RS_DOC_NONE,  RS_DOC_NONE};
    for (int i = 0; i < 10; i++) CU_ASSERT_EQUAL(d.rows[i].vk, vk[i]);
    CU_ASSERT_STRING_EQUAL(d.rows[2].words, "fast slow");
    CU_ASSERT_STRING_EQUAL(d.rows[3].words, "fp32 bf16"); /* "what", "it", ... are refused by its parser */
    CU_ASSERT_STRING_EQUAL(d.rows[7].words, "cpu gpu");
    char presets[512] = "";
    rs_doc_append_names(presets, sizeof presets, rs_hw_preset_names());
    CU_ASSERT_STRING_EQUAL(d.rows[4].words, presets);
    CU_ASSERT_PTR_NOT_NULL(strstr(presets, "h100-sxm"));
}

RS_TEST(test_words, "word lists and presets") {
    char buf[16] = "";
    rs_doc_append_word(buf, sizeof buf, "ab", 2);
    rs_doc_append_word(buf, sizeof buf, "abc", 2); /* its first 2 characters: there already */
    rs_doc_append_word(buf, sizeof buf, "cd", 2);
    CU_ASSERT_STRING_EQUAL(buf, "ab cd");
    rs_doc_append_word(buf, sizeof buf, "0123456789", 10); /* truncated to the buffer */
    CU_ASSERT_STRING_EQUAL(buf, "ab cd 012345678");
    const rs_opt_t inter = {.name = "inter"}, other = {.name = "seq"};
    CU_ASSERT_PTR_EQUAL(rs_doc_preset_names(&inter), rs_tier_preset_names());
    CU_ASSERT_PTR_NULL(rs_doc_preset_names(&other));
}

/* Every command of this build read through its --help: built ones have rows, the others none. */
RS_TEST(test_read_commands, "every command read under the help hook") {
    int n = 0;
    rs_doc_cmd_t *docs = rs_doc_read_commands(&n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(docs);
    int k = 0;
    while (rs_commands[k].name) k++;
    CU_ASSERT_EQUAL(n, k);
    for (int i = 0; i < n; i++) {
        CU_ASSERT_PTR_EQUAL(docs[i].cmd, &rs_commands[i]);
        CU_ASSERT_EQUAL(docs[i].built, rs_commands[i].run != NULL);
        if (!docs[i].built) continue;
        CU_ASSERT(docs[i].n > 0);
        bool help = false;
        for (int j = 0; j < docs[i].n; j++) help |= !strcmp(docs[i].rows[j].o->name, "help");
        CU_ASSERT(help);
    }
    CU_ASSERT_STRING_EQUAL(docs[0].rows[0].o->name, "csv"); /* model: its own rows first */
    free(docs);
}

RS_TEST_PROGRAM("docgen")
