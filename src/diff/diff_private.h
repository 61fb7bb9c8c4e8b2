/* Shared between the diff module's files; not part of the public API. */
#ifndef NEXTSTEP_DIFF_PRIVATE_H
#define NEXTSTEP_DIFF_PRIVATE_H

#include "nextstep/diff.h"
#include "nextstep/trace_split.h"
#include "util/json_out.h"
#include "util/vec.h"

/* ns_diff_side_from_report() of a trace's report document printed without its steps (REPORT_JSON_NO_STEPS):
 * the compared device's steps are read from split, whose devices are the document's, in its order. */
ns_status diff_side_from_trace_report(const cJSON *doc, const ns_split_result *split, ns_diff_side *s,
                                      ns_error *err);

/* Sets s->dtype from the names of s's compute kernels (the dtype holding most of their time). */
void diff_guess_dtype(ns_diff_side *s);

/* The devices' "steps" arrays of a text, in document order (grown with ns_grow). */
typedef struct {
	ns_diff_steps_text *items;
	size_t n, cap;
} diff_steps_list;

/* Checks that text is one JSON value cJSON reads, nested at most NS_DIFF_MAX_DEPTH deep, each of its devices'
 * steps at most NS_DIFF_STEP_TEXT_MAX bytes; pushes the devices' "steps" arrays found onto steps
 * when it is not NULL. A syntax error or limit sets err->line. Allocates nothing else,
 * so that after it a NULL from cJSON on the text is out of memory. */
ns_status diff_text_check(const char *text, size_t len, diff_steps_list *steps, ns_error *err);
/* The tree of checked text, each of the nsteps "steps" arrays an empty array (steps[i].placeholder) whose
 * text is left where it is. *out: the caller's, freed with cJSON_Delete(). NS_ERR_NOMEM only. */
ns_status diff_text_tree(const char *text, size_t len, ns_diff_steps_text *steps, size_t nsteps, cJSON **out,
                         ns_error *err);

/* The steps of a steps array's text, parsed one at a time. */
typedef struct {
	const char *text;
	size_t pos, end;
} diff_steps_cursor;

void diff_steps_begin(const char *text, const ns_diff_steps_text *st, diff_steps_cursor *c);
/* The next step as a tree (the caller's to cJSON_Delete), or *item NULL at the end. NS_ERR_NOMEM only. */
ns_status diff_steps_next(diff_steps_cursor *c, cJSON **item, ns_error *err);
/* The number of steps in a steps array's text. */
size_t diff_steps_count(const char *text, const ns_diff_steps_text *st);
/* The steps array of a side's report whose tree holds placeholder in its place, or NULL. */
const ns_diff_steps_text *diff_steps_of(const ns_diff_side *s, const cJSON *placeholder);

/* Makes the keys and strings of item and its siblings UTF-8 (a byte that begins no character becomes
 * U+FFFD): a saved report is printed again. False on OOM. */
bool diff_clean_strings(cJSON *item);

/* A saved report's object R, its steps printed from its text. */
ns_status diff_put_report(json_out *w, const ns_diff_side *s, ns_error *err);

#endif
