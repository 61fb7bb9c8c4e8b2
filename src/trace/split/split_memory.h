/* profile_memory's "[memory]" events, collected while reading and summed per device at the end
 * (split_memory.c): the peaks as the trace goes, and the samples to find each step's floor once the steps are
 * known. */
#ifndef NEXTSTEP_SPLIT_MEMORY_H
#define NEXTSTEP_SPLIT_MEMORY_H

#include "nextstep/error.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_split.h"

typedef struct split_memtrack split_memtrack;

/* Whether ev is a "[memory]" instant event (the caller has checked ph == 'i'). */
bool split_memory_is_event(const ns_trace_event *ev);
/* Records one; *t is created on the first. Events of the CPU (Device Type 0) and without a device are
 * counted apart and otherwise ignored. NS_ERR_NOMEM only. */
ns_status split_memory_note(split_memtrack **t, const ns_trace_event *ev, ns_error *err);
/* The summary of device d of the result, inside its counted steps; device_bytes from meta. */
void split_memory_summarise(const split_memtrack *t, const ns_trace_meta *meta, ns_split_device *d,
                            bool keep_warmup);
void split_memory_free(split_memtrack *t);

#endif
