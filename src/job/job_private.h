/* The job module's shared helpers (not installed). */
#ifndef NEXTSTEP_JOB_PRIVATE_H
#define NEXTSTEP_JOB_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "nextstep/job.h"

/* Where rank number `rank` is in res->rank (sorted by rank): its index, or where it would go (res->nranks
 * past the last). Binary search: a job's ranks are looked up per collective. */
size_t job_rank_index(const ns_job_result *res, int64_t rank);
/* Whether the device kept a placed kernel class (ns_job_device.roof). */
bool job_device_placed(const ns_job_device *d);

#endif
