/* Shared between the diff module's files; not part of the public API. */
#ifndef NEXTSTEP_DIFF_PRIVATE_H
#define NEXTSTEP_DIFF_PRIVATE_H

#include "nextstep/diff.h"

/* Sets s->dtype from the names of s's compute kernels (the dtype holding most of their time). */
void diff_guess_dtype(diff_side *s);

#endif
