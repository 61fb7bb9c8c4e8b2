/* Times ns_trace_read() over one file: prints events, bytes and MB/s of decompressed JSON per run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nextstep/trace_read.h"

typedef struct {
	long kernels;
	long long kernel_ns;
	long long checksum;
} tally;

static ns_status count_event(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	tally *t = ctx;

	(void)err;
	/* Touch the fields a consumer would, so the work is not optimised away. */
	t->checksum += ev->ts_ns ^ ev->pid ^ (long long)ev->name.len;
	if (ev->cat == NS_TCAT_KERNEL && ev->has_dur) {
		t->kernels++;
		t->kernel_ns += ev->dur_ns;
	}
	return NS_OK;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 1;

	if (argc < 2) {
		fprintf(stderr, "usage: scan_bench TRACE [RUNS]\n");
		return 2;
	}
	for (int i = 0; i < runs; i++) {
		ns_input in;
		ns_error err;
		ns_trace_meta meta;
		tally t = {0};
		double t0;
		ns_status st;

		if (ns_input_open(&in, argv[1], &err) != NS_OK) {
			fprintf(stderr, "scan_bench: %s: %s\n", argv[1], err.msg);
			return 1;
		}
		t0 = now_s();
		st = ns_trace_read(&in, count_event, &t, &meta, &err);
		double secs = now_s() - t0;
		ns_input_close(&in);
		if (st != NS_OK) {
			fprintf(stderr, "scan_bench: %s: byte %lld: %s (event %ld)\n", argv[1], err.offset,
			        err.msg, err.index);
			return 1;
		}
		printf("events=%ld kernels=%ld kernel_ms=%.3f bytes=%lld gz=%d devices=%zu rank=%lld/%lld "
		       "secs=%.4f MB/s=%.1f\n",
		       meta.events, t.kernels, (double)t.kernel_ns / 1e6, meta.bytes, meta.compressed,
		       meta.ndevices, (long long)meta.rank, (long long)meta.world_size, secs,
		       (double)meta.bytes / 1e6 / secs);
	}
	return 0;
}
