/* The op roofline section of the trace report, as text and as JSON: the families, then the top shapes, then
 * what could not be placed and why. It prints the model troof_place.c built and decides nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/format.h"
#include "nextstep/gpu_util.h"
#include "nextstep/regime.h"
#include "nextstep/roofline.h"
#include "trace/ops/troof_private.h"
#include "util/satmath.h"
#include "util/text.h"

static const char *const reason_text[NS_TROOF_REASON_COUNT] = {
    [NS_TROOF_NO_SHAPES] = "no shapes (record_shapes=True)",
    [NS_TROOF_NO_DTYPE] = "unknown dtype",
    [NS_TROOF_UNKNOWN_OP] = "unknown op",
    [NS_TROOF_NO_PEAK] = "no peak for the dtype on this device",
    [NS_TROOF_BAD_DIMS] = "Input Dims do not fit the op",
    [NS_TROOF_INCOMPLETE] = "a size its count needs not recorded",
};

static const char *const reason_key[NS_TROOF_REASON_COUNT] = {
    [NS_TROOF_NO_SHAPES] = "no_shapes",   [NS_TROOF_NO_DTYPE] = "unknown_dtype",
    [NS_TROOF_UNKNOWN_OP] = "unknown_op", [NS_TROOF_NO_PEAK] = "no_peak",
    [NS_TROOF_BAD_DIMS] = "bad_dims",     [NS_TROOF_INCOMPLETE] = "incomplete",
};

static const char *const unlinked_text[NS_TROOF_UNLINKED_COUNT] = {
    [NS_TROOF_NO_LAUNCH] = "no launch call with its correlation id",
    [NS_TROOF_LAUNCH_OUTSIDE_OPS] = "launched outside every CPU op",
};

static const char *const unlinked_key[NS_TROOF_UNLINKED_COUNT] = {
    [NS_TROOF_NO_LAUNCH] = "no_launch",
    [NS_TROOF_LAUNCH_OUTSIDE_OPS] = "outside_ops",
};

void ns_troof_report_free(ns_troof_report *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].name);
		free(r->rows[i].dims);
		free(r->rows[i].shape);
	}
	free(r->rows);
	for (size_t i = 0; i < r->nunplaced_top; i++)
		free(r->unplaced_top[i].name);
	memset(r, 0, sizeof(*r));
}

const char *ns_troof_reason_text(ns_troof_reason r)
{
	return (unsigned)r < NS_TROOF_REASON_COUNT ? reason_text[r] : "?";
}

/* ---- text ---- */

static double ms(double ns)
{
	return ns / 1e6;
}

static const char *row_type(const ns_troof_row *row)
{
	return row->has_dtype ? ns_dtype_name(row->dtype) : row->type_name;
}

/* The same in the text table's five columns: torch's C type names of the types without a roof shortened. */
static const char *row_type_short(const ns_troof_row *row)
{
	static const struct {
		const char *torch, *word;
	} words[] = {{"unsigned char", "uint8"}, {"short int", "int16"}, {"int", "int32"},
	             {"long int", "int64"},      {"long", "int64"},      {"long long int", "int64"}};
	const char *t = row_type(row);

	for (size_t i = 0; !row->has_dtype && i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(t, words[i].torch) == 0)
			return words[i].word;
	return t;
}

/* What the ops achieved, on the roof that places them: FLOP/s for the computing families, bytes/s else. */
static void rate_text(bool computes, double flops, double bytes, double ns, char *buf, size_t size)
{
	double s = ns * 1e-9;

	if (!(s > 0.0))
		snprintf(buf, size, "-");
	else if (computes)
		snprintf(buf, size, "%.2f TFLOP/s", flops / s / 1e12);
	else
		snprintf(buf, size, "%.0f GB/s", bytes / s / 1e9);
}

static double share(double part, double whole)
{
	return whole > 0.0 ? part / whole : 0.0;
}

/* "42%", or ">=4%" when it is a lower bound. */
static const char *percent_text(double fraction, bool lower_bound, char *buf, size_t size)
{
	snprintf(buf, size, "%s%.0f%%", lower_bound ? ">=" : "", 100.0 * fraction);
	return buf;
}

/* A family or bucket with rows counted as lower bounds: its fraction is a lower bound, said once. */
static const char *bound_words(int64_t bound_ns, int64_t gpu_ns)
{
	if (bound_ns <= 0)
		return "";
	return bound_ns >= gpu_ns ? " (counts are lower bounds)" : " (some counts are lower bounds)";
}

