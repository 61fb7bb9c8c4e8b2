/* Causes: the named parts of a bucket. Each of overhead, idle, memory and comm is partitioned into causes
 * (every nanosecond of the bucket in exactly one cause); compute and dataloader are not split. The route
 * table gives each cause its own fix (routes.h). */
#ifndef NEXTSTEP_CAUSE_H
#define NEXTSTEP_CAUSE_H

#include <stdbool.h>

#include "nextstep/api.h"
#include "nextstep/regime.h"

NS_BEGIN_DECLS

typedef enum {
	NS_CAUSE_LAUNCH,       /* overhead: ops and launch calls on the thread that records the steps */
	NS_CAUSE_HOST_THREADS, /* overhead: ops on the process's other threads (autograd, hooks, optimizer) */
	NS_CAUSE_SYNC,         /* overhead: the host blocked in a synchronizing call or a blocking copy */
	NS_CAUSE_INIT,         /* overhead: allocator, context, module, stream/event set-up */
	NS_CAUSE_HOST_GAP,     /* idle: no recorded host or device activity */
	NS_CAUSE_SYNC_WAIT,    /* idle: a *Synchronize call outside any op, the device idle too */
	NS_CAUSE_TRANSFER,     /* memory: memcpy/memset with no memory kernel running */
	NS_CAUSE_KERNELS,      /* memory: bandwidth-bound kernels */
	NS_CAUSE_EXPOSED,      /* comm: collective kernels running alone */
	NS_CAUSE_HOST_COMM,    /* comm: host-side collectives (gloo) with the device idle */
	/* Added after the others, so that tables in this order (tests, scripts) keep their meaning. */
	NS_CAUSE_OPTIMIZER, /* idle: inside the optimizer's step marker, no op recorded (its host-side work)
	                     */
	/* A job (several ranks, src/job/) splits exposed into these two; a single trace never has them. */
	NS_CAUSE_WAIT,          /* comm: inside a collective before the last rank started it */
	NS_CAUSE_COMM_TRANSFER, /* comm: the rest of the exposed collective time */
	NS_CAUSE_COUNT
} ns_cause;

/* "launch", "host_threads", ...; NULL for an out-of-range value. */
NS_API const char *ns_cause_name(ns_cause c);
/* Causes only a job fills (wait, transfer of comm): reports of one trace leave them out. */
NS_API bool ns_cause_job_only(ns_cause c);
/* The bucket a cause belongs to. */
NS_API ns_regime ns_cause_bucket(ns_cause c);
/* "overhead.sync" -> NS_CAUSE_SYNC (the key a playbook uses); false when unknown. */
NS_API bool ns_cause_from_key(const char *key, ns_cause *out);
/* The same key written into buf ("overhead.sync"). */
NS_API void ns_cause_key(ns_cause c, char *buf, unsigned size);

NS_END_DECLS

#endif
