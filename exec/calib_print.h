/* calib_print.h - the calibration tables as `ringsim calibrate` and `ringsim validate` print them. */
#ifndef RS_CALIB_PRINT_H
#define RS_CALIB_PRINT_H

#include <stdio.h>

#include "calib_types.h"

/* Print the calibration tables ('#' header lines, fixed width): the kernel's F_eff(B), the transport
 * sizes with the alpha-beta fit and the transfer curves, the overlap points, the host cost and the
 * overlap curve, the memcpy bandwidth. Can't fail. */
void rs_calib_print(const rs_calib_t *c, FILE *out);

#endif /* RS_CALIB_PRINT_H */
