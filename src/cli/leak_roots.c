/* Sanitizer builds with clang only (CMakeLists.txt adds this file to nextstep then): which memory
 * LeakSanitizer treats as roots when it checks nextstep at exit.
 *
 * By default every global is a root, so the check scans the program's data and bss. The AddressSanitizer
 * runtime is linked into the program and brings 10 MB of tables of its own there: scanning them cost about
 * 27 ms of CPU a run, 40 % of a sanitized `nextstep --version`, and the test suite runs the sanitized
 * nextstep thousands of times (CONTRIBUTING.md, "Build and test"). nextstep keeps no heap memory that only a
 * global of its own points to, so globals are not roots here. That makes the check stricter, never looser:
 * memory a global held would now be reported as a leak. The one heap memory libc keeps that way is a standard
 * stream's buffer, which only its FILE object points to; those three objects are registered as roots. */
#include <sanitizer/lsan_interface.h>
#include <stdio.h>

/* Read by the runtime before main; LSAN_OPTIONS in the environment still overrides it. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "use_globals=0";
}

__attribute__((constructor)) static void register_stream_roots(void)
{
	__lsan_register_root_region(stdin, sizeof(*stdin));
	__lsan_register_root_region(stdout, sizeof(*stdout));
	__lsan_register_root_region(stderr, sizeof(*stderr));
}