static void print_families(FILE *out, const ns_troof_report *r)
{
	if (r->nfamilies == 0)
		return;
	fprintf(out, "  %-12s %6s %10s %11s %8s  %s\n", "family", "ops", "GPU ms", "at roof ms", "of roof",
	        "achieved");
	for (size_t i = 0; i < r->nfamilies; i++) {
		const ns_troof_family *f = &r->families[r->order[i]];
		char rate[32], pct[16];
		rate_text(ns_op_family_computes(f->family), f->flops, f->bytes, (double)f->gpu_ns, rate,
		          sizeof(rate));
		fprintf(out, "  %-12s %6ld %10.3f %11.3f %8s  %s%s\n", ns_op_family_name(f->family), f->ops,
		        ms((double)f->gpu_ns), ms(f->roof_ns),
		        percent_text(share(f->roof_ns, (double)f->gpu_ns), f->bound_ns > 0, pct, sizeof(pct)),
		        rate, bound_words(f->bound_ns, f->gpu_ns));
	}
}

/* fp32 matmuls, convolutions and attention on a device with TF32 or 16-bit roofs: what they would take. */
static void print_low_precision(FILE *out, const ns_troof_report *r)
{
	int64_t ns = 0;
	double roof = 0.0, tf32 = 0.0, half = 0.0;
	const char *sep = "";

	for (size_t i = 0; i < r->nfamilies; i++) {
		const ns_troof_family *f = &r->families[r->order[i]];
		ns = ns_sat_add_i64(ns, f->fp32_ns);
		roof += f->fp32_roof_ns;
		tf32 += f->tf32_roof_ns;
		half += f->half_roof_ns;
	}
	if (ns <= 0)
		return;
	fputs("  fp32 ", out);
	for (size_t i = 0; i < r->nfamilies; i++) {
		const ns_troof_family *f = &r->families[r->order[i]];
		if (f->fp32_ns > 0) {
			fprintf(out, "%s%s", sep, ns_op_family_name(f->family));
			sep = ", ";
		}
	}
	fprintf(out, ": %.3f ms, %.3f ms at the roof they are on", ms((double)ns), ms(roof));
	if (tf32 > 0.0)
		fprintf(out, ", %.3f ms at the tf32 roof", ms(tf32));
	if (half > 0.0)
		fprintf(out, ", %.3f ms at the %s roof", ms(half), ns_dtype_name(r->half_dtype));
	/* ops this far below the roof they are on are launch- or latency-bound: a lower precision moves the
	 * roof, not them, so their time over the 16-bit roof's is no speed-up anyone will see */
	if (half > 0.0 && roof < NS_ROOFLINE_OVERHEAD_DEFAULT * (double)ns)
		fprintf(
		    out,
		    " (they reach %.1f%% of the roof they are on: launch-bound, a lower precision will not "
		    "shorten them)",
		    100.0 * roof / (double)ns);
	else if (half > 0.0)
		fprintf(out, " (up to %.1fx faster)", (double)ns / half);
	fputc('\n', out);
}

static int text_width(const ns_troof_report *r, size_t top, bool shape, int min, int max)
{
	int w = min;

	for (size_t i = 0; i < r->nrows && i < top; i++) {
		size_t len = strlen(shape ? r->rows[i].shape : r->rows[i].name);
		if ((int)len > w)
			w = (int)len;
	}
	return w < max ? w : max;
}

/* An op name in a column of width w: longer ones (fbgemm's autograd nodes run to 96 bytes) cut between
 * characters and marked with "...", so the columns after stay aligned; JSON keeps the whole name. */
static void print_name(FILE *out, const char *name, int w)
{
	size_t len = strlen(name);

	if (len <= (size_t)w) {
		fprintf(out, "%-*s", w, name);
		return;
	}
	len = ns_utf8_cut(name, len, (size_t)w - 3);
	fprintf(out, "%.*s...%*s", (int)len, name, w - 3 - (int)len, "");
}

