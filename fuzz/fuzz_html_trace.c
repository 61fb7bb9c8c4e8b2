/* Arbitrary bytes through the trace path into the HTML page (--html): the analysis, its split with the
 * median step's timeline, page. Whatever the input the page must be complete (it ends the document), count
 * exactly the bytes it wrote, stay under NS_HTML_PAGE_MAX, and be well-formed UTF-8 without control
 * characters but the newline and tab (the trace's names escaped). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_split_bytes.h"
#include "fuzz_text_safe.h"
#include "nextstep/html.h"
#include "nextstep/trace_split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ns_kernel_rules *rules;
static ns_routes routes;

static void write_page(const ns_split_result *res)
{
	ns_html_page_info info = {"fuzz", "0", "1970-01-01 00:00:00 UTC"};
	ns_html_source src = {"fuzz", 0, NULL};
	ns_classify_options co;
	ns_html_trace_options o = {.classify = &co, .routes = &routes};
	char *text = NULL;
	size_t len = 0;
	unsigned long long counted;
	FILE *mem = open_memstream(&text, &len);
	ns_html_page *p;
	ns_error err;

	if (mem == NULL)
		abort();
	ns_classify_options_default(&co);
	ns_error_clear(&err);
	p = ns_html_page_begin(mem, &info);
	if (p == NULL)
		abort();
	(void)ns_html_trace(p, &src, res, &o, &err);
	counted = ns_html_page_bytes(p);
	if (ns_html_page_end(p, &err) != NS_OK || fclose(mem) != 0)
		abort();
	if (len > NS_HTML_PAGE_MAX || counted > len || len < 16 ||
	    memcmp(text + len - 8, "</html>\n", 8) != 0)
		abort();
	if (!fuzz_utf8_valid(text, len) || fuzz_has_control(text, len, "\n\t"))
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_error err;
	ns_analysis *a = NULL;

	ns_error_clear(&err);
	if (rules == NULL && (ns_kernel_rules_default(&rules, &err) != NS_OK ||
	                      ns_routes_init_default(&routes, &err) != NS_OK))
		abort();
	if (fuzz_analyse_bytes(data, size, rules, true, NULL, &a, &err) == NS_OK)
		write_page(ns_analysis_split(a));
	else
		fuzz_check_message(err.msg);
	ns_analysis_free(a);
	return 0;
}
