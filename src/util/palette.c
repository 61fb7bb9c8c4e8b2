#include "util/palette.h"

#include "nextstep/regime.h"

/* Okabe-Ito: blue for the work the GPU should be doing, warm colours for the time lost around it; idle is a
 * neutral grey (the set's black would hide the bar's outline and its yellow is too light on white). Each
 * bucket's neighbour in a stacked bar differs from it in hue and in lightness. */
static const ns_colour buckets[NS_REGIME_COUNT] = {
    [NS_REGIME_COMPUTE] = {"#0072B2", 0x00, 0x72, 0xB2, "blue"},
    [NS_REGIME_MEMORY] = {"#E69F00", 0xE6, 0x9F, 0x00, "orange"},
    [NS_REGIME_COMM] = {"#CC79A7", 0xCC, 0x79, 0xA7, "reddish purple"},
    [NS_REGIME_DATALOADER] = {"#009E73", 0x00, 0x9E, 0x73, "bluish green"},
    [NS_REGIME_OVERHEAD] = {"#D55E00", 0xD5, 0x5E, 0x00, "vermillion"},
    [NS_REGIME_IDLE] = {"#BBBBBB", 0xBB, 0xBB, 0xBB, "grey"},
};

static const ns_colour marks[PALETTE_MARK_COUNT] = {
    [PALETTE_ROOF] = {"#D55E00", 0xD5, 0x5E, 0x00, "vermillion"},
    [PALETTE_OTHER_ROOF] = {"#999999", 0x99, 0x99, 0x99, "grey"},
    [PALETTE_KERNEL] = {"#0072B2", 0x00, 0x72, 0xB2, "blue"},
    [PALETTE_ACHIEVED] = {"#E69F00", 0xE6, 0x9F, 0x00, "orange"},
};

static const ns_colour host = {"#56B4E9", 0x56, 0xB4, 0xE9, "sky blue"};
static const ns_colour transfer = {"#F0E442", 0xF0, 0xE4, 0x42, "yellow"};

const ns_colour *ns_palette_bucket(int regime)
{
	if (regime < 0 || regime >= NS_REGIME_COUNT)
		return &buckets[NS_REGIME_IDLE];
	return &buckets[regime];
}

const ns_colour *ns_palette_mark(palette_mark m)
{
	if ((int)m < 0 || m >= PALETTE_MARK_COUNT)
		return &marks[PALETTE_OTHER_ROOF];
	return &marks[m];
}

const ns_colour *ns_palette_host(void)
{
	return &host;
}

const ns_colour *ns_palette_transfer(void)
{
	return &transfer;
}