static void print_rows(FILE *out, const ns_troof_report *r, size_t top, const char *more)
{
	int wn = text_width(r, top, false, 4, 44), ws = text_width(r, top, true, 5, 40);
	bool notes = false;

	if (r->nrows == 0 || top == 0)
		return;
	fprintf(out, "  %-*s %-*s %-10s %-5s %6s %9s %7s  %-15s %s\n", wn, "op", ws, "shape", "pass", "dtype",
	        "count", "GPU ms", "of roof", "achieved", "regime");
	for (size_t i = 0; i < r->nrows && i < top; i++) {
		const ns_troof_row *row = &r->rows[i];
		char rate[32], pct[16];
		rate_text(ns_op_family_computes(row->family), row->flops, row->bytes, (double)row->gpu_ns,
		          rate, sizeof(rate));
		fputs("  ", out);
		print_name(out, row->name, wn);
		fputc(' ', out);
		print_name(out, row->shape, ws);
		fprintf(out, " %-10s %-5s %6ld %9.3f %7s  %-15s %s%s%s\n", ns_op_pass_name(row->pass),
		        row_type_short(row), row->count, ms((double)row->gpu_ns),
		        percent_text(row->fraction, row->lower_bound, pct, sizeof(pct)), rate,
		        ns_regime_name(row->roof.regime), row->roof.above_roof ? " (above the roof!)" : "",
		        row->note != NULL ? " *" : "");
		notes = notes || row->note != NULL;
	}
	if (r->nrows > top)
		fprintf(out, "  ... %zu more%s%s\n", r->nrows - top, more != NULL ? " " : "",
		        more != NULL ? more : "");
	for (size_t i = 0; notes && i < r->nrows && i < top; i++) {
		const ns_troof_row *row = &r->rows[i];
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = r->rows[j].note == row->note;
		if (row->note != NULL && !seen)
			fprintf(out, "  * %s\n", row->note);
	}
}

static void print_unplaced(FILE *out, const ns_troof_report *r)
{
	long n = 0;
	int64_t ns = 0;
	const char *sep = "";

	for (int i = 0; i < NS_TROOF_REASON_COUNT; i++) {
		n += r->unplaced[i];
		ns = ns_sat_add_i64(ns, r->unplaced_ns[i]);
	}
	if (n == 0)
		return;
	fprintf(out, "  %ld op%s (%.3f ms, %.1f%% of the ops' GPU time) could not be placed: ", n,
	        n == 1 ? "" : "s", ms((double)ns),
	        r->ops_ns > 0 ? 100.0 * (double)ns / (double)r->ops_ns : 0.0);
	for (int i = 0; i < NS_TROOF_REASON_COUNT; i++) {
		if (r->unplaced[i] == 0)
			continue;
		fprintf(out, "%s%ld %s", sep, r->unplaced[i], reason_text[i]);
		sep = ", ";
	}
	fputc('\n', out);
	if (r->nunplaced_top == 0)
		return;
	fputs("    most time:", out);
	for (size_t i = 0; i < r->nunplaced_top; i++) {
		/* escaped whole: a fixed buffer blanked names longer than it (fbgemm's autograd nodes) */
		fputs(i > 0 ? ", " : " ", out);
		if (r->unplaced_top[i].name[0] != '\0')
			ns_fput_text(out, r->unplaced_top[i].name);
		else
			fputs("(unnamed)", out);
		fprintf(out, " %.3f ms (%s)", ms((double)r->unplaced_top[i].gpu_ns),
		        r->unplaced_top[i].why != NULL ? r->unplaced_top[i].why
		                                       : reason_text[r->unplaced_top[i].reason]);
	}
	fputc('\n', out);
}

/* Kernels linked through their launch call, and those no op could be found for, with why. */
static void print_links(FILE *out, const ns_troof_report *r)
{
	long n = 0;
	int64_t ns = 0;
	const char *sep = "";

	if (r->linked_by_launch > 0)
		fprintf(
		    out, "  %ld kernel%s linked to the op around %s launch call (no op had %s External id)\n",
		    r->linked_by_launch, r->linked_by_launch == 1 ? "" : "s",
		    r->linked_by_launch == 1 ? "its" : "their", r->linked_by_launch == 1 ? "its" : "their");
	for (int i = 0; i < NS_TROOF_UNLINKED_COUNT; i++) {
		n += r->unlinked[i];
		ns += r->unlinked_ns[i];
	}
	if (n == 0)
		return;
	fprintf(out, "  %ld kernel%s (%.3f ms of GPU time) linked to no op: ", n, n == 1 ? "" : "s",
	        ms((double)ns));
	for (int i = 0; i < NS_TROOF_UNLINKED_COUNT; i++) {
		if (r->unlinked[i] == 0)
			continue;
		fprintf(out, "%s%ld %s", sep, r->unlinked[i], unlinked_text[i]);
		sep = ", ";
	}
	fputc('\n', out);
}

