/* GPU-Util and the fraction of the roof (gpu_util.h): derived from the split's windows and the roofline
 * placements, nothing read again. */
#include "nextstep/gpu_util.h"

#include <stddef.h>

#include "nextstep/format.h"

double ns_window_gpu_util(const ns_split_window *w)
{
	if (w->kernel_ns < 0)
		return -1.0;
	if (w->dur_ns <= 0)
		return 0.0;
	return (double)w->kernel_ns / (double)w->dur_ns;
}

double ns_troof_roof_fraction(const ns_troof_report *r, int64_t *placed_ns)
{
	double roof = 0.0;
	int64_t ns = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		/* a lower bound's share would pull the weighted share down by bytes it could not count */
		if (r->rows[i].gpu_ns <= 0 || !(r->rows[i].roof_ns >= 0.0) || r->rows[i].lower_bound)
			continue;
		roof += r->rows[i].roof_ns; /* gpu_ns x fraction, fraction = roof_ns / gpu_ns */
		ns += r->rows[i].gpu_ns;
	}
	if (placed_ns != NULL)
		*placed_ns = ns;
	return ns > 0 ? roof / (double)ns : -1.0;
}

const ns_split_device *ns_busiest_device(const ns_split_result *res)
{
	const ns_split_device *best = NULL;

	for (size_t i = 0; res->gpu_activity && i < res->ndevices; i++)
		if (best == NULL || res->device[i].overall.kernel_ns > best->overall.kernel_ns)
			best = &res->device[i];
	return best;
}

void ns_gpu_util_print(FILE *out, const ns_split_result *res, const ns_troof_report *r)
{
	const ns_split_device *d = ns_busiest_device(res);
	int64_t placed = 0;
	double util, roof = ns_troof_roof_fraction(r, &placed);

	if (d == NULL || (util = ns_window_gpu_util(&d->overall)) < 0.0)
		return;
	fputs("GPU-Util ", out);
	ns_format_percent(out, util);
	if (d->id >= 0)
		fprintf(out, " (device %lld)", (long long)d->id);
	if (roof < 0.0) {
		fputs(
		    ", no op placed on the roofline: how close its kernels come to their roofs is unknown\n",
		    out);
		return;
	}
	fputs(", kernels at ", out);
	ns_format_percent(out, roof);
	fputs(r->bound_ns > 0 ? " of their roof (time-weighted over the ops placed by exact counts, "
	                      : " of their roof (time-weighted over the placed ops, ",
	      out);
	ns_format_percent(out, r->ops_ns > 0 ? (double)placed / (double)r->ops_ns : 0.0);
	fputs(" of the ops' GPU time)", out);
	fputs(roof > NS_ROOFLINE_ABOVE_ROOF_SLACK
	          ? ": above the roof, so the device or the dtype is not the one that ran\n"
	          : "\n",
	      out);
}

bool ns_gpu_util_add_json(cJSON *section, const ns_split_result *res, const ns_troof_report *r)
{
	const ns_split_device *d = ns_busiest_device(res);
	double util = d != NULL ? ns_window_gpu_util(&d->overall) : -1.0;
	double roof = ns_troof_roof_fraction(r, NULL);
	bool ok = (util >= 0.0 ? cJSON_AddNumberToObject(section, "gpu_util", ns_format_tidy(util))
	                       : cJSON_AddNullToObject(section, "gpu_util")) != NULL;

	return ok && (roof >= 0.0 ? cJSON_AddNumberToObject(section, "fraction_of_roof", ns_format_tidy(roof))
	                          : cJSON_AddNullToObject(section, "fraction_of_roof")) != NULL;
}
