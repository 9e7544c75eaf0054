/* Connections open per client address, so that one client (a flood) cannot take every
 * connection perfkit serve has: past WEB_MAX_CONNS_IP from one address, or WEB_MAX_CONNS in
 * all, a new connection is refused at accept (server.c counts the refusal). The addresses
 * kept are those with a connection open; the table has room for WEB_MAX_CONNS of them.
 * Thread-safe (libmicrohttpd may call from its threads). */
#ifndef ZVS_WEB_CONNS_H
#define ZVS_WEB_CONNS_H

#include <stdbool.h>
#include <sys/socket.h>

struct conns;

struct conns *conns_new(unsigned max_total, unsigned max_per_addr);
void conns_free(struct conns *c);
/* May a connection from addr be accepted now? (Nothing is counted: conns_open does.) */
bool conns_may_open(struct conns *c, const struct sockaddr *addr);
/* A connection from addr opened / closed. */
void conns_open(struct conns *c, const struct sockaddr *addr);
void conns_close(struct conns *c, const struct sockaddr *addr);
unsigned conns_total(struct conns *c);

#endif
