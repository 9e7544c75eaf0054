/* What perfkit serve accepts of a request, decided before any page is made (server.c asks;
 * pure, so the unit tests ask too). Read-only: GET and HEAD. A path is "/" and printable
 * ASCII without "..", backslashes or control characters (libmicrohttpd hands it over with
 * %xx already decoded, so "%2e%2e" is seen as ".."). */
#ifndef ZVS_WEB_REQUEST_H
#define ZVS_WEB_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/web/metrics.h"

/* REFUSED_NREASONS when the request may go on to its page, else why it is refused. */
enum metrics_refusal request_check(const char *method, const char *path, size_t header_bytes);
/* The HTTP status of a refusal. */
unsigned request_status(enum metrics_refusal r);

#endif
