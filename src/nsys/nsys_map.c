/* How a row of an Nsight Systems export reads as the event a Kineto trace would hold: ids, names and the
 * NVTX ranges PyTorch writes. Pure functions over values; the queries are in nsys_read.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_private.h"
#include "trace/split/split_private.h"
#include "util/vec.h"

int64_t nsys_pid_of(int64_t global_id)
{
	return (int64_t)(((uint64_t)global_id >> 24) & 0xFFFFFFu);
}

int64_t nsys_tid_of(int64_t global_id)
{
	return (int64_t)((uint64_t)global_id & 0xFFFFFFu);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

size_t nsys_api_name_len(const char *s, size_t len)
{
	size_t i = len;

	while (i > 0 && is_digit(s[i - 1]))
		i--;
	if (len - i >= 4 && i >= 3 && s[i - 1] == 'v' && s[i - 2] == '_')
		return i - 2;
	return len;
}

/* libkineto's spellings (CuptiActivity.cpp: memcpyKindString, memoryKindString), indexed by nsys's enums,
 * which number the copy kinds as CUPTI does and the memory kinds from PAGEABLE = 0 (ENUM_CUDA_MEM_KIND). */
static const char *const copy_kinds[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
                                         "DtoA",    "DtoD", "HtoH", "PtoP", "HtoD", "DtoH", "DtoD"};
static const char *const mem_kinds[] = {"Pageable", "Pinned",        "Device",         "Array",
                                        "Managed",  "Device Static", "Managed Static", "Unknown"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *kind_name(const char *const *names, size_t n, int64_t k)
{
	return k >= 0 && (uint64_t)k < n ? names[k] : "Unknown";
}

const char *nsys_memcpy_name(int64_t copy_kind, int64_t src_kind, int64_t dst_kind, char *out, size_t cap)
{
	snprintf(out, cap, "Memcpy %s (%s -> %s)", kind_name(copy_kinds, COUNT(copy_kinds), copy_kind),
	         kind_name(mem_kinds, COUNT(mem_kinds), src_kind),
	         kind_name(mem_kinds, COUNT(mem_kinds), dst_kind));
	return out;
}

const char *nsys_memset_name(int64_t mem_kind)
{
	static const char *const names[] = {
	    "Memset (Pageable)", "Memset (Pinned)",        "Memset (Device)",         "Memset (Array)",
	    "Memset (Managed)",  "Memset (Device Static)", "Memset (Managed Static)", "Memset (Unknown)"};

	return mem_kind >= 0 && (uint64_t)mem_kind < COUNT(names) ? names[mem_kind] : "Memset (Device)";
}

/* ---- NVTX ranges ---- */

/* The fields getNvtxStr appends after an op's name, in its order. */
static const char SEQ_FIELD[] = ", seq = ";
static const char *const op_fields[] = {", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "};

static const char *find(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	for (size_t i = 0; i + n <= len; i++)
		if (p[i] == lit[0] && memcmp(p + i, lit, n) == 0)
			return p + i;
	return NULL;
}

static int64_t parse_count(const char *p, const char *end)
{
	int64_t v = 0;

	if (p >= end || !is_digit(*p))
		return -1;
	for (; p < end && is_digit(*p); p++) {
		if (v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v;
}

/* The bracketed list after ", sizes = ", to its matching bracket. */
static ns_str sizes_of(const char *p, const char *end)
{
	int depth = 0;

	for (const char *q = p; q < end; q++) {
		depth += *q == '[';
		depth -= *q == ']';
		if (depth == 0)
			return q > p && *p == '[' ? (ns_str){p, (size_t)(q + 1 - p)} : (ns_str){NULL, 0};
	}
	return (ns_str){NULL, 0};
}

/* Autograd nodes are named for the op they differentiate: "AddmmBackward0". */
static bool is_backward_node(ns_str name)
{
	static const char suffix[] = "Backward";
	size_t i = name.len;

	while (i > 0 && is_digit(name.ptr[i - 1]))
		i--;
	return i < name.len && i >= sizeof(suffix) - 1 &&
	       memcmp(name.ptr + i - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1) == 0;
}

void nsys_range_of(ns_str text, nsys_range *r)
{
	const char *end = text.ptr + text.len, *cut = end, *seq;

	r->name = text;
	r->seq = -1;
	r->sizes = (ns_str){NULL, 0};
	for (size_t k = 0; k < COUNT(op_fields) && text.len > 0 && memchr(text.ptr, ',', text.len) != NULL;
	     k++) {
		const char *f = find(text.ptr, text.len, op_fields[k]);
		if (f != NULL && f < cut)
			cut = f;
	}
	if (cut < end) {
		const char *sizes = find(cut, (size_t)(end - cut), ", sizes = ");
		r->name.len = (size_t)(cut - text.ptr);
		if ((seq = find(cut, (size_t)(end - cut), SEQ_FIELD)) != NULL)
			r->seq = parse_count(seq + sizeof(SEQ_FIELD) - 1, end);
		if (sizes != NULL)
			r->sizes = sizes_of(sizes + 10, end);
	}
	r->cat = find(r->name.ptr, r->name.len, "::") != NULL || split_is_comm_op(r->name) || r->seq >= 0 ||
	                 is_backward_node(r->name)
	             ? NS_TCAT_CPU_OP
	             : NS_TCAT_USER_ANNOTATION;
}

/* ---- strings ---- */

/* Every name of every row passes here (kernel names run to hundreds of bytes): eight bytes at a time, a byte
 * below 0x20 or equal to '\\' found by the classic bit tricks (a zero byte of w ^ '\\' repeated; a byte of w
 * below 0x20: (w - 0x20..) & ~w & 0x80..). */
bool nsys_needs_escape(const unsigned char *s, size_t len)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w, b;
		memcpy(&w, s + i, 8);
		b = w ^ (ones * '\\');
		if ((((w - ones * 0x20) & ~w) | ((b - ones) & ~b)) & highs)
			break;
	}
	for (; i < len; i++)
		if (s[i] < 0x20 || s[i] == '\\')
			return true;
	return false;
}

char *nsys_escape(const unsigned char *s, size_t len, char **buf, size_t *cap, size_t *out_len,
                  bool *too_long)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	*too_long = false;
	for (size_t i = 0; i < len; i++) {
		size_t need = s[i] < 0x20 ? 6 : s[i] == '\\' ? 2 : 1;
		char *b;
		if (n + need > NS_TRACE_MAX_STRING) {
			*too_long = true;
			return NULL;
		}
		if (n + need > *cap) {
			if ((b = ns_grow(*buf, cap, n + need, 1)) == NULL)
				return NULL;
			*buf = b;
		}
		b = *buf + n;
		if (s[i] < 0x20) {
			b[0] = '\\';
			b[1] = 'u';
			b[2] = b[3] = '0';
			b[4] = hex[s[i] >> 4];
			b[5] = hex[s[i] & 15];
		} else if (s[i] == '\\') {
			b[0] = b[1] = '\\';
		} else {
			b[0] = (char)s[i];
		}
		n += need;
	}
	*out_len = n;
	return *buf;
}

