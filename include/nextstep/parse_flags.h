/* Profile buckets given as command-line flags (--compute 0.72, --idle 8%). */
#ifndef NEXTSTEP_PARSE_FLAGS_H
#define NEXTSTEP_PARSE_FLAGS_H

#include "nextstep/error.h"
#include "nextstep/profile.h"

/* Sets one bucket from its flag value; a bucket given twice is an error. */
ns_status parse_flag_bucket(ns_profile *p, ns_regime r, const char *value, ns_error *err);

#endif
