#include "nextstep/version.h"

unsigned ns_version(void)
{
	return NS_VERSION_NUMBER;
}

const char *ns_version_string(void)
{
	return NS_VERSION_STRING;
}
