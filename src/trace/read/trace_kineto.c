/* The Kineto (PyTorch profiler) schema: which top-level keys, event keys and args the reader takes, and how
 * each value becomes a field of ns_trace_event or ns_trace_meta; what a Kineto trace looks like to a sniffer.
 * The JSON itself is trace_scan.h's. */
#define _POSIX_C_SOURCE 200809L
#include "trace/read/trace_kineto.h"

#include <stdlib.h>

#include "trace/read/trace_read_private.h"
#include "util/text.h"

enum { EK_PH, EK_CAT, EK_NAME, EK_PID, EK_TID, EK_TS, EK_DUR, EK_ARGS };
static const name_entry event_keys[] = {
    ENTRY("ph", EK_PH),   ENTRY("cat", EK_CAT), ENTRY("name", EK_NAME), ENTRY("pid", EK_PID),
    ENTRY("tid", EK_TID), ENTRY("ts", EK_TS),   ENTRY("dur", EK_DUR),   ENTRY("args", EK_ARGS),
};

enum {
	AK_DEVICE,
	AK_STREAM,
	AK_CORRELATION,
	AK_EXTERNAL_ID,
	AK_FLOPS,
	AK_INPUT_DIMS,
	AK_INPUT_TYPES,
	AK_CONCRETE_INPUTS,
	AK_SEQ_NUMBER,
	AK_COLL_NAME,
	AK_COLL_PG,
	AK_COLL_PG_DESC,
	AK_COLL_DTYPE,
	AK_COLL_SEQ,
	AK_COLL_IN,
	AK_COLL_OUT,
	AK_META_NAME,
	AK_SORT_INDEX,
	AK_MEM_BYTES,
	AK_MEM_ALLOCATED,
	AK_MEM_RESERVED,
	AK_MEM_DEVICE_TYPE,
	AK_MEM_DEVICE_ID
};
static const name_entry arg_keys[] = {
    ENTRY("External id", AK_EXTERNAL_ID),
    ENTRY("correlation", AK_CORRELATION),
    ENTRY("device", AK_DEVICE),
    ENTRY("stream", AK_STREAM),
    ENTRY("external id", AK_EXTERNAL_ID), /* older profiler spelling */
    ENTRY("flops", AK_FLOPS),
    ENTRY("Input Dims", AK_INPUT_DIMS),
    ENTRY("Input type", AK_INPUT_TYPES),
    ENTRY("Concrete Inputs", AK_CONCRETE_INPUTS),
    ENTRY("Sequence number", AK_SEQ_NUMBER),
    /* collective metadata (the profiler's names, torch/csrc/profiler/util.h) */
    ENTRY("Collective name", AK_COLL_NAME),
    ENTRY("Process Group Name", AK_COLL_PG),
    ENTRY("Process Group Description", AK_COLL_PG_DESC),
    ENTRY("dtype", AK_COLL_DTYPE),
    ENTRY("Seq", AK_COLL_SEQ),
    ENTRY("In msg nelems", AK_COLL_IN),
    ENTRY("Out msg nelems", AK_COLL_OUT),
    /* metadata events (ph "M"): thread_name's and process_name's "name", thread_sort_index's "sort_index" */
    ENTRY("name", AK_META_NAME),
    ENTRY("sort_index", AK_SORT_INDEX),
    /* profile_memory's [memory] events (torch/csrc/profiler: the allocation's metadata), last so the
     * keys every kernel and op carries are matched first */
    ENTRY("Bytes", AK_MEM_BYTES),
    ENTRY("Total Allocated", AK_MEM_ALLOCATED),
    ENTRY("Total Reserved", AK_MEM_RESERVED),
    ENTRY("Device Type", AK_MEM_DEVICE_TYPE),
    ENTRY("Device Id", AK_MEM_DEVICE_ID),
};

enum { TK_TRACE_EVENTS, TK_DEVICES, TK_DISTRIBUTED };
static const name_entry top_keys[] = {
    ENTRY("traceEvents", TK_TRACE_EVENTS),
    ENTRY("deviceProperties", TK_DEVICES),
    ENTRY("distributedInfo", TK_DISTRIBUTED),
};

