/* The Python behind host time and the phases of a step, through the split's event API: frame nesting (B/E
 * pairs, a child that outlives its parent, built-ins), and which names mark a pass. Every expected value is
 * worked out in the comment beside it. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_phases.h"

static ns_kernel_rules *rules;
static ns_trace_split *split;
static ns_split_result res;

static void setup(void)
{
	ns_error err = {0};

	if (rules == NULL)
		ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	split = ns_trace_split_new(rules);
	ck_assert_ptr_nonnull(split);
	memset(&res, 0, sizeof(res));
}

static void teardown(void)
{
	ns_trace_split_free(split);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
	rules = NULL;
}

/* One event on host thread (10, tid), or on the GPU for a kernel; times in ns. */
static void feed(ns_trace_category cat, char ph, const char *name, int64_t tid, int64_t ts, int64_t dur)
{
	ns_trace_event ev = {.cat = cat,
	                     .ph = ph,
	                     .name = {name, strlen(name)},
	                     .pid = cat == NS_TCAT_KERNEL ? 0 : 10,
	                     .tid = tid,
	                     .has_ts = true,
	                     .has_dur = ph == 'X',
	                     .ts_ns = ts,
	                     .dur_ns = dur,
	                     .device = cat == NS_TCAT_KERNEL ? 0 : -1,
	                     .stream = -1,
	                     .correlation = -1,
	                     .external_id = -1};
	ns_error err = {0};

	ck_assert_int_eq(ns_trace_split_event(&ev, split, &err), NS_OK);
}

/* A step 0-100 on thread 10 whose only device work is a kernel at 90-100: 0-90 is host_gap. */
static void step_with_gap(void)
{
	feed(NS_TCAT_USER_ANNOTATION, 'X', "ProfilerStep#1", 10, 0, 100);
	feed(NS_TCAT_KERNEL, 'X', "ampere_sgemm_128x64_nn", 7, 90, 10);
}

static void finish(void)
{
	ns_error err = {0};

	ck_assert_int_eq(ns_trace_split_finish(split, NULL, &res, &err), NS_OK);
	ck_assert_uint_eq(res.ndevices, 1);
	ck_assert_int_eq(res.device[0].overall.cause_ns[NS_CAUSE_HOST_GAP], 90);
}

static void assert_frame(const ns_split_python_cause *p, size_t i, const char *name, int64_t ns)
{
	ck_assert_uint_gt(p->ntop, i);
	ck_assert_str_eq(ns_kernel_names_get(res.python_names, p->top[i].name_id), name);
	ck_assert_int_eq(p->top[i].ns, ns);
}

START_TEST(frames_given_as_begin_end_pairs_nest_and_each_gets_its_self_time)
{
	const ns_split_python_cause *p;

	step_with_gap();
	feed(NS_TCAT_PYTHON, 'B', "a.py(1): outer", 10, 0, 0);
	feed(NS_TCAT_PYTHON, 'B', "b.py(2): inner", 10, 10, 0);
	feed(NS_TCAT_PYTHON, 'E', "b.py(2): inner", 10, 30, 0);
	feed(NS_TCAT_PYTHON, 'E', "a.py(1): outer", 10, 80, 0);
	finish();
	p = &res.device[0].python[NS_CAUSE_HOST_GAP];
	ck_assert_uint_eq(res.python_frames, 2);
	ck_assert_uint_eq(p->ntop, 2);
	assert_frame(p, 0, "a.py(1): outer", 60); /* 0-10 and 30-80 */
	assert_frame(p, 1, "b.py(2): inner", 20); /* 10-30 */
	ck_assert_int_eq(p->framed_ns, 80);       /* 80-90: no frame open */
}
END_TEST

START_TEST(a_frame_that_outlives_its_parent_is_cut_at_the_parents_end)
{
	const ns_split_python_cause *p;

	step_with_gap();
	feed(NS_TCAT_PYTHON, 'X', "p.py(1): parent", 10, 0, 50);
	feed(NS_TCAT_PYTHON, 'X', "c.py(1): child", 10, 40, 30); /* 40-70, past the parent's 50 */
	finish();
	p = &res.device[0].python[NS_CAUSE_HOST_GAP];
	assert_frame(p, 0, "p.py(1): parent", 40); /* 0-40 */
	assert_frame(p, 1, "c.py(1): child", 10);  /* 40-50 only */
	ck_assert_int_eq(p->framed_ns, 50);
}
END_TEST

