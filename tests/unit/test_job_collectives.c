/* The split's collective timeline (split_collectives.c), on a hand-made trace: one step [0, 1000) us; a GEMM
 * [100, 300) and [750, 780); an all-reduce kernel [200, 600) carrying its own metadata; an all-gather kernel
 * [700, 800) without any, launched by a record_param_comms op that has it. By hand: the all-reduce runs alone
 * from 300 to 600 (one exposed piece of 300 us); the all-gather alone in [700, 750) and [780, 800) (two
 * pieces, 70 us), and takes the op's name, group, size and Seq. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nextstep/trace_kernels.h"
#include "nextstep/trace_split.h"

#define US 1000

static ns_str text(const char *s)
{
	return (ns_str){s, s != NULL ? strlen(s) : 0};
}

static ns_trace_event event(char ph, ns_trace_category cat, const char *name, int64_t tid, int64_t ts,
                            int64_t dur)
{
	ns_trace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ph = ph;
	ev.cat = cat;
	ev.name = text(name);
	ev.pid = cat == NS_TCAT_KERNEL ? 0 : 1;
	ev.tid = tid;
	ev.has_ts = ev.has_dur = true;
	ev.ts_ns = ts * US;
	ev.dur_ns = dur * US;
	ev.device = cat == NS_TCAT_KERNEL ? 0 : -1;
	ev.stream = -1;
	ev.correlation = ev.external_id = -1;
	ev.coll_seq = ev.coll_in = ev.coll_out = -1;
	ev.flops = -1;
	return ev;
}

static void feed(ns_trace_split *s, ns_trace_event ev)
{
	ns_error err;

	ns_error_clear(&err);
	ck_assert_int_eq(ns_trace_split_event(&ev, s, &err), NS_OK);
}

static void make_split(ns_split_result *res, ns_kernel_rules **rules)
{
	ns_error err;
	ns_trace_split *s;
	ns_trace_event ev;

	ck_assert_int_eq(ns_kernel_rules_default(rules, &err), NS_OK);
	s = ns_trace_split_new(*rules);
	feed(s, event('X', NS_TCAT_CPU_OP, "ProfilerStep#4", 1, 0, 1000));
	feed(s, event('X', NS_TCAT_KERNEL, "ampere_sgemm_128x64_nn", 7, 100, 200));
	ev = event('X', NS_TCAT_KERNEL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 40, 200, 400);
	ev.correlation = 400;
	ev.coll_name = text("allreduce");
	ev.coll_pg = text("0");
	ev.coll_dtype = text("Float");
	ev.coll_seq = 7;
	ev.coll_in = ev.coll_out = 1024;
	feed(s, ev);
	ev = event('X', NS_TCAT_CPU_OP, "record_param_comms", 1, 350, 5);
	ev.external_id = 77;
	ev.coll_name = text("allgather");
	ev.coll_pg = text("1");
	ev.coll_seq = 3;
	ev.coll_in = 2048;
	feed(s, ev);
	ev = event('X', NS_TCAT_RUNTIME, "cudaLaunchKernel", 1, 352, 2);
	ev.correlation = 500;
	ev.external_id = 77;
	feed(s, ev);
	ev = event('X', NS_TCAT_KERNEL, "ncclDevKernel_AllGather_RING_LL", 40, 700, 100);
	ev.correlation = 500;
	ev.external_id = 77;
	feed(s, ev);
	feed(s, event('X', NS_TCAT_KERNEL, "ampere_sgemm_128x64_nn", 7, 750, 30));
	ck_assert_int_eq(ns_trace_split_finish(s, NULL, res, &err), NS_OK);
	ns_trace_split_free(s);
}

START_TEST(each_collective_keeps_its_metadata_and_exposed_pieces)
{
	ns_kernel_rules *rules = NULL;
	ns_split_result res;
	const ns_split_collective *c;

	make_split(&res, &rules);
	ck_assert_int_eq(res.ndevices, 1);
	ck_assert_int_eq(res.device[0].ncoll, 2);
	c = &res.device[0].coll[0];
	ck_assert_int_eq(c->start_ns, 200 * US);
	ck_assert_int_eq(c->end_ns, 600 * US);
	ck_assert_int_eq(c->step, 4);
	ck_assert_str_eq(c->name, "allreduce");
	ck_assert_str_eq(c->group, "0");
	ck_assert_str_eq(c->dtype, "Float");
	ck_assert_int_eq(c->seq, 7);
	ck_assert_int_eq(c->in_nelems, 1024);
	ck_assert_int_eq(c->npieces, 1);
	ck_assert_int_eq(c->piece[0].start_ns, 300 * US);
	ck_assert_int_eq(c->piece[0].end_ns, 600 * US);
	ck_assert_int_eq(c->exposed_ns, 300 * US);
	c = &res.device[0].coll[1];
	ck_assert_str_eq(c->name, "allgather");
	ck_assert_str_eq(c->group, "1");
	ck_assert_str_eq(c->dtype, "");
	ck_assert_int_eq(c->seq, 3);
	ck_assert_int_eq(c->in_nelems, 2048);
	ck_assert_int_eq(c->out_nelems, -1);
	ck_assert_int_eq(c->npieces, 2);
	ck_assert_int_eq(c->piece[0].start_ns, 700 * US);
	ck_assert_int_eq(c->piece[0].end_ns, 750 * US);
	ck_assert_int_eq(c->piece[1].start_ns, 780 * US);
	ck_assert_int_eq(c->piece[1].end_ns, 800 * US);
	ck_assert_int_eq(c->exposed_ns, 70 * US);
	/* the pieces are the step's exposed comm: 300 + 70 us */
	ck_assert_int_eq(ns_split_device_step(&res.device[0], 0).cause_ns[NS_CAUSE_EXPOSED], 370 * US);
	ns_split_result_free(&res);
	ns_kernel_rules_free(rules);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("job_collectives");
	TCase *t = tcase_create("split");
	SRunner *r;
	int failed;

	tcase_add_test(t, each_collective_keeps_its_metadata_and_exposed_pieces);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
