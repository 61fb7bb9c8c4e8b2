/* The HTML report's pure parts: escaping, the grouping of many steps into a bounded number of bars, and the
 * page's size bound. Expected text is written by hand from the HTML rules (the five characters that must be
 * escaped; U+FFFD for what is not a character HTML allows). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/html.h"
#include "nextstep/trace_report.h"

static char *escaped(const char *s, size_t len, size_t max)
{
	char *text = NULL;
	size_t size = 0, n;
	FILE *mem = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(mem);
	n = ns_html_escape(mem, s, len, max);
	fclose(mem);
	ck_assert_uint_eq(n, size); /* the count is what was written */
	return text;
}

typedef struct {
	const char *in;
	size_t len; /* 0: strlen */
	size_t max;
	const char *want;
} escape_case;

static const escape_case escape_cases[] = {
    {"plain", 0, 100, "plain"},
    {"a<b>&c", 0, 100, "a&lt;b&gt;&amp;c"},
    {"say \"hi\" it's", 0, 100, "say &quot;hi&quot; it&#39;s"},
    {"tab\tand\nnewline", 0, 100, "tab\tand\nnewline"},
    {"bell\a esc\033", 0, 100, "bell\xEF\xBF\xBD esc\xEF\xBF\xBD"},
    {"del\x7f", 0, 100, "del\xEF\xBF\xBD"},
    {"c1 \xC2\x85", 0, 100, "c1 \xEF\xBF\xBD"},               /* U+0085 NEL */
    {"bad \xFF byte", 0, 100, "bad \xEF\xBF\xBD byte"},       /* not UTF-8 */
    {"cut \xE2\x82", 0, 100, "cut \xEF\xBF\xBD\xEF\xBF\xBD"}, /* a character cut short: each byte */
    {"non\xEF\xBF\xBF", 0, 100, "non\xEF\xBF\xBD"},           /* U+FFFF, a non-character */
    {"caf\xC3\xA9 \xE2\x86\x92 ok", 0, 100, "caf\xC3\xA9 \xE2\x86\x92 ok"}, /* é and an arrow kept */
    {"nul\0after", 9, 100,
     "nul\xEF\xBF\xBD"
     "after"},
    {"abcdefgh", 0, 6, "abc..."},                                   /* cut to 6 bytes with the dots */
    {"\xC3\xA9\xC3\xA9\xC3\xA9", 0, 6, "\xC3\xA9\xC3\xA9\xC3\xA9"}, /* fits exactly */
    {"\xC3\xA9\xC3\xA9\xC3\xA9", 0, 5, "\xC3\xA9..."},              /* never inside a character */
    {"<<<<", 0, 4, "&lt;&lt;&lt;&lt;"},                             /* the bound is on the input's bytes */
};

START_TEST(escape_writes_text_that_cannot_open_a_tag_or_an_attribute)
{
	const escape_case *c = &escape_cases[_i];
	size_t len = c->len > 0 ? c->len : strlen(c->in);
	char *got = escaped(c->in, len, c->max);

	ck_assert_str_eq(got, c->want);
	free(got);
}
END_TEST

typedef struct {
	size_t n, max, per, bars;
} group_case;

/* per = ceil(n / max) when n > max; bars = ceil(n / per) */
static const group_case group_cases[] = {
    {0, 120, 1, 0},     {1, 120, 1, 1},    {120, 120, 1, 120},        {121, 120, 2, 61},
    {240, 120, 2, 120}, {241, 120, 3, 81}, {1000000, 120, 8334, 120}, {7, 0, 7, 1},
};

START_TEST(many_steps_are_grouped_into_at_most_max_bars)
{
	const group_case *c = &group_cases[_i];
	size_t per = 0, bars = ns_html_step_groups(c->n, c->max, &per);

	ck_assert_uint_eq(per, c->per);
	ck_assert_uint_eq(bars, c->bars);
	ck_assert_uint_ge(bars * per, c->n); /* every step is in a bar */
}
END_TEST