enum { DK_ID, DK_NAME, DK_TOTAL_MEM, DK_RANK, DK_WORLD_SIZE };
static const name_entry device_keys[] = {ENTRY("id", DK_ID), ENTRY("name", DK_NAME),
                                         ENTRY("totalGlobalMem", DK_TOTAL_MEM)};
static const name_entry distributed_keys[] = {ENTRY("rank", DK_RANK), ENTRY("world_size", DK_WORLD_SIZE)};

_Static_assert(COUNT(arg_keys) <= KEYS_MAX && COUNT(event_keys) <= KEYS_MAX, "a key table outgrew KEYS_MAX");

/* The categories' table is data of its own module: names too long for the index are left out here and
 * looked up in the table itself. */
static bool cat_index_build(key_index *x, const ns_trace_category_row **rows)
{
	size_t n;
	bool all = true;

	*rows = ns_trace_category_table(&n);
	scan_index_init(x);
	for (size_t i = n; i-- > 0;) {
		size_t len = strlen((*rows)[i].name);
		if (i < KEYS_MAX && len > 0 && len <= KEY_LEN_MAX)
			scan_index_add(x, i, (*rows)[i].name, len);
		else
			all = false;
	}
	return all;
}

/* FNV-1a over the id as written, with bit 62 set (and 63 clear) so it cannot meet a real small id. */
static int64_t string_id(const unsigned char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return (int64_t)((h & ~(3ull << 62)) | (1ull << 62));
}

/* pid/tid: a number as given, a string as its hash; any other value leaves the id absent (-1). */
static scan_rc id_value(reader *r, const unsigned char *p, int depth, const char *what, number_memo *m,
                        int64_t *out, const unsigned char **endp)
{
	if (*p == '"') {
		ns_str s;
		scan_rc rc = string_value(r, p, &s, endp);
		if (rc == SCAN_OK)
			*out = string_id((const unsigned char *)s.ptr, s.len);
		return rc;
	}
	if (starts_number(*p))
		return memo_number(r, m, p, what, out, endp);
	return scan_skip_value(r, p, depth, endp);
}

static scan_rc time_value(reader *r, const unsigned char *p, const char *what, int64_t *out, bool *has,
                          const unsigned char **endp)
{
	scan_rc rc;

	if (!starts_number(*p)) {
		if (p >= r->end)
			return SCAN_MORE;
		return scan_fail(r, p, NS_ERR_VALUE, "%s is not a number", what);
	}
	rc = number_value(r, p, 3, what, out, endp);
	if (rc == SCAN_OK)
		*has = true;
	return rc;
}

static scan_rc flops_value(reader *r, const unsigned char *p, double *out, const unsigned char **endp)
{
	char text[64];
	scan_rc rc = scan_number(r, p, endp);
	size_t n = (size_t)(*endp - p);

	if (rc != SCAN_OK)
		return rc;
	/* A number this long carries no more precision than a double holds; leave flops absent. */
	if (n < sizeof(text)) {
		memcpy(text, p, n);
		text[n] = '\0';
		*out = strtod(text, NULL);
	}
	return SCAN_OK;
}

/* Collective metadata and the sequence number never fail a read: a value of the wrong type or range is
 * skipped (left absent). */
static scan_rc coll_arg(reader *r, int id, const unsigned char *p, int depth, const unsigned char **endp,
                        ns_trace_event *ev)
{
	scan_rc rc;

	if (id == AK_COLL_NAME || id == AK_COLL_PG || id == AK_COLL_PG_DESC || id == AK_COLL_DTYPE) {
		ns_str *slot = id == AK_COLL_NAME      ? &ev->coll_name
		               : id == AK_COLL_PG      ? &ev->coll_pg
		               : id == AK_COLL_PG_DESC ? &ev->coll_pg_desc
		                                       : &ev->coll_dtype;
		if (*p == '"')
			return string_value(r, p, slot, endp);
		return scan_skip_value(r, p, depth, endp);
	}
	rc = scan_skip_value(r, p, depth, endp);
	if (rc == SCAN_OK && *p >= '0' && *p <= '9' && *endp - p <= 18) {
		int64_t v = 0;
		const unsigned char *q = p;
		while (q < *endp && *q >= '0' && *q <= '9')
			v = v * 10 + (*q++ - '0');
		if (q == *endp)
			*(id == AK_SEQ_NUMBER ? &ev->seq_number
			  : id == AK_COLL_SEQ ? &ev->coll_seq
			  : id == AK_COLL_IN  ? &ev->coll_in
			                      : &ev->coll_out) = v;
	}
	return rc;
}

