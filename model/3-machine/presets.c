/* presets.c - the preset table (embed.h): the profiles embedded at build time, overlaid by the
 * installed data directory's profiles/devices, profiles/links and profiles/models (datadir.h), where
 * a file replaces the embedded preset of its name or adds a new one. A build tree has no data
 * directory: the table is the embedded one. */
#define _DEFAULT_SOURCE /* DT_DIR */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "embed.h"
#include "util.h"

#define RS_MAX_PRESET_FILES 1024
#define RS_MAX_PRESET_BYTES ((size_t)4 << 20)

static rs_embedded_file_t *table; /* embedded + installed, {0, 0}-terminated; NULL: the embedded one */
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* Put (name, text) into table[0..*n): replace the entry of that name, or append. Takes both. */
static void put(int *n, char *name, char *text) {
    for (int i = 0; i < *n; i++)
        if (!strcmp(table[i].name, name)) {
            table[i].text = text; /* the embedded text is static, an installed one is kept for the process */
            free(name);
            return;
        }
    table[(*n)++] = (rs_embedded_file_t){name, text};
}

/* The *.json files of dir into the table (at most cap entries in all). */
static void add_dir(const char *dir, int *n, int cap) {
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) && *n < cap;) {
        const size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.') continue;
        char path[4096 + 512];
        snprintf(path, sizeof path, "%s/%.500s", dir, e->d_name);
        rs_err_t err;
        char *text = rs_read_text_file(path, RS_MAX_PRESET_BYTES, "profile", &err);
        char *name = text ? strndup(e->d_name, len - 5) : NULL;
        if (!name) {
            free(text); /* unreadable: the embedded preset of that name (if any) stays */
            continue;
        }
        put(n, name, text);
    }
    closedir(d);
}

static void build(void) {
    char dir[3800];
    if (!rs_data_path(dir, sizeof dir, "profiles")) return;
    int n = 0;
    while (rs_embedded_presets[n].name) n++;
    const int cap = n + RS_MAX_PRESET_FILES;
    table = calloc((size_t)cap + 1, sizeof *table);
    if (!table) return;
    memcpy(table, rs_embedded_presets, (size_t)n * sizeof *table);
    const char *const subs[] = {"devices", "links", "models"};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, subs[i]);
        add_dir(sub, &n, cap);
    }
    table[n] = (rs_embedded_file_t){NULL, NULL};
}

const rs_embedded_file_t *rs_presets(void) {
    pthread_once(&table_once, build);
    return table ? table : rs_embedded_presets;
}
