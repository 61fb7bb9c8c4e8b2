/* The operands of 'nextstep trace' as a list of files: a directory stands for the trace files in it. */
#ifndef NEXTSTEP_CLI_FILES_H
#define NEXTSTEP_CLI_FILES_H

#include <stdbool.h>
#include <stddef.h>

/* A directory holds at most this many trace files (a named limit: each becomes a task and a line of output).
 */
#define CLI_DIR_FILES_MAX 100000

typedef struct {
	char **path; /* owned, each; "-" for stdin */
	size_t n, cap;
} cli_file_list;

/* True for the names a directory's trace files have: *.json and *.json.gz (so *.pt.trace.json[.gz] too). */
bool cli_is_trace_name(const char *name);
/* Compares file names as a person sorts them: runs of digits by value, so rank-2 comes before rank-10. */
int cli_name_cmp(const char *a, const char *b);
/* Appends each operand to out; a directory is replaced by its trace files (not recursive, sorted with
 * cli_name_cmp). verbose: each entry of a directory that is left out is named on stderr. A directory that
 * cannot be read or holds no trace file is reported on stderr and gives EXIT_BAD_INPUT (the others are still
 * listed); returns EXIT_ROUTED otherwise. Out of memory is reported and gives EXIT_BAD_INPUT. */
int cli_files_expand(char *const *operands, size_t n, bool verbose, cli_file_list *out);
void cli_file_list_free(cli_file_list *l);

#endif