/* The bucket lines: which families hold the compute- and memory-bound time, how far from their roof, and
 * what that leaves a kernel fix to win. */
static void print_buckets(FILE *out, const ns_troof_report *r)
{
	static const char *const what[NS_TROOF_BUCKET_COUNT] = {"compute-bound ops", "memory-bound ops"};
	static const char *const lever[NS_TROOF_BUCKET_COUNT] = {
	    "a faster kernel or a lower precision wins at most that",
	    "fusion or a smaller dtype (fewer bytes) is the lever past that"};

	for (int k = 0; k < NS_TROOF_BUCKET_COUNT; k++) {
		const ns_troof_bucket *b = &r->buckets[k];
		if (b->gpu_ns <= 0 && b->bound_ns > 0)
			fprintf(
			    out,
			    "  %s: %.3f ms, all counted as lower bounds: what they could win is unknown\n",
			    what[k], ms((double)b->bound_ns));
		if (b->gpu_ns <= 0)
			continue;
		fprintf(out, "  %s: ", what[k]);
		for (size_t i = 0; i < b->nfamilies && i < 3; i++) {
			ns_op_family f = b->families[i];
			fprintf(out, "%s%s %.0f%%", i > 0 ? ", " : "", ns_op_family_name(f),
			        100.0 * ns_troof_bucket_fraction(b, f));
		}
		/* each op's headroom is at least 0, so ops above their roof make the sum more than the time
		 * less the time at the roof; say so where the figures show it (1 us) */
		fprintf(out, " of roof; %.3f ms, %.3f ms at the roof: %.3f ms of headroom%s; %s",
		        ms((double)b->gpu_ns), ms(b->roof_ns), ms(b->headroom_ns),
		        b->headroom_ns - ((double)b->gpu_ns - b->roof_ns) >= 1e3
		            ? " (ops above their roof add none)"
		            : "",
		        lever[k]);
		if (b->bound_ns > 0)
			fprintf(out,
			        " (%.3f ms counted as lower bounds left out: what they could win is unknown)",
			        ms((double)b->bound_ns));
		fputc('\n', out);
	}
}

static void print_device_line(FILE *out, const ns_troof_report *r, const char *const *hints)
{
	const char *given = ns_report_hint_text(hints, NS_REPORT_HINT_DEVICE_GIVEN);

	if (r->from_option)
		fprintf(out, "roofline: %s%s%s", r->device, given != NULL ? " " : "",
		        given != NULL ? given : "");
	else
		fprintf(out, "roofline: %s (trace: %s)", r->device, r->ns_trace_device);
	fprintf(out, ", %ld op%s with GPU time (%.3f ms), %.1f%% of it placed (%ld op%s)", r->ops,
	        r->ops == 1 ? "" : "s", ms((double)r->ops_ns), 100.0 * ns_troof_placed_share(r), r->placed,
	        r->placed == 1 ? "" : "s");
	if (r->bound_ns > 0)
		fprintf(out, ", %.1f%% as lower bounds", 100.0 * (double)r->bound_ns / (double)r->ops_ns);
	fputc('\n', out);
}

/* "roofline: device ... is not in the device table", with how to name one when the caller says. */
static void print_no_device(FILE *out, const ns_troof_report *r, const char *const *hints)
{
	const char *name_it = ns_report_hint_text(hints, NS_REPORT_HINT_NAME_DEVICE);

	if (r->ns_trace_device[0] != '\0')
		fprintf(out, "roofline: device \"%s\" is not in the device table", r->ns_trace_device);
	else
		fputs("roofline: the trace names no device", out);
	if (name_it != NULL)
		fprintf(out, ": %s", name_it);
	fputc('\n', out);
}

