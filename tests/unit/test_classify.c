/* Classifier: max with priority, the tie rule, --priority, --tie, runner-up, margin and graded findings. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "nextstep/classify.h"

typedef struct {
	const char *name;
	double share[NS_REGIME_COUNT]; /* compute, memory, comm, dataloader, overhead, idle */
	double tie;
	const char *priority; /* NULL: default */
	ns_regime want;
	ns_regime want_runner_up;
	int want_by_priority;
} classify_case;

static const classify_case cases[] = {
    {"picks_the_largest_share",
     {0.72, 0.15, 0.05, 0, 0, 0.08},
     0,
     NULL,
     NS_REGIME_COMPUTE,
     NS_REGIME_MEMORY,
     0},
    {"lesson_memory_profile",
     {0.20, 0.55, 0.10, 0, 0, 0.15},
     0,
     NULL,
     NS_REGIME_MEMORY,
     NS_REGIME_COMPUTE,
     0},
    {"lesson_comm_profile", {0.30, 0.10, 0.50, 0, 0, 0.10}, 0, NULL, NS_REGIME_COMM, NS_REGIME_COMPUTE, 0},
    {"lesson_idle_profile", {0.35, 0.15, 0.10, 0, 0, 0.40}, 0, NULL, NS_REGIME_IDLE, NS_REGIME_COMPUTE, 0},
    {"prefers_dataloader_over_idle_on_tie",
     {0.1, 0.1, 0, 0.4, 0, 0.4},
     0,
     NULL,
     NS_REGIME_DATALOADER,
     NS_REGIME_IDLE,
     1},
    {"prefers_overhead_over_idle_on_tie",
     {0, 0, 0, 0, 0.5, 0.5},
     0,
     NULL,
     NS_REGIME_OVERHEAD,
     NS_REGIME_IDLE,
     1},
    {"prefers_compute_over_memory_on_tie",
     {0.4, 0.4, 0.2, 0, 0, 0},
     0,
     NULL,
     NS_REGIME_COMPUTE,
     NS_REGIME_MEMORY,
     1},
    {"prefers_comm_over_dataloader_on_tie",
     {0, 0, 0.3, 0.3, 0.2, 0.2},
     0,
     NULL,
     NS_REGIME_COMM,
     NS_REGIME_DATALOADER,
     1},
    {"larger_idle_beats_dataloader",
     {0, 0, 0, 0.39, 0, 0.41},
     0,
     NULL,
     NS_REGIME_IDLE,
     NS_REGIME_DATALOADER,
     0},
    {"tie_tolerance_lets_priority_pick_a_smaller_share",
     {0.38, 0.40, 0.1, 0, 0, 0.12},
     0.05,
     NULL,
     NS_REGIME_COMPUTE,
     NS_REGIME_MEMORY,
     1},
    {"tie_tolerance_too_small_keeps_the_maximum",
     {0.38, 0.40, 0.1, 0, 0, 0.12},
     0.01,
     NULL,
     NS_REGIME_MEMORY,
     NS_REGIME_COMPUTE,
     0},
    {"tie_tolerance_with_a_clear_maximum_is_not_a_priority_decision",
     {0.40, 0.38, 0.1, 0, 0, 0.12},
     0.05,
     NULL,
     NS_REGIME_COMPUTE,
     NS_REGIME_MEMORY,
     0},
    {"custom_priority_changes_the_tie_winner",
     {0, 0, 0, 0.4, 0, 0.4},
     0,
     "idle,compute,memory,comm,dataloader,overhead",
     NS_REGIME_IDLE,
     NS_REGIME_DATALOADER,
     1},
    {"custom_priority_does_not_override_a_larger_share",
     {0.5, 0.3, 0, 0, 0, 0.2},
     0,
     "idle,memory,comm,dataloader,overhead,compute",
     NS_REGIME_COMPUTE,
     NS_REGIME_MEMORY,
     0},
    {"all_six_tied_go_to_the_first_in_priority",
     {1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6},
     0,
     NULL,
     NS_REGIME_COMPUTE,
     NS_REGIME_MEMORY,
     1},
};

