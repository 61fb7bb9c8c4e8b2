/* Feeds arbitrary bytes through `nextstep trace --roofline`'s path, the analysis: the reader teed into the
 * split and the op roofline collector, kernels linked to ops, ops placed on the device table the CLI ships,
 * and the section printed as text and JSON. The first byte picks the options (--device, --dtype; its top bit
 * the placement `nextstep trace` makes unasked, without them: the collector that gives up on a trace without
 * shapes, and the report printed with its bounds), the rest is the trace (its last byte also --all-steps and
 * --step-marker: fuzz_split_bytes.h). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_split_bytes.h"
#include "nextstep/trace_roofline.h"

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
	ns_error err;
	ns_troof_options o;
	ns_analysis *a = NULL;

	if (size == 0)
		return 0;
	if (rules == NULL)
		setup();
	options_from(data[0], &o);
	fuzz_shape_bounds = (data[0] & 0x80) != 0;
	if (fuzz_shape_bounds) { /* unasked: the trace's own device, its ops' own dtypes */
		o.device = NULL;
		o.has_dtype = false;
	}
	ns_error_clear(&err);
	if (fuzz_analyse_bytes(data + 1, size - 1, rules, false, &o, &a, &err) == NS_OK) {
		const ns_troof_report *r = ns_analysis_roofline(a);
		ns_format_options text = {NS_FORMAT_TEXT, true, false};
		if (r == NULL && !fuzz_shape_bounds)
			abort(); /* asked for, and the analysis worked */
		if (r != NULL && fuzz_shape_bounds && r->placed == 0 && !r->no_shapes)
			abort(); /* unasked, a placement of nothing (but for want of shapes) is none */
		if (r != NULL)
			check_report(r);
		if (fuzz_shape_bounds && ns_analysis_print(sink, a, &text, &err) != NS_OK &&
		    err.status != NS_ERR_NOMEM)
			abort();
	}
	ns_analysis_free(a);
	return 0;
}
