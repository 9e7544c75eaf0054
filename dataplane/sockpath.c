/* sockpath: a stale Unix socket replaced, a live one refused (see sockpath.h). */
#include "dataplane/sockpath.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

int zvs_sockpath_claim(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct stat st;

    if (strlen(path) >= sizeof sa.sun_path)
        return -ENAMETOOLONG;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -errno;
    if (!S_ISSOCK(st.st_mode))
        return -EEXIST;
    /* A listener answers at once (the kernel completes the handshake from its backlog,
     * even a full one answers EAGAIN, not refused): a blocking connect never waits here. */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    int rc = connect(fd, (const struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    close(fd);
    if (rc == 0 || e == EAGAIN)
        return -EADDRINUSE;             /* somebody serves there */
    if (e != ECONNREFUSED && e != ENOENT)
        return -e;
    if (unlink(path) < 0 && errno != ENOENT)
        return -errno;
    return 0;
}
