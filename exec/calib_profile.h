/* calib_profile.h - a calibration (calib_types.h) as a hardware profile (profile.h) the model loads. */
#ifndef RS_CALIB_PROFILE_H
#define RS_CALIB_PROFILE_H

#include <stdint.h>

#include "calib_types.h"
#include "profile.h"

/* Turn a calibration into a profile (name, note, N ranks per node = n_ranks): the peak rate for dtype
 * (the compute backend's), the measured intra tier (bandwidth 1e12 B/s when none was fitted), this
 * host's memory and memcpy bandwidth (1e9 B/s when not measured), and c->model as the profile's
 * calibration. Can't fail. */
void rs_calib_to_hw(const rs_calib_t *c, const char *name, const char *note, int64_t n_ranks, rs_dtype_t dtype,
                    rs_hw_t *hw);

#endif /* RS_CALIB_PROFILE_H */