START_TEST(classify_table)
{
	const classify_case *c = &cases[_i];
	ns_classify_options o;
	ns_profile p;
	ns_verdict v;
	ns_error err;

	ns_classify_options_default(&o);
	o.tie = c->tie;
	if (c->priority != NULL)
		ck_assert_int_eq(ns_classify_parse_priority(c->priority, o.priority, &err), NS_OK);
	ns_profile_init(&p);
	for (int r = 0; r < NS_REGIME_COUNT; r++) {
		p.share[r] = c->share[r];
		p.present[r] = c->share[r] > 0;
	}
	ns_classify_profile(&p, &o, &v);
	ck_assert_msg(v.regime == c->want, "%s: got %s", c->name, ns_regime_name(v.regime));
	ck_assert_msg(v.runner_up == c->want_runner_up, "%s: runner-up %s", c->name,
	              ns_regime_name(v.runner_up));
	ck_assert_msg(v.by_priority == c->want_by_priority, "%s: by_priority %d", c->name, v.by_priority);
	ck_assert_double_eq_tol(v.margin, c->share[c->want] - c->share[c->want_runner_up], 1e-12);
}
END_TEST

START_TEST(classify_ranks_every_regime_once_dominant_first)
{
	ns_classify_options o;
	ns_profile p;
	ns_verdict v;
	int seen[NS_REGIME_COUNT] = {0};

	ns_classify_options_default(&o);
	ns_profile_init(&p);
	p.share[NS_REGIME_MEMORY] = 0.3;
	p.share[NS_REGIME_IDLE] = 0.5;
	p.share[NS_REGIME_COMM] = 0.1;
	ns_classify_profile(&p, &o, &v);
	ck_assert_int_eq(v.ranked[0], NS_REGIME_IDLE);
	ck_assert_int_eq(v.ranked[1], NS_REGIME_MEMORY);
	ck_assert_int_eq(v.ranked[2], NS_REGIME_COMM);
	/* zero shares follow in priority order */
	ck_assert_int_eq(v.ranked[3], NS_REGIME_COMPUTE);
	for (int i = 0; i < NS_REGIME_COUNT; i++)
		seen[v.ranked[i]]++;
	for (int r = 0; r < NS_REGIME_COUNT; r++)
		ck_assert_int_eq(seen[r], 1);
	ck_assert_double_eq_tol(v.unattributed, 0.1, 1e-12);
}
END_TEST

START_TEST(classify_grades_secondary_findings_high_and_moderate)
{
	ns_classify_options o;
	ns_profile p;
	ns_verdict v;

	ns_classify_options_default(&o);
	ns_profile_init(&p);
	p.share[NS_REGIME_COMPUTE] = 0.39;
	p.share[NS_REGIME_DATALOADER] = 0.33;
	p.share[NS_REGIME_MEMORY] = 0.17;
	p.share[NS_REGIME_OVERHEAD] = 0.049;
	p.share[NS_REGIME_IDLE] = 0.05;
	ns_classify_profile(&p, &o, &v);
	ck_assert_int_eq(v.regime, NS_REGIME_COMPUTE);
	ck_assert_uint_eq(v.nfindings, 3);
	ck_assert_int_eq(v.findings[0].regime, NS_REGIME_DATALOADER);
	ck_assert_int_eq(v.findings[0].grade, NS_GRADE_HIGH);
	ck_assert_int_eq(v.findings[1].regime, NS_REGIME_MEMORY);
	ck_assert_int_eq(v.findings[1].grade, NS_GRADE_MODERATE);
	ck_assert_int_eq(v.findings[2].regime,
	                 NS_REGIME_IDLE); /* exactly 5% is moderate; 4.9% is not listed */
	ck_assert_int_eq(v.findings[2].grade, NS_GRADE_MODERATE);
}
END_TEST

START_TEST(classify_findings_follow_custom_thresholds)
{
	ns_classify_options o;
	ns_profile p;
	ns_verdict v;

	ns_classify_options_default(&o);
	o.high = 0.5;
	o.moderate = 0.3;
	ns_profile_init(&p);
	p.share[NS_REGIME_COMPUTE] = 0.6;
	p.share[NS_REGIME_DATALOADER] = 0.33;
	p.share[NS_REGIME_MEMORY] = 0.07;
	ns_classify_profile(&p, &o, &v);
	ck_assert_uint_eq(v.nfindings, 1);
	ck_assert_int_eq(v.findings[0].grade, NS_GRADE_MODERATE);
}
END_TEST

typedef struct {
	const char *list;
	ns_status want;
} priority_case;

