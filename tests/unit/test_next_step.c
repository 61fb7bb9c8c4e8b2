/* The next steps (issue 21): each rule's bound on windows worked by hand, and a trace whose data loader runs
 * partly under a kernel (the part under other work wins nothing). */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nextstep/kernel_rules.h"
#include "nextstep/next_step.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_report.h"

static ns_routes routes;

static void setup(void)
{
	ns_error err;

	ck_assert_int_eq(ns_routes_init_default(&routes, &err), NS_OK);
}

static void teardown(void)
{
	ns_routes_free(&routes);
}

/* A window of dur_ns with the given bucket and cause times (the rest of each bucket is left uncaused). */
static ns_split_window window(int64_t dur)
{
	ns_split_window w;

	memset(&w, 0, sizeof(w));
	w.step = -1;
	w.dur_ns = dur;
	return w;
}

static void put_cause(ns_split_window *w, ns_cause c, int64_t ns)
{
	w->cause_ns[c] += ns;
	w->bucket_ns[ns_cause_bucket(c)] += ns;
}

static const ns_next_step *find(const ns_next_steps *s, ns_regime b, int c)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->item[i].bucket == b && s->item[i].cause == c)
			return &s->item[i];
	return NULL;
}

static int64_t known_sum(const ns_next_steps *s)
{
	int64_t t = 0;

	for (size_t i = 0; i < s->n; i++)
		t += s->item[i].known ? s->item[i].gain_ns : 0;
	return t;
}

/* Three steps of 1000 ns each: data loader 301, launch 299, sync 200, host_gap 100, compute 100: every bucket
 * a step is its sum / 3, rounded down: 100, 99, 66, 33 ns, which add to 298 <= 1000. */
START_TEST(bounds_are_each_cause_a_step_and_add_up_to_at_most_the_step)
{
	ns_split_window w = window(3000);
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_DATALOADER] = 301;
	w.bucket_ns[NS_REGIME_COMPUTE] = 100;
	put_cause(&w, NS_CAUSE_LAUNCH, 299);
	put_cause(&w, NS_CAUSE_SYNC, 200);
	put_cause(&w, NS_CAUSE_HOST_GAP, 100);
	ns_next_steps_of_window(&w, 3, &routes, NULL, &s);
	ck_assert_int_eq(s.step_ns, 1000);
	ck_assert_int_eq(find(&s, NS_REGIME_DATALOADER, -1)->gain_ns, 100);
	ck_assert_int_eq(find(&s, NS_REGIME_OVERHEAD, NS_CAUSE_LAUNCH)->gain_ns, 99);
	ck_assert_int_eq(find(&s, NS_REGIME_OVERHEAD, NS_CAUSE_SYNC)->gain_ns, 66);
	ck_assert_int_eq(find(&s, NS_REGIME_IDLE, NS_CAUSE_HOST_GAP)->gain_ns, 33);
	ck_assert_int_eq(known_sum(&s), 298);
	ck_assert(!find(&s, NS_REGIME_COMPUTE, -1)->known); /* no roofline placement */
	ck_assert_ptr_eq(ns_next_steps_top(&s), &s.item[0]);
	ck_assert_int_eq(s.item[0].bucket, NS_REGIME_DATALOADER);
	ck_assert_int_eq(s.item[0].rule, NS_GAIN_WAITING);
	ck_assert_double_eq_tol(s.item[0].gain_share, 0.1, 1e-12);
	/* 99 >= 100 / 2: the runner-up is shown; the unknown compute (33 ns a step) is not more than 100 */
	ck_assert_ptr_eq(ns_next_steps_runner_up(&s), &s.item[1]);
	ck_assert_ptr_null(ns_next_steps_unbounded(&s));
}
END_TEST