START_TEST(built_in_frames_are_not_kept_and_their_time_is_the_callers)
{
	const ns_split_python_cause *p;

	step_with_gap();
	feed(NS_TCAT_PYTHON, 'X', "m.py(3): step", 10, 0, 90);
	feed(NS_TCAT_PYTHON, 'X', "<built-in method item of Tensor object at 0x7f00>", 10, 20, 30);
	finish();
	p = &res.device[0].python[NS_CAUSE_HOST_GAP];
	ck_assert_uint_eq(res.python_frames, 1);
	ck_assert_uint_eq(p->ntop, 1);
	assert_frame(p, 0, "m.py(3): step", 90);
}
END_TEST

START_TEST(without_frames_no_cause_lists_python)
{
	step_with_gap();
	finish();
	ck_assert_uint_eq(res.python_frames, 0);
	ck_assert_ptr_null(res.python_names);
	ck_assert_uint_eq(res.device[0].python[NS_CAUSE_HOST_GAP].ntop, 0);
}
END_TEST

typedef struct {
	const char *name;
	int pass; /* PASS_*, or -1 for none */
} marker_case;

START_TEST(marker_names_name_their_pass)
{
	static const marker_case cases[] = {
	    {"## forward ##", NS_PASS_FORWARD},
	    {"## backward ##", NS_PASS_BACKWARD},
	    {"## optimizer ##", NS_PASS_OPTIMIZER},
	    {"Optimizer.step#AdamW.step", NS_PASS_OPTIMIZER},
	    {"Optimizer.zero_grad#SGD.zero_grad", NS_PASS_OPTIMIZER},
	    {"DistributedDataParallel.forward", NS_PASS_FORWARD},
	    {"FullyShardedDataParallel.forward", NS_PASS_FORWARD},
	    {"autograd::engine::evaluate_function: MmBackward0", NS_PASS_BACKWARD},
	    {"aten::addmm", -1},
	    {"Optimizer", -1},
	    {"## forward", -1},
	    {"DistributedDataParallel.backward", -1},
	    {"autograd::engine", -1},
	    {"", -1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ns_str name = {cases[i].name, strlen(cases[i].name)};
		ck_assert_msg(split_phase_of(name) == cases[i].pass + 1, "%s: got %d", cases[i].name,
		              (int)split_phase_of(name) - 1);
	}
}
END_TEST

START_TEST(a_pass_in_another_process_does_not_count)
{
	step_with_gap();
	feed(NS_TCAT_USER_ANNOTATION, 'X', "## forward ##", 10, 0, 40);
	{
		ns_trace_event ev = {.cat = NS_TCAT_USER_ANNOTATION,
		                     .ph = 'X',
		                     .name = {"Optimizer.step#SGD.step", 23},
		                     .pid = 20,
		                     .tid = 20,
		                     .has_ts = true,
		                     .has_dur = true,
		                     .ts_ns = 50,
		                     .dur_ns = 40,
		                     .device = -1,
		                     .stream = -1,
		                     .correlation = -1,
		                     .external_id = -1};
		ns_error err = {0};
		ck_assert_int_eq(ns_trace_split_event(&ev, split, &err), NS_OK);
	}
	finish();
	ck_assert_ptr_nonnull(res.passes);
	ck_assert_int_eq(res.passes[0].ns[NS_PASS_FORWARD], 40);
	ck_assert_int_eq(res.passes[0].ns[NS_PASS_OPTIMIZER], 0);
	ck_assert_int_eq(res.device[0].passes.ns[NS_PASS_FORWARD], 40);
}
END_TEST

static Suite *python_suite(void)
{
	Suite *s = suite_create("split_python");
	TCase *tc = tcase_create("frames");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, frames_given_as_begin_end_pairs_nest_and_each_gets_its_self_time);
	tcase_add_test(tc, a_frame_that_outlives_its_parent_is_cut_at_the_parents_end);
	tcase_add_test(tc, built_in_frames_are_not_kept_and_their_time_is_the_callers);
	tcase_add_test(tc, without_frames_no_cause_lists_python);
	tcase_add_test(tc, marker_names_name_their_pass);
	tcase_add_test(tc, a_pass_in_another_process_does_not_count);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(python_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
