/* embed.h - files embedded into the binary at build time (cmake/Embed.cmake). */
#ifndef RS_EMBED_H
#define RS_EMBED_H

typedef struct {
    const char *name; /* file name without directory and extension, e.g. "h100-sxm" */
    const char *text; /* NUL-terminated contents */
} rs_embedded_file_t;

/* Shipped presets: profiles/devices, profiles/links and profiles/models; ends with {0, 0}. */
extern const rs_embedded_file_t rs_embedded_presets[];

/* The presets in use: the embedded ones, overlaid by an installation's share/ringsim/profiles
 * (model/3-machine/presets.c); ends with {0, 0}. Built once per process. Can't fail. */
const rs_embedded_file_t *rs_presets(void);

#endif /* RS_EMBED_H */