static const priority_case priority_cases[] = {
    {"compute,memory,comm,dataloader,overhead,idle", NS_OK},
    {"idle, overhead, dataloader, comm, memory, compute", NS_OK},
    {"compute,memory,comm,idle", NS_ERR_VALUE},                             /* not all six */
    {"compute,memory,comm,dataloader,overhead,idle,compute", NS_ERR_VALUE}, /* repeated */
    {"compute,memory,comm,dataloader,overhead,gpu", NS_ERR_VALUE},          /* unknown */
    {"compute,memory,comm,dataloader,overhead,idle,", NS_ERR_VALUE},        /* trailing comma */
    {"", NS_ERR_VALUE},
    {",,,", NS_ERR_VALUE},
};

START_TEST(priority_list_must_be_a_permutation)
{
	ns_regime order[NS_REGIME_COUNT];
	ns_error err;

	ns_error_clear(&err);
	ck_assert_msg(ns_classify_parse_priority(priority_cases[_i].list, order, &err) ==
	                  priority_cases[_i].want,
	              "'%s': %s", priority_cases[_i].list, err.msg);
}
END_TEST

/* ---- the router's workflow in one call ---- */

static ns_profile shares(double compute, double memory, double comm, double idle)
{
	ns_profile p;

	ns_profile_init(&p);
	p.share[NS_REGIME_COMPUTE] = compute;
	p.share[NS_REGIME_MEMORY] = memory;
	p.share[NS_REGIME_COMM] = comm;
	p.share[NS_REGIME_IDLE] = idle;
	p.present[NS_REGIME_COMPUTE] = p.present[NS_REGIME_MEMORY] = true;
	p.present[NS_REGIME_COMM] = p.present[NS_REGIME_IDLE] = true;
	return p;
}

START_TEST(route_profile_checks_and_classifies_with_the_defaults)
{
	ns_profile p = shares(0.72, 0.15, 0.05, 0.08);
	ns_verdict v;
	ns_error err;

	ck_assert_int_eq(ns_route_profile(&p, NULL, false, &v, &err), NS_OK);
	ck_assert_int_eq(v.regime, NS_REGIME_COMPUTE); /* 0.72 is the largest share */
	ck_assert_int_eq(v.runner_up, NS_REGIME_MEMORY);
}
END_TEST

START_TEST(route_profile_refuses_shares_above_one_unless_asked_to_normalize)
{
	ns_profile p = shares(0.2, 0.9, 0.0, 0.1); /* sums to 1.2 */
	ns_verdict v;
	ns_error err;

	v.regime = NS_REGIME_IDLE;
	ck_assert_int_eq(ns_route_profile(&p, NULL, false, &v, &err), NS_ERR_VALUE);
	ck_assert_int_eq(v.regime, NS_REGIME_IDLE); /* untouched */
	ck_assert_int_eq(ns_route_profile(&p, NULL, true, &v, &err), NS_OK);
	ck_assert_int_eq(v.regime, NS_REGIME_MEMORY);
	ck_assert_double_eq_tol(p.share[NS_REGIME_MEMORY], 0.9 / 1.2, 1e-12);
}
END_TEST

START_TEST(route_profile_follows_the_callers_priority_on_a_tie)
{
	ns_profile p = shares(0.4, 0.4, 0.1, 0.1);
	ns_classify_options o;
	ns_verdict v;
	ns_error err;

	ns_classify_options_default(&o);
	ck_assert_int_eq(
	    ns_classify_parse_priority("memory,compute,comm,dataloader,overhead,idle", o.priority, &err),
	    NS_OK);
	ck_assert_int_eq(ns_route_profile(&p, &o, false, &v, &err), NS_OK);
	ck_assert_int_eq(v.regime, NS_REGIME_MEMORY);
}
END_TEST

static Suite *classify_suite(void)
{
	Suite *s = suite_create("classify");
	TCase *tc = tcase_create("classify");

	tcase_add_loop_test(tc, classify_table, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, classify_ranks_every_regime_once_dominant_first);
	tcase_add_test(tc, classify_grades_secondary_findings_high_and_moderate);
	tcase_add_test(tc, classify_findings_follow_custom_thresholds);
	tcase_add_loop_test(tc, priority_list_must_be_a_permutation, 0,
	                    sizeof(priority_cases) / sizeof(priority_cases[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("route");
	tcase_add_test(tc, route_profile_checks_and_classifies_with_the_defaults);
	tcase_add_test(tc, route_profile_refuses_shares_above_one_unless_asked_to_normalize);
	tcase_add_test(tc, route_profile_follows_the_callers_priority_on_a_tie);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(classify_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
