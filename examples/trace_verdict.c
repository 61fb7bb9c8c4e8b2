/* Analysing a profiler trace with libnextstep from another program: each device's verdict and the next step,
 * as `nextstep trace` would name them.
 *
 * Build against an installed libnextstep (export PKG_CONFIG_PATH=DIR/lib/pkgconfig first, as for
 * route_profile.c; or with CMake: examples/CMakeLists.txt), then run it on a trace, with the installed device
 * table (share/nextstep/devices.json) as the optional second argument to word and bound the fp32 advice by
 * the GPU's peaks as `nextstep trace` does:
 *   cc -o trace_verdict examples/trace_verdict.c $(pkg-config --cflags --libs nextstep)
 *   ./trace_verdict tests/data/trace_buckets.json
 */
#include <stdio.h>

#include <nextstep/nextstep.h>

int main(int argc, char **argv)
{
	ns_format_options text = {NS_FORMAT_TEXT, false, false};
	ns_trace_options *o = ns_trace_options_new();
	ns_analysis *a;
	ns_error err;
	double gain;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s TRACE.json[.gz] [devices.json]\n", argv[0]);
		return 2;
	}
	if (o == NULL || (argc == 3 && ns_trace_options_set_device_table(o, argv[2], &err) != NS_OK) ||
	    ns_trace_analyse(argv[1], o, &a, &err) != NS_OK) {
		fprintf(stderr, "trace_verdict: %s\n", o == NULL ? "out of memory" : err.msg);
		ns_trace_options_free(o);
		return 1;
	}
	ns_trace_options_free(o);
	for (size_t i = 0; i < ns_analysis_devices(a); i++) {
		const char *fix = ns_analysis_next_fix(a, i, &gain);
		if (!ns_analysis_routed(a, i))
			printf("%s: no verdict (see nextstep trace)\n", ns_analysis_label(a, i));
		else
			ns_format_verdict_line(stdout, ns_analysis_label(a, i), ns_analysis_verdict(a, i),
			                       ns_analysis_routes(a, i), &text);
		if (fix != NULL)
			printf("next step: %s (up to %.0f%% of the step)\n", fix, gain * 100.0);
	}
	ns_analysis_free(a);
	return 0;
}
