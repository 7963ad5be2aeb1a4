/* command_files.c - a command's files: checked before any work, the per-entry output paths, JSON
 * documents (command_files.h). */
#include "command_files.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command_run.h"

int rs_cli_check_files(const char *name, const rs_opt_group_t *groups, int n_groups, rs_io_plan_t *plan, const char *skip,
                       bool loud) {
    rs_err_t err = {0};
    int rc = rs_cli_io_add(plan, groups, n_groups, skip) != 0 ? rs_errf(&err, "out of memory") : rs_io_check(plan, &err);
    if (rc == 0) rc = rs_io_make_dirs(plan, &err);
    rs_io_free(plan);
    return rc == 0 ? -1 : rs_cli_usage(name, loud, &err);
}

int rs_cli_check_entry_files(const char *name, const rs_setup_t *c, const rs_opt_group_t *groups, int n_groups, bool loud) {
    const char *trace = rs_cli_given_path(groups, n_groups, "trace"), *chrome = rs_cli_given_path(groups, n_groups, "chrome");
    rs_io_plan_t io;
    rs_io_init(&io);
    const bool several = c->n_layouts * c->n_passes > 1;
    if (several) /* the value given, too: --csv o.csv --trace o.csv is refused whatever the entries */
        rs_io_output(&io, "--trace", trace), rs_io_output(&io, "--chrome", chrome);
    for (int j = 0; j < c->n_passes; j++)
        for (int i = 0; i < c->n_layouts; i++) {
            const rs_problem_t p = rs_setup_problem(c, i, j);
            char path[1024];
            if (trace) rs_cli_entry_path(path, sizeof path, trace, &p, several), rs_io_output(&io, "--trace", path);
            if (chrome) rs_cli_entry_path(path, sizeof path, chrome, &p, several), rs_io_output(&io, "--chrome", path);
        }
    return rs_cli_check_files(name, groups, n_groups, &io, "trace,chrome", loud);
}

void rs_cli_entry_path(char *dst, size_t len, const char *path, const rs_problem_t *p, bool several) {
    if (!several) {
        snprintf(dst, len, "%s", path);
        return;
    }
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) dot = path + strlen(path);
    snprintf(dst, len, "%.*s-%s-%s%s", (int)(dot - path), path, rs_layout_name(p->layout), rs_pass_name(p->pass), dot);
}

void *rs_cli_rates_json(const rs_machine_t *m) {
    json_t *o = json_object();
    for (int r = 0; o && r < RS_RATE_COUNT; r++)
        json_object_set_new(o, rs_rate_name((rs_rate_t)r),
                            json_pack("{s:s, s:s}", "kind", rs_rate_kind_name(m->src.rate[r].kind), "source", m->src.rate[r].source));
    return o;
}

int rs_cli_write_json(const char *path, void *root, rs_err_t *err) {
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!text) return rs_errf(err, "out of memory");
    rs_output_t out;
    int rc = rs_output_open(&out, path, err);
    if (rc == 0) {
        fprintf(out.fp, "%s\n", text);
        rc = rs_output_close(&out, err);
    }
    free(text);
    return rc;
}