/* ---- the capture's environment ---- */

/* Rank variables by priority: torchrun's, Open MPI's, the PMI's (MPICH, Intel MPI, Cray), Slurm's. */
static const struct {
	const char *rank, *size;
} rank_vars[] = {
    {"RANK", "WORLD_SIZE"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "PMI_SIZE"},
    {"SLURM_PROCID", "SLURM_NTASKS"},
};

static bool env_is(const char *entry, size_t len, const char *name, const char **value)
{
	size_t n = strlen(name);

	if (len <= n || memcmp(entry, name, n) != 0 || entry[n] != '=')
		return false;
	*value = entry + n + 1;
	return true;
}

bool nsys_env_rank(const char *entry, size_t len, bool *is_size, int *which, int64_t *value)
{
	const char *v = NULL, *end = entry + len, *digits;

	for (size_t k = 0; k < COUNT(rank_vars); k++) {
		bool size = env_is(entry, len, rank_vars[k].size, &v);
		if (!size && !env_is(entry, len, rank_vars[k].rank, &v))
			continue;
		if (v < end && *v == '"') /* nsys writes the value quoted */
			v++;
		for (digits = v; v < end && is_digit(*v); v++)
			;
		if (v < end && *v == '"')
			v++;
		if (v != end || (*value = parse_count(digits, end)) < 0)
			return false;
		*is_size = size;
		*which = (int)k;
		return true;
	}
	return false;
}

/* ---- the program ---- */

bool nsys_is_python_name(const char *name, size_t len)
{
	static const char pt_main[] = "pt_main_thread";
	const char *base = name;

	for (size_t i = 0; i < len; i++)
		if (name[i] == '/')
			base = name + i + 1;
	len -= (size_t)(base - name);
	if (len == sizeof(pt_main) - 1 && memcmp(base, pt_main, len) == 0)
		return true;
	if (len >= 6 && memcmp(base, "python", 6) == 0)
		return len == 6 || is_digit(base[6]) || base[6] == '.' || base[6] == 'w';
	return len >= 4 && memcmp(base, "pypy", 4) == 0 && (len == 4 || is_digit(base[4]));
}
