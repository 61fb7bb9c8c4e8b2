/* Events in: what each event means for the split, and the compact records kept for it. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "nextstep/op_models.h"
#include "trace/split/split_hostops.h"
#include "trace/split/split_memory.h"
#include "trace/split/split_phases.h"
#include "trace/split/split_private.h"
#include "trace/split/split_python.h"
#include "util/satmath.h"
#include "util/text.h"

/* One record per GPU event: millions of them in a large trace. */
_Static_assert(sizeof(gpu_rec) == 24, "a GPU record is 24 bytes");
_Static_assert(GK_COUNT <= 4, "a GPU record's kind fits two bits");
_Static_assert(NS_TRACE_MAX_DEVICES < GPU_DEV_OUTSIDE, "a device index fits gpu_rec.dev");
_Static_assert(sizeof(launch_rec) == 16, "a launch record is 16 bytes");
_Static_assert(NS_SPLIT_MAX_THREADS <= UINT16_MAX + 1, "a thread index fits 16 bits of launch_rec.ts_thread");

ns_trace_split *ns_trace_split_new(const ns_kernel_rules *rules)
{
	ns_trace_split *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->rules = rules;
	s->quality.first_launch_ts = INT64_MAX;
	s->quality.first_launch_corr = INT64_MAX;
	s->quality.last_gpu_start = INT64_MIN;
	s->names = ns_kernel_names_new();
	s->py = split_python_new();
	s->marker_names = ns_kernel_names_new();
	s->phases = split_phases_new();
	if (s->names == NULL || s->py == NULL || s->marker_names == NULL || s->phases == NULL ||
	    !ns_hindex_init(&s->thread_index, 64)) {
		ns_trace_split_free(s);
		return NULL;
	}
	return s;
}

void ns_trace_split_free(ns_trace_split *s)
{
	if (s == NULL)
		return;
	if (!s->names_taken) {
		ns_kernel_names_free(s->names);
		ns_kernel_names_free(s->marker_names);
	}
	split_python_free(s->py);
	split_hostops_free(s->hostops);
	split_memory_free(s->mem);
	split_steps_free_marker(s);
	free(s->phase_marks.v);
	free(s->gpu_marks.v);
	split_phases_free(s->phases);
	free(s->gpu);
	free(s->wide_gpu);
	free(s->launch);
	free(s->wide_launch);
	free(s->steps);
	free(s->spill_dir);
	free(s->comm_span);
	free(s->capture);
	free(s->slow);
	free(s->stall);
	free(s->stall_spans.v);
	free(s->comm_ext);
	free(s->memgemm_ext);
	free(s->wide_ext);
	free(s->copy_call);
	free(s->pageable_corr);
	free(s->cmeta);
	free(s->fwd_coll);
	free(s->gemm_name);
	for (size_t i = 0; i < s->nthreads; i++) {
		for (int k = 0; k < HK_COUNT; k++)
			free(s->thread[i].list[k].v);
		free(s->thread[i].open);
	}
	free(s->thread);
	split_labels_free(s);
	split_quality_free(&s->quality);
	ns_hindex_free(&s->thread_index);
	free(s);
}

static const char STEP_PREFIX[] = "ProfilerStep#";
static const char DATALOADER_PREFIX[] = "enumerate(DataLoader)#";

/* The N of ProfilerStep#N: decimal digits and nothing else; -1 otherwise (#-1, #1e5, # 5, #0x10, #12abc read
 * as 0, 1 or 12 gave steps duplicate numbers; now their number is unknown, and the report says how many). */