/* A window whose causes fill it: the bounds add up to the whole step, never more. */
START_TEST(bounds_of_a_window_all_waiting_add_up_to_the_step)
{
	ns_split_window w = window(1000);
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_DATALOADER] = 500;
	put_cause(&w, NS_CAUSE_LAUNCH, 250);
	put_cause(&w, NS_CAUSE_TRANSFER, 150);
	put_cause(&w, NS_CAUSE_EXPOSED, 100);
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_int_eq(known_sum(&s), 1000);
	ck_assert_int_eq(find(&s, NS_REGIME_MEMORY, NS_CAUSE_TRANSFER)->rule, NS_GAIN_EXPOSED);
	ck_assert_int_eq(find(&s, NS_REGIME_COMM, NS_CAUSE_EXPOSED)->rule, NS_GAIN_EXPOSED);
	/* 250 is exactly half of 500: shown */
	ck_assert_ptr_nonnull(ns_next_steps_runner_up(&s));
}
END_TEST

/* Equal times: the earlier bucket first (overhead before idle), whatever the order they are found in. */
START_TEST(ties_go_to_the_earlier_bucket_then_cause)
{
	ns_split_window w = window(1000);
	ns_next_steps s;

	put_cause(&w, NS_CAUSE_HOST_GAP, 100);
	put_cause(&w, NS_CAUSE_SYNC, 100);
	put_cause(&w, NS_CAUSE_LAUNCH, 100);
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_int_eq(s.item[0].cause, NS_CAUSE_LAUNCH);
	ck_assert_int_eq(s.item[1].cause, NS_CAUSE_SYNC);
	ck_assert_int_eq(s.item[2].cause, NS_CAUSE_HOST_GAP);
}
END_TEST

/* 40 ns of runner-up against 100: less than half, not shown. */
START_TEST(runner_up_only_within_a_factor_of_two)
{
	ns_split_window w = window(1000);
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_DATALOADER] = 100;
	put_cause(&w, NS_CAUSE_LAUNCH, 49);
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_null(ns_next_steps_runner_up(&s));
}
END_TEST

static ns_roof_time placed(int64_t kernel, int64_t placed_ns, int64_t roof)
{
	ns_roof_time t;

	memset(&t, 0, sizeof(t));
	t.state = NS_ROOF_PLACED;
	t.kernel_ns = kernel;
	t.placed_ns = placed_ns;
	t.roof_ns = roof;
	t.own_roof_ns = roof;
	return t;
}

/* Compute holds 600 ns of the step; over the trace its kernels are 700 ns, all placed, 420 ns at the roof:
 * 280 / 700 = 40% of the placed time is above the roof, so the bound is 40% of 600 = 240. Memory kernels
 * hold 100 ns; over the trace 400 ns of kernels, 100 of them in placed ops (25%), those 50 ns at the roof
 * (half above it): the bound is 100 x 25% x 50% = 12.5, 12 ns; the other 75% (75 ns) is in ops not placed,
 * unknown. */
START_TEST(kernel_bounds_are_their_placed_time_above_the_roof)
{
	ns_split_window w = window(1000);
	ns_roof_time roof[NS_KCLASS_COUNT] = {{0}};
	ns_next_inputs in = {.roof = roof, .optimizer_launch_ns = 0, .fp32_share = 0.0, .tensor_ratio = 0.0};
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_COMPUTE] = 600;
	put_cause(&w, NS_CAUSE_KERNELS, 100);
	roof[NS_KCLASS_COMPUTE] = placed(700, 700, 420);
	roof[NS_KCLASS_MEMORY] = placed(400, 100, 50);
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	ck_assert(find(&s, NS_REGIME_COMPUTE, -1)->known);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->gain_ns, 240);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->unknown_ns, 0);
	ck_assert_int_eq(find(&s, NS_REGIME_MEMORY, NS_CAUSE_KERNELS)->gain_ns, 12);
	ck_assert_int_eq(find(&s, NS_REGIME_MEMORY, NS_CAUSE_KERNELS)->unknown_ns, 75);
	ck_assert_double_eq_tol(find(&s, NS_REGIME_MEMORY, NS_CAUSE_KERNELS)->placed_share, 0.25, 1e-12);
	ck_assert_int_eq(s.item[0].bucket, NS_REGIME_COMPUTE);
	/* 75 ns unknown is less than the 240 of the next step: no "bound unknown" line */
	ck_assert_ptr_null(ns_next_steps_unbounded(&s));
}
END_TEST

/* Placed ops faster than the roof allows (Winograd convolutions) win nothing, and a placement covering more
 * time than the split saw in the class (ops outside the steps) counts the class as all placed. */
