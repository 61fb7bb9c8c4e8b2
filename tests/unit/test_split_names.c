/* The split's name rules for issue 25 items 10b and 10e: which calls can stall (and which are the
 * allocator's), and what a process group's description says it is. Rows are the spellings real traces carry:
 * DeviceMesh's "mesh_<dim name>", Megatron-LM's "<KIND>_PARALLEL_GROUP", PyTorch's "default_pg". */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "trace/split/split_private.h"

static ns_str str(const char *s)
{
	return (ns_str){s, strlen(s)};
}

static const struct {
	const char *desc;
	uint8_t role;
} group_rows[] = {
    {"mesh_tp", NS_COLL_ROLE_TP},
    {"TENSOR_MODEL_PARALLEL_GROUP", NS_COLL_ROLE_TP},
    {"EXPERT_TENSOR_PARALLEL_GROUP", NS_COLL_ROLE_TP}, /* tensor parallelism inside the experts */
    {"mesh_dp", NS_COLL_ROLE_DP},
    {"mesh_dp_shard", NS_COLL_ROLE_DP},
    {"mesh_dp_replicate", NS_COLL_ROLE_DP},
    {"DATA_PARALLEL_GROUP", NS_COLL_ROLE_DP},
    {"PIPELINE_MODEL_PARALLEL_GROUP", NS_COLL_ROLE_OTHER},
    {"CONTEXT_PARALLEL_GROUP", NS_COLL_ROLE_OTHER},
    {"mesh_ep", NS_COLL_ROLE_OTHER},
    {"TENSOR_AND_DATA_PARALLEL_GROUP", NS_COLL_ROLE_UNKNOWN}, /* both: says nothing */
    {"mesh_dp_tp", NS_COLL_ROLE_UNKNOWN},
    {"default_pg", NS_COLL_ROLE_UNKNOWN},
    {"mesh_dim_0", NS_COLL_ROLE_UNKNOWN},
    {"", NS_COLL_ROLE_UNKNOWN},
    {"stp_group", NS_COLL_ROLE_UNKNOWN}, /* words, not substrings */
};

START_TEST(group_descriptions_name_their_role_word_by_word)
{
	for (size_t i = 0; i < sizeof(group_rows) / sizeof(group_rows[0]); i++)
		ck_assert_msg(split_group_role(str(group_rows[i].desc)) == group_rows[i].role,
		              "%s: role %u, want %u", group_rows[i].desc,
		              split_group_role(str(group_rows[i].desc)), group_rows[i].role);
}
END_TEST

START_TEST(trivial_calls_and_allocator_calls_are_told_apart)
{
	static const char *const trivial[] = {"cudaEventRecord",     "cudaEventRecordWithFlags",
	                                      "cudaStreamWaitEvent", "hipEventRecord",
	                                      "cudaGetDevice",       NULL};
	static const char *const alloc[] = {"cudaMalloc", "cudaFree",          "cuMemCreate",
	                                    "hipMalloc",  "cudaMallocManaged", NULL};
	static const char *const neither[] = {"cudaMallocAsync",
	                                      "cudaFreeAsync",
	                                      "cudaMallocHost",
	                                      "cudaFreeHost",
	                                      "cudaLaunchKernel",
	                                      "cudaStreamSynchronize",
	                                      NULL};

	for (const char *const *n = trivial; *n != NULL; n++)
		ck_assert_msg(split_is_trivial_call(str(*n)) && !split_is_alloc_call(str(*n)), "%s", *n);
	for (const char *const *n = alloc; *n != NULL; n++)
		ck_assert_msg(split_is_alloc_call(str(*n)) && !split_is_trivial_call(str(*n)), "%s", *n);
	for (const char *const *n = neither; *n != NULL; n++)
		ck_assert_msg(!split_is_alloc_call(str(*n)) && !split_is_trivial_call(str(*n)), "%s", *n);
	ck_assert(split_is_trivial_op(str("aten::empty")));
	ck_assert(split_is_trivial_op(str("aten::empty_strided")));
	ck_assert(!split_is_trivial_op(str("aten::empty_cache"))); /* exact names only */
	ck_assert(!split_is_trivial_op(str("aten::copy_")));
}
END_TEST

static Suite *names_suite(void)
{
	Suite *s = suite_create("split_names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, group_descriptions_name_their_role_word_by_word);
	tcase_add_test(tc, trivial_calls_and_allocator_calls_are_told_apart);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(names_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
