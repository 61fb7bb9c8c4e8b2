/* Trace categories: what each category string means for the split. The expected rows come from libkineto's
 * ActivityType names and aliases (pytorch/kineto libkineto/src/ActivityType.cpp and include/ActivityType.h:
 * MTIA_CCP_EVENTS = CONCURRENT_KERNEL, XPU_RUNTIME/MTIA_RUNTIME/PRIVATEUSE1_RUNTIME = RUNTIME,
 * PRIVATEUSE1_DRIVER = DRIVER, HPU_OP = RUNTIME), not from the table. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/trace_categories.h"

typedef struct {
	const char *name;
	ns_trace_category want;
	const char *device;
} category_case;

static const category_case cases[] = {
    {"kernel", NS_TCAT_KERNEL, NULL},
    {"gpu_memcpy", NS_TCAT_MEMCPY, NULL},
    {"gpu_memset", NS_TCAT_MEMSET, NULL},
    {"cuda_runtime", NS_TCAT_RUNTIME, "CUDA"},
    {"cuda_driver", NS_TCAT_RUNTIME, "CUDA"},
    {"runtime", NS_TCAT_RUNTIME, NULL},
    {"driver", NS_TCAT_RUNTIME, NULL},
    {"xpu_runtime", NS_TCAT_RUNTIME, "XPU"},
    {"xpu_driver", NS_TCAT_RUNTIME, "XPU"},
    {"mtia_runtime", NS_TCAT_RUNTIME, "MTIA"},
    {"mtia_ccp_events", NS_TCAT_KERNEL, "MTIA"},
    {"privateuse1_runtime", NS_TCAT_RUNTIME, "PrivateUse1"},
    {"privateuse1_driver", NS_TCAT_RUNTIME, "PrivateUse1"},
    {"hpu_op", NS_TCAT_RUNTIME, "HPU"},
    {"cpu_op", NS_TCAT_CPU_OP, NULL},
    {"user_annotation", NS_TCAT_USER_ANNOTATION, NULL},
    {"gpu_user_annotation", NS_TCAT_GPU_USER_ANNOTATION, NULL},
    {"python_function", NS_TCAT_PYTHON, NULL},
    {"ac2g", NS_TCAT_FLOW, NULL},
    {"Kernel", NS_TCAT_KERNEL, NULL},
    {"Runtime", NS_TCAT_RUNTIME, NULL},
};

START_TEST(kineto_categories_map_like_cuda)
{
	const category_case *c = &cases[_i];
	const ns_trace_category_row *row = ns_trace_category_find(c->name, strlen(c->name));

	ck_assert_ptr_nonnull(row);
	ck_assert_int_eq(row->cat, c->want);
	if (c->device == NULL)
		ck_assert_ptr_null(row->device);
	else
		ck_assert_str_eq(row->device, c->device);
}
END_TEST

/* Counters and markers that are not work stay unknown; so do prefixes and extensions of known names. */
static const char *const unknown[] = {"mtia_insight", "mtia_counters", "cuda_sync", "overhead", "kern",
                                      "kernels",      "cuda_runtime_", "",          "Trace"};

START_TEST(other_categories_are_not_work)
{
	ck_assert_ptr_null(ns_trace_category_find(unknown[_i], strlen(unknown[_i])));
}
END_TEST

START_TEST(no_category_is_listed_twice)
{
	size_t n;
	const ns_trace_category_row *t = ns_trace_category_table(&n);

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			ck_assert_msg(strcmp(t[i].name, t[j].name) != 0, "%s twice", t[i].name);
}
END_TEST

static Suite *categories_suite(void)
{
	Suite *s = suite_create("trace_categories");
	TCase *tc = tcase_create("categories");

	tcase_add_loop_test(tc, kineto_categories_map_like_cuda, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_loop_test(tc, other_categories_are_not_work, 0,
	                    (int)(sizeof(unknown) / sizeof(unknown[0])));
	tcase_add_test(tc, no_category_is_listed_twice);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(categories_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
