/* datadir.h - where an installed ringsim keeps its data: <prefix>/share/ringsim with profiles/
 * (devices/, links/, models/) and plots/ (the gnuplot scripts), found at run time relative to the
 * object that holds this code - libringsim.so in <libdir>, or a program in <bindir> - through the
 * relative paths of the install layout (cmake/Install.cmake: RS_DATADIR_FROM_LIBDIR and
 * RS_DATADIR_FROM_BINDIR), so an installation can be moved as a whole. A build tree has none: the
 * callers fall back to the source tree and the copies embedded in the binary (plots/plot.h,
 * model/3-machine/profile.h).
 */
#ifndef RS_DATADIR_H
#define RS_DATADIR_H

#include <stddef.h>

/* The installed data directory (it holds plots/style.gp), or NULL when this code does not run from
 * an installation. Looked up once per process. Can't fail. */
const char *rs_data_dir(void);

/* "<data dir>/<sub>" into dst (truncated to len); NULL when there is no data directory. */
const char *rs_data_path(char *dst, size_t len, const char *sub);

#endif /* RS_DATADIR_H */
