/* The window store (split_store.c): windows kept in chunks, spilled to an unlinked temporary file past
 * SPLIT_STORE_RESIDENT chunks when a directory is given. Every window must come back as it was written,
 * whatever the order it is read in, and the memory held must stay within the bound. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/split/split_private.h"

/* Three devices' worth: past the bound several times over (16 chunks of 2048 windows). */
#define REGION (5 * SPLIT_STORE_CHUNK * 2 + 123)

/* The values window i of region r holds: each field its own function of both. */
static ns_split_window made(size_t r, size_t i)
{
	ns_split_window w;

	memset(&w, 0, sizeof(w));
	w.step = (int64_t)i;
	w.start_ns = (int64_t)(i * 1000 + r);
	w.dur_ns = 1000;
	for (int c = 0; c < NS_CAUSE_COUNT; c++)
		w.cause_ns[c] = (int64_t)(i * 31 + r * 7 + (size_t)c);
	w.bucket_ns[NS_REGIME_COMPUTE] = (int64_t)(r * 1000003 + i);
	w.kernels = (long)(i % 97);
	w.marker = (uint32_t)(i ^ r);
	w.warmup = (i + r) % 5 == 0;
	return w;
}

static void assert_window(const ns_split_store *st, const ns_split_window *got, size_t r, size_t i)
{
	ns_split_window want = made(r, i);

	ck_assert_msg(memcmp(got, &want, sizeof(want)) == 0, "region %zu window %zu differs", r, i);
	ck_assert_int_eq(st->status, NS_OK);
}

static size_t files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* Fills three regions, the first through the template copy the split makes for each device. */
static void fill(ns_split_store *st, size_t first[3])
{
	ns_error err = {0};

	for (size_t r = 0; r < 3; r++)
		ck_assert_int_eq(split_store_add(st, REGION, &first[r], &err), NS_OK);
	for (size_t i = 0; i < REGION; i++)
		*split_store_at(st, first[2] + i, true) = made(0, i);
	split_store_copy(st, first[0], first[2], REGION);
	for (size_t r = 1; r < 3; r++)
		for (size_t i = REGION; i-- > 0;) /* backwards, as the windows are made */
			*split_store_at(st, first[r] + i, true) = made(r, i);
}

static void read_back(ns_split_store *st, const size_t first[3])
{
	for (size_t r = 0; r < 3; r++)
		for (size_t i = 0; i < REGION; i++)
			assert_window(st, split_store_at(st, first[r] + i, false), r, i);
	for (size_t i = REGION; i-- > 0;)
		assert_window(st, split_store_at(st, first[1] + i, false), 1, i);
	/* scattered reads, each landing in another chunk than the last */
	for (size_t k = 0, i = 0; k < 5000; k++, i = (i + 7919 * SPLIT_STORE_CHUNK / 3) % REGION)
		assert_window(st, split_store_at(st, first[k % 3] + i, false), k % 3, i);
}

START_TEST(a_spilling_store_gives_back_every_window_within_its_memory_bound)
{
	char dir[] = "/tmp/nextstep-store-test-XXXXXX";
	ns_split_store *st;
	size_t first[3];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	st = split_store_new(dir);
	ck_assert_ptr_nonnull(st);
	fill(st, first);
	ck_assert_uint_le(st->resident, SPLIT_STORE_RESIDENT);
	ck_assert_int_ge(st->fd, 0); /* it did spill */
	read_back(st, first);
	ck_assert_uint_le(st->resident, SPLIT_STORE_RESIDENT);
	/* the file was unlinked when made: nothing is left behind, even before the store is freed */
	ck_assert_uint_eq(files_in(dir), 0);
	split_store_free(st);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(without_a_directory_every_chunk_stays_in_memory)
{
	ns_split_store *st = split_store_new(NULL);
	size_t first[3];

	ck_assert_ptr_nonnull(st);
	fill(st, first);
	read_back(st, first);
	ck_assert_int_eq(st->fd, -1);
	ck_assert_uint_eq(st->resident, st->nchunks);
	split_store_free(st);
}
END_TEST

START_TEST(a_directory_that_cannot_hold_the_file_keeps_the_windows_in_memory)
{
	ns_split_store *st = split_store_new("/nonexistent/nextstep");
	size_t first[3];

	ck_assert_ptr_nonnull(st);
	fill(st, first);
	read_back(st, first);
	ck_assert_int_eq(st->fd, -1);
	ck_assert_ptr_null(st->dir); /* it stopped trying */
	split_store_free(st);
}
END_TEST

/* The window holding t among windows of 1000 ns where every third is followed by a gap of 500 ns: window
 * 3q + r starts at 3500q + 1000r. n when none. */
static size_t window_at(int64_t t, size_t n)
{
	int64_t q = t / 3500, rem = t % 3500;
	size_t i;

	if (t < 0 || rem >= 3000)
		return n;
	i = (size_t)(3 * q + rem / 1000);
	return i < n ? i : n;
}

/* split_window_of, looked up in time order (the hint path), backwards and at scattered times (the search),
 * before the first window, in gaps and past the last. */
START_TEST(the_window_of_a_time_is_found_in_any_order)
{
	char dir[] = "/tmp/nextstep-store-test-XXXXXX";
	ns_split_store *st;
	split_view v;
	ns_error err = {0};
	size_t n = 3 * SPLIT_STORE_CHUNK * SPLIT_STORE_RESIDENT / 2, hint = 0;
	size_t lookups[3] = {4 * n, 3000, 3000};

	ck_assert_ptr_nonnull(mkdtemp(dir));
	st = split_store_new(dir);
	ck_assert_ptr_nonnull(st);
	v.st = st;
	v.n = n;
	ck_assert_int_eq(split_store_add(st, n, &v.first, &err), NS_OK);
	for (size_t i = 0; i < n; i++) {
		ns_split_window *w = split_view_at(&v, i);
		w->start_ns = (int64_t)(i / 3) * 3500 + (int64_t)(i % 3) * 1000;
		w->dur_ns = 1000;
	}
	for (int pass = 0; pass < 3; pass++) {
		for (size_t k = 0; k < lookups[pass]; k++) {
			size_t j = pass == 0   ? k
			           : pass == 1 ? 4 * n - 1 - k * 61
			                       : (k * 2654435761u) % (4 * n);
			int64_t t = (int64_t)j * 437 - 2000;
			ck_assert_uint_eq(split_window_of(&v, t, &hint), window_at(t, n));
		}
	}
	ck_assert_int_eq(st->status, NS_OK);
	split_store_free(st);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("split_store");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_spilling_store_gives_back_every_window_within_its_memory_bound);
	tcase_add_test(tc, without_a_directory_every_chunk_stays_in_memory);
	tcase_add_test(tc, a_directory_that_cannot_hold_the_file_keeps_the_windows_in_memory);
	tcase_add_test(tc, the_window_of_a_time_is_found_in_any_order);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