START_TEST(kernel_bounds_never_go_below_zero_nor_above_the_class)
{
	ns_split_window w = window(1000);
	ns_roof_time roof[NS_KCLASS_COUNT] = {{0}};
	ns_next_inputs in = {.roof = roof, .optimizer_launch_ns = 0, .fp32_share = 0.0, .tensor_ratio = 0.0};
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_COMPUTE] = 500;
	roof[NS_KCLASS_COMPUTE] = placed(400, 800, 900);
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	ck_assert(find(&s, NS_REGIME_COMPUTE, -1)->known);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->gain_ns, 0);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->unknown_ns, 0);
	ck_assert_double_eq_tol(find(&s, NS_REGIME_COMPUTE, -1)->placed_share, 1.0, 1e-12);
}
END_TEST

/* A class mostly in ops not placed: the part with a bound is small, and the rest, more than the next
 * step's bound, is what the report says it cannot bound. Compute 800 ns, 10% placed, all at the roof:
 * bound 0, unknown 720 > the launch overhead's 100. */
START_TEST(unplaced_kernel_time_is_said_unknown)
{
	ns_split_window w = window(1000);
	ns_roof_time roof[NS_KCLASS_COUNT] = {{0}};
	ns_next_inputs in = {.roof = roof, .optimizer_launch_ns = 0, .fp32_share = 0.0, .tensor_ratio = 0.0};
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_COMPUTE] = 800;
	put_cause(&w, NS_CAUSE_LAUNCH, 100);
	roof[NS_KCLASS_COMPUTE] = placed(1000, 100, 100);
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->gain_ns, 0);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->unknown_ns, 720);
	ck_assert_int_eq(ns_next_steps_top(&s)->cause, NS_CAUSE_LAUNCH);
	ck_assert_ptr_eq(ns_next_steps_unbounded(&s), find(&s, NS_REGIME_COMPUTE, -1));
}
END_TEST

/* A placement that was made but covers none of the class: unknown, and the state says it was run. */
START_TEST(a_placement_without_the_class_leaves_it_unknown)
{
	ns_split_window w = window(1000);
	ns_roof_time roof[NS_KCLASS_COUNT] = {{0}};
	ns_next_inputs in = {.roof = roof, .optimizer_launch_ns = 0, .fp32_share = 0.0, .tensor_ratio = 0.0};
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_COMPUTE] = 300;
	roof[NS_KCLASS_COMPUTE].state = NS_ROOF_NONE;
	roof[NS_KCLASS_COMPUTE].why = "no op placed";
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	ck_assert(!find(&s, NS_REGIME_COMPUTE, -1)->known);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->roof, NS_ROOF_NONE);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->unknown_ns, 300);
	ck_assert_ptr_nonnull(strstr(find(&s, NS_REGIME_COMPUTE, -1)->basis, "no op placed"));
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->roof, NS_ROOF_NOT_RUN);
}
END_TEST

/* The optimizer's launches (launch time while the main thread is in Optimizer.step#) belong to the
 * optimizer's fix, not to launch overhead's: launch 500 ns of which 400 in the optimizer, 50 ns idle in the
 * optimizer between its ops. The optimizer's candidate holds 450 (400 of them launch), launch overhead 100;
 * together the 550 of the two causes, no microsecond claimed twice. */
START_TEST(the_optimizers_launches_go_to_the_optimizers_fix)
{
	ns_split_window w = window(1000);
	ns_next_inputs in = {
	    .roof = NULL, .optimizer_launch_ns = 400, .fp32_share = 0.0, .tensor_ratio = 0.0};
	ns_next_steps s;
	const ns_next_step *opt, *launch;

	put_cause(&w, NS_CAUSE_LAUNCH, 500);
	put_cause(&w, NS_CAUSE_OPTIMIZER, 50);
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	opt = find(&s, NS_REGIME_IDLE, NS_CAUSE_OPTIMIZER);
	launch = find(&s, NS_REGIME_OVERHEAD, NS_CAUSE_LAUNCH);
	ck_assert_int_eq(opt->gain_ns, 450);
	ck_assert_int_eq(opt->launch_ns, 400);
	ck_assert_int_eq(launch->gain_ns, 100);
	ck_assert_ptr_eq(ns_next_steps_top(&s), opt);
	ck_assert_int_eq(known_sum(&s), 550);
	ck_assert_str_eq(opt->route.fix, routes.cause[NS_CAUSE_OPTIMIZER].fix);
}
END_TEST

