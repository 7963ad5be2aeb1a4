/* binding.c - libringsim for callers in other languages (binding.h). */
#include "binding.h"

const char *rs_version(void) { return RINGSIM_VERSION; }
