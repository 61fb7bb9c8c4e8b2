#include "nextstep/regime.h"

#include <string.h>

typedef struct {
	const char *name;
	const char *bound_word;
} regime_names;

/* Generic idle is not a "bound": the GPU simply had nothing to do, so it reads "idle". */
static const regime_names names[REGIME_COUNT] = {
    [REGIME_COMPUTE] = {"compute", "compute-bound"},
    [REGIME_MEMORY] = {"memory", "memory-bound"},
    [REGIME_COMM] = {"comm", "comm-bound"},
    [REGIME_DATALOADER] = {"dataloader", "dataloader-bound"},
    [REGIME_OVERHEAD] = {"overhead", "overhead-bound"},
    [REGIME_IDLE] = {"idle", "idle"},
};

const char *regime_name(ns_regime r)
{
	return (unsigned)r < REGIME_COUNT ? names[r].name : NULL;
}

const char *regime_bound_word(ns_regime r)
{
	return (unsigned)r < REGIME_COUNT ? names[r].bound_word : NULL;
}

bool regime_from_name(const char *name, ns_regime *out)
{
	for (int r = 0; r < REGIME_COUNT; r++) {
		if (strcmp(name, names[r].name) == 0) {
			*out = (ns_regime)r;
			return true;
		}
	}
	return false;
}