/* More optimizer launch time than the window has launch time (a caller's error): at most all of it. */
START_TEST(the_optimizers_launches_are_at_most_the_launch_time)
{
	ns_split_window w = window(1000);
	ns_next_inputs in = {
	    .roof = NULL, .optimizer_launch_ns = 900, .fp32_share = 0.0, .tensor_ratio = 0.0};
	ns_next_steps s;

	put_cause(&w, NS_CAUSE_LAUNCH, 300);
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	ck_assert_int_eq(find(&s, NS_REGIME_IDLE, NS_CAUSE_OPTIMIZER)->gain_ns, 300);
	ck_assert_ptr_null(find(&s, NS_REGIME_OVERHEAD, NS_CAUSE_LAUNCH));
	ck_assert_int_eq(known_sum(&s), 300);
}
END_TEST

/* Without a placement the kernels' bound is unknown, and when they hold more than every known bound the
 * report says so instead of naming them. */
START_TEST(kernels_without_a_placement_have_no_bound)
{
	ns_split_window w = window(1000);
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_COMPUTE] = 900;
	put_cause(&w, NS_CAUSE_LAUNCH, 100);
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_int_eq(s.item[0].cause, NS_CAUSE_LAUNCH); /* known bounds first */
	ck_assert(!s.item[1].known);
	ck_assert_int_eq(s.item[1].gain_ns, 0);
	ck_assert_int_eq(s.item[1].held_ns, 900);
	ck_assert_ptr_eq(ns_next_steps_unbounded(&s), &s.item[1]);
}
END_TEST

/* A 1000 ns step of launch overhead and compute (of unknown bound: no placement). */
static void launch_beside_compute(int64_t launch, int64_t compute, ns_next_steps *s)
{
	ns_split_window w = window(1000);

	w.bucket_ns[NS_REGIME_COMPUTE] = compute;
	put_cause(&w, NS_CAUSE_LAUNCH, launch);
	ns_next_steps_of_window(&w, 1, &routes, NULL, s);
}

/* Launch overhead of 49 ns a 1000 ns step (4.9 %, under the 5 % lead share) beside 900 ns of compute whose
 * bound is unknown: the launch overhead stays first in the list, but is no next step; what the report says is
 * the compute it cannot bound. */
START_TEST(a_trifle_does_not_lead_time_of_unknown_bound)
{
	ns_next_steps s;

	launch_beside_compute(49, 900, &s);
	ck_assert_int_eq(s.item[0].cause, NS_CAUSE_LAUNCH);
	ck_assert_int_eq(s.item[0].gain_ns, 49);
	ck_assert_ptr_null(ns_next_steps_top(&s));
	ck_assert_ptr_eq(ns_next_steps_unbounded(&s), &s.item[1]);
}
END_TEST

/* At 50 ns (5 %, the lead share) the launch overhead leads again; under it, it leads when the time of unknown
 * bound is no more than its bound (40 ns against 45) or under 5 % of the step (48 ns against 30). */
START_TEST(a_bound_at_the_lead_share_or_over_the_unknown_time_leads)
{
	static const struct {
		int64_t launch, compute;
	} cases[] = {{50, 900}, {45, 40}, {30, 48}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ns_next_steps s;
		launch_beside_compute(cases[i].launch, cases[i].compute, &s);
		ck_assert_msg(ns_next_steps_top(&s) == &s.item[0], "case %zu: launch %lld, compute %lld", i,
		              (long long)cases[i].launch, (long long)cases[i].compute);
	}
}
END_TEST

/* fp32 GEMMs and convolutions on the CUDA cores, 3/4 of the compute time, on a GPU whose tensor cores peak 8x
 * fp32, no placement. Compute holds 800 ns: 600 of them fp32, whose FLOPs take at most 600 / 8 = 75 ns at the
 * tensor-core peak, so at least 525 ns are above that roof: the bound is 525 (more than the 150 ns of launch
 * overhead, so it ranks first); the other 200 ns of compute stay unknown. */