/* [p, end) is a plain integer of at most 18 digits, with an optional '-': *v. */
static bool plain_integer(const unsigned char *p, const unsigned char *end, int64_t *v)
{
	const unsigned char *q = p + (*p == '-');
	int64_t n = 0;

	if (q >= end || end - q > 18)
		return false;
	while (q < end && is_digit(*q))
		n = n * 10 + (*q++ - '0');
	if (q != end)
		return false;
	*v = *p == '-' ? -n : n;
	return true;
}

/* A display order only: a value that is not a whole number of at most 18 digits is left absent, never an
 * error. */
static scan_rc sort_index_arg(reader *r, const unsigned char *p, int depth, const unsigned char **endp,
                              ns_trace_event *ev)
{
	scan_rc rc = scan_skip_value(r, p, depth, endp);

	if (rc == SCAN_OK && plain_integer(p, *endp, &ev->sort_index))
		ev->has_sort_index = true;
	return rc;
}

/* Memory metadata never fails a read either: anything but a plain integer of at most 18 digits is left absent
 * (INT64_MIN). */
static scan_rc mem_arg(reader *r, int id, const unsigned char *p, int depth, const unsigned char **endp,
                       ns_trace_event *ev)
{
	scan_rc rc = scan_skip_value(r, p, depth, endp);
	int64_t v;

	if (rc == SCAN_OK && plain_integer(p, *endp, &v))
		*(id == AK_MEM_BYTES         ? &ev->mem_bytes
		  : id == AK_MEM_ALLOCATED   ? &ev->mem_allocated
		  : id == AK_MEM_RESERVED    ? &ev->mem_reserved
		  : id == AK_MEM_DEVICE_TYPE ? &ev->mem_device_type
		                             : &ev->mem_device_id) = v;
	return rc;
}

SCAN_HOT scan_rc arg_member(reader *r, const unsigned char *key, size_t klen, const unsigned char *p,
                            int depth, const unsigned char **endp, void *obj)
{
	ns_trace_event *ev = obj;
	unsigned i = find_indexed(&r->arg_index, key, klen);
	const name_entry *k = &arg_keys[i - (i > 0)];
	int64_t *slot;
	scan_rc rc;

	if (i == 0)
		return quick_skip_number(p, endp) ? SCAN_OK : scan_skip_value(r, p, depth, endp);
	switch (k->id) {
	case AK_DEVICE:
	case AK_STREAM:
		if (!starts_number(*p))
			return scan_skip_value(r, p, depth, endp);
		return k->id == AK_DEVICE
		           ? memo_number(r, &r->memo[MEMO_DEVICE], p, k->name, &ev->device, endp)
		           : memo_number(r, &r->memo[MEMO_STREAM], p, k->name, &ev->stream, endp);
	case AK_CORRELATION:
		slot = &ev->correlation;
		break;
	case AK_EXTERNAL_ID:
		slot = &ev->external_id;
		break;
	case AK_FLOPS:
		if (starts_number(*p))
			return flops_value(r, p, &ev->flops, endp);
		return scan_skip_value(r, p, depth, endp);
	case AK_META_NAME:
		if (*p == '"')
			return string_value(r, p, &ev->meta_name, endp);
		return scan_skip_value(r, p, depth, endp);
	case AK_SORT_INDEX:
		return sort_index_arg(r, p, depth, endp, ev);
	case AK_SEQ_NUMBER:
	case AK_COLL_NAME:
	case AK_COLL_PG:
	case AK_COLL_PG_DESC:
	case AK_COLL_DTYPE:
	case AK_COLL_SEQ:
	case AK_COLL_IN:
	case AK_COLL_OUT:
		return coll_arg(r, k->id, p, depth, endp, ev);
	case AK_MEM_BYTES:
	case AK_MEM_ALLOCATED:
	case AK_MEM_RESERVED:
	case AK_MEM_DEVICE_TYPE:
	case AK_MEM_DEVICE_ID:
		return mem_arg(r, k->id, p, depth, endp, ev);
	default: /* AK_INPUT_DIMS, AK_INPUT_TYPES, AK_CONCRETE_INPUTS: kept as raw JSON text */
		rc = scan_skip_value(r, p, depth, endp);
		if (rc == SCAN_OK) {
			ns_str *raw = k->id == AK_INPUT_DIMS    ? &ev->input_dims
			              : k->id == AK_INPUT_TYPES ? &ev->input_types
			                                        : &ev->concrete_inputs;
			raw->ptr = (const char *)p;
			raw->len = (size_t)(*endp - p);
		}
		return rc;
	}
	if (starts_number(*p))
		return number_value(r, p, 0, k->name, slot, endp);
	return scan_skip_value(r, p, depth, endp);
}

