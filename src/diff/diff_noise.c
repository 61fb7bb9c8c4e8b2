/* Step-time statistics and the noise rule. Per-step times vary (jitter, a slow first step, a checkpoint), so
 * a change is only called when it stands out of that variation: the speed-up (mean BEFORE step / mean AFTER
 * step) is bootstrapped over the steps of each side, and the change is significant when its interval
 * excludes 1. The seed is fixed so the same two inputs always give the same answer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/diff.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void ns_diff_step_stats_of(const double *step_us, size_t n, ns_diff_step_stats *out)
{
	double *sorted;
	double sum = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	out->n = n;
	out->min = out->max = step_us[0] / 1e3;
	for (size_t i = 0; i < n; i++) {
		double ms = step_us[i] / 1e3;
		sum += ms;
		out->min = ms < out->min ? ms : out->min;
		out->max = ms > out->max ? ms : out->max;
	}
	out->mean = sum / (double)n;
	sorted = malloc(n * sizeof(*sorted));
	if (sorted == NULL) { /* the median is then the mean: a number, not a crash */
		out->median = out->mean;
		return;
	}
	for (size_t i = 0; i < n; i++)
		sorted[i] = step_us[i] / 1e3;
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	out->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
}

/* splitmix64: small, fast, and the same sequence on every platform. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The mean of n draws with replacement from v. */
static double resampled_mean(const double *v, size_t n, uint64_t *state)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[next_random(state) % n];
	return sum / (double)n;
}

static double mean_of(const double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return n > 0 ? sum / (double)n : 0;
}

void ns_diff_noise_judge(const double *before_us, size_t nb, const double *after_us, size_t na,
                         ns_diff_noise *out)
{
	double ratios[NS_DIFF_BOOTSTRAP_RESAMPLES];
	uint64_t state = NS_DIFF_BOOTSTRAP_SEED;
	double mb = mean_of(before_us, nb), ma = mean_of(after_us, na);
	size_t lo, hi;

	memset(out, 0, sizeof(*out));
	out->speedup = ma > 0 ? mb / ma : 0;
	out->lo = out->hi = out->speedup;
	out->known = nb >= 2 && na >= 2 && ma > 0;
	if (!out->known)
		return;
	for (size_t i = 0; i < NS_DIFF_BOOTSTRAP_RESAMPLES; i++) {
		double rb = resampled_mean(before_us, nb, &state);
		double ra = resampled_mean(after_us, na, &state);
		ratios[i] = ra > 0 ? rb / ra : 0;
	}
	qsort(ratios, NS_DIFF_BOOTSTRAP_RESAMPLES, sizeof(ratios[0]), cmp_double);
	/* The percentile interval: the middle NS_DIFF_BOOTSTRAP_LEVEL of the resampled ratios. */
	lo = (size_t)lround((1 - NS_DIFF_BOOTSTRAP_LEVEL) / 2 * NS_DIFF_BOOTSTRAP_RESAMPLES);
	hi = NS_DIFF_BOOTSTRAP_RESAMPLES - 1 - lo;
	out->lo = ratios[lo];
	out->hi = ratios[hi];
	out->significant = out->lo > 1 || out->hi < 1;
}