START_TEST(fp32_kernels_on_tensor_core_gpus_are_bounded_by_the_peak_ratio)
{
	ns_split_window w = window(1000);
	ns_next_inputs in = {.roof = NULL, .optimizer_launch_ns = 0, .fp32_share = 0.75, .tensor_ratio = 8.0};
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_COMPUTE] = 800;
	put_cause(&w, NS_CAUSE_LAUNCH, 150);
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	ck_assert_int_eq(s.item[0].bucket, NS_REGIME_COMPUTE);
	ck_assert(s.item[0].known);
	ck_assert_int_eq(s.item[0].gain_ns, 525);
	ck_assert_int_eq(s.item[0].unknown_ns, 200);
	ck_assert_int_eq(s.item[0].roof, NS_ROOF_NOT_RUN);
	ck_assert_ptr_nonnull(strstr(s.item[0].basis, "fp32 GEMMs and convolutions"));
	/* 200 ns unknown is less than the 525 bound: no "bound unknown" line */
	ck_assert_ptr_null(ns_next_steps_unbounded(&s));
}
END_TEST

/* The peak ratio applies to compute only, and a placement, when there is one, gives the bound instead. */
START_TEST(a_placement_overrides_the_peak_ratio_bound)
{
	ns_split_window w = window(1000);
	ns_roof_time roof[NS_KCLASS_COUNT] = {{0}};
	ns_next_inputs in = {.roof = roof, .optimizer_launch_ns = 0, .fp32_share = 1.0, .tensor_ratio = 8.0};
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_COMPUTE] = 600;
	put_cause(&w, NS_CAUSE_KERNELS, 100);
	roof[NS_KCLASS_COMPUTE] = placed(700, 700, 420);
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->gain_ns, 240); /* as in the placed case above */
	ck_assert(!find(&s, NS_REGIME_MEMORY, NS_CAUSE_KERNELS)->known);
}
END_TEST

/* Compute near its roof (above it by at most 30 % of the placed time) whose ops are 16-bit GEMMs with a
 * faster fp8 roof: a better kernel has little left to win, and the fix's lower precision is fp8, so the
 * bound is at the fp8 reach. Compute holds 600 ns; its 700 ns of placed ops take 560 at their own roof (20 %
 * above it) and 280 with the GEMMs at the fp8 roof: (700 - 280) / 700 = 60 % of 600 = 360. */
START_TEST(compute_near_its_roof_is_bounded_at_the_fp8_roof)
{
	ns_split_window w = window(1000);
	ns_roof_time roof[NS_KCLASS_COUNT] = {{0}};
	ns_next_inputs in = {.roof = roof, .optimizer_launch_ns = 0, .fp32_share = 0.0, .tensor_ratio = 0.0};
	ns_next_steps s;
	const ns_next_step *c;

	w.bucket_ns[NS_REGIME_COMPUTE] = 600;
	roof[NS_KCLASS_COMPUTE] = placed(700, 700, 560);
	roof[NS_KCLASS_COMPUTE].fp8_ns = 700;
	roof[NS_KCLASS_COMPUTE].fp8_roof_ns = 280;
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	c = find(&s, NS_REGIME_COMPUTE, -1);
	ck_assert(c->known);
	ck_assert_int_eq(c->gain_ns, 360);
	ck_assert_msg(strstr(c->basis, "fp8 matmuls win at most") != NULL, "%s", c->basis);
}
END_TEST

/* Far from their roof (40 % above it) the same GEMMs' lever is a better kernel: the bound stays at their own
 * roof, (700 - 420) / 700 = 40 % of 600 = 240, whatever fp8 would give. */
START_TEST(compute_far_from_its_roof_keeps_its_own_roof)
{
	ns_split_window w = window(1000);
	ns_roof_time roof[NS_KCLASS_COUNT] = {{0}};
	ns_next_inputs in = {.roof = roof, .optimizer_launch_ns = 0, .fp32_share = 0.0, .tensor_ratio = 0.0};
	ns_next_steps s;

	w.bucket_ns[NS_REGIME_COMPUTE] = 600;
	roof[NS_KCLASS_COMPUTE] = placed(700, 700, 420);
	roof[NS_KCLASS_COMPUTE].fp8_ns = 700;
	roof[NS_KCLASS_COMPUTE].fp8_roof_ns = 210;
	ns_next_steps_of_window(&w, 1, &routes, &in, &s);
	ck_assert_int_eq(find(&s, NS_REGIME_COMPUTE, -1)->gain_ns, 240);
	ck_assert_ptr_null(strstr(find(&s, NS_REGIME_COMPUTE, -1)->basis, "fp8"));
}
END_TEST

