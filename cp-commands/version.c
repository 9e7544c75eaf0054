/* The version string, compiled in by the Makefile (ZVS_VERSION, from scripts/version.sh) into
 * this one object, so that a new commit rebuilds one file and relinks, not the tree. */
#include "cp-commands/version.h"

#ifndef ZVS_VERSION
#error "ZVS_VERSION is set by the Makefile (scripts/version.sh)"
#endif

const char *zvs_version(void)
{
    return ZVS_VERSION;
}
