/* How libnextstep's declarations are marked. Every public header includes this one.
 *
 * Two tiers (nextstep/nextstep.h says which header is in which):
 *   NS_API         the stable API: exported by libnextstep.so, its signatures and the layouts of the structs
 *                  it takes change only with the library's SOVERSION.
 *   NS_STATIC_API  the unstable tier, declared only where NEXTSTEP_STATIC_LINKING_ONLY is defined: in
 *                  libnextstep.a and hidden in libnextstep.so, since its structs' layouts change between
 *                  any two releases. A program using it links the static library of the exact version.
 * The library is built with -fvisibility=hidden, so a function the .so exports is one marked NS_API here:
 * the compiler, not a list, decides (tests/install/exports.sh checks the result). */
#ifndef NEXTSTEP_API_H
#define NEXTSTEP_API_H

#if defined(__GNUC__) || defined(__clang__)
#define NS_API        __attribute__((visibility("default")))
#define NS_STATIC_API __attribute__((visibility("hidden")))
#else
#define NS_API
#define NS_STATIC_API
#endif

/* Around each header's declarations: C linkage for C++ programs. */
#ifdef __cplusplus
#define NS_BEGIN_DECLS extern "C" {
#define NS_END_DECLS   }
#else
#define NS_BEGIN_DECLS
#define NS_END_DECLS
#endif

#endif