/* A job's waiting: the straggler's fix claims it, never the waiting rank's own next step. */
START_TEST(a_ranks_waiting_is_no_next_step)
{
	ns_split_window w = window(1000);
	ns_next_steps s;

	put_cause(&w, NS_CAUSE_WAIT, 300);
	put_cause(&w, NS_CAUSE_COMM_TRANSFER, 100);
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_null(find(&s, NS_REGIME_COMM, NS_CAUSE_WAIT));
	ck_assert_int_eq(find(&s, NS_REGIME_COMM, NS_CAUSE_COMM_TRANSFER)->gain_ns, 100);
	ck_assert_int_eq(s.n, 1);
}
END_TEST

/* A decode window's memory kernels take the decode finding's fix, as its headline does. */
START_TEST(decode_memory_kernels_take_the_decode_fix)
{
	ns_split_window w = window(1000);
	ns_next_steps s;

	put_cause(&w, NS_CAUSE_KERNELS, 600);
	w.phase = NS_STEP_PHASE_DECODE;
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_str_eq(find(&s, NS_REGIME_MEMORY, NS_CAUSE_KERNELS)->route.fix,
	                 routes.finding[NS_FINDING_DECODE_MEMORY].fix);
}
END_TEST

/* One 100 us step: the data loader's span covers 0-40 us and a kernel runs 20-60 us (launched at 10 us,
 * inside the loader's span), nothing after. The split gives the loader only 0-20 (20-40 is under the kernel:
 * compute), compute 20-60 and idle 60-100. The data loader's fix can win 20 us, not the 40 its span lasts;
 * the idle 40 us rank first, and the loader, at half of that, is the runner-up. */
static const char overlap_trace[] =
    "{\"traceEvents\": ["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":1000,"
    "\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter."
    "__next__\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":40},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1010,"
    "\"dur\":2,\"args\":{\"correlation\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_128x64_nn\",\"pid\":0,\"tid\":7,\"ts\":1020,"
    "\"dur\":40,\"args\":{\"device\":0,\"stream\":7,\"correlation\":7}}"
    "]}";

START_TEST(a_cause_under_other_work_wins_nothing)
{
	char path[] = "/tmp/nextstep-next-XXXXXX";
	int fd = mkstemp(path);
	ns_kernel_rules *rules = NULL;
	ns_trace_split *split;
	ns_trace_meta meta;
	ns_split_result res;
	ns_classify_options co;
	ns_device_report *m = malloc(sizeof(*m));
	ns_input in;
	ns_error err;

	ck_assert_int_eq(ns_kernel_rules_default(&rules, &err), NS_OK);
	split = ns_trace_split_new(rules);
	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, overlap_trace, sizeof(overlap_trace) - 1) ==
	          (ssize_t)(sizeof(overlap_trace) - 1));
	close(fd);
	memset(&meta, 0, sizeof(meta));
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(ns_input_open(&in, path, &err), NS_OK);
	ck_assert_int_eq(ns_trace_read(&in, ns_trace_split_event, split, &meta, &err), NS_OK);
	ck_assert_int_eq(ns_trace_split_finish(split, &meta, &res, &err), NS_OK);
	ns_input_close(&in);
	unlink(path);
	ns_classify_options_default(&co);
	ns_device_report_build(&res, &res.device[0], &co, &routes, NULL, NULL, m);
	ck_assert_int_eq(m->next.step_ns, 100000);
	ck_assert_int_eq(find(&m->next, NS_REGIME_DATALOADER, -1)->gain_ns, 20000);
	ck_assert_int_eq(find(&m->next, NS_REGIME_IDLE, NS_CAUSE_HOST_GAP)->gain_ns, 40000);
	ck_assert_int_eq(ns_next_steps_top(&m->next)->cause, NS_CAUSE_HOST_GAP);
	ck_assert_int_eq(ns_next_steps_runner_up(&m->next)->bucket, NS_REGIME_DATALOADER);
	ck_assert_int_eq(find(&m->next, NS_REGIME_COMPUTE, -1)->held_ns, 40000);
	ck_assert_int_eq(known_sum(&m->next), 60000);
	free(m);
	ns_split_result_free(&res);
	ns_trace_split_free(split);
	ns_kernel_rules_free(rules);
}
END_TEST

