/* test_completion.c - the shell completion (cli/completion.c): a small command's bash and zsh cases
 * against the text by hand (its options, what each argument completes to, repeatable options, the
 * escapes of a zsh description), and the whole scripts of this build. */
#include <stdlib.h>

#include "doc_demo.h"
#include "profile.h"
#include "test_main.h"

RS_TEST(test_demo_bash, "a small command's bash case") {
    static rs_doc_cmd_t d;
    demo_t v;
    demo_doc(&d, &v);
    char *text = demo_text(rs_doc_bash_command, &d);
    char presets[512] = "";
    rs_doc_append_names(presets, sizeof presets, rs_hw_preset_names());
    char want[4096];
    snprintf(want, sizeof want,
             "    demo)\n"
             "        opts='--out -o --dir --mode -m --dtype --profile -p --count --flag --backend --help -h --quiet -q'\n"
             "        case \"$prev\" in\n"
             "        --out|-o) COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n"
             "        --dir) COMPREPLY=($(compgen -d -- \"$cur\")); return;;\n"
             "        --mode|-m) COMPREPLY=($(compgen -W 'fast slow' -- \"$cur\")); return;;\n"
             "        --dtype) COMPREPLY=($(compgen -W 'fp32 bf16' -- \"$cur\")); return;;\n"
             "        --profile|-p) COMPREPLY=($(compgen -W '%s' -- \"$cur\") $(compgen -f -- \"$cur\")); return;;\n"
             "        --count) return;;\n"
             "        --backend) COMPREPLY=($(compgen -W 'cpu gpu' -- \"$cur\")); return;;\n"
             "        esac\n"
             "        if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); return; fi\n"
             "        ;;\n",
             presets);
    if (strcmp(text, want)) fprintf(stderr, "\n%s", text);
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
}

RS_TEST(test_demo_zsh, "a small command's zsh case") {
    static rs_doc_cmd_t d;
    demo_t v;
    demo_doc(&d, &v);
    char *text = demo_text(rs_doc_zsh_command, &d);
    const char *want =
        "    (demo)\n"
        "      _arguments -s -S \\\n"
        "        '(-o --out)'{-o+,--out=}'[the output (\"-\" = stdout)]:FILE:_files' \\\n"
        "        '--dir=[a folder]:DIR:_files -/' \\\n"
        "        '(-m --mode)'{-m+,--mode=}'[how\\: fast or slow]:M:(fast slow)' \\\n"
        "        '--dtype=[fp32|bf16\\: what it computes in]:T:(fp32 bf16)' \\\n"
        "        '(-p --profile)'{-p+,--profile=}'[a device profile]:NAME|FILE:_ringsim_presets profile' \\\n"
        "        '*--count=[how many \\[at most 9\\] (repeatable)]:N:' \\\n"
        "        '--flag[a flag]' \\\n"
        "        '--backend=[the executor]:cpu|gpu:(cpu gpu)' \\\n"
        "        '(-h --help)'{-h,--help}'[this help]' \\\n"
        "        '(-q --quiet)'{-q,--quiet}'[no progress on stderr (it shows only on a terminal)]' \\\n"
        "        && return\n"
        "      ;;\n";
    if (strcmp(text, want)) fprintf(stderr, "\n%s", text);
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
}

static char *script(const char *shell, int *rc) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rs_err_t err = {0};
    *rc = rs_cli_write_completion(f, shell, &err);
    fclose(f);
    if (*rc) fprintf(stderr, "  %s\n", err.msg);
    return text;
}

RS_TEST(test_scripts, "the scripts of this build") {
    int rc;
    char *bash = script("bash", &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(strncmp(bash, "# bash completion for ringsim", 29), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(bash, "compgen -W 'model sim exec calibrate validate compare import sweep plot report memory plan profiles --help --version'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(bash, "\n    plan)\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(bash, "complete -o filenames -F _ringsim ringsim\n"));
    free(bash);
    char *zsh = script("zsh", &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(strncmp(zsh, "#compdef ringsim\n", 17), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(zsh, "    'plan:capacity planning\\: smallest N, step time, cost; Ring vs Ulysses vs USP'\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(zsh, "    (profiles) presets=("));
    free(zsh);
    char *none = script("fish", &rc);
    CU_ASSERT_EQUAL(rc, -1);
    free(none);
}

RS_TEST_PROGRAM("completion")
