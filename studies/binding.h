/* binding.h - libringsim for callers in other languages (the Python package python/ringsim uses it
 * through ctypes; docs/python.md).
 */
#ifndef RS_BINDING_H
#define RS_BINDING_H

/* The version of the library this program runs with ("0.1.0"). Can't fail. */
const char *rs_version(void);

#endif /* RS_BINDING_H */
