/* The request checks (request.h). */
#include "tools/web/request.h"

#include <string.h>

#include "tools/web/web.h"

static bool path_ok(const char *p)
{
    if (p[0] != '/' || strstr(p, ".."))
        return false;
    for (; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7F || *p == '\\')
            return false;
    return true;
}

enum metrics_refusal request_check(const char *method, const char *path, size_t header_bytes)
{
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return REFUSED_METHOD;
    if (header_bytes > WEB_MAX_HEADERS)
        return REFUSED_HEADERS;
    if (!path_ok(path))
        return REFUSED_PATH;
    return REFUSED_NREASONS;
}

unsigned request_status(enum metrics_refusal r)
{
    switch (r) {
    case REFUSED_METHOD: return 405;
    case REFUSED_HEADERS: return 431;
    case REFUSED_PATH: return 400;
    case REFUSED_NOT_FOUND: return 404;
    case REFUSED_CONNECTIONS: return 503;
    default: return 200;
    }
}
