/* The floor for any JSON reader, for bench-trace.sh: reads FILE in 1 MiB blocks and walks every byte once,
 * tracking whether it is inside a string (quotes and backslash escapes) and counting the '{' outside strings,
 * so the loop cannot be optimised away. A byte at a time, no SIMD, one thread; a tight loop for each side of
 * a quote, so only the quotes cost a branch miss.
 * Usage: byte_scan FILE   prints the count of objects */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 20];
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	unsigned long long objects = 0;
	int in_string = 0, escaped = 0;
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "usage: byte_scan FILE\n");
		return 2;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		size_t i = 0;
		if (escaped && i < n) /* an escape split between two blocks */
			i++, escaped = 0;
		while (i < n) {
			if (in_string) {
				while (i < n && buf[i] != '"') {
					if (buf[i] == '\\' && ++i == n)
						escaped = 1;
					i++;
				}
				if (i < n)
					i++, in_string = 0;
			} else {
				while (i < n && buf[i] != '"')
					objects += buf[i++] == '{';
				if (i < n)
					i++, in_string = 1;
			}
		}
	}
	fclose(f);
	printf("%llu\n", objects);
	return 0;
}
