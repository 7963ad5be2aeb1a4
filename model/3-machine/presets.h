/* presets.h - the presets by name, for the profile readers (profile.c): a preset name matched
 * case-insensitively, the list of names for messages, and the JSON text of a preset name or of a
 * file path. The lists themselves (rs_hw_preset_names, rs_tier_preset_names) and rs_preset_text are
 * public, in profile.h. Internal to model/3-machine (not exported: preset_*). */
#ifndef RS_PRESETS_H
#define RS_PRESETS_H

#include <stddef.h>

#include "util.h"

/* The canonical preset name among names (NULL-terminated) matching name case-insensitively, or NULL. */
const char *preset_find(const char *const *names, const char *name);
/* names joined with ", " into buf (truncated to len). */
void preset_list(char *buf, size_t len, const char *const *names);

#define RS_PROFILE_MAX_BYTES (16 << 20) /* a profile or tier file larger than this is not one */

/* The JSON text of a preset or a file, and its origin for messages. */
typedef struct {
    const char *text;   /* the text (a preset's, or owned) */
    char *owned;        /* the file's text to free (NULL for a preset) */
    char origin[1100];  /* "preset:NAME" or the path */
} preset_text_t;

/* The text of name_or_path: a preset among names when it is a preset name (no '/', not ending in
 * ".json"), else the file. Returns 0, or -1 with err: "unknown KIND 'x' (presets: ...; or a path to a
 * .json file)", or the file's error. */
int preset_text_of(const char *name_or_path, const char *const *names, const char *kind, preset_text_t *out, rs_err_t *err);

#endif /* RS_PRESETS_H */
