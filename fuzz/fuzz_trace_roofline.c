/* Feeds arbitrary bytes through `nextstep trace --roofline`'s path: the reader teed into the split and the op
 * roofline collector, kernels linked to ops, ops placed on the device table the CLI ships, and the section
 * printed as text and JSON. The first byte picks the options (--device, --dtype), the rest is the trace. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nextstep/trace_read.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ns_kernel_rules *rules;
static ns_device_table table;
static FILE *sink;

static void setup(void)
{
	ns_error err;

	ns_error_clear(&err);
	ns_devices_init(&table);
	if (ns_kernel_rules_default(&rules, &err) != NS_OK ||
	    ns_devices_load_file(&table, NS_FUZZ_DEVICES, &err) != NS_OK ||
	    (sink = fopen("/dev/null", "w")) == NULL)
		abort();
}

static void options_from(uint8_t knob, ns_troof_options *o)
{
	memset(o, 0, sizeof(*o));
	o->devices = &table;
	if (knob & 1)
		o->device = "H100 SXM";
	o->has_dtype = (knob & 2) != 0;
	o->dtype = (ns_dtype)((knob >> 2) % NS_DTYPE_COUNT);
}

static void check_report(const ns_troof_report *r)
{
	cJSON *doc = ns_troof_report_json(r, 5);

	if (r->ops_ns < 0 || r->nrows > (size_t)(r->ops > 0 ? r->ops : 0))
		abort();
	ns_troof_report_print(sink, r, 5, NULL);
	cJSON_Delete(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_input in;
	ns_error err;
	ns_trace_meta meta;
	ns_troof_options o;
	ns_troof_report report;
	ns_trace_split *split;
	ns_trace_roofline *roof;
	ns_trace_roofline_tee tee;
	ns_status st;
	int fd;

	if (size == 0)
		return 0;
	if (rules == NULL)
		setup();
	options_from(data[0], &o);
	fd = memfd_create("fuzz_trace_roofline", 0);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1) || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	memset(&in, 0, sizeof(in));
	in.fd = fd;
	in.name = "fuzz";
	memset(&meta, 0, sizeof(meta));
	memset(&report, 0, sizeof(report));
	ns_error_clear(&err);
	split = ns_trace_split_new(rules);
	roof = ns_trace_roofline_new();
	if (split == NULL || roof == NULL)
		abort();
	tee = (ns_trace_roofline_tee){ns_trace_split_event, split, roof};
	st = ns_trace_read(&in, ns_trace_roofline_tee_event, &tee, &meta, &err);
	if (st == NS_OK && ns_trace_roofline_finish(roof, &meta, &o, &report, &err) == NS_OK)
		check_report(&report);
	ns_troof_report_free(&report);
	ns_trace_roofline_free(roof);
	ns_trace_split_free(split);
	close(fd);
	return 0;
}