void ns_troof_report_print(FILE *out, const ns_troof_report *r, size_t top, const char *const *hints)
{
	const char *tf32 = ns_report_hint_text(hints, NS_REPORT_HINT_TF32);
	bool fp32 = false, above = false;

	if (r->kernels == 0) {
		fputs("roofline: no GPU kernels in this trace\n", out);
		return;
	}
	if (!r->device_known) {
		print_no_device(out, r, hints);
		return;
	}
	print_device_line(out, r, hints);
	print_families(out, r);
	print_low_precision(out, r);
	print_rows(out, r, top, ns_report_hint_text(hints, NS_REPORT_HINT_MORE_ROWS));
	/* the fp32 hint for any fp32 matmul, convolution or attention, not only one in the top rows, whose
	 * kernels do not say they ran on the CUDA cores */
	for (size_t i = 0; i < r->nrows; i++) {
		fp32 = fp32 || (r->rows[i].has_dtype && r->rows[i].dtype == NS_DTYPE_FP32 &&
		                ns_op_family_computes(r->rows[i].family) && !r->rows[i].simt);
		above = above || (i < top && r->rows[i].roof.above_roof && r->rows[i].note == NULL);
	}
	print_unplaced(out, r);
	if (r->comm_ns > 0)
		fprintf(out,
		        "  collectives (NCCL/RCCL kernels, %.3f ms) are not on a roofline: the network "
		        "bounds them\n",
		        ms((double)r->comm_ns));
	print_links(out, r);
	print_buckets(out, r);
	if (above)
		fputs("  above the roof means the dtype, the time or the device is wrong\n", out);
	if (fp32 && r->has_tf32)
		fprintf(out, "  fp32 ops are on the fp32 roof%s%s\n", tf32 != NULL ? "; " : "",
		        tf32 != NULL ? tf32 : "");
}

/* ---- JSON ---- */

static bool add_num(cJSON *o, const char *key, double v)
{
	return cJSON_AddNumberToObject(o, key, isfinite(v) ? v : 0.0) != NULL;
}

