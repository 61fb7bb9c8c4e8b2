#define _POSIX_C_SOURCE 200809L
#include "nextstep/input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/read/trace_read_private.h"
#include "util/magic.h"
#include "util/text.h"

ns_status ns_input_open(ns_input *in, const char *path, ns_error *err)
{
	struct stat st;

	memset(in, 0, sizeof(*in));
	in->name = path;
	if (strcmp(path, "-") == 0)
		strcpy(in->display, "<stdin>");
	else
		ns_text_escape(path, strlen(path), in->display, sizeof(in->display));
	if (strcmp(path, "-") == 0) {
		in->fd = STDIN_FILENO;
		return NS_OK;
	}
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0)
		return ns_error_set(err, NS_ERR_IO, "cannot open: %s", strerror(errno));
	/* read(2) of a directory fails with EISDIR, which would surface as a bare "read error". */
	if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(in->fd);
		in->fd = -1;
		return ns_error_set(err, NS_ERR_IO, "is a directory");
	}
	in->owns_fd = true;
	return NS_OK;
}

static ssize_t read_some(ns_input *in, void *buf, size_t n)
{
	ssize_t got;

	if (in->before_read != NULL)
		in->before_read(in->before_read_ctx);
	do
		got = read(in->fd, buf, n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		in->read_errno = errno;
	else if (got == 0)
		in->eof = true;
	if (got > 0) {
		in->bytes_read += (unsigned long long)got;
		if (in->tap != NULL)
			in->tap(in->tap_ctx, buf, (size_t)got);
		if (in->progress != NULL)
			in->progress(in->progress_ctx, in->bytes_read);
	}
	return got;
}

/* Reads ahead until the head holds at least want bytes, or EOF, or an error. */
static void fill_head(ns_input *in, size_t want)
{
	if (want > NS_INPUT_HEAD_MAX)
		want = NS_INPUT_HEAD_MAX;
	while (in->head_len < want && !in->eof && in->read_errno == 0) {
		ssize_t got = read_some(in, in->head + in->head_len, NS_INPUT_HEAD_MAX - in->head_len);
		if (got > 0)
			in->head_len += (size_t)got;
	}
}

static size_t skip_space(const ns_input *in, size_t i)
{
	while (i < in->head_len && strchr(" \t\r\n", in->head[i]) != NULL && in->head[i] != '\0')
		i++;
	return i;
}

/* Finds the first key of a top-level object, reading ahead only as far as that key needs. */
static ns_input_kind sniff_first_key(ns_input *in, size_t i)
{
	size_t start, end;

	i = skip_space(in, i + 1);
	while (i >= in->head_len && !in->eof && in->read_errno == 0 && in->head_len < NS_INPUT_HEAD_MAX) {
		fill_head(in, in->head_len + 1);
		i = skip_space(in, i);
	}
	if (i >= in->head_len || in->head[i] != '"')
		return NS_INPUT_PROFILE;
	start = i + 1;
	for (end = start;; end++) {
		if (end >= in->head_len) {
			if (in->eof || in->read_errno != 0 || in->head_len == NS_INPUT_HEAD_MAX)
				return NS_INPUT_PROFILE;
			fill_head(in, in->head_len + 1);
		}
		if (end < in->head_len && in->head[end] == '"')
			break;
	}
	return trace_looks_like_object((const char *)in->head + start, end - start) ? NS_INPUT_TRACE
	                                                                            : NS_INPUT_PROFILE;
}

/* A top-level array: the trace reader says whether the read-ahead looks like trace events; the array is read
 * whole by either parser, so reading ahead up to NS_INPUT_HEAD_MAX costs no waiting that the parser would not
 * do. */
static ns_input_kind sniff_array(ns_input *in)
{
	fill_head(in, NS_INPUT_HEAD_MAX);
	return trace_looks_like_array(in->head, in->head_pos, in->head_len) ? NS_INPUT_TRACE
	                                                                    : NS_INPUT_PROFILE;
}

/* SQLite's file header (sqlite.org/fileformat.html): the 16 bytes "SQLite format 3" and a NUL. Read ahead
 * only past an 'S', which no JSON input starts with (an NDJSON line behind `tail -f` may be shorter). */
static bool is_sqlite(ns_input *in)
{
	static const char magic[16] = "SQLite format 3";

	if (in->head[in->head_pos] != 'S')
		return false;
	fill_head(in, in->head_pos + sizeof(magic));
	return in->head_len - in->head_pos >= sizeof(magic) &&
	       memcmp(in->head + in->head_pos, magic, sizeof(magic)) == 0;
}

/* A UTF-8 byte order mark at the very start (Windows editors write one) is not part of the JSON: readers
 * never see it. Only one, and only there. */
static void skip_bom(ns_input *in)
{
	fill_head(in, 3);
	in->head_pos = ns_utf8_bom_len(in->head, in->head_len);
}

ns_input_kind ns_input_sniff(ns_input *in)
{
	size_t i;

	if (in->head_len == 0)
		skip_bom(in);
	fill_head(in, in->head_pos + 2);
	if (in->head_len == in->head_pos)
		return NS_INPUT_EMPTY;
	if (ns_is_gzip(in->head, in->head_len))
		return NS_INPUT_GZIP;
	if (is_sqlite(in))
		return NS_INPUT_SQLITE;
	i = skip_space(in, in->head_pos);
	while (i >= in->head_len && !in->eof && in->read_errno == 0 && in->head_len < NS_INPUT_HEAD_MAX) {
		fill_head(in, in->head_len + 1);
		i = skip_space(in, i);
	}
	if (i >= in->head_len)
		return NS_INPUT_PROFILE;
	if (in->head[i] == '[')
		return sniff_array(in);
	if (in->head[i] != '{')
		return NS_INPUT_PROFILE;
	return sniff_first_key(in, i);
}

ssize_t ns_input_read(ns_input *in, void *buf, size_t n)
{
	if (in->head_pos < in->head_len) {
		size_t avail = in->head_len - in->head_pos;
		size_t take = avail < n ? avail : n;
		memcpy(buf, in->head + in->head_pos, take);
		in->head_pos += take;
		return (ssize_t)take;
	}
	if (in->eof)
		return 0;
	return read_some(in, buf, n);
}

bool ns_input_is_trace(ns_input_kind kind)
{
	return kind == NS_INPUT_TRACE || kind == NS_INPUT_GZIP || kind == NS_INPUT_SQLITE;
}

const char *ns_input_display_name(const ns_input *in)
{
	return in->display;
}

void ns_input_close(ns_input *in)
{
	if (in->owns_fd && in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	in->owns_fd = false;
}