static const ns_trace_category_row *category_of(const reader *r, ns_str s)
{
	unsigned i = find_indexed(&r->cat_index, (const unsigned char *)s.ptr, s.len);

	if (i > 0)
		return &r->cats[i - 1];
	return r->cats_partial ? ns_trace_category_find(s.ptr, s.len) : NULL;
}

SCAN_HOT scan_rc event_member(reader *r, const unsigned char *key, size_t klen, const unsigned char *p,
                              int depth, const unsigned char **endp, void *obj)
{
	ns_trace_event *ev = obj;
	unsigned i = find_indexed(&r->event_index, key, klen);
	const name_entry *k = &event_keys[i - (i > 0)];
	ns_str s;
	scan_rc rc;

	if (i == 0)
		return scan_skip_value(r, p, depth, endp);
	switch (k->id) {
	case EK_PH:
	case EK_CAT:
	case EK_NAME:
		if (*p != '"')
			return scan_skip_value(r, p, depth, endp);
		if ((rc = string_value(r, p, &s, endp)) != SCAN_OK)
			return rc;
		if (k->id == EK_PH) {
			ev->ph = s.len > 0 ? s.ptr[0] : 0;
		} else if (k->id == EK_CAT) {
			const ns_trace_category_row *c = category_of(r, s);
			ev->cat_raw = s;
			ev->cat = c != NULL ? c->cat : NS_TCAT_OTHER;
		} else {
			ev->name = s;
		}
		return SCAN_OK;
	case EK_PID:
		return id_value(r, p, depth, "pid", &r->memo[MEMO_PID], &ev->pid, endp);
	case EK_TID:
		return id_value(r, p, depth, "tid", &r->memo[MEMO_TID], &ev->tid, endp);
	case EK_TS:
		return time_value(r, p, "ts", &ev->ts_ns, &ev->has_ts, endp);
	case EK_DUR:
		rc = time_value(r, p, "dur", &ev->dur_ns, &ev->has_dur, endp);
		if (rc == SCAN_OK && ev->dur_ns < 0)
			return scan_fail(r, p, NS_ERR_VALUE, "negative dur");
		return rc;
	default: /* EK_ARGS */
		if (*p == '{')
			return scan_object(r, p, depth + 1, arg_member, ev, endp);
		return scan_skip_value(r, p, depth, endp);
	}
}

static void event_init(ns_trace_event *ev, long index, long long offset)
{
	memset(ev, 0, sizeof(*ev));
	ev->index = index;
	ev->offset = offset;
	ev->pid = ev->tid = -1;
	ev->device = ev->stream = ev->correlation = ev->external_id = -1;
	ev->coll_seq = ev->coll_in = ev->coll_out = -1;
	ev->seq_number = -1;
	ev->mem_bytes = ev->mem_allocated = ev->mem_reserved = ev->mem_device_type = ev->mem_device_id =
	    INT64_MIN;
	ev->flops = -1;
}

/* Depth 1 is the top-level object, 2 traceEvents, 3 an event, 4 its args. */
scan_rc kineto_parse_event(reader *r, const unsigned char *p, ns_trace_event *ev, const unsigned char **endp)
{
	event_init(ev, r->index, r->base + (p - r->buf));
	if (*p != '{')
		return scan_fail(r, p, NS_ERR_VALUE, "event is not an object");
	return scan_object(r, p, 3, event_member, ev, endp);
}

