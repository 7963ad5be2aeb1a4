/* presets.c - the preset table (embed.h) and its lookup by name (presets.h; the lists of profile.h).
 * The table: the profiles embedded at build time, overlaid by the installed data directory's
 * profiles/devices, profiles/links and profiles/models (datadir.h), where a file replaces the
 * embedded preset of its name or adds a new one. A build tree has no data directory: the table is
 * the embedded one. Device and tier presets are told apart by their content. */
#define _DEFAULT_SOURCE /* DT_DIR */
#include "presets.h"

#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "datadir.h"
#include "embed.h"
#include "profile.h"
#include "util.h"

#define RS_MAX_PRESET_FILES 1024
#define RS_MAX_PRESET_BYTES ((size_t)4 << 20)
#define RS_MAX_PRESETS 256

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

/* ------------------------------------------------------------------------------------------------
 * Lookup by name: devices have a top-level "device" object, tiers a top-level "bw_bytes_per_s";
 * anything else (models/) is neither.
 * ---------------------------------------------------------------------------------------------- */
static const char *device_names[RS_MAX_PRESETS + 1];
static const char *tier_names[RS_MAX_PRESETS + 1];
static pthread_once_t presets_once = PTHREAD_ONCE_INIT;

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort the embedded presets into device and tier name lists, each in strcmp order. */
static void classify_presets(void) {
    int nd = 0, nt = 0;
    for (const rs_embedded_file_t *f = rs_presets(); f->name; f++) {
        json_t *j = json_loads(f->text, 0, NULL);
        if (!j) continue;
        if (json_is_object(j)) {
            if (json_object_get(j, "device") && nd < RS_MAX_PRESETS) device_names[nd++] = f->name;
            else if (json_object_get(j, "bw_bytes_per_s") && nt < RS_MAX_PRESETS) tier_names[nt++] = f->name;
        }
        json_decref(j);
    }
    qsort(device_names, (size_t)nd, sizeof device_names[0], cmp_names);
    qsort(tier_names, (size_t)nt, sizeof tier_names[0], cmp_names);
    device_names[nd] = NULL;
    tier_names[nt] = NULL;
}

const char *const *rs_hw_preset_names(void) {
    pthread_once(&presets_once, classify_presets);
    return device_names;
}

const char *const *rs_tier_preset_names(void) {
    pthread_once(&presets_once, classify_presets);
    return tier_names;
}

const char *rs_preset_text(const char *name) {
    if (!name) return NULL;
    for (const rs_embedded_file_t *f = rs_presets(); f->name; f++)
        if (!strcasecmp(f->name, name)) return f->text;
    return NULL;
}

const char *preset_find(const char *const *names, const char *name) {
    for (; *names; names++)
        if (!strcasecmp(*names, name)) return *names;
    return NULL;
}

void preset_list(char *buf, size_t len, const char *const *names) {
    size_t n = 0;
    buf[0] = '\0';
    for (; *names && n < len; names++) n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", *names);
}

/* A name without '/' that does not end in ".json" is a preset name. */
static bool is_preset_name(const char *s) {
    size_t n = strlen(s);
    return !strchr(s, '/') && !(n >= 5 && !strcasecmp(s + n - 5, ".json"));
}

int preset_text_of(const char *name_or_path, const char *const *names, const char *kind, preset_text_t *out, rs_err_t *err) {
    out->owned = NULL;
    out->text = NULL;
    if (!is_preset_name(name_or_path)) {
        snprintf(out->origin, sizeof out->origin, "%s", name_or_path);
        out->text = out->owned = rs_read_text_file(name_or_path, RS_PROFILE_MAX_BYTES, "JSON text", err);
        return out->text ? 0 : -1;
    }
    const char *name = preset_find(names, name_or_path);
    if (!name) {
        char known[1024];
        preset_list(known, sizeof known, names);
        return rs_errc(err, RS_ERR_BAD_INPUT, "unknown %s '%s' (presets: %s; or a path to a .json file)", kind, name_or_path, known);
    }
    snprintf(out->origin, sizeof out->origin, "preset:%s", name);
    out->text = rs_preset_text(name);
    return 0;
}