/* ---- the step capture (docs/trace.md, "Capturing the step") ---- */

/* A 1,000 us step dispatch-bound on four host causes: launch 300, host_threads 200, idle.optimizer 100,
 * host_gap 150 (750 = 75 % of the step), and 100 memory kernels of 2.5 us each (250): 7.5 us of host a
 * kernel. */
static ns_split_window dispatch_window(void)
{
	ns_split_window w = window(1000000);

	put_cause(&w, NS_CAUSE_LAUNCH, 300000);
	put_cause(&w, NS_CAUSE_HOST_THREADS, 200000);
	put_cause(&w, NS_CAUSE_OPTIMIZER, 100000);
	put_cause(&w, NS_CAUSE_HOST_GAP, 150000);
	put_cause(&w, NS_CAUSE_KERNELS, 250000);
	w.kernels = 100;
	w.kernel_ns = 250000;
	return w;
}

static const ns_next_step *capture_of(const ns_next_steps *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->item[i].spans != 0)
			return &s->item[i];
	return NULL;
}

START_TEST(a_dispatch_bound_step_is_captured_first)
{
	ns_split_window w = dispatch_window();
	ns_next_steps s;
	uint32_t want = 1u << NS_CAUSE_LAUNCH | 1u << NS_CAUSE_HOST_THREADS | 1u << NS_CAUSE_OPTIMIZER |
	                1u << NS_CAUSE_HOST_GAP;

	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_eq(ns_next_steps_top(&s), capture_of(&s));
	ck_assert_int_eq(s.item[0].gain_ns, 750000); /* 300 + 200 + 100 + 150 */
	ck_assert_uint_eq(s.item[0].spans, want);
	ck_assert_int_eq(s.item[0].cause, -1);
	ck_assert_str_eq(s.item[0].finding, "step_capture");
	/* the partial fixes stay listed under it, each with its own cause's time */
	ck_assert_int_eq(find(&s, NS_REGIME_OVERHEAD, NS_CAUSE_LAUNCH)->gain_ns, 300000);
	ck_assert_int_eq(find(&s, NS_REGIME_IDLE, NS_CAUSE_OPTIMIZER)->gain_ns, 100000);
	ck_assert_ptr_null(strstr(s.item[0].basis, "blocking syncs"));
}
END_TEST

START_TEST(the_capture_is_offered_only_where_it_is_the_first_fix)
{
	ns_split_window w;
	ns_next_steps s;

	w = dispatch_window(); /* 2.5 us kernels at the limit of 10: 25 kernels of 10 us each still count */
	w.kernels = 25;
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_nonnull(capture_of(&s));
	w.kernels = 24; /* 250 / 24 = 10.4 us a kernel: not short */
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_null(capture_of(&s));

	w = dispatch_window(); /* 8 kernels of 1 us: 750 / 8 = 94 us of host a kernel, under 100 */
	w.kernels = 8;
	w.kernel_ns = 8000;
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_nonnull(capture_of(&s));
	w.kernels = 7; /* 107 us of host a kernel: a slow host op, not dispatch */
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_null(capture_of(&s));

	w = window(1000000); /* one cause holds the step: its own candidate is the fix */
	put_cause(&w, NS_CAUSE_LAUNCH, 700000);
	put_cause(&w, NS_CAUSE_HOST_GAP, 49000); /* under 5 % of the step */
	w.kernels = 100;
	w.kernel_ns = 250000;
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_null(capture_of(&s));

	w = dispatch_window(); /* the causes under half of the step */
	w.cause_ns[NS_CAUSE_LAUNCH] = 49000;
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s); /* 49 + 200 + 100 + 150 = 499 */
	ck_assert_ptr_null(capture_of(&s));

	w = dispatch_window(); /* already captured: replays hold half of the kernel time */
	w.graph_ns = 125000;
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_null(capture_of(&s));
	w.graph_ns = 124999;
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_nonnull(capture_of(&s));
}
END_TEST