static ns_html_page *page_in_memory(FILE **mem, char **text, size_t *size)
{
	ns_html_page_info info = {"test page", "0.0.0", "2026-01-01 00:00:00 UTC"};
	ns_html_page *p;

	*mem = open_memstream(text, size);
	ck_assert_ptr_nonnull(*mem);
	p = ns_html_page_begin(*mem, &info);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* One device with no time yet, and the default classification and routes to print it with. */
typedef struct {
	ns_split_device dev;
	ns_split_result res;
	ns_classify_options co;
	ns_routes routes;
	ns_error err;
} one_device;

static void one_device_init(one_device *f)
{
	ns_error_clear(&f->err);
	ns_classify_options_default(&f->co);
	ck_assert_int_eq(ns_routes_init_default(&f->routes, &f->err), NS_OK);
	memset(&f->dev, 0, sizeof(f->dev));
	memset(&f->res, 0, sizeof(f->res));
	f->res.device = &f->dev;
	f->res.ndevices = 1;
}

START_TEST(a_stream_of_a_million_records_gives_a_page_under_the_bound)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem;
	ns_html_page *p = page_in_memory(&mem, &text, &size);
	ns_routes routes;
	ns_verdict v;
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	memset(&v, 0, sizeof(v));
	v.regime = NS_REGIME_DATALOADER;
	v.share = 0.6;
	v.split[NS_REGIME_DATALOADER] = 0.6;
	v.split[NS_REGIME_COMPUTE] = 0.4;
	ns_html_router_begin(p, "stream");
	for (int i = 0; i < 1000000; i++)
		ns_html_router_card(p, "a label", &v, &routes);
	ns_html_router_error(p, 7, "bad record");
	ns_html_router_end(p, NULL);
	ck_assert_int_eq(ns_html_page_end(p, &err), NS_OK);
	fclose(mem);
	ck_assert_uint_le(size, NS_HTML_PAGE_MAX);
	/* NS_HTML_CARDS_MAX drawn, the rest counted by verdict */
	ck_assert_ptr_nonnull(strstr(text, "<td>dataloader</td><td class=\"n\">999500</td>"));
	ck_assert_ptr_nonnull(strstr(text, "1 bad record."));
	ck_assert_ptr_nonnull(strstr(text, "</html>\n"));
	free(text);
	ns_routes_free(&routes);
}
END_TEST

/* A trace of many steps: the page holds at most NS_HTML_STEP_BARS_MAX bars whatever the number of steps. */
START_TEST(a_trace_of_many_steps_draws_a_bounded_number_of_bars)
{
	static const size_t counts[] = {3, 120, 121, 200000};
	static const size_t want_bars[] = {3, 120, 61, 120}; /* 121 steps: bars of 2, the last of 1 */
	size_t sizes[4];

	for (size_t k = 0; k < 4; k++) {
		char *text = NULL, *at;
		size_t size = 0, bars = 0;
		FILE *mem;
		ns_html_page *p = page_in_memory(&mem, &text, &size);
		one_device f;
		ns_html_source src = {"t.json", 123, NULL};

		one_device_init(&f);
		ns_split_window *steps = calloc(counts[k], sizeof(*steps));
		ck_assert_ptr_nonnull(steps);
		for (size_t i = 0; i < counts[k]; i++) {
			steps[i].step = (int64_t)i;
			steps[i].dur_ns = 1000000;
			steps[i].bucket_ns[NS_REGIME_COMPUTE] = 700000;
			steps[i].bucket_ns[NS_REGIME_IDLE] = 300000;
			f.dev.overall.dur_ns += 1000000;
			f.dev.overall.bucket_ns[NS_REGIME_COMPUTE] += 700000;
			f.dev.overall.bucket_ns[NS_REGIME_IDLE] += 300000;
		}
		ck_assert_int_eq(ns_split_device_set_steps(&f.res, &f.dev, steps, counts[k], &f.err), NS_OK);
		free(steps);
		f.res.has_steps = true;
		ns_html_trace_options o = {.classify = &f.co, .routes = &f.routes};
		ck_assert_int_eq(ns_html_trace(p, &src, &f.res, &o, &f.err), NS_OK);
		ck_assert_int_eq(ns_html_page_end(p, &f.err), NS_OK);
		fclose(mem);
		for (at = text; (at = strstr(at, "<g class=\"bar")) != NULL; at++)
			bars++;
		ck_assert_uint_eq(bars, want_bars[k]);
		ck_assert_ptr_nonnull(strstr(text, "data-regime=\"compute\""));
		/* 0.7 ms of compute per step, whatever the grouping */
		ck_assert_ptr_nonnull(strstr(text, "; compute 0.700 (70.0%)"));
		if (counts[k] == 200000)
			ck_assert_ptr_nonnull(
			    strstr(text, "200000 steps drawn as 120 bars, each the mean of 1667"));
		sizes[k] = size;
		free(text);
		ns_split_result_free_store(&f.res);
		ns_routes_free(&f.routes);
	}
	/* 200000 steps cost about what 120 do (labels are longer numbers) */
	ck_assert_uint_lt(sizes[3], sizes[1] + sizes[1] / 5);
}
END_TEST

