/* The roofline as a log-log SVG: a roof per dtype of the device, the ridge of the chosen dtype, the kernel's
 * point on its roof and, when timed, its achieved point; every element labelled where it is drawn. */
#ifndef NEXTSTEP_ROOFLINE_SVG_H
#define NEXTSTEP_ROOFLINE_SVG_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/roofline_svg.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stdio.h>

#include "nextstep/api.h"
#include "nextstep/devices.h"
#include "nextstep/error.h"

NS_BEGIN_DECLS

typedef struct {
	const ns_device *dev;
	ns_dtype dtype;    /* the highlighted roof */
	const char *label; /* the kernel's name on the plot ("matmul 8192x8192x8192") */
	double intensity;  /* FLOP/B */
	double attainable; /* FLOP/s on the roof at that intensity */
	bool timed;
	double achieved;         /* FLOP/s, when timed */
	double fraction_of_roof; /* achieved / attainable, when timed */
} ns_roofline_plot;

/* Writes the whole document to out. */
NS_STATIC_API void ns_roofline_svg_write(FILE *out, const ns_roofline_plot *p);
/* The same plot as an <svg> element to put inside an HTML page (no XML prolog, no namespace). */
NS_STATIC_API void ns_roofline_svg_write_inline(FILE *out, const ns_roofline_plot *p);
/* Writes the document to the file at path, whole or not at all: to a new file beside it, renamed into place
 * when complete (an existing file is replaced only then). NS_ERR_IO with the reason when it cannot. */
NS_STATIC_API ns_status ns_roofline_svg_save(const char *path, const ns_roofline_plot *p, ns_error *err);

NS_END_DECLS

#endif