static cJSON *row_json(const ns_troof_row *row)
{
	cJSON *o = cJSON_CreateObject();
	bool ok = o != NULL, computes = ns_op_family_computes(row->family);
	double s = (double)row->gpu_ns * 1e-9;

	ok = ok && cJSON_AddStringToObject(o, "name", row->name);
	ok = ok && cJSON_AddStringToObject(o, "family", ns_op_family_name(row->family));
	ok = ok && cJSON_AddStringToObject(o, "pass", ns_op_pass_name(row->pass));
	ok = ok && cJSON_AddStringToObject(o, "shape", row->shape);
	ok = ok && cJSON_AddStringToObject(o, "input_dims", row->dims);
	ok = ok && cJSON_AddStringToObject(o, "dtype", row_type(row));
	if (row->family == NS_OPF_GEMM) {
		ok = ok && add_num(o, "m", row->m) && add_num(o, "n", row->n);
		ok = ok && add_num(o, "k", row->k) && add_num(o, "batch", row->batch);
	}
	ok = ok && add_num(o, "count", (double)row->count);
	ok = ok && add_num(o, "gpu_us", (double)row->gpu_ns / 1e3);
	ok = ok && add_num(o, "flops", row->flops);
	ok = ok && add_num(o, "bytes", row->bytes);
	ok = ok && add_num(o, "roof_us", row->roof_ns / 1e3);
	if (computes) {
		ok = ok && add_num(o, "intensity", row->roof.intensity);
		ok = ok && add_num(o, "achieved_tflops", row->roof.achieved_flops / 1e12);
	}
	ok = ok && add_num(o, "achieved_gbs", s > 0.0 ? row->bytes / s / 1e9 : 0.0);
	ok = ok && add_num(o, "fraction_of_roof", row->fraction);
	ok = ok && cJSON_AddStringToObject(o, "regime", ns_regime_name(row->roof.regime));
	ok = ok && cJSON_AddBoolToObject(o, "above_roof", row->roof.above_roof);
	ok = ok && cJSON_AddBoolToObject(o, "lower_bound", row->lower_bound);
	ok = ok && (row->note != NULL ? cJSON_AddStringToObject(o, "note", row->note)
	                              : cJSON_AddNullToObject(o, "note")) != NULL;
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *family_json(const ns_troof_report *r, const ns_troof_family *f)
{
	cJSON *o = cJSON_CreateObject(), *low;
	bool ok = o != NULL;

	ok = ok && cJSON_AddStringToObject(o, "family", ns_op_family_name(f->family));
	ok = ok &&
	     cJSON_AddStringToObject(o, "bound", ns_op_family_computes(f->family) ? "compute" : "memory");
	ok = ok && add_num(o, "ops", (double)f->ops) && add_num(o, "gpu_us", (double)f->gpu_ns / 1e3);
	ok = ok && add_num(o, "flops", f->flops) && add_num(o, "bytes", f->bytes);
	ok = ok && add_num(o, "roof_us", f->roof_ns / 1e3);
	ok = ok && add_num(o, "headroom_us", f->headroom_ns / 1e3);
	ok = ok && add_num(o, "fraction", share(f->roof_ns, (double)f->gpu_ns));
	ok = ok && add_num(o, "lower_bound_gpu_us", (double)f->bound_ns / 1e3);
	if (ok && f->fp32_ns > 0) {
		low = cJSON_AddObjectToObject(o, "fp32");
		ok = low != NULL && add_num(low, "gpu_us", (double)f->fp32_ns / 1e3) &&
		     add_num(low, "roof_us", f->fp32_roof_ns / 1e3) &&
		     (f->tf32_roof_ns > 0.0 ? add_num(low, "tf32_roof_us", f->tf32_roof_ns / 1e3)
		                            : cJSON_AddNullToObject(low, "tf32_roof_us") != NULL) &&
		     cJSON_AddStringToObject(low, "half_dtype", ns_dtype_name(r->half_dtype)) &&
		     (f->half_roof_ns > 0.0 ? add_num(low, "half_roof_us", f->half_roof_ns / 1e3)
		                            : cJSON_AddNullToObject(low, "half_roof_us") != NULL);
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static bool add_families(cJSON *obj, const ns_troof_report *r)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, "families"), *b, *one, *names;
	bool ok = arr != NULL;
	static const char *const keys[NS_TROOF_BUCKET_COUNT] = {"compute", "memory"};

	for (size_t i = 0; ok && i < r->nfamilies; i++) {
		cJSON *f = family_json(r, &r->families[r->order[i]]);
		ok = f != NULL && cJSON_AddItemToArray(arr, f);
		if (!ok)
			cJSON_Delete(f);
	}
	b = ok ? cJSON_AddObjectToObject(obj, "buckets") : NULL;
	ok = b != NULL;
	for (int k = 0; ok && k < NS_TROOF_BUCKET_COUNT; k++) {
		const ns_troof_bucket *bk = &r->buckets[k];
		one = cJSON_AddObjectToObject(b, keys[k]);
		ok = one != NULL && add_num(one, "gpu_us", (double)bk->gpu_ns / 1e3) &&
		     add_num(one, "roof_us", bk->roof_ns / 1e3) &&
		     add_num(one, "headroom_us", bk->headroom_ns / 1e3) &&
		     add_num(one, "lower_bound_gpu_us", (double)bk->bound_ns / 1e3);
		names = ok ? cJSON_AddArrayToObject(one, "families") : NULL;
		ok = names != NULL;
		for (size_t i = 0; ok && i < bk->nfamilies; i++) {
			cJSON *s = cJSON_CreateString(ns_op_family_name(bk->families[i]));
			ok = s != NULL && cJSON_AddItemToArray(names, s);
			if (!ok)
				cJSON_Delete(s);
		}
	}
	return ok;
}

static bool add_links(cJSON *obj, const ns_troof_report *r)
{
	cJSON *u;
	bool ok = add_num(obj, "linked_by_launch", (double)r->linked_by_launch);

	u = ok ? cJSON_AddObjectToObject(obj, "unlinked_kernels") : NULL;
	ok = u != NULL;
	for (int i = 0; ok && i < NS_TROOF_UNLINKED_COUNT; i++) {
		cJSON *one = cJSON_AddObjectToObject(u, unlinked_key[i]);
		ok = one != NULL && add_num(one, "kernels", (double)r->unlinked[i]) &&
		     add_num(one, "gpu_us", (double)r->unlinked_ns[i] / 1e3);
	}
	return ok;
}

static bool add_unplaced(cJSON *obj, const ns_troof_report *r)
{
	cJSON *u = cJSON_AddObjectToObject(obj, "unplaced"), *top;
	bool ok = u != NULL;

	for (int i = 0; ok && i < NS_TROOF_REASON_COUNT; i++) {
		cJSON *one = cJSON_AddObjectToObject(u, reason_key[i]);
		ok = one != NULL && add_num(one, "ops", (double)r->unplaced[i]) &&
		     add_num(one, "gpu_us", (double)r->unplaced_ns[i] / 1e3);
	}
	top = ok ? cJSON_AddArrayToObject(obj, "unplaced_top") : NULL;
	ok = top != NULL;
	for (size_t i = 0; ok && i < r->nunplaced_top; i++) {
		cJSON *one = cJSON_CreateObject();
		ok = one != NULL && cJSON_AddItemToArray(top, one);
		if (!ok) {
			cJSON_Delete(one);
			break;
		}
		ok = cJSON_AddStringToObject(one, "name", r->unplaced_top[i].name) &&
		     cJSON_AddStringToObject(one, "reason", reason_key[r->unplaced_top[i].reason]) &&
		     (r->unplaced_top[i].why != NULL
		          ? cJSON_AddStringToObject(one, "why", r->unplaced_top[i].why)
		          : cJSON_AddNullToObject(one, "why")) != NULL &&
		     add_num(one, "ops", (double)r->unplaced_top[i].ops) &&
		     add_num(one, "gpu_us", (double)r->unplaced_top[i].gpu_ns / 1e3);
	}
	return ok;
}

cJSON *ns_troof_report_json(const ns_troof_report *r, size_t top)
{
	cJSON *o = cJSON_CreateObject(), *rows;
	bool ok = o != NULL;

	ok = ok && (r->device_known ? cJSON_AddStringToObject(o, "device", r->device)
	                            : cJSON_AddNullToObject(o, "device")) != NULL;
	ok = ok &&
	     (r->ns_trace_device[0] != '\0' ? cJSON_AddStringToObject(o, "trace_device", r->ns_trace_device)
	                                    : cJSON_AddNullToObject(o, "trace_device")) != NULL;
	ok = ok && cJSON_AddBoolToObject(o, "device_from_option", r->from_option);
	ok = ok && add_num(o, "kernels", (double)r->kernels);
	ok = ok && add_num(o, "ops", (double)r->ops);
	ok = ok && add_num(o, "ops_gpu_us", (double)r->ops_ns / 1e3);
	ok = ok && add_num(o, "collectives_gpu_us", (double)r->comm_ns / 1e3);
	ok = ok && add_num(o, "placed_ops", (double)r->placed);
	ok = ok && add_num(o, "placed_gpu_us", (double)r->placed_ns / 1e3);
	ok = ok && add_num(o, "placed_share", ns_troof_placed_share(r));
	ok = ok && add_num(o, "lower_bound_gpu_us", (double)r->bound_ns / 1e3);
	ok = ok && add_num(o, "shapes", (double)r->nrows);
	ok = ok && add_families(o, r);
	rows = ok ? cJSON_AddArrayToObject(o, "top") : NULL;
	ok = rows != NULL;
	for (size_t i = 0; ok && i < r->nrows && i < top; i++) {
		cJSON *row = row_json(&r->rows[i]);
		ok = row != NULL && cJSON_AddItemToArray(rows, row);
		if (!ok)
			cJSON_Delete(row);
	}
	ok = ok && add_unplaced(o, r) && add_links(o, r);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

ns_status ns_troof_print_with_report(FILE *out, const ns_split_result *res, const ns_report_options *o,
                                     const ns_troof_report *r, ns_error *err)
{
	cJSON *section;
	ns_status st;
	char why[NS_REPORT_FIX_MAX] = "";

	if (res->nsys) /* nothing to place: said instead of an empty table (docs/nsys.md) */
		ns_report_export_roofline(res, why, sizeof(why));
	if (o->format->kind != NS_FORMAT_JSON) {
		st = ns_report_print(out, res, o, err);
		if (st == NS_OK && o->format->kind == NS_FORMAT_TEXT && res->nsys) {
			fprintf(out, "roofline: %s\n", why);
		} else if (st == NS_OK && o->format->kind == NS_FORMAT_TEXT) {
			ns_troof_report_print(out, r, o->top, o->hints);
			ns_gpu_util_print(out, res, r);
			if (fflush(out) != 0 || ferror(out))
				st = ns_error_set(err, NS_ERR_IO, "write error");
		}
		return st;
	}
	section = ns_troof_report_json(r, o->top);
	if (section != NULL && res->nsys && !cJSON_AddStringToObject(section, "not_placed", why)) {
		cJSON_Delete(section);
		section = NULL;
	}
	if (section != NULL && !ns_gpu_util_add_json(section, res, r)) {
		cJSON_Delete(section);
		section = NULL;
	}
	if (section == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory while writing the JSON report");
	return ns_report_print_with(out, res, o, "roofline", section, err);
}