/* A report decided already (the command line decides once for the page and the text) is drawn as it is, not
 * decided again: a mark put on its label is what the page shows; without it the page decides its own. */
START_TEST(a_page_draws_the_reports_it_is_given)
{
	static const char mark[] = "the report decided by the caller";
	for (int given = 0; given <= 1; given++) {
		char *text = NULL;
		size_t size = 0;
		FILE *mem;
		ns_html_page *p = page_in_memory(&mem, &text, &size);
		one_device f;
		ns_html_source src = {"t.json", 123, NULL};
		ns_device_report *m = calloc(1, sizeof(*m));

		ck_assert_ptr_nonnull(m);
		one_device_init(&f);
		f.dev.overall.dur_ns = 1000000;
		f.dev.overall.bucket_ns[NS_REGIME_COMPUTE] = 700000;
		f.dev.overall.bucket_ns[NS_REGIME_IDLE] = 300000;
		ns_device_report_build(&f.res, &f.dev, &f.co, &f.routes, NULL, NULL, m);
		ck_assert_ptr_null(strstr(m->label, mark));
		snprintf(m->label, sizeof(m->label), "%s", mark);
		ns_html_trace_options o = {
		    .classify = &f.co, .routes = &f.routes, .reports = given ? m : NULL};
		ck_assert_int_eq(ns_html_trace(p, &src, &f.res, &o, &f.err), NS_OK);
		ck_assert_int_eq(ns_html_page_end(p, &f.err), NS_OK);
		fclose(mem);
		ck_assert_ptr_nonnull(strstr(text, "compute-bound"));
		ck_assert_msg((strstr(text, mark) != NULL) == (given == 1), "given %d", given);
		free(text);
		free(m);
		ns_routes_free(&f.routes);
	}
}
END_TEST

/* The worst a trace can do to the page: 300 devices (more than fit, even as verdict lines), each with 120
 * steps full of causes and passes and 30 kernels whose names are quotes (six bytes each once escaped). The
 * page still ends under NS_HTML_PAGE_MAX, and says what it left out. */
