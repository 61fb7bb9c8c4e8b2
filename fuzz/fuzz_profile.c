/* Feeds arbitrary bytes to the profile reader the way the CLI does (sniff, then read every record, then
 * validate and classify each good one). Every record must end as a profile or an error with a message;
 * never a crash, a hang, or a share outside [0,1]. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nextstep/classify.h"
#include "nextstep/parse_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_profile(ns_profile *p)
{
	classify_options o;
	ns_verdict v;
	ns_error err;

	for (int r = 0; r < REGIME_COUNT; r++)
		if (!(p->share[r] >= 0.0 && p->share[r] <= 1.0))
			abort();
	if (profile_validate(p, false, &err) != NS_OK)
		return;
	classify_options_default(&o);
	classify_profile(p, &o, &v);
	if ((unsigned)v.regime >= REGIME_COUNT || v.share < 0 || v.nfindings >= REGIME_COUNT)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_input in;
	ns_error err;
	ns_profile p;
	profile_unknown_keys unknown;
	profile_reader *r;
	profile_read_result res;
	int fd = memfd_create("fuzz_profile", 0);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (input_open(&in, "-", &err) != NS_OK)
		abort();
	in.fd = fd;
	in.owns_fd = true;
	if (input_sniff(&in) == INPUT_PROFILE || input_sniff(&in) == INPUT_EMPTY) {
		r = profile_reader_new(&in, false);
		if (r == NULL)
			abort();
		while ((res = profile_reader_next(r, &p, &unknown, &err)) != PROFILE_READ_END) {
			if (res == PROFILE_READ_OK)
				check_profile(&p);
			else if (err.msg[0] == '\0')
				abort();
		}
		profile_reader_free(r);
	}
	input_close(&in);
	return 0;
}
