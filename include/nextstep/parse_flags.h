/* Profile buckets given as command-line flags (--compute 0.72, --idle 8%). */
#ifndef NEXTSTEP_PARSE_FLAGS_H
#define NEXTSTEP_PARSE_FLAGS_H

#include "nextstep/api.h"
#include "nextstep/error.h"
#include "nextstep/profile.h"

NS_BEGIN_DECLS

/* Sets one bucket from its flag value; a bucket given twice is an error. */
NS_API ns_status ns_parse_flag_bucket(ns_profile *p, ns_regime r, const char *value, ns_error *err);

NS_END_DECLS

#endif
