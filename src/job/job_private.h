/* The job module's shared helpers (not installed). */
#ifndef NEXTSTEP_JOB_PRIVATE_H
#define NEXTSTEP_JOB_PRIVATE_H

#include "nextstep/job.h"

#endif
