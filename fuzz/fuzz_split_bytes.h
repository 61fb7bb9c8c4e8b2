/* The harnesses that follow the trace path past the reader start the same way: the fuzzer's bytes as a file
 * (the reader takes a descriptor, as the CLI gives it), analysed by ns_trace_analyse_input() with the options
 * the CLI sets. Shared here so every harness reads exactly as the CLI does. */
#ifndef NEXTSTEP_FUZZ_SPLIT_BYTES_H
#define NEXTSTEP_FUZZ_SPLIT_BYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nextstep/analysis.h"
#include "nextstep/trace_split.h"

/* The --step-marker the harnesses may use: the word the fixtures' user annotations start with. */
#define FUZZ_STEP_MARKER "^train_iter"

/* Analyses data[0..size) as a trace into *out (NULL on error; free it with ns_analysis_free). timeline: also
 * build the median step's timeline (the HTML page's); roof: place the ops as --roofline does (NULL: not).
 * The CLI's options that change the split are taken from the last byte, so the fuzzer reaches both sides of
 * each: bit 0 keeps the warm-up steps in overall (--all-steps), bit 1 adds FUZZ_STEP_MARKER (--step-marker).
 * Aborts only on the harness's own faults. */
/* With a roofline: placed unasked, as `nextstep trace` places a trace with shapes (set by the harness). */
static bool fuzz_shape_bounds;

static ns_status fuzz_analyse_bytes(const uint8_t *data, size_t size, const ns_kernel_rules *rules,
                                    bool timeline, const ns_troof_options *roof, ns_analysis **out,
                                    ns_error *err)
{
	static ns_step_marker *marker;
	unsigned knobs = size > 0 ? data[size - 1] : 0;
	ns_trace_options *o = ns_trace_options_new();
	ns_input in;
	ns_status st;
	int fd = memfd_create("fuzz_trace", 0);

	if (o == NULL || fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	memset(&in, 0, sizeof(in));
	in.fd = fd;
	in.name = "fuzz";
	if (marker == NULL && (marker = ns_step_marker_new(FUZZ_STEP_MARKER, err)) == NULL)
		abort();
	ns_trace_options_set_rules(o, rules);
	ns_trace_options_set_timeline(o, timeline);
	ns_trace_options_set_all_steps(o, (knobs & 1) != 0);
	if ((knobs & 2) != 0)
		ns_trace_options_set_marker(o, marker);
	if (roof != NULL && fuzz_shape_bounds)
		ns_trace_options_set_shape_bounds(o, roof->devices);
	else if (roof != NULL)
		ns_trace_options_set_roofline_as(o, roof);
	st = ns_trace_analyse_input(&in, o, out, err);
	ns_trace_options_free(o);
	close(fd);
	return st;
}

#endif
