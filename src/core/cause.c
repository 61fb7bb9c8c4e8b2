#include "nextstep/cause.h"

#include <stdio.h>
#include <string.h>

typedef struct {
	const char *name;
	ns_regime bucket;
} cause_row;

/* Grouped by bucket, in the order the report lists them; idle's optimizer, added later, after them. */
static const cause_row causes[NS_CAUSE_COUNT] = {
    [NS_CAUSE_LAUNCH] = {"launch", NS_REGIME_OVERHEAD},
    [NS_CAUSE_HOST_THREADS] = {"host_threads", NS_REGIME_OVERHEAD},
    [NS_CAUSE_SYNC] = {"sync", NS_REGIME_OVERHEAD},
    [NS_CAUSE_INIT] = {"init", NS_REGIME_OVERHEAD},
    [NS_CAUSE_HOST_GAP] = {"host_gap", NS_REGIME_IDLE},
    [NS_CAUSE_SYNC_WAIT] = {"sync_wait", NS_REGIME_IDLE},
    [NS_CAUSE_TRANSFER] = {"transfer", NS_REGIME_MEMORY},
    [NS_CAUSE_KERNELS] = {"kernels", NS_REGIME_MEMORY},
    [NS_CAUSE_EXPOSED] = {"exposed", NS_REGIME_COMM},
    [NS_CAUSE_HOST_COMM] = {"host", NS_REGIME_COMM},
    [NS_CAUSE_OPTIMIZER] = {"optimizer", NS_REGIME_IDLE},
    [NS_CAUSE_WAIT] = {"wait", NS_REGIME_COMM},
    [NS_CAUSE_COMM_TRANSFER] = {"transfer", NS_REGIME_COMM},
};

bool ns_cause_job_only(ns_cause c)
{
	return c == NS_CAUSE_WAIT || c == NS_CAUSE_COMM_TRANSFER;
}

const char *ns_cause_name(ns_cause c)
{
	return (unsigned)c < NS_CAUSE_COUNT ? causes[c].name : NULL;
}

ns_regime ns_cause_bucket(ns_cause c)
{
	return (unsigned)c < NS_CAUSE_COUNT ? causes[c].bucket : NS_REGIME_COUNT;
}

void ns_cause_key(ns_cause c, char *buf, unsigned size)
{
	snprintf(buf, size, "%s.%s", ns_regime_name(ns_cause_bucket(c)), ns_cause_name(c));
}

bool ns_cause_from_key(const char *key, ns_cause *out)
{
	char buf[64];
	const char *dot = strchr(key, '.');

	for (int c = 0; c < NS_CAUSE_COUNT; c++) {
		/* a key is "bucket.cause": only the causes whose name ends it are formatted and compared */
		if (dot == NULL || strcmp(ns_cause_name((ns_cause)c), dot + 1) != 0)
			continue;
		ns_cause_key((ns_cause)c, buf, sizeof(buf));
		if (strcmp(buf, key) == 0) {
			*out = (ns_cause)c;
			return true;
		}
	}
	return false;
}