START_TEST(a_hostile_trace_of_many_devices_and_quoted_names_stays_under_the_bound)
{
	enum { DEVICES = 300, STEPS = 120, KERNELS = 30 };
	char *text = NULL, name[2000];
	size_t size = 0;
	FILE *mem;
	ns_html_page *p = page_in_memory(&mem, &text, &size);
	ns_split_device *dev = calloc(DEVICES, sizeof(*dev));
	ns_split_result res;
	ns_classify_options co;
	ns_routes routes;
	ns_error err;
	ns_html_source src = {"t.json", 1, NULL};

	ck_assert_ptr_nonnull(dev);
	ns_error_clear(&err);
	ns_classify_options_default(&co);
	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
	memset(&res, 0, sizeof(res));
	res.names = ns_kernel_names_new();
	ck_assert_ptr_nonnull(res.names);
	res.device = dev;
	res.ndevices = DEVICES;
	res.has_steps = res.gpu_activity = true;
	res.passes = calloc(STEPS, sizeof(*res.passes)); /* the passes' strip and the steps table too */
	ck_assert_ptr_nonnull(res.passes);
	for (size_t i = 0; i < STEPS; i++)
		res.passes[i] = (ns_split_pass_time){{1000000, 2000000, 1500000}};
	for (int k = 0; k < KERNELS; k++) {
		uint32_t id;
		memset(name, '"', sizeof(name));
		snprintf(name, 8, "k%03d", k);
		name[4] = '"';
		ck_assert_int_eq(ns_kernel_names_intern(res.names, name, sizeof(name), &id, &err), NS_OK);
	}
	for (size_t d = 0; d < DEVICES; d++) {
		dev[d].id = (int64_t)d;
		dev[d].nsteps = STEPS;
		ns_split_window *steps = calloc(STEPS, sizeof(*steps));
		dev[d].kernel_time = calloc(KERNELS, sizeof(*dev[d].kernel_time));
		ck_assert(steps != NULL && dev[d].kernel_time != NULL);
		for (size_t i = 0; i < STEPS; i++) {
			ns_split_window *w = &steps[i];
			w->step = 1000000000 + (int64_t)i;
			w->dur_ns = 6000000;
			for (int r = 0; r < NS_REGIME_COUNT; r++)
				w->bucket_ns[r] = 1000000;
			for (int c = 0; c < NS_CAUSE_COUNT; c++)
				w->cause_ns[c] = 1;
			w->warmup = i % 2 == 0;
		}
		dev[d].overall = steps[1];
		ck_assert_int_eq(ns_split_device_set_steps(&res, &dev[d], steps, STEPS, &err), NS_OK);
		free(steps);
		for (int k = 0; k < KERNELS; k++)
			dev[d].kernel_time[k] =
			    (ns_split_kernel_time){(uint32_t)k, (ns_kernel_class)(k % 3), 1000, 1};
		dev[d].nkernel_time = KERNELS;
		for (int c = 0; c < 3; c++)
			dev[d].class_ns[c] = 10000;
	}
	ns_html_trace_options o = {.classify = &co, .routes = &routes};
	ck_assert_int_eq(ns_html_trace(p, &src, &res, &o, &err), NS_OK);
	ck_assert_int_eq(ns_html_page_end(p, &err), NS_OK);
	fclose(mem);
	ck_assert_uint_le(size, NS_HTML_PAGE_MAX);
	ck_assert_ptr_nonnull(strstr(text, "more devices left out (page size)"));
	ck_assert_ptr_nonnull(strstr(text, "</html>\n"));
	ck_assert_ptr_nonnull(strstr(text, "<figure class=\"passes\">"));
	free(text);
	free(res.passes);
	ns_split_result_free_store(&res);
	for (size_t d = 0; d < DEVICES; d++) {
		free(dev[d].kernel_time);
	}
	free(dev);
	ns_kernel_names_free(res.names);
	ns_routes_free(&routes);
}
END_TEST

/* A page that cannot be written says why (issue 26's stale errno): the reason of the failed write itself,
 * taken when it failed, not errno at the page's end ("Inappropriate ioctl for device" for a full disk). */
START_TEST(a_page_on_a_full_disk_says_no_space_left)
{
	ns_html_page_info info = {"test page", "0.0.0", "2026-01-01 00:00:00 UTC"};
	FILE *full = fopen("/dev/full", "w");
	ns_html_page *p;
	ns_error err;

	if (full == NULL)
		return; /* no /dev/full on this system */
	p = ns_html_page_begin(full, &info);
	ck_assert_ptr_nonnull(p);
	ns_error_clear(&err);
	ck_assert_int_eq(ns_html_page_end(p, &err), NS_ERR_IO);
	ck_assert_str_eq(err.msg, "write error: No space left on device");
	fclose(full);
}
END_TEST

static Suite *html_suite(void)
{
	Suite *s = suite_create("html");
	TCase *tc = tcase_create("html");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, escape_writes_text_that_cannot_open_a_tag_or_an_attribute, 0,
	                    sizeof(escape_cases) / sizeof(escape_cases[0]));
	tcase_add_loop_test(tc, many_steps_are_grouped_into_at_most_max_bars, 0,
	                    sizeof(group_cases) / sizeof(group_cases[0]));
	tcase_add_test(tc, a_stream_of_a_million_records_gives_a_page_under_the_bound);
	tcase_add_test(tc, a_page_on_a_full_disk_says_no_space_left);
	tcase_add_test(tc, a_trace_of_many_steps_draws_a_bounded_number_of_bars);
	tcase_add_test(tc, a_page_draws_the_reports_it_is_given);
	tcase_add_test(tc, a_hostile_trace_of_many_devices_and_quoted_names_stays_under_the_bound);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(html_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
