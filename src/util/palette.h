/* The colours of every chart nextstep draws: the HTML page, the terminal bars (--color) and the roofline SVG.
 * One table, so a bucket has the same colour everywhere. The hues are Okabe and Ito's colour-blind-safe set
 * ("Color Universal Design", 2008): distinguishable under the common forms of colour blindness. Private to
 * the library. */
#ifndef NEXTSTEP_UTIL_PALETTE_H
#define NEXTSTEP_UTIL_PALETTE_H

typedef struct {
	const char *hex; /* "#0072B2" */
	unsigned char r, g, b;
	const char *name; /* the colour's name, for the docs and the page's legend */
} ns_colour;

/* The six buckets, in ns_regime order (compute, memory, comm, dataloader, overhead, idle). */
const ns_colour *ns_palette_bucket(int regime);

/* The roofline plot's marks. */
typedef enum {
	PALETTE_ROOF,
	PALETTE_OTHER_ROOF,
	PALETTE_KERNEL,
	PALETTE_ACHIEVED,
	PALETTE_MARK_COUNT
} palette_mark;
const ns_colour *ns_palette_mark(palette_mark m);

/* Host activity in the timeline (a thread busy on the CPU). */
const ns_colour *ns_palette_host(void);
/* Copies and sets (memcpy/memset) in the timeline, apart from memory-bound kernels. */
const ns_colour *ns_palette_transfer(void);

#endif
