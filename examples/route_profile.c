/* Routing a profile with libnextstep from another program: the split of one step, given as BUCKET=SHARE
 * arguments, is checked and classified by max-with-priority in one call (ns_route_profile()) and printed with
 * its route, as `nextstep` would.
 *
 * Build against an installed libnextstep (installed with `cmake --install build --prefix DIR`: first
 * export PKG_CONFIG_PATH=DIR/lib/pkgconfig; pkg-config's flags put the library's folder in the program's run
 * path, so it runs without ldconfig or LD_LIBRARY_PATH):
 *   cc -o route_profile examples/route_profile.c $(pkg-config --cflags --libs nextstep)
 *   ./route_profile compute=0.72 memory=0.15 comm=0.05 idle=0.08
 */
#include <stdio.h>
#include <string.h>

#include <nextstep/nextstep.h>

/* "compute=0.72" or "dataloader=33%" into the profile; 0 on success. */
static int add_share(ns_profile *p, const char *arg, ns_error *err)
{
	char name[32];
	const char *eq = strchr(arg, '=');
	ns_regime r;

	if (eq == NULL || (size_t)(eq - arg) >= sizeof(name)) {
		ns_error_set(err, NS_ERR_USAGE, "'%s' is not BUCKET=SHARE", arg);
		return -1;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	if (!ns_regime_from_name(name, &r)) {
		ns_error_set(err, NS_ERR_USAGE, "unknown bucket '%s'", name);
		return -1;
	}
	return ns_parse_flag_bucket(p, r, eq + 1, err) == NS_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	ns_profile profile;
	ns_verdict verdict;
	ns_routes *routes;
	ns_error err;
	ns_format_options text = {NS_FORMAT_TEXT, false, false};

	if (argc < 2) {
		fprintf(
		    stderr,
		    "usage: %s BUCKET=SHARE ... (buckets: compute memory comm dataloader overhead idle)\n",
		    argv[0]);
		return 2;
	}
	ns_error_clear(&err);
	ns_profile_init(&profile);
	for (int i = 1; i < argc; i++)
		if (add_share(&profile, argv[i], &err) != 0) {
			fprintf(stderr, "route_profile: %s\n", err.msg);
			return 2;
		}
	if (ns_route_profile(&profile, NULL, false, &verdict, &err) != NS_OK ||
	    (routes = ns_routes_new(NULL, &err)) == NULL) {
		fprintf(stderr, "route_profile: %s\n", err.msg);
		return 1;
	}
	ns_format_verdict_line(stdout, "", &verdict, routes, &text);
	printf("runner-up: %s (%.0f%%)\n", ns_regime_name(verdict.runner_up),
	       verdict.runner_up_share * 100.0);
	ns_routes_delete(routes);
	return 0;
}
