/* exec_npy.h - .npy files (NumPy format 1.0: magic, version, u16 header length, a dict padded to 64
 * bytes, then the C-order data) of float32 arrays: what `ringsim exec --save-io` writes, and the
 * header reader that checks them. */
#ifndef RS_EXEC_NPY_H
#define RS_EXEC_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define RS_NPY_MAX_DIM 8 /* dimensions rs_npy_read_header accepts */

/* Write a float32 C-order .npy file (format 1.0) atomically. Returns 0 or -1 with err. */
int rs_npy_write_f32(const char *path, const float *data, int ndim, const int64_t *shape, rs_err_t *err);

/* What an .npy header says. */
typedef struct {
    char descr[16];                  /* dtype descr, e.g. "<f4" (truncated to fit) */
    int ndim;                        /* dimensions */
    int64_t shape[RS_NPY_MAX_DIM];   /* their sizes */
} rs_npy_header_t;

/* Read the header of an .npy file. Returns 0, or -1 with err: "PATH: not an .npy file (format 1.0)",
 * "PATH: truncated header", "PATH: header lacks descr or shape", "PATH: more than 8 dimensions", or
 * the system's reason the file cannot be opened. */
int rs_npy_read_header(const char *path, rs_npy_header_t *h, rs_err_t *err);

/* --save-io: tensor `name` as dir/NAME.npy, a 4-dimensional array (batch, heads, rows, width).
 * Returns 0 or -1 with err. */
int rs_npy_save_tensor(const char *dir, const char *name, const float *data, const int64_t shape[4], rs_err_t *err);

#endif /* RS_EXEC_NPY_H */
