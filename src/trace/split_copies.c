/* Blocking copies found by their GPU record: a device-to-host copy into pageable memory makes even
 * cudaMemcpyAsync wait on the host until the data has landed (the driver stages it through a pinned buffer
 * and copies it on), so the call that launched it is the host blocked on the device (cause sync), not launch
 * work. The call's name cannot tell (the same cudaMemcpyAsync is asynchronous into pinned memory); the GPU
 * record's name can ("Memcpy DtoH (Device -> Pageable)"), and the correlation id links the two. */
#include <string.h>

#include "split_private.h"

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

ns_status split_copies_note_call(trace_split *s, int64_t corr, int64_t start, int64_t end, uint32_t thread,
                                 ns_error *err)
{
	SPLIT_PUSH(s->copy_call, s->ncopy_call, s->capcopy_call, err);
	s->copy_call[s->ncopy_call++] = (copy_call){corr, start, end, thread};
	return NS_OK;
}

ns_status split_copies_note_pageable(trace_split *s, int64_t corr, ns_error *err)
{
	SPLIT_PUSH(s->pageable_corr, s->npageable_corr, s->cappageable_corr, err);
	s->pageable_corr[s->npageable_corr++] = corr;
	return NS_OK;
}

ns_status split_copies_block(trace_split *s, ns_error *err)
{
	split_sort(s->pageable_corr, s->npageable_corr, sizeof(*s->pageable_corr), split_cmp_i64);
	for (size_t i = 0; i < s->ncopy_call && s->npageable_corr > 0; i++) {
		const copy_call *c = &s->copy_call[i];
		ns_status st;
		if (split_search(&c->corr, s->pageable_corr, s->npageable_corr, sizeof(c->corr),
		                 split_cmp_i64) == NULL)
			continue;
		st = split_span_add(&s->thread[c->thread].list[HK_BLOCK], c->start, c->end, err);
		if (st != NS_OK)
			return st;
	}
	return NS_OK;
}
