#include "nextstep/regime.h"

#include <string.h>

typedef struct {
	const char *name;
	unsigned char len;
	const char *bound_word;
} regime_names;

#define NAME(s) s, sizeof(s) - 1

/* Generic idle is not a "bound": the GPU simply had nothing to do, so it reads "idle". */
static const regime_names names[NS_REGIME_COUNT] = {
    [NS_REGIME_COMPUTE] = {NAME("compute"), "compute-bound"},
    [NS_REGIME_MEMORY] = {NAME("memory"), "memory-bound"},
    [NS_REGIME_COMM] = {NAME("comm"), "comm-bound"},
    [NS_REGIME_DATALOADER] = {NAME("dataloader"), "dataloader-bound"},
    [NS_REGIME_OVERHEAD] = {NAME("overhead"), "overhead-bound"},
    [NS_REGIME_IDLE] = {NAME("idle"), "idle"},
};

const char *ns_regime_name(ns_regime r)
{
	return (unsigned)r < NS_REGIME_COUNT ? names[r].name : NULL;
}

const char *ns_regime_bound_word(ns_regime r)
{
	return (unsigned)r < NS_REGIME_COUNT ? names[r].bound_word : NULL;
}

bool ns_regime_from_text(const char *text, size_t n, ns_regime *out)
{
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		if (names[r].len == n && memcmp(text, names[r].name, n) == 0) {
			*out = (ns_regime)r;
			return true;
		}
	}
	return false;
}

bool ns_regime_from_name(const char *name, ns_regime *out)
{
	return ns_regime_from_text(name, strlen(name), out);
}
