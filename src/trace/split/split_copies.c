/* Blocking copies found by their GPU record: a device-to-host copy into pageable memory makes even
 * cudaMemcpyAsync wait on the host until the data has landed (the driver stages it through a pinned buffer
 * and copies it on), so the call that launched it is the host blocked on the device (cause sync), not launch
 * work. The call's name cannot tell (the same cudaMemcpyAsync is asynchronous into pinned memory); the GPU
 * record's name can ("Memcpy DtoH (Device -> Pageable)"), and the correlation id links the two. */
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_private.h"

static bool contains(ns_str s, const char *lit)
{
	size_t n = strlen(lit);

	for (size_t i = 0; i + n <= s.len; i++)
		if (memcmp(s.ptr + i, lit, n) == 0)
			return true;
	return false;
}

bool split_is_pageable_dtoh(ns_str name)
{
	return contains(name, "DtoH") && contains(name, "Pageable");
}

ns_status split_copies_note_call(ns_trace_split *s, int64_t corr, int64_t end, ns_error *err)
{
	void *grown = ns_grow(s->copy_call, &s->capcopy_call, s->ncopy_call + 1, sizeof(*s->copy_call));
	if (grown == NULL)
		return split_oom(err);
	s->copy_call = grown;
	s->copy_call[s->ncopy_call++] = (copy_call){corr, end};
	return NS_OK;
}

ns_status split_copies_note_pageable(ns_trace_split *s, int64_t corr, ns_error *err)
{
	void *grown =
	    ns_grow(s->pageable_corr, &s->cappageable_corr, s->npageable_corr + 1, sizeof(*s->pageable_corr));
	if (grown == NULL)
		return split_oom(err);
	s->pageable_corr = grown;
	s->pageable_corr[s->npageable_corr++] = corr;
	return NS_OK;
}

ns_status split_copies_block(ns_trace_split *s, ns_error *err)
{
	if (s->npageable_corr == 0)
		return NS_OK;
	ns_sort(s->pageable_corr, s->npageable_corr, sizeof(*s->pageable_corr), ns_cmp_i64);
	split_launches_sort(s);
	for (size_t i = 0; i < s->ncopy_call && s->npageable_corr > 0; i++) {
		const copy_call *c = &s->copy_call[i];
		launch_call l;
		ns_status st;
		if (ns_bsearch(&c->corr, s->pageable_corr, s->npageable_corr, sizeof(c->corr), ns_cmp_i64) ==
		        NULL ||
		    !split_launch_of(s, c->corr, &l))
			continue;
		st = split_span_add(&s->thread[l.thread].list[HK_BLOCK], l.ts, c->end, err);
		if (st != NS_OK)
			return st;
	}
	free(s->copy_call); /* read once: gone before the windows need memory */
	s->copy_call = NULL;
	s->ncopy_call = s->capcopy_call = 0;
	return NS_OK;
}