scan_rc kineto_deliver_event(reader *r, const ns_trace_event *ev)
{
	ns_status st;

	/* A complete event is a span: without its length every split of it would be a guess (it used to make
	 * a trace of them "compute-bound (0%)"). */
	if (!kineto_event_whole(ev)) {
		ns_error_set(r->err, NS_ERR_VALUE, "complete event (\"ph\": \"X\") without \"dur\"");
		r->status =
		    ns_error_at(r->err, -1, ev->offset, ev->index); /* p may have moved with a refill */
		return SCAN_FAIL;
	}
	r->meta->events++;
	if (r->fn != NULL && (st = r->fn(ev, r->ctx, r->err)) != NS_OK) {
		/* The consumer's complaint is about this event unless it said where. */
		if (r->err->offset < 0 && r->err->index < 0)
			ns_error_at(r->err, r->err->line, ev->offset, ev->index);
		r->status = st;
		return SCAN_FAIL;
	}
	return SCAN_OK;
}

scan_rc kineto_read_event(reader *r, const unsigned char *p, const unsigned char **endp)
{
	ns_trace_event ev;
	scan_rc rc = kineto_parse_event(r, p, &ev, endp);

	return rc == SCAN_OK ? kineto_deliver_event(r, &ev) : rc;
}

/* The name as shown: JSON escapes resolved and bytes that are not UTF-8 replaced (U+FFFD), cut between
 * characters. An escape takes at most 6 bytes for one output byte, so a prefix of the raw text that long is
 * enough to fill out. */
static void device_name_copy(char *out, size_t size, ns_str s)
{
	char plain[NS_TRACE_DEVICE_NAME_MAX * 6 + 16];
	size_t raw = s.len < sizeof(plain) - 1 ? s.len : sizeof(plain) - 1;
	size_t n = ns_json_unescape(s.ptr, raw, plain);

	ns_utf8_clean(plain, n, out, size);
}

static scan_rc device_member(reader *r, const unsigned char *key, size_t klen, const unsigned char *p,
                             int depth, const unsigned char **endp, void *obj)
{
	ns_trace_device *dev = obj;
	const name_entry *k = scan_find_name(device_keys, COUNT(device_keys), key, klen);

	if (k != NULL && k->id == DK_ID && starts_number(*p))
		return number_value(r, p, 0, "device id", &dev->id, endp);
	if (k != NULL && k->id == DK_TOTAL_MEM && is_digit(*p)) {
		scan_rc rc = scan_skip_value(r, p, depth, endp);
		int64_t v = 0;
		const unsigned char *q = p;
		if (rc != SCAN_OK || *endp - p > 18)
			return rc;
		while (q < *endp && is_digit(*q))
			v = v * 10 + (*q++ - '0');
		if (q == *endp) /* a plain integer, else left unknown */
			dev->total_mem = v;
		return rc;
	}
	if (k != NULL && k->id == DK_NAME && *p == '"') {
		ns_str s;
		scan_rc rc = string_value(r, p, &s, endp);
		if (rc != SCAN_OK)
			return rc;
		device_name_copy(dev->name, sizeof(dev->name), s);
		return SCAN_OK;
	}
	return scan_skip_value(r, p, depth, endp);
}

/* deviceProperties: an array of {"id", "name", ...}; anything else is skipped (but must be valid JSON). */
static scan_rc read_devices(reader *r, const unsigned char *p, const unsigned char **endp)
{
	ns_trace_meta *m = r->meta;
	scan_rc rc;

	m->ndevices = 0;
	if (*p != '[')
		return scan_skip_value(r, p, 1, endp);
	p = skip_ws(p + 1);
	if (*p == ']') {
		*endp = p + 1;
		return SCAN_OK;
	}
	for (;;) {
		if (*p == '{') {
			ns_trace_device dev = {.id = -1};
			rc = scan_object(r, p, 3, device_member, &dev, &p);
			if (rc == SCAN_OK && m->ndevices < NS_TRACE_MAX_DEVICES)
				m->devices[m->ndevices++] = dev;
		} else {
			rc = scan_skip_value(r, p, 2, &p);
		}
		if (rc != SCAN_OK)
			return rc;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == ']') {
			*endp = p + 1;
			return SCAN_OK;
		}
		return scan_more_or_fail(r, p, "expected ',' or ']' in an array");
	}
}

