#include "nextstep/cause.h"

#include <stdio.h>
#include <string.h>

typedef struct {
	const char *name;
	ns_regime bucket;
} cause_row;

/* Grouped by bucket, in the order the report lists them; idle's optimizer, added later, after them. */
static const cause_row causes[CAUSE_COUNT] = {
    [CAUSE_LAUNCH] = {"launch", REGIME_OVERHEAD},
    [CAUSE_HOST_THREADS] = {"host_threads", REGIME_OVERHEAD},
    [CAUSE_SYNC] = {"sync", REGIME_OVERHEAD},
    [CAUSE_INIT] = {"init", REGIME_OVERHEAD},
    [CAUSE_HOST_GAP] = {"host_gap", REGIME_IDLE},
    [CAUSE_SYNC_WAIT] = {"sync_wait", REGIME_IDLE},
    [CAUSE_TRANSFER] = {"transfer", REGIME_MEMORY},
    [CAUSE_KERNELS] = {"kernels", REGIME_MEMORY},
    [CAUSE_EXPOSED] = {"exposed", REGIME_COMM},
    [CAUSE_HOST_COMM] = {"host", REGIME_COMM},
    [CAUSE_OPTIMIZER] = {"optimizer", REGIME_IDLE},
    [CAUSE_WAIT] = {"wait", REGIME_COMM},
    [CAUSE_COMM_TRANSFER] = {"transfer", REGIME_COMM},
};

bool cause_job_only(ns_cause c)
{
	return c == CAUSE_WAIT || c == CAUSE_COMM_TRANSFER;
}

const char *cause_name(ns_cause c)
{
	return (unsigned)c < CAUSE_COUNT ? causes[c].name : NULL;
}

ns_regime cause_bucket(ns_cause c)
{
	return (unsigned)c < CAUSE_COUNT ? causes[c].bucket : REGIME_COUNT;
}

void cause_key(ns_cause c, char *buf, unsigned size)
{
	snprintf(buf, size, "%s.%s", regime_name(cause_bucket(c)), cause_name(c));
}

bool cause_from_key(const char *key, ns_cause *out)
{
	char buf[64];
	const char *dot = strchr(key, '.');

	for (int c = 0; c < CAUSE_COUNT; c++) {
		/* a key is "bucket.cause": only the causes whose name ends it are formatted and compared */
		if (dot == NULL || strcmp(cause_name((ns_cause)c), dot + 1) != 0)
			continue;
		cause_key((ns_cause)c, buf, sizeof(buf));
		if (strcmp(buf, key) == 0) {
			*out = (ns_cause)c;
			return true;
		}
	}
	return false;
}
