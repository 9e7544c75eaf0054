/* RLIMIT_NOFILE: the soft limit raised to the hard one (fd_limit.h says why). */
#include "daemon/fd_limit.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>

/* What the kernel allows a process at most (fs.nr_open), or its default 1,048,576. */
static rlim_t nr_open(void)
{
    unsigned long v = 0;
    FILE *f = fopen("/proc/sys/fs/nr_open", "r");
    if (f) {
        if (fscanf(f, "%lu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v ? (rlim_t)v : (rlim_t)1048576;
}

int zvsd_raise_fd_limit(uint64_t *before, uint64_t *after)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return -errno;
    if (before)
        *before = (uint64_t)rl.rlim_cur;
    if (after)
        *after = (uint64_t)rl.rlim_cur;
    rlim_t want = rl.rlim_max == RLIM_INFINITY ? nr_open() : rl.rlim_max;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= want)
        return 0;
    rl.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
        return -errno;
    if (after)
        *after = (uint64_t)want;
    return 0;
}