static scan_rc distributed_member(reader *r, const unsigned char *key, size_t klen, const unsigned char *p,
                                  int depth, const unsigned char **endp, void *obj)
{
	ns_trace_meta *m = obj;
	const name_entry *k = scan_find_name(distributed_keys, COUNT(distributed_keys), key, klen);
	int64_t v;
	scan_rc rc;

	if (k == NULL || !starts_number(*p))
		return scan_skip_value(r, p, depth, endp);
	if ((rc = number_value(r, p, 0, k->name, &v, endp)) != SCAN_OK)
		return rc;
	if (k->id == DK_RANK) {
		m->rank = v;
		m->has_rank = true;
	} else {
		m->world_size = v;
	}
	return SCAN_OK;
}

static scan_rc read_distributed(reader *r, const unsigned char *p, const unsigned char **endp)
{
	if (*p == '{')
		return scan_object(r, p, 2, distributed_member, r->meta, endp);
	return scan_skip_value(r, p, 1, endp);
}

/* One top-level member; for traceEvents only up to its '[' (the events are read one step each). */
scan_rc kineto_read_member(reader *r, const unsigned char *p, const unsigned char **endp)
{
	const unsigned char *key = p + 1, *kend = key;
	const name_entry *k;
	scan_rc rc;

	if (*p != '"')
		return scan_fail(r, p, NS_ERR_SYNTAX, "expected a string key in the top-level object");
	if ((rc = scan_string(r, key, &kend)) != SCAN_OK)
		return rc;
	p = skip_ws(kend);
	if (*p != ':')
		return scan_more_or_fail(r, p, "expected ':' after a key");
	p = skip_ws(p + 1);
	k = scan_find_name(top_keys, COUNT(top_keys), key, (size_t)(kend - 1 - key));
	switch (k != NULL ? k->id : -1) {
	case TK_TRACE_EVENTS:
		if (r->seen_events)
			return scan_fail(r, key - 1, NS_ERR_KEY, "duplicate traceEvents");
		if (*p != '[') {
			if (p >= r->end)
				return SCAN_MORE;
			return scan_fail(r, p, NS_ERR_VALUE, "traceEvents is not an array");
		}
		r->seen_events = true;
		r->state = ST_FIRST_EVENT;
		*endp = p + 1;
		return SCAN_OK;
	case TK_DEVICES:
		rc = read_devices(r, p, endp);
		break;
	case TK_DISTRIBUTED:
		rc = read_distributed(r, p, endp);
		break;
	default:
		rc = scan_skip_value(r, p, 1, endp);
		break;
	}
	if (rc == SCAN_OK)
		r->state = ST_AFTER_MEMBER;
	return rc;
}

void kineto_index_build(reader *r)
{
	scan_index_build(&r->event_index, event_keys, COUNT(event_keys));
	scan_index_build(&r->arg_index, arg_keys, COUNT(arg_keys));
	r->cats_partial = !cat_index_build(&r->cat_index, &r->cats);
}

/* Top-level keys that only a Chrome/Kineto trace starts with. */
static const char *const trace_first_keys[] = {
    "traceEvents",     "schemaVersion",       "deviceProperties", "distributedInfo",
    "displayTimeUnit", "baseTimeNanoseconds", "traceName",        "otherData",
};

bool trace_looks_like_object(const char *key, size_t len)
{
	for (size_t k = 0; k < COUNT(trace_first_keys); k++)
		if (strlen(trace_first_keys[k]) == len && memcmp(key, trace_first_keys[k], len) == 0)
			return true;
	return false;
}

bool trace_looks_like_array(const unsigned char *head, size_t from, size_t len)
{
	static const char key[] = "\"ph\"";

	for (size_t i = from; i + sizeof(key) - 1 <= len; i++) {
		size_t j = i + sizeof(key) - 1;
		if (memcmp(head + i, key, sizeof(key) - 1) != 0 || (i > 0 && head[i - 1] == '\\'))
			continue;
		while (j < len && strchr(" \t\r\n", head[j]) != NULL && head[j] != '\0')
			j++;
		if (j < len && head[j] == ':')
			return true;
	}
	return false;
}
