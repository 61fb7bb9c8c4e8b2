/* The harnesses that follow the trace path past the reader start the same way: the fuzzer's bytes as a file
 * (the reader takes a descriptor, as the CLI gives it), read into a split. Shared here so every harness reads
 * exactly as the CLI does. */
#ifndef NEXTSTEP_FUZZ_SPLIT_BYTES_H
#define NEXTSTEP_FUZZ_SPLIT_BYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nextstep/trace_read.h"
#include "nextstep/trace_split.h"

/* The --step-marker the harnesses may use: the word the fixtures' user annotations start with. */
#define FUZZ_STEP_MARKER "^train_iter"

/* Reads data[0..size) as a trace into *res (zeroed first; free it with ns_split_result_free whatever the
 * status). timeline: also build the median step's timeline (the HTML page's). The CLI's options that change
 * the split are taken from the last byte, so the fuzzer reaches both sides of each: bit 0 keeps the warm-up
 * steps in overall (--all-steps), bit 1 adds FUZZ_STEP_MARKER (--step-marker). Aborts only on the harness's
 * own faults. */
static ns_status fuzz_split_bytes(const uint8_t *data, size_t size, const ns_kernel_rules *rules,
                                  bool timeline, ns_split_result *res, ns_error *err)
{
	static ns_step_marker *marker;
	unsigned knobs = size > 0 ? data[size - 1] : 0;
	ns_input in;
	ns_trace_meta meta;
	ns_trace_split *split;
	ns_status st;
	int fd = memfd_create("fuzz_trace", 0);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	memset(&in, 0, sizeof(in));
	in.fd = fd;
	in.name = "fuzz";
	memset(&meta, 0, sizeof(meta));
	memset(res, 0, sizeof(*res));
	split = ns_trace_split_new(rules);
	if (split == NULL)
		abort();
	ns_trace_split_want_timeline(split, timeline);
	ns_trace_split_keep_warmup(split, (knobs & 1) != 0);
	if (marker == NULL && (marker = ns_step_marker_new(FUZZ_STEP_MARKER, err)) == NULL)
		abort();
	if ((knobs & 2) != 0 && !ns_trace_split_step_marker(split, marker))
		abort();
	st = ns_trace_read(&in, ns_trace_split_event, split, &meta, err);
	if (st != NS_OK && meta.truncated &&
	    meta.events > 0) /* the CLI reports a cut file as far as it goes */
		st = NS_OK;
	if (st == NS_OK)
		st = ns_trace_split_finish(split, &meta, res, err);
	ns_trace_split_free(split);
	close(fd);
	return st;
}

#endif