static int64_t step_number(ns_str name)
{
	int64_t n = 0;
	size_t i = sizeof(STEP_PREFIX) - 1;

	if (i >= name.len)
		return -1;
	for (; i < name.len; i++) {
		if (name.ptr[i] < '0' || name.ptr[i] > '9' || n > (INT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (name.ptr[i] - '0');
	}
	return n;
}

/* A ProfilerStep# span (on the host, or on the GPU timeline) is a step of that source. */
static bool profiler_step(ns_str name, ns_step_source src, span_info *si)
{
	if (!split_str_starts(name, STEP_PREFIX))
		return false;
	si->kind = SK_STEP;
	si->ns_step_source = (uint8_t)src;
	si->step = step_number(name);
	return true;
}

/* A frame the Nsight Systems reader made of an OS runtime call or a CPU sample: nsys recorded it, not the
 * Python profiler. */
static bool is_export_frame(ns_str cat)
{
	return (cat.len == sizeof(NS_TRACE_CAT_OS_RUNTIME) - 1 &&
	        memcmp(cat.ptr, NS_TRACE_CAT_OS_RUNTIME, cat.len) == 0) ||
	       (cat.len == sizeof(NS_TRACE_CAT_CPU_SAMPLE) - 1 &&
	        memcmp(cat.ptr, NS_TRACE_CAT_CPU_SAMPLE, cat.len) == 0);
}

static bool is_host_category(ns_trace_category c)
{
	return c == NS_TCAT_CPU_OP || c == NS_TCAT_USER_ANNOTATION || c == NS_TCAT_RUNTIME ||
	       c == NS_TCAT_PYTHON || c == NS_TCAT_OTHER;
}

static ns_status derive_gpu(ns_trace_split *s, const ns_trace_event *ev, span_info *si, ns_error *err)
{
	ns_status st = ns_kernel_names_intern(s->names, ev->name.ptr, ev->name.len, &si->name_id, err);

	if (st != NS_OK)
		return st;
	s->quality.device_done = false;
	si->kind = SK_GPU;
	si->gpu_kind = ev->cat == NS_TCAT_KERNEL
	                   ? (uint8_t)ns_kernel_names_classify(s->names, si->name_id, s->rules)
	                   : (uint8_t)GK_TRANSFER;
	si->device = ev->device >= 0 ? ev->device : ev->pid;
	si->stream = ev->stream;
	if (ev->cat == NS_TCAT_MEMCPY && ev->correlation >= 0 && split_is_pageable_dtoh(ev->name))
		return split_copies_note_pageable(s, ev->correlation, err);
	return NS_OK;
}

/* The slot of a name in the rule caches below, from its length and its first and last 8 bytes (op names
 * share their first bytes, "aten::", and differ at the end): a collision only costs the rules' answer. */
static uint32_t name_hash(ns_str name)
{
	uint64_t a = 0, b = 0, h;

	if (name.len >= 8) {
		memcpy(&a, name.ptr, 8);
		memcpy(&b, name.ptr + name.len - 8, 8);
	} else {
		memcpy(&a, name.ptr, name.len);
	}
	h = (a * 0x9E3779B97F4A7C15u) ^ (b * 0xC2B2AE3D27D4EB4Fu) ^ name.len;
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* A runtime call: a *Synchronize is only a sync wait (not host work: the host is blocked, not busy); every
 * other call is host work, and may also be a blocking copy, a set-up call, or a launch to link. */
static void classify_runtime(ns_str name, uint8_t *host, bool *launch_name, uint8_t *launch_kind,
                             bool *launch_ex, uint8_t *capture, uint8_t *stall)
{
	*launch_name = false;
	*launch_kind = LK_QUIET;
	*launch_ex = false;
	*capture = split_capture_edge(name);
	*stall = split_is_alloc_call(name)     ? STALL_ALLOC
	         : split_is_trivial_call(name) ? STALL_TRIVIAL
	                                       : STALL_NONE;
	if (split_is_sync_call(name)) {
		*host = 1u << HK_SYNC;
		return;
	}
	*host = 1u << HK_CPU;
	if (split_is_blocking_call(name)) {
		*host |= 1u << HK_BLOCK;
	} else if (split_is_init_call(name)) {
		*host |= 1u << HK_INIT;
		if (*stall == STALL_NONE)
			*stall = STALL_SETUP;
	}
	*launch_name = split_is_launch(name);
	if (*launch_name) {
		*launch_kind = split_launch_kind(name);
		*launch_ex = split_is_launch_ex(name);
	}
}

static void derive_runtime(ns_trace_split *s, const ns_trace_event *ev, span_info *si)
{
	runtime_cache_slot *slot = NULL;
	uint8_t host, launch_kind, capture, stall;
	bool launch_name, launch_ex;

	if (ev->name.len > 0 && ev->name.len < RUNTIME_CACHE_NAME)
		slot = &s->runtime_cache[name_hash(ev->name) % RUNTIME_CACHE_SLOTS];
	if (slot != NULL && slot->len == ev->name.len &&
	    memcmp(slot->name, ev->name.ptr, ev->name.len) == 0) {
		host = slot->host;
		launch_name = slot->launch_name;
		launch_kind = slot->launch_kind;
		launch_ex = slot->launch_ex;
		capture = slot->capture;
		stall = slot->stall;
	} else {
		classify_runtime(ev->name, &host, &launch_name, &launch_kind, &launch_ex, &capture, &stall);
		if (slot != NULL) {
			memcpy(slot->name, ev->name.ptr, ev->name.len);
			slot->len = (uint8_t)ev->name.len;
			slot->host = host;
			slot->launch_name = launch_name;
			slot->launch_kind = launch_kind;
			slot->launch_ex = launch_ex;
			slot->capture = capture;
			slot->stall = stall;
		}
	}
	s->quality.device_done = false;
	/* MTIA's runtime names its calls otherwise; a call of it that carries a correlation id starts device
	 * work (docs/kernels.md) */
	if (!launch_name && !(host & (1u << HK_SYNC)) && ev->correlation >= 0 && ev->cat_raw.len == 12 &&
	    memcmp(ev->cat_raw.ptr, "mtia_runtime", 12) == 0) {
		launch_name = true;
		launch_kind = LK_KERNEL;
	}
	si->kind = SK_HOST;
	si->host = host;
	si->launches = launch_name && !(host & (1u << HK_SYNC)) && ev->correlation >= 0;
	si->launch_kind = launch_kind;
	si->launch_ex = launch_ex;
	si->capture = capture;
	si->stall = stall;
	s->quality.graph_launch_calls += si->launches && launch_kind == LK_GRAPH;
}

/* What a cpu_op's name says, by the rules of derive() below. */
static void op_traits_of(ns_str name, uint16_t *traits, uint8_t *pass)
{
	bool aten = split_str_starts(name, "aten::"); /* most ops; no collective is named aten:: */

	*pass = 0;
	if (split_str_starts(name, STEP_PREFIX)) {
		*traits = OP_STEP;
		return;
	}
	if (split_str_starts(name, DATALOADER_PREFIX)) {
		*traits = OP_DATALOADER;
		return;
	}
	if (split_is_host_collective(name)) {
		*traits = OP_HOST_COLL;
		return;
	}
	*traits = aten ? OP_ATEN : 0;
	if (aten && split_is_blocking_op(name))
		*traits |= OP_BLOCKING;
	if (aten && split_is_trivial_op(name))
		*traits |= OP_TRIVIAL;
	if (!aten && split_is_comm_op(name))
		*traits |= OP_COMM;
	if (!aten && split_is_compiled_marker(name))
		*traits |= OP_COMPILED;
	if (ns_op_family_of(name.ptr, name.len) == NS_OPF_GEMM)
		*traits |= OP_GEMM;
	*pass = aten ? 0 : split_phase_of(name);
}

static void op_traits(ns_trace_split *s, ns_str name, uint16_t *traits, uint8_t *pass)
{
	op_cache_slot *slot;

	if (name.len == 0 || name.len > OP_CACHE_NAME) {
		op_traits_of(name, traits, pass);
		return;
	}
	slot = &s->op_cache[name_hash(name) % OP_CACHE_SLOTS];
	if (slot->len == name.len && memcmp(slot->name, name.ptr, name.len) == 0) {
		*traits = slot->traits;
		*pass = slot->pass;
		return;
	}
	op_traits_of(name, traits, pass);
	if (*traits & OP_STEP)
		return;
	memcpy(slot->name, name.ptr, name.len);
	slot->len = (uint8_t)name.len;
	slot->traits = *traits;
	slot->pass = *pass;
}

/* A GEMM op whose recorded shapes make it memory-bound on every device: its External id is kept, and its
 * kernels count as memory (split_link.c). Only GEMM ops with shapes are parsed; without memory for the id
 * the op's kernels keep their class. */
static void note_memory_gemm(ns_trace_split *s, const ns_trace_event *ev)
{
	ns_op_record op = {0};
	double intensity;

	if (ev->external_id < 0 || ev->input_dims.len == 0)
		return;
	op.name = ev->name.ptr;
	op.name_len = ev->name.len;
	op.dims = ev->input_dims.ptr;
	op.dims_len = ev->input_dims.len;
	op.types = ev->input_types.ptr;
	op.types_len = ev->input_types.len;
	op.concrete = ev->concrete_inputs.ptr;
	op.concrete_len = ev->concrete_inputs.len;
	op.flops = ev->flops;
	if (!ns_op_gemm_memory_bound(&op, &intensity))
		return;
	int64_t *grown = ns_grow(s->memgemm_ext, &s->capmemgemm_ext, s->nmemgemm_ext + 1, sizeof(*grown));
	if (grown == NULL)
		return;
	s->memgemm_ext = grown;
	s->memgemm_ext[s->nmemgemm_ext++] = ev->external_id;
	if (intensity > s->memgemm_intensity)
		s->memgemm_intensity = intensity;
}

/* An op that may be a slow host op (split_hostops.h): long enough (a B event's length is not known yet), and
 * neither a marker of a pass or a compiled region (wrappers of the work, not work) nor an op that takes
 * microseconds (a long one is a stall: docs/trace.md, "Host stalls"). Its name is interned only then. */
static void note_host_op(ns_trace_split *s, const ns_trace_event *ev, uint8_t traits, span_info *si)
{
	if (si->pass != 0 || (traits & (OP_TRIVIAL | OP_COMPILED)) != 0 || ev->ph == 'E' ||
	    (ev->ph == 'X' && (!ev->has_dur || ev->dur_ns < SPLIT_HOSTOP_MIN_NS)))
		return;
	if (s->hostops == NULL && (s->hostops = split_hostops_new()) == NULL)
		return; /* out of memory: the op is not kept, the split goes on without it */
	si->host_op = split_hostops_name(s->hostops, ev->name, &si->op_id);
}

static void derive_cpu_op(ns_trace_split *s, const ns_trace_event *ev, span_info *si)
{
	uint16_t traits;
	uint8_t pass;

	op_traits(s, ev->name, &traits, &pass);
	if (traits & OP_STEP) {
		(void)profiler_step(ev->name, NS_STEP_SOURCE_PROFILER, si);
		return;
	}
	si->kind = SK_HOST;
	if (traits & OP_DATALOADER) {
		si->host = 1u << HK_DL;
		return;
	}
	if (traits & OP_HOST_COLL) {
		si->host = 1u << HK_COMM;
		return;
	}
	s->quality.cpu_ops++;
	s->quality.shaped_ops +=
	    ev->input_dims.len > 0; /* record_shapes: the profiler's own cost, judged later */
	si->host = 1u << HK_CPU;
	if (traits & OP_BLOCKING)
		si->host |= 1u << HK_BLOCK;
	si->comm_op = (traits & OP_COMM) != 0;
	si->stall = traits & OP_TRIVIAL ? STALL_TRIVIAL : STALL_NONE;
	if (traits & OP_COMPILED)
		s->compiled = true;
	if (traits & OP_GEMM)
		note_memory_gemm(s, ev);
	si->pass = pass;
	note_host_op(s, ev, traits, si);
	if (traits & OP_ATEN)
		split_phases_note_op(s->phases, ev->pid, ev->name);
	else if (si->pass == 1 + NS_PASS_OPTIMIZER)
		split_phases_note_optimizer(s->phases, ev->pid, ev->name, ev->has_dur ? ev->dur_ns : 0);
}

/* A span of a category the table does not know, on a device (args.device): an accelerator whose trace format
 * nextstep cannot read. Counted, and its category kept, so the report can say what it found. */
static void note_unknown_device(ns_trace_split *s, const ns_trace_event *ev)
{
	if (ev->device < 0 || (ev->ph != 'X' && ev->ph != 'B') || ev->cat_raw.len == 0)
		return;
	if (s->unknown_device_events++ == 0) /* shown in text and JSON: UTF-8, cut between characters */
		ns_utf8_clean(ev->cat_raw.ptr, ev->cat_raw.len, s->unknown_device_cat,
		              NS_SPLIT_UNKNOWN_CAT_MAX);
}

static ns_status derive(ns_trace_split *s, const ns_trace_event *ev, span_info *si, ns_error *err)
{
	ns_status st = NS_OK;

	memset(si, 0, sizeof(*si));
	si->kind = SK_NONE;
	si->corr = ev->correlation;
	si->ext = ev->external_id;
	if (ev->coll_name.len > 0 || ev->coll_pg.len > 0 || ev->coll_pg_desc.len > 0) {
		st = split_coll_note(s, ev, err);
		if (st != NS_OK)
			return st;
	}
	if (ev->cat == NS_TCAT_CPU_OP || ev->cat == NS_TCAT_USER_ANNOTATION)
		split_quality_op_id(&s->quality, ev->external_id);
	switch (ev->cat) {
	case NS_TCAT_KERNEL:
	case NS_TCAT_MEMCPY:
	case NS_TCAT_MEMSET:
		return derive_gpu(s, ev, si, err);
	case NS_TCAT_USER_ANNOTATION:
		if (split_steps_annotation(s, ev->name, si, &st, err))
			return st;
		if (profiler_step(ev->name, NS_STEP_SOURCE_PROFILER, si))
			return NS_OK;
		break;
	case NS_TCAT_CPU_OP:
		derive_cpu_op(s, ev, si);
		return NS_OK;
	case NS_TCAT_GPU_USER_ANNOTATION:
		(void)profiler_step(ev->name, NS_STEP_SOURCE_GPU_PROFILER, si);
		return NS_OK;
	case NS_TCAT_RUNTIME:
		derive_runtime(s, ev, si);
		return NS_OK;
	case NS_TCAT_PYTHON: { /* a frame, never host work: the ops inside it are */
		bool kept;
		if (!is_export_frame(ev->cat_raw))
			s->quality.python_events++; /* with_stack: the profiler's own cost, judged later */
		if (split_python_name(s->py, ev->name, &si->name_id, &kept, err) != NS_OK)
			return err->status;
		if (kept)
			si->kind = SK_PYTHON;
		return NS_OK;
	}
	case NS_TCAT_OTHER:
		split_quality_event(&s->quality, ev);
		note_unknown_device(s, ev);
		break;
	default:
		break;
	}
	if (!is_host_category(ev->cat))
		return NS_OK;
	if (split_str_starts(ev->name, DATALOADER_PREFIX)) {
		si->kind = SK_HOST;
		si->host = 1u << HK_DL;
	} else if (split_is_host_collective(ev->name)) {
		si->kind = SK_HOST;
		si->host = 1u << HK_COMM;
	} else if (ev->cat == NS_TCAT_USER_ANNOTATION) {
		if (split_is_compiled_marker(ev->name))
			s->compiled = true;
		si->pass = split_phase_of(ev->name);
		if (si->pass == 1 + NS_PASS_OPTIMIZER)
			split_phases_note_optimizer(s->phases, ev->pid, ev->name,
			                            ev->has_dur ? ev->dur_ns : 0);
	}
	return NS_OK;
}

static ns_status device_index(ns_trace_split *s, int64_t id, uint16_t *idx, ns_error *err)
{
	for (size_t i = 0; i < s->ndevices; i++) {
		if (s->device_id[i] == id) {
			*idx = (uint16_t)i;
			return NS_OK;
		}
	}
	if (s->ndevices >= NS_TRACE_MAX_DEVICES)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d GPU devices", NS_TRACE_MAX_DEVICES);
	s->device_id[s->ndevices] = id;
	*idx = (uint16_t)s->ndevices++;
	return NS_OK;
}

static size_t stream_home(uint16_t dev, int64_t stream)
{
	uint64_t h = ((uint64_t)stream * 0x9E3779B97F4A7C15u) ^ ((uint64_t)dev * 0xC2B2AE3D27D4EB4Fu);
	return (size_t)(h >> 32) % SPLIT_STREAM_SLOTS;
}

/* GPU events come in runs on one stream, so the last answer is checked first. */
uint8_t split_stream_index(ns_trace_split *s, uint16_t dev, int64_t stream)
{
	size_t slot;

	if (s->last_stream != 0) {
		const stream_key *k = &s->stream_key[s->last_stream - 1];
		if (k->stream == stream && k->dev == dev)
			return (uint8_t)(s->last_stream - 1);
	}
	for (slot = stream_home(dev, stream); s->stream_slot[slot] != 0;
	     slot = (slot + 1) % SPLIT_STREAM_SLOTS) {
		const stream_key *k = &s->stream_key[s->stream_slot[slot] - 1];
		if (k->stream == stream && k->dev == dev) {
			s->last_stream = s->stream_slot[slot];
			return (uint8_t)(s->stream_slot[slot] - 1);
		}
	}
	if (s->nstreams >= SPLIT_STREAM_OTHER)
		return SPLIT_STREAM_OTHER;
	s->stream_key[s->nstreams] = (stream_key){stream, dev};
	s->stream_slot[slot] = (uint8_t)(s->nstreams + 1);
	s->last_stream = s->stream_slot[slot];
	return (uint8_t)s->nstreams++;
}

bool split_stream_key(const ns_trace_split *s, uint8_t idx, stream_key *key)
{
	if (idx >= s->nstreams)
		return false;
	*key = s->stream_key[idx];
	return true;
}

/* An External id as launch_rec.ext and gpu_rec.ext: -1 for none (any negative id is none), an id past 32
 * bits kept aside. */
static ns_status launch_ext(ns_trace_split *s, int64_t ext, int32_t *out, ns_error *err)
{
	if (ext <= INT32_MAX) {
		*out = ext < 0 ? -1 : (int32_t)ext;
		return NS_OK;
	}
	if (s->nwide_ext >= (size_t)INT32_MAX + LAUNCH_EXT_WIDE)
		return ns_error_set(err, NS_ERR_LIMIT, "more than 2^31 launches with External ids past 2^31");
	void *grown = ns_grow(s->wide_ext, &s->capwide_ext, s->nwide_ext + 1, sizeof(*s->wide_ext));
	if (grown == NULL)
		return split_oom(err);
	s->wide_ext = grown;
	*out = (int32_t)(LAUNCH_EXT_WIDE - (int64_t)s->nwide_ext);
	s->wide_ext[s->nwide_ext++] = ext;
	return NS_OK;
}

/* The biased start of a record (gpu_rec.start_bits), or false when it is out of reach: *bits is then 0 or
 * GPU_START_MASK, on the start's side. The base is set by the first record. */
static bool gpu_start_bits(ns_trace_split *s, int64_t start, uint64_t *bits)
{
	int64_t d;

	if (!s->gpu_based) {
		s->gpu_based = true;
		s->gpu_t0 = start;
	}
	if (__builtin_sub_overflow(start, s->gpu_t0, &d)) {
		*bits = start < s->gpu_t0 ? 0 : GPU_START_MASK;
		return false;
	}
	if (d <= -GPU_START_BIAS || d >= GPU_START_BIAS - 1) { /* 0 and GPU_START_MASK stay for those */
		*bits = d < 0 ? 0 : GPU_START_MASK;
		return false;
	}
	*bits = (uint64_t)(d + GPU_START_BIAS);
	return true;
}

/* g's start, duration and correlation id, in g when they fit, else whole in wide_gpu. */
static ns_status gpu_times_ids(ns_trace_split *s, gpu_rec *g, const span_info *si, ns_error *err)
{
	uint64_t bits;
	bool near = gpu_start_bits(s, si->start, &bits);
	int64_t dur, corr = si->corr;

	if (corr >= 0 && !s->gpu_corr_based) {
		s->gpu_corr_based = true;
		s->gpu_corr0 = corr & ~(int64_t)UINT32_MAX;
	}
	g->start_bits = bits;
	if (near && !__builtin_sub_overflow(si->end, si->start, &dur) && dur >= 0 &&
	    dur <= (int64_t)UINT32_MAX &&
	    (corr == -1 || (corr >= s->gpu_corr0 && corr - s->gpu_corr0 < (int64_t)GPU_CORR_NONE))) {
		g->dur = (uint32_t)dur;
		g->corr = corr == -1 ? GPU_CORR_NONE : (uint32_t)(corr - s->gpu_corr0);
		return NS_OK;
	}
	if (s->nwide_gpu > UINT32_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "more than 2^32 GPU events past 4.29 s or 32-bit ids");
	void *grown = ns_grow(s->wide_gpu, &s->capwide_gpu, s->nwide_gpu + 1, sizeof(*s->wide_gpu));
	if (grown == NULL)
		return split_oom(err);
	s->wide_gpu = grown;
	s->wide_gpu[s->nwide_gpu] = (gpu_wide){si->start, si->end, corr};
	g->dur = (uint32_t)s->nwide_gpu++;
	g->corr = GPU_CORR_NONE;
	g->name_kind |= GPU_WIDE;
	s->nfar_gpu += !near;
	return NS_OK;
}

static ns_status add_gpu(ns_trace_split *s, const span_info *si, ns_error *err)
{
	gpu_rec *g;
	int32_t ext = -1;
	uint16_t dev = 0;
	ns_status st = device_index(s, si->device, &dev, err);

	if (st == NS_OK)
		st = launch_ext(s, si->ext, &ext, err);
	if (st == NS_OK && si->name_id > GPU_NAME_MASK)
		st = ns_error_set(err, NS_ERR_LIMIT, "more than %u GPU event names", GPU_NAME_MASK + 1);
	if (st != NS_OK)
		return st;
	void *grown = ns_grow_prefaulted(s->gpu, &s->capgpu, s->ngpu + 1, sizeof(*s->gpu), &s->gpu_faulted);
	if (grown == NULL)
		return split_oom(err);
	s->gpu = grown;
	g = &s->gpu[s->ngpu];
	g->name_kind = si->name_id | (uint32_t)(si->gpu_kind & 3u) << GPU_KIND_SHIFT;
	g->ext = ext;
	if ((st = gpu_times_ids(s, g, si, err)) != NS_OK)
		return st;
	s->ngpu++;
	g->start_bits |= (uint64_t)dev << GPU_START_BITS | (uint64_t)split_stream_index(s, dev, si->stream)
	                                                       << (GPU_START_BITS + 8);
	return NS_OK;
}

static ns_status add_comm_op(ns_trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	if (si->ext >= 0) {
		void *grown = ns_grow(s->comm_ext, &s->capcomm_ext, s->ncomm_ext + 1, sizeof(*s->comm_ext));
		if (grown == NULL)
			return split_oom(err);
		s->comm_ext = grown;
		s->comm_ext[s->ncomm_ext++] = si->ext;
	}
	void *grown = ns_grow(s->comm_span, &s->capcomm_span, s->ncomm_span + 1, sizeof(*s->comm_span));
	if (grown == NULL)
		return split_oom(err);
	s->comm_span = grown;
	s->comm_span[s->ncomm_span++] = (thread_span){si->start, si->end, thread};
	return NS_OK;
}

static ns_status add_step(ns_trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	void *grown = ns_grow(s->steps, &s->capsteps, s->nsteps + 1, sizeof(*s->steps));

	if (grown == NULL)
		return split_oom(err);
	s->steps = grown;
	s->steps[s->nsteps++] = (step_rec){si->start,          si->end,   si->step,  thread, si->name_id,
	                                   si->ns_step_source, si->phase, si->tokens};
	return NS_OK;
}

/* c as a launch_rec, when it fits one (the bases set by the first launch with an id). */
static bool pack_launch(ns_trace_split *s, const launch_call *c, launch_rec *r)
{
	const int64_t half = (int64_t)1 << (LAUNCH_TS_BITS - 1);
	int64_t dt;

	if (c->corr < 0)
		return false;
	if (!s->launch_based) {
		s->launch_based = true;
		s->launch_t0 = c->ts;
		s->launch_corr0 = c->corr & ~(int64_t)UINT32_MAX;
	}
	if (c->corr < s->launch_corr0 || c->corr - s->launch_corr0 > (int64_t)LAUNCH_CORR_MASK ||
	    __builtin_sub_overflow(c->ts, s->launch_t0, &dt) || dt < -half || dt >= half)
		return false;
	r->ts_thread = (uint64_t)dt & (((uint64_t)1 << LAUNCH_TS_BITS) - 1);
	r->ts_thread |= (uint64_t)c->thread << LAUNCH_TS_BITS;
	r->corr_bits = (uint32_t)(c->corr - s->launch_corr0) | (uint32_t)c->kind << LAUNCH_KIND_SHIFT |
	               (c->ex ? LAUNCH_EX : 0u);
	r->ext = c->ext;
	return true;
}

/* What the end of the split reads of every launch, noted as it is kept rather than in passes over the
 * tables after: each pass over them was a few percent of the serial end (issue 27). */
static void note_launch(ns_trace_split *s, const launch_call *c)
{
	split_quality_state *q = &s->quality;

	s->thread[c->thread].launched = true;
	s->nex_launch += c->ex;
	if (c->ts < q->first_launch_ts)
		q->first_launch_ts = c->ts;
	if (c->corr < q->first_launch_corr)
		q->first_launch_corr = c->corr;
}

static ns_status keep_launch(ns_trace_split *s, const launch_call *c, ns_error *err)
{
	launch_rec r;
	void *grown;

	if (pack_launch(s, c, &r)) {
		grown = ns_grow_prefaulted(s->launch, &s->caplaunch, s->nlaunch + 1, sizeof(*s->launch),
		                           &s->launch_faulted);
		if (grown == NULL)
			return split_oom(err);
		s->launch = grown;
		if (s->nlaunch > 0 && (r.corr_bits & LAUNCH_CORR_MASK) <
		                          (s->launch[s->nlaunch - 1].corr_bits & LAUNCH_CORR_MASK))
			s->launch_unsorted = true;
		s->launch[s->nlaunch++] = r;
	} else {
		grown =
		    ns_grow(s->wide_launch, &s->capwide_launch, s->nwide_launch + 1, sizeof(*s->wide_launch));
		if (grown == NULL)
			return split_oom(err);
		s->wide_launch = grown;
		if (s->nwide_launch > 0 && c->corr < s->wide_launch[s->nwide_launch - 1].corr)
			s->wide_launch_unsorted = true;
		s->wide_launch[s->nwide_launch++] = *c;
	}
	note_launch(s, c);
	return NS_OK;
}

static ns_status add_launch(ns_trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	int64_t dur = si->end - si->start;
	launch_call c = {.corr = si->corr, .ts = si->start, .ext = -1, .thread = (uint16_t)thread};
	void *grown;

	if (launch_ext(s, si->ext, &c.ext, err) != NS_OK)
		return err->status;
	c.kind = si->launch_kind & 3u;
	c.ex = si->launch_ex;
	if (keep_launch(s, &c, err) != NS_OK)
		return err->status;
	if (si->launch_kind != LK_KERNEL)
		return NS_OK;
	s->launch_hist[dur > 0 ? 64 - __builtin_clzll((unsigned long long)dur) : 0]++;
	if (dur < SPLIT_FIRST_USE_MIN_NS)
		return NS_OK;
	grown = ns_grow(s->slow, &s->capslow, s->nslow + 1, sizeof(*s->slow));
	if (grown == NULL)
		return split_oom(err);
	s->slow = grown;
	s->slow[s->nslow++] = (slow_call){si->corr, si->start, si->end, thread};
	return NS_OK;
}

/* A call the host-stall rule reads (split_first_use()): the allocator's calls are also summed here. */
static ns_status note_stall_call(ns_trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	int64_t dur = si->end - si->start;

	if (si->stall == STALL_ALLOC) {
		s->alloc_calls++;
		s->alloc_ns = ns_sat_add_i64(s->alloc_ns, dur);
	}
	if (dur < (si->stall != STALL_TRIVIAL ? SPLIT_ALLOC_NEST_MIN_NS : SPLIT_FIRST_USE_MIN_NS))
		return NS_OK;
	void *grown = ns_grow(s->stall, &s->capstall, s->nstall + 1, sizeof(*s->stall));
	if (grown == NULL)
		return split_oom(err);
	s->stall = grown;
	s->stall[s->nstall++] = (stall_call){si->start, si->end, thread, si->stall};
	return NS_OK;
}

/* A stream capture, from its begin call's start to its end call's end: set-up time (a window of it is
 * start-up, docs/trace.md), and the launches in it are recorded into a graph, not run. */
static ns_status note_capture(ns_trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	host_thread *t = &s->thread[thread];

	if (si->capture == CAPTURE_BEGIN) {
		t->capturing = true;
		t->capture_start = si->start;
		return NS_OK;
	}
	if (!t->capturing)
		return NS_OK; /* an end without its begin (cut off by the capture's start) */
	t->capturing = false;
	void *grown = ns_grow(s->capture, &s->capcapture, s->ncapture + 1, sizeof(*s->capture));
	if (grown == NULL)
		return split_oom(err);
	s->capture = grown;
	s->capture[s->ncapture++] = (thread_span){t->capture_start, si->end, thread};
	/* the thread is busy recording the whole time (the Python between its launch calls too) */
	if (split_span_add(&t->list[HK_CPU], t->capture_start, si->end, err) != NS_OK)
		return err->status;
	return split_span_add(&t->list[HK_INIT], t->capture_start, si->end, err);
}

static ns_status add_host(ns_trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	host_thread *t = &s->thread[thread];
	ns_status st = NS_OK;

	if (si->capture != 0 && (st = note_capture(s, si, thread, err)) != NS_OK)
		return st;
	for (unsigned m = si->host; m != 0 && st == NS_OK; m &= m - 1) /* the kinds set, lowest first */
		st = split_span_add(&t->list[__builtin_ctz(m)], si->start, si->end, err);
	if (st == NS_OK && si->comm_op)
		st = add_comm_op(s, si, thread, err);
	if (st == NS_OK && si->launches)
		st = add_launch(s, si, thread, err);
	if (st == NS_OK && si->stall != STALL_NONE)
		st = note_stall_call(s, si, thread, err);
	if (st == NS_OK && si->host_op)
		st = split_hostops_add(s->hostops, thread, si->start, si->end, si->op_id, err);
	if (st == NS_OK && si->launches && si->launch_kind == LK_COPY && !(si->host & (1u << HK_BLOCK)))
		st = split_copies_note_call(s, si->corr, si->end, err);
	return st;
}

/* A complete span (an X event, or a B/E pair) of a host thread or a GPU. */
static ns_status add_span(ns_trace_split *s, const span_info *si, uint32_t thread, ns_error *err)
{
	if (si->pass != 0) {
		ns_status st = split_phases_add(s->phases, si->pass - 1, thread, si->start, si->end, err);
		if (st != NS_OK)
			return st;
	}
	switch (si->kind) {
	case SK_GPU:
		return add_gpu(s, si, err); /* GPU events have no host thread (and there may be none yet) */
	case SK_STEP:
		return add_step(s, si, thread, err);
	case SK_HOST:
		return add_host(s, si, thread, err);
	case SK_PYTHON:
		return split_python_add(s->py, thread, si->start, si->end, si->name_id, err);
	case SK_NONE:
		break;
	}
	return NS_OK;
}

static ns_status begin_span(ns_trace_split *s, const ns_trace_event *ev, ns_error *err)
{
	uint32_t thread = 0;
	host_thread *t;
	span_info si;
	ns_status st = split_thread_find(s, ev->pid, ev->tid, &thread, err);

	if (st == NS_OK)
		st = derive(s, ev, &si, err);
	if (st != NS_OK)
		return st;
	t = &s->thread[thread];
	if (t->nopen >= NS_SPLIT_MAX_OPEN_SPANS)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d nested B events on one thread",
		                    NS_SPLIT_MAX_OPEN_SPANS);
	void *grown = ns_grow(t->open, &t->capopen, t->nopen + 1, sizeof(*t->open));
	if (grown == NULL)
		return split_oom(err);
	t->open = grown;
	si.start = ev->ts_ns;
	t->open[t->nopen++] = si;
	return NS_OK;
}

/* An E without a B is ignored, like viewers do. */
static ns_status end_span(ns_trace_split *s, const ns_trace_event *ev, ns_error *err)
{
	uint32_t thread = 0;
	host_thread *t;
	span_info si;
	ns_status st = split_thread_find(s, ev->pid, ev->tid, &thread, err);

	if (st != NS_OK)
		return st;
	t = &s->thread[thread];
	if (t->nopen == 0) {
		s->quality.orphan_ends++;
		return NS_OK;
	}
	si = t->open[--t->nopen];
	s->quality.ends++;
	s->quality.backward_ends += ev->ts_ns < si.start;
	si.end = ev->ts_ns > si.start ? ev->ts_ns : si.start;
	return add_span(s, &si, thread, err);
}

/* ts + dur past INT64_MAX ns is saturated there, so the event is kept (it runs to the end of time). */
static ns_status complete_span(ns_trace_split *s, const ns_trace_event *ev, ns_error *err)
{
	uint32_t thread = 0;
	span_info si;
	ns_status st = derive(s, ev, &si, err);

	if (st != NS_OK || (si.kind == SK_NONE && si.pass == 0))
		return st;
	si.start = ev->ts_ns;
	si.end = ns_sat_add_i64(ev->ts_ns, ev->has_dur && ev->dur_ns > 0 ? ev->dur_ns : 0);
	if (si.kind != SK_GPU && (st = split_thread_find(s, ev->pid, ev->tid, &thread, err)) != NS_OK)
		return st;
	return add_span(s, &si, thread, err);
}

ns_status ns_trace_split_event(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	ns_trace_split *s = ctx;

	s->events++;
	/* Kineto closes traceEvents with metadata (process and thread names) after all device activity: a cut
	 * file that got there lost none of it (docs/trace.md, "truncated") */
	if (ev->ph == 'M' && s->ngpu > 0)
		s->quality.device_done = true;
	if (ev->ph == 'M') /* metadata: no time, often no ts at all */
		return split_label_event(s, ev, err);
	if (!ev->has_ts)
		return NS_OK;
	switch (ev->ph) {
	case 'X':
		return complete_span(s, ev, err);
	case 'B':
		return begin_span(s, ev, err);
	case 'E':
		return end_span(s, ev, err);
	case 'i':
		return split_memory_is_event(ev) ? split_memory_note(&s->mem, ev, err) : NS_OK;
	default:
		return NS_OK;
	}
}

static int cmp_thread_span(const void *a, const void *b)
{
	const thread_span *x = a, *y = b;
	if (x->thread != y->thread)
		return (x->thread > y->thread) - (x->thread < y->thread);
	return (x->start > y->start) - (x->start < y->start);
}

/* Captures still open at the end of the trace run to its end; then the list is sorted for lookups. Once,
 * before the launches are judged. */
ns_status split_captures_finish(ns_trace_split *s, ns_error *err)
{
	for (uint32_t i = 0; i < s->nthreads; i++) {
		if (!s->thread[i].capturing)
			continue;
		void *grown = ns_grow(s->capture, &s->capcapture, s->ncapture + 1, sizeof(*s->capture));
		if (grown == NULL)
			return split_oom(err);
		s->capture = grown;
		s->capture[s->ncapture++] = (thread_span){s->thread[i].capture_start, INT64_MAX, i};
	}
	ns_sort(s->capture, s->ncapture, sizeof(*s->capture), cmp_thread_span);
	return NS_OK;
}

bool split_in_capture(const ns_trace_split *s, uint32_t thread, int64_t ts)
{
	size_t lo = 0, hi = s->ncapture;

	/* the last capture of the thread starting at or before ts */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const thread_span *c = &s->capture[mid];
		if (c->thread < thread || (c->thread == thread && c->start <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && s->capture[lo - 1].thread == thread && ts <= s->capture[lo - 1].end;
}

/* The median kernel launch call's duration, rounded up to a power of two (the histogram's resolution). */
static int64_t median_launch_ns(const ns_trace_split *s)
{
	long total = 0, seen = 0;

	for (int b = 0; b < 64; b++)
		total += s->launch_hist[b];
	for (int b = 0; b < 64; b++) {
		seen += s->launch_hist[b];
		if (2 * seen >= total)
			return b == 0 ? 0 : b >= 63 ? INT64_MAX : (int64_t)1 << b;
	}
	return 0;
}

static int cmp_slow(const void *a, const void *b)
{
	const slow_call *x = a, *y = b;
	return (x->corr > y->corr) - (x->corr < y->corr);
}

/* By thread, then start; of two that start together, the longer (the outer) first. */
static int cmp_stall_call(const void *a, const void *b)
{
	const stall_call *x = a, *y = b;
	if (x->thread != y->thread)
		return (x->thread > y->thread) - (x->thread < y->thread);
	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->end < y->end) - (x->end > y->end);
}

/* One pass over the GPU records: the first start of each kernel name, and each slow call's kernel. */
static ns_status first_starts(ns_trace_split *s, int64_t *first, int64_t *slow_start, uint32_t *slow_name)
{
	for (size_t i = 0; i < s->ngpu; i++) {
		const gpu_rec *g = &s->gpu[i];
		slow_call key = {0, 0, 0, 0};
		const slow_call *c;
		if (split_gpu_kind(g) == GK_TRANSFER)
			continue;
		if (split_gpu_start(s, g) < first[split_gpu_name(g)])
			first[split_gpu_name(g)] = split_gpu_start(s, g);
		key.corr = split_gpu_corr(s, g);
		c = key.corr >= 0 ? ns_bsearch(&key, s->slow, s->nslow, sizeof(key), cmp_slow) : NULL;
		if (c != NULL && split_gpu_start(s, g) < slow_start[c - s->slow]) {
			slow_start[c - s->slow] = split_gpu_start(s, g);
			slow_name[c - s->slow] = split_gpu_name(g);
		}
	}
	return NS_OK;
}

/* Stalls of trivial calls (split_is_trivial_call, split_is_trivial_op) of at least floor: each one's time
 * less the allocator and set-up calls nested in it (a cudaMalloc inside aten::empty is the allocator, and
 * CUDA's lazy initialisation inside the first one - HTA's AlexNet capture: 29.9 s of
 * cudaDeviceGetStreamPriorityRange in an aten::empty_strided - is start-up, neither a stall), and only the
 * outermost of nested ones. */
/* The end of the nested calls of stall i (those that start inside it on its thread). */
static size_t nested_end(const ns_trace_split *s, size_t i)
{
	const stall_call *c = &s->stall[i];
	size_t j = i + 1;

	while (j < s->nstall && s->stall[j].thread == c->thread && s->stall[j].start < c->end)
		j++;
	return j;
}

/* Stall i's held time as spans (its call less the allocator and set-up calls nested in it, [i+1, end)), for
 * the part of it the device sat idle (split_stall_idle). */
static ns_status held_spans(ns_trace_split *s, size_t i, size_t end, ns_error *err)
{
	const stall_call *c = &s->stall[i];
	int64_t at = c->start;
	ns_status st = NS_OK;

	for (size_t j = i + 1; j < end && st == NS_OK; j++) {
		const stall_call *n = &s->stall[j];
		if (n->kind == STALL_TRIVIAL || n->end > c->end)
			continue;
		st = split_span_add(&s->stall_spans, at, n->start, err); /* empty when n starts by `at` */
		if (n->end > at)
			at = n->end;
	}
	return st == NS_OK ? split_span_add(&s->stall_spans, at, c->end, err) : st;
}

static ns_status trivial_stalls(ns_trace_split *s, ns_split_result *res, int64_t floor, ns_error *err)
{
	int64_t covered_end = INT64_MIN;
	uint32_t covered_thread = UINT32_MAX;
	ns_status st = NS_OK;

	ns_sort(s->stall, s->nstall, sizeof(*s->stall), cmp_stall_call);
	for (size_t i = 0; i < s->nstall && st == NS_OK; i++) {
		const stall_call *c = &s->stall[i];
		int64_t alloc = 0, held;
		size_t end;
		if (c->kind != STALL_TRIVIAL || c->end - c->start < floor ||
		    (c->thread == covered_thread && c->start < covered_end))
			continue;
		end = nested_end(s, i);
		for (size_t j = i + 1; j < end; j++)
			if (s->stall[j].kind != STALL_TRIVIAL && s->stall[j].end <= c->end)
				alloc = ns_sat_add_i64(alloc, s->stall[j].end - s->stall[j].start);
		covered_thread = c->thread;
		covered_end = c->end;
		held = c->end - c->start - alloc;
		if (held < floor)
			continue;
		res->host_stalls++;
		res->host_stall_ns = ns_sat_add_i64(res->host_stall_ns, held);
		st = held_spans(s, i, end, err);
	}
	return st;
}

/* Kernel launch calls of at least floor: first-use loads (the first launch of its kernel) or stalls. */
static ns_status launch_stalls(ns_trace_split *s, ns_split_result *res, int64_t floor, ns_error *err)
{
	size_t nnames = ns_kernel_names_count(s->names), nslow = s->nslow; /* the tables' size, kept */
	int64_t *first, *slow_start;
	uint32_t *slow_name;
	ns_status st = NS_OK;

	if (nslow == 0 || s->ngpu == 0)
		return NS_OK;
	ns_sort(s->slow, nslow, sizeof(*s->slow), cmp_slow);
	first = malloc((nnames + 1) * sizeof(*first));
	slow_start = malloc(nslow * sizeof(*slow_start));
	slow_name = malloc(nslow * sizeof(*slow_name));
	if (first == NULL || slow_start == NULL || slow_name == NULL) {
		st = split_oom(err);
		goto out;
	}
	for (size_t i = 0; i <= nnames; i++)
		first[i] = INT64_MAX;
	for (size_t i = 0; i < nslow; i++)
		slow_start[i] = INT64_MAX;
	first_starts(s, first, slow_start, slow_name);
	for (size_t i = 0; i < nslow && st == NS_OK; i++) {
		const slow_call *c = &s->slow[i];
		if (c->end - c->start < floor)
			continue;
		if (slow_start[i] == INT64_MAX || slow_start[i] != first[slow_name[i]]) {
			/* a stall of an ordinary launch (a full queue, the host descheduled): not set-up */
			res->host_stalls++;
			res->host_stall_ns = ns_sat_add_i64(res->host_stall_ns, c->end - c->start);
			st = split_span_add(&s->stall_spans, c->start, c->end, err);
			continue;
		}
		res->first_use_loads++;
		res->first_use_ns = ns_sat_add_i64(res->first_use_ns, c->end - c->start);
		st = split_span_add(&s->thread[c->thread].list[HK_INIT], c->start, c->end, err);
	}
out:
	free(first);
	free(slow_start);
	free(slow_name);
	return st;
}

ns_status split_first_use(ns_trace_split *s, ns_split_result *res, ns_error *err)
{
	int64_t median = median_launch_ns(s);
	int64_t floor =
	    median > INT64_MAX / SPLIT_FIRST_USE_FACTOR ? INT64_MAX : median * SPLIT_FIRST_USE_FACTOR;
	ns_status st;

	res->alloc_calls = s->alloc_calls;
	res->alloc_ns = s->alloc_ns;
	if (floor < SPLIT_FIRST_USE_MIN_NS)
		floor = SPLIT_FIRST_USE_MIN_NS;
	if ((st = trivial_stalls(s, res, floor, err)) == NS_OK)
		st = launch_stalls(s, res, floor, err);
	(void)split_spans_union(&s->stall_spans);
	return st;
}

/* The device's busy time (some record running) before t, for t that do not decrease: the records that start
 * before t are merged into the busy interval [at, until), those before it summed in done. */
typedef struct {
	const ns_trace_split *s;
	const gpu_rec *g;
	size_t n, i;
	int64_t done, at, until;
} busy_cursor;

static int64_t busy_before(busy_cursor *b, int64_t t)
{
	for (; b->i < b->n && split_gpu_start(b->s, &b->g[b->i]) < t; b->i++) {
		int64_t start = split_gpu_start(b->s, &b->g[b->i]), end = split_gpu_end(b->s, &b->g[b->i]);
		if (start > b->until) {
			b->done = ns_sat_add_i64(b->done, ns_sat_sub_i64(b->until, b->at));
			b->at = start;
			b->until = end;
		} else if (end > b->until) {
			b->until = end;
		}
	}
	return ns_sat_add_i64(b->done, t > b->at ? ns_sat_sub_i64(t < b->until ? t : b->until, b->at) : 0);
}

int64_t split_stall_idle(const ns_trace_split *s, const gpu_rec *g, size_t n)
{
	busy_cursor b = {s, g, n, 0, 0, INT64_MIN, INT64_MIN};
	int64_t idle = 0;

	for (size_t k = 0; k < s->stall_spans.n; k++) {
		const span *sp = &s->stall_spans.v[k];
		int64_t before = busy_before(&b, sp->start); /* first: t may not decrease */
		int64_t busy = ns_sat_sub_i64(busy_before(&b, sp->end), before);
		idle = ns_sat_add_i64(idle, ns_sat_sub_i64(ns_sat_sub_i64(sp->end, sp->start), busy));
	}
	return idle;
}