START_TEST(syncs_in_the_step_are_said_or_stop_the_capture)
{
	ns_split_window w = dispatch_window();
	ns_next_steps s;
	const ns_next_step *c;

	put_cause(&w, NS_CAUSE_SYNC, 60000);
	put_cause(&w, NS_CAUSE_SYNC_WAIT, 40000); /* 100 us: 10 % of the step, the limit */
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	c = capture_of(&s);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->gain_ns, 750000); /* the syncs are not claimed */
	ck_assert_ptr_nonnull(strstr(c->basis, "0.100 ms of blocking syncs must leave the step first"));
	put_cause(&w, NS_CAUSE_SYNC, 1);
	ns_next_steps_of_window(&w, 1, &routes, NULL, &s);
	ck_assert_ptr_null(capture_of(&s));
}
END_TEST

START_TEST(preprocessing_and_stalls_are_not_claimed)
{
	ns_split_window w = dispatch_window();
	ns_routes r = routes;
	ns_next_steps s;
	const ns_next_step *c;

	r.cause[NS_CAUSE_HOST_GAP] = routes.finding[NS_FINDING_PYTHON_PREPROCESS];
	ns_next_steps_of_window(&w, 1, &r, NULL, &s);
	c = capture_of(&s);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->gain_ns, 600000); /* 750 less the host gap's 150 */
	ck_assert_uint_eq(c->spans & 1u << NS_CAUSE_HOST_GAP, 0);
	r.cause[NS_CAUSE_LAUNCH] = routes.finding[NS_FINDING_HOST_STALLS];
	ns_next_steps_of_window(&w, 1, &r, NULL, &s); /* 200 + 100 = 300: under half of the step */
	ck_assert_ptr_null(capture_of(&s));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("next_step");
	TCase *tc = tcase_create("bounds");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, bounds_are_each_cause_a_step_and_add_up_to_at_most_the_step);
	tcase_add_test(tc, bounds_of_a_window_all_waiting_add_up_to_the_step);
	tcase_add_test(tc, ties_go_to_the_earlier_bucket_then_cause);
	tcase_add_test(tc, runner_up_only_within_a_factor_of_two);
	tcase_add_test(tc, kernel_bounds_are_their_placed_time_above_the_roof);
	tcase_add_test(tc, kernel_bounds_never_go_below_zero_nor_above_the_class);
	tcase_add_test(tc, unplaced_kernel_time_is_said_unknown);
	tcase_add_test(tc, a_placement_without_the_class_leaves_it_unknown);
	tcase_add_test(tc, the_optimizers_launches_go_to_the_optimizers_fix);
	tcase_add_test(tc, the_optimizers_launches_are_at_most_the_launch_time);
	tcase_add_test(tc, kernels_without_a_placement_have_no_bound);
	tcase_add_test(tc, a_trifle_does_not_lead_time_of_unknown_bound);
	tcase_add_test(tc, a_bound_at_the_lead_share_or_over_the_unknown_time_leads);
	tcase_add_test(tc, fp32_kernels_on_tensor_core_gpus_are_bounded_by_the_peak_ratio);
	tcase_add_test(tc, a_placement_overrides_the_peak_ratio_bound);
	tcase_add_test(tc, compute_near_its_roof_is_bounded_at_the_fp8_roof);
	tcase_add_test(tc, compute_far_from_its_roof_keeps_its_own_roof);
	tcase_add_test(tc, a_ranks_waiting_is_no_next_step);
	tcase_add_test(tc, decode_memory_kernels_take_the_decode_fix);
	tcase_add_test(tc, a_cause_under_other_work_wins_nothing);
	tcase_add_test(tc, a_dispatch_bound_step_is_captured_first);
	tcase_add_test(tc, the_capture_is_offered_only_where_it_is_the_first_fix);
	tcase_add_test(tc, syncs_in_the_step_are_said_or_stop_the_capture);
	tcase_add_test(tc, preprocessing_and_stalls_are_not_claimed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
