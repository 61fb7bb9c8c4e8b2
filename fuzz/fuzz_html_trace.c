/* Arbitrary bytes through the trace path into the HTML page (--html): reader, split with the median step's
 * timeline, page. Whatever the input the page must be complete (it ends the document), count exactly the
 * bytes it wrote, stay under HTML_PAGE_MAX, and be well-formed UTF-8 without control characters but the
 * newline and tab (the trace's names escaped). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_split_bytes.h"
#include "fuzz_text_safe.h"
#include "nextstep/html.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kernel_rules *rules;
static ns_routes routes;

static void write_page(const split_result *res)
{
	html_page_info info = {"fuzz", "0", "1970-01-01 00:00:00 UTC"};
	html_source src = {"fuzz", 0, NULL};
	classify_options co;
	html_trace_options o = {.classify = &co, .routes = &routes};
	char *text = NULL;
	size_t len = 0;
	unsigned long long counted;
	FILE *mem = open_memstream(&text, &len);
	html_page *p;
	ns_error err;

	if (mem == NULL)
		abort();
	classify_options_default(&co);
	ns_error_clear(&err);
	p = html_page_begin(mem, &info);
	if (p == NULL)
		abort();
	(void)html_trace(p, &src, res, &o, &err);
	counted = html_page_bytes(p);
	if (html_page_end(p, &err) != NS_OK || fclose(mem) != 0)
		abort();
	if (len > HTML_PAGE_MAX || counted > len || len < 16 || memcmp(text + len - 8, "</html>\n", 8) != 0)
		abort();
	if (!fuzz_utf8_valid(text, len) || fuzz_has_control(text, len, "\n\t"))
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_error err;
	split_result res;

	ns_error_clear(&err);
	if (rules == NULL &&
	    (kernel_rules_default(&rules, &err) != NS_OK || routes_init_default(&routes, &err) != NS_OK))
		abort();
	if (fuzz_split_bytes(data, size, rules, true, &res, &err) == NS_OK)
		write_page(&res);
	else
		fuzz_check_message(err.msg);
	split_result_free(&res);
	return 0;
}
