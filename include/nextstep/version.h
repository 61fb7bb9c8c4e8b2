/* libnextstep's release version: the macros are the headers' (compile time), ns_version() the library's that
 * a program runs with. CMake's project() version must equal them (CMakeLists.txt checks). */
#ifndef NEXTSTEP_VERSION_H
#define NEXTSTEP_VERSION_H

#include "nextstep/api.h"

NS_BEGIN_DECLS

#define NS_VERSION_MAJOR 1
#define NS_VERSION_MINOR 0
#define NS_VERSION_PATCH 0
/* 1.2.3 is 10203: compare with ns_version(). */
#define NS_VERSION_NUMBER (NS_VERSION_MAJOR * 10000 + NS_VERSION_MINOR * 100 + NS_VERSION_PATCH)

#define NS_VERSION_QUOTE_(x) #x
#define NS_VERSION_QUOTE(x)  NS_VERSION_QUOTE_(x)
/* "1.2.3" */
#define NS_VERSION_STRING                                                                                    \
	NS_VERSION_QUOTE(NS_VERSION_MAJOR)                                                                   \
	"." NS_VERSION_QUOTE(NS_VERSION_MINOR) "." NS_VERSION_QUOTE(NS_VERSION_PATCH)

/* NS_VERSION_NUMBER of the library the program runs with (it may be newer than the headers it was built
 * with). */
NS_API unsigned ns_version(void);
/* NS_VERSION_STRING of the library the program runs with. */
NS_API const char *ns_version_string(void);

NS_END_DECLS

#endif
