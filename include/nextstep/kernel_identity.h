/* What a GPU kernel is, read from its name: the function itself, not its return type, template arguments or
 * parameter list, and, for a generic launcher (cutlass::Kernel<T>, cutlass::Kernel2<T>,
 * cutlass::device_kernel<T>, flash::enable_sm90_or_later<T>, ck_tile::kentry<..., T, ...>), the kernel
 * template T it instantiates. Words deep in template arguments or parameter types ("gemm" in a functor's
 * namespace, "flash" in a traits class) are not part of the identity, so they cannot change a kernel's class.
 */
#ifndef NEXTSTEP_KERNEL_IDENTITY_H
#define NEXTSTEP_KERNEL_IDENTITY_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/kernel_identity.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stddef.h>

#include "nextstep/api.h"

NS_BEGIN_DECLS

#define NS_KERNEL_IDENTITY_MAX                                                                               \
	1024 /* bytes of a qualified identity kept; longer ones are cut (prefixes survive) */
#define NS_KERNEL_LAUNCHER_HOPS 4 /* launchers unwrapped inside one another at most */

typedef struct {
	/* namespaces kept, template arguments and parameters dropped: "flash::FlashAttnFwdSm90" */
	char qualified[NS_KERNEL_IDENTITY_MAX];
	size_t base; /* offset in qualified of the function's own name: "FlashAttnFwdSm90" */
} ns_kernel_identity;

/* The identity of a NUL-terminated kernel name, demangled ("void ns::k<T>(int)") or Itanium-mangled
 * ("_ZN..."). Never fails: a name it cannot take apart is its own identity. Reads the first
 * NS_KERNEL_IDENTITY_MAX bytes after the return type (less a trailing parameter list), as the rules do. */
NS_STATIC_API void ns_kernel_identity_of(const char *name, ns_kernel_identity *out);

/* The function's own name, without namespaces. */
static inline const char *ns_kernel_identity_base(const ns_kernel_identity *id)
{
	return id->qualified + id->base;
}

/* The part of name worth showing: without the "void " return type and the parameter list, with namespaces
 * (including "(anonymous namespace)") and template arguments kept. Sets *start and returns the length. */
NS_STATIC_API size_t ns_kernel_display_span(const char *name, size_t *start);

NS_END_DECLS

#endif
