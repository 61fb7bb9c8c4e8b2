/* Feeds arbitrary bytes to ns_trace_read(): the first byte picks how many bytes each read may return (so
 * tokens straddle chunk boundaries), the first window size (so it grows) and one thread or two (the parse
 * worker taking chunks of the window), the rest is the document, plain or gzip. Every outcome must be a
 * status, never a crash, a hang or an out-of-bounds access; events must satisfy the reader's promises, and an
 * error's message be safe to print (fuzz_text_safe.h). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_text_safe.h"
#include "trace/read/trace_read_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ns_status check_event(const ns_trace_event *ev, void *ctx, ns_error *err)
{
	volatile unsigned char sink = 0;

	(void)err;
	/* Touch every byte of every slice so the address sanitizer sees an out-of-window pointer. */
	for (size_t i = 0; i < ev->name.len; i++)
		sink ^= (unsigned char)ev->name.ptr[i];
	for (size_t i = 0; i < ev->cat_raw.len; i++)
		sink ^= (unsigned char)ev->cat_raw.ptr[i];
	for (size_t i = 0; i < ev->input_dims.len; i++)
		sink ^= (unsigned char)ev->input_dims.ptr[i];
	(void)sink;
	if ((ev->has_dur && ev->dur_ns < 0) || ev->index != *(long *)ctx ||
	    (unsigned)ev->cat >= NS_TCAT_COUNT)
		abort();
	(*(long *)ctx)++;
	return NS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ns_input in;
	ns_error err;
	ns_trace_meta meta;
	long seen = 0;
	trace_read_knobs knobs = {0, 0, 0, 0, NULL, NULL};
	int fd;
	ns_status st;

	if (size == 0)
		return 0;
	/* Low bits: read size 0 (whole) or 1..64 bytes; high bits: a 64..512 byte first window. */
	knobs.max_read = (size_t)(data[0] % 9) * (data[0] % 9);
	knobs.window = 64u << (data[0] >> 6);
	/* One thread for all (gzip inflated inline), or the parse worker on chunks from 1 or 64 bytes ahead
	 * (gzip inflated on its thread too): the chunked path as a file of gigabytes takes it. */
	knobs.threads = (data[0] & 0x20) ? 1 : 3;
	knobs.chunk_min = (data[0] & 0x10) ? 1 : 64;
	fd = memfd_create("fuzz_trace_read", 0);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1) || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	memset(&in, 0, sizeof(in));
	in.fd = fd;
	in.name = "fuzz";
	st = trace_read_tuned(&in, check_event, &seen, &meta, &err, &knobs);
	close(fd);
	if (seen != meta.events || meta.bytes < 0 || meta.ndevices > NS_TRACE_MAX_DEVICES)
		abort();
	if (st != NS_OK && (err.offset < 0 || err.offset > meta.bytes || err.msg[0] == '\0'))
		abort();
	if (st != NS_OK)
		fuzz_check_message(err.msg);
	return 0;
}
