/* Feeds arbitrary numbers and a label to the roofline arithmetic and the SVG writer, as `nextstep roofline
 * --svg` does, and also hands the writer raw, unchecked numbers (the library API does not promise callers
 * checked ones). Every document must stay small, and every pixel coordinate and every byte of text must be
 * what an SVG viewer accepts: never a crash, UB, NaN, or a runaway loop (issue 9: 2.2 GB from AI 0). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/roofline.h"
#include "nextstep/roofline_svg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NUMBERS 8

/* Every attribute value that is a number (coordinates, points) must be a finite one on the canvas; text may
 * say anything the label said. */
static void check_numbers(const char *svg)
{
	for (const char *s = strstr(svg, "=\""); s != NULL; s = strstr(s + 1, "=\"")) {
		const char *v = s + 2;
		if (strncmp(v, "nan", 3) == 0 || strncmp(v, "-nan", 4) == 0 || strncmp(v, "inf", 3) == 0 ||
		    strncmp(v, "-inf", 4) == 0)
			abort();
		if ((*v >= '0' && *v <= '9') || *v == '-') {
			double x = strtod(v, NULL);
			if (!isfinite(x) || x < -1000 || x > 1000) /* pixels, or an angle in degrees */
				abort();
		}
	}
}

static void check_document(const char *svg, size_t len)
{
	if (len > 16384)
		abort();
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)svg[i] < 0x20 && svg[i] != '\n')
			abort();
	check_numbers(svg);
}

static void write_svg(const ns_roofline_plot *plot)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (out == NULL)
		return;
	ns_roofline_svg_write(out, plot);
	fclose(out);
	check_document(buf, len);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double v[NUMBERS];
	char label[256];
	ns_device dev;
	ns_roofline_result r;
	ns_error err;

	if (size < sizeof(v))
		return 0;
	memcpy(v, data, sizeof(v));
	size -= sizeof(v);
	if (size >= sizeof(label))
		size = sizeof(label) - 1;
	memcpy(label, data + sizeof(v), size);
	label[size] = '\0';
	memset(&dev, 0, sizeof(dev));
	dev.name = label;
	dev.peak[NS_DTYPE_BF16] = fabs(v[3]);
	dev.peak[NS_DTYPE_FP32] = fabs(v[6]);
	dev.mem_bw = fabs(v[4]);

	/* The CLI's path: only placed results are plotted. */
	ns_roofline_input in = {v[0], v[1], dev.peak[NS_DTYPE_BF16], dev.mem_bw, v[2], 0.1};
	ns_error_clear(&err);
	if (ns_roofline_place(&in, &r, &err) == NS_OK) {
		ns_roofline_plot plot = {&dev,
		                         NS_DTYPE_BF16,
		                         label,
		                         r.intensity,
		                         r.attainable,
		                         r.timed,
		                         r.achieved_flops,
		                         r.fraction_of_roof};
		if (!isfinite(r.intensity) || !isfinite(r.attainable) || !isfinite(r.fraction_of_roof))
			abort();
		write_svg(&plot);
	}
	/* Raw numbers straight to the writer, when the device itself is drawable. */
	if (isfinite(dev.peak[NS_DTYPE_BF16]) && dev.peak[NS_DTYPE_BF16] > 0 && isfinite(dev.mem_bw) &&
	    dev.mem_bw > 0) {
		ns_roofline_plot raw = {&dev, NS_DTYPE_BF16, label, v[0], v[5], v[7] > 0, v[2], v[7]};
		write_svg(&raw);
	}
	return 0;
}
