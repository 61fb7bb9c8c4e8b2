/* Host threads by the names the trace gives them. The PyTorch profiler (like every Chrome-trace writer)
 * records a thread_name metadata event per thread ("pt_autograd_0", "pin memory thread", or the Python
 * thread's name) and a thread_sort_index for the order its viewer shows them in; without them a thread is a
 * 19-digit id. A few events per thread: a small table beside the thread table, so that a thread named but
 * never busy adds nothing to the split. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_private.h"
#include "util/hindex.h"
#include "util/text.h"

static bool is_named(ns_str s, const char *name)
{
	size_t n = strlen(name);

	return s.len == n && memcmp(s.ptr, name, n) == 0;
}

static thread_label *find(const ns_trace_split *s, int64_t pid, int64_t tid)
{
	uint64_t hash = ns_hash_i64_pair(pid, tid);
	size_t slot;
	uint32_t id;

	if (s->label_index.nslots == 0)
		return NULL;
	slot = ns_hindex_home(&s->label_index, hash);
	while (ns_hindex_probe(&s->label_index, hash, &slot, &id))
		if (s->label[id].pid == pid && s->label[id].tid == tid)
			return &s->label[id];
	return NULL;
}

const thread_label *split_label_find(const ns_trace_split *s, int64_t pid, int64_t tid)
{
	return find(s, pid, tid);
}

/* The label of (pid, tid), made when absent; NULL past NS_SPLIT_MAX_THREADS labels (ignored, not an error).
 */
static ns_status label_of(ns_trace_split *s, int64_t pid, int64_t tid, thread_label **out, ns_error *err)
{
	thread_label *l = find(s, pid, tid);

	*out = l;
	if (l != NULL || s->nlabels >= NS_SPLIT_MAX_THREADS)
		return NS_OK;
	if (s->label_index.nslots == 0 && !ns_hindex_init(&s->label_index, 64))
		return split_oom(err);
	void *grown = ns_grow(s->label, &s->caplabels, s->nlabels + 1, sizeof(*s->label));
	if (grown == NULL)
		return split_oom(err);
	s->label = grown;
	l = &s->label[s->nlabels];
	memset(l, 0, sizeof(*l));
	l->pid = pid;
	l->tid = tid;
	if (!ns_hindex_add(&s->label_index, ns_hash_i64_pair(pid, tid), (uint32_t)s->nlabels))
		return split_oom(err);
	s->nlabels++;
	*out = l;
	return NS_OK;
}

/* The name as UTF-8 without JSON escapes, cut between characters to the label's size. */
static ns_status set_name(thread_label *l, ns_str raw, ns_error *err)
{
	char *plain = malloc(raw.len + 1);
	size_t n;

	if (plain == NULL)
		return split_oom(err);
	n = ns_json_unescape(raw.ptr, raw.len, plain);
	ns_utf8_clean(plain, n, l->name, sizeof(l->name));
	free(plain);
	return NS_OK;
}

ns_status split_label_event(ns_trace_split *s, const ns_trace_event *ev, ns_error *err)
{
	bool named = is_named(ev->name, "thread_name") && ev->meta_name.ptr != NULL;
	bool sorted = is_named(ev->name, "thread_sort_index") && ev->has_sort_index;
	thread_label *l;
	ns_status st;

	if (!named && !sorted)
		return NS_OK;
	if ((st = label_of(s, ev->pid, ev->tid, &l, err)) != NS_OK || l == NULL)
		return st;
	if (sorted) {
		l->has_sort_index = true;
		l->sort_index = ev->sort_index;
		return NS_OK;
	}
	return set_name(l, ev->meta_name, err);
}

void split_labels_free(ns_trace_split *s)
{
	free(s->label);
	if (s->label_index.nslots > 0)
		ns_hindex_free(&s->label_index);
}
