/* names/resolver_ares.c against a DNS server of the test's own on UDP loopback: the answers
 * are crafted bytes, so what c-ares' parsers make of a good, an oversized, a malformed, a
 * truncated or a failing answer, and of no answer at all, is checked without a real
 * server. The test plays the owner's event loop with poll() on the descriptors the
 * resolver asks it to watch (c-ares reads the real clock here; each case is bounded). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "names/resolver_ares.h"

/* TRUNCATED: TC set over UDP, nothing listens on TCP; TRUNCATED_TCP: TC over UDP, the
 * whole answer over TCP (c-ares' retry). */
enum mode { GOOD, GOOD_V6, NXDOMAIN, SERVFAIL, MALFORMED, TRUNCATED, TRUNCATED_TCP, OVERSIZED,
            SILENT };

struct world {
    int                  srv;           /* the fake server's UDP socket */
    int                  tcp;           /* its TCP listener (TRUNCATED_TCP), or -1 */
    enum mode            mode;
    int                  fds[8];        /* what the resolver asked us to watch */
    bool                 wr[8];         /* ... for writing too (a TCP connect, a send) */
    unsigned             nfd;
    bool                 done;
    struct zvs_res_answer a;
    unsigned             queries_seen;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int host_watch(void *arg, int fd, bool write)
{
    struct world *w = arg;
    for (unsigned i = 0; i < w->nfd; i++)
        if (w->fds[i] == fd) {
            w->wr[i] = write;
            return 0;
        }
    if (w->nfd == 8)
        return -ENOSPC;
    w->wr[w->nfd] = write;
    w->fds[w->nfd++] = fd;
    return 0;
}

static void host_unwatch(void *arg, int fd)
{
    struct world *w = arg;
    for (unsigned i = 0; i < w->nfd; i++)
        if (w->fds[i] == fd) {
            w->nfd--;
            w->fds[i] = w->fds[w->nfd];
            w->wr[i] = w->wr[w->nfd];
        }
}

static void on_done(void *arg, uint64_t token, const struct zvs_res_answer *a, uint64_t now)
{
    struct world *w = arg;
    assert_int_equal(token, 77);
    w->a = *a;
    w->done = true;
}

static size_t put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; return 2; }
static size_t put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)(v >> 16)); put16(p + 2, (uint16_t)v); return 4; }

/* One answer record: a pointer to the question's name, type, class IN, TTL, data. */
static size_t put_rr(uint8_t *p, uint16_t type, uint32_t ttl, const uint8_t *data, uint16_t n)
{
    size_t o = 0;
    o += put16(p + o, 0xC00C);
    o += put16(p + o, type);
    o += put16(p + o, 1);
    o += put32(p + o, ttl);
    o += put16(p + o, n);
    memcpy(p + o, data, n);
    return o + n;
}

/* The answer to query q (n bytes) the way the case says, into r; 0: none. Over TCP the
 * answer is whole (tcp true). */
static size_t answer(struct world *w, const uint8_t *q, size_t n, uint8_t *r, bool tcp)
{
    if (n < 12)
        return 0;
    w->queries_seen++;
    size_t qend = 12;
    while (qend < n && q[qend])
        qend += q[qend] + 1u;
    qend += 5;                          /* the root label, QTYPE, QCLASS */
    if (qend > n || w->mode == SILENT)
        return 0;
    uint16_t qtype = (uint16_t)(q[qend - 4] << 8 | q[qend - 3]);
    memcpy(r, q, qend);
    uint16_t flags = 0x8180;            /* QR, RD, RA */
    unsigned an = 0;
    size_t o = qend;
    uint8_t v4[4] = { 192, 0, 2, 33 };
    uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x33 };
    switch (w->mode) {
    case GOOD:
    case GOOD_V6:
        if (qtype == 1) {
            o += put_rr(r + o, 1, 42, v4, 4);
            an = 1;
        } else if (qtype == 28 && w->mode == GOOD_V6) {
            o += put_rr(r + o, 28, 17, v6, 16);
            an = 1;
        }
        break;
    case NXDOMAIN:
        flags |= 3;
        break;
    case SERVFAIL:
        flags |= 2;
        break;
    case MALFORMED:                     /* one answer claimed, cut inside its record */
        o += put_rr(r + o, 1, 42, v4, 4);
        o -= 7;
        an = 1;
        break;
    case TRUNCATED:
    case TRUNCATED_TCP:
        if (!tcp) {
            flags |= 0x0200;            /* TC: ask again over TCP */
        } else if (qtype == 1) {
            o += put_rr(r + o, 1, 42, v4, 4);
            an = 1;
        }
        break;
    case OVERSIZED:
        for (unsigned i = 0; i < ZVS_RES_MAX_ADDRS + 1; i++) {
            v4[3] = (uint8_t)(i + 1);
            o += put_rr(r + o, 1, 42, v4, 4);
        }
        an = ZVS_RES_MAX_ADDRS + 1;
        break;
    case SILENT:
        return 0;
    }
    put16(r + 2, flags);
    put16(r + 4, 1);
    put16(r + 6, (uint16_t)an);
    put16(r + 8, 0);
    put16(r + 10, 0);
    return o;
}

static void serve_udp(struct world *w)
{
    uint8_t q[512], r[1024];
    struct sockaddr_storage from;
    socklen_t flen = sizeof from;
    ssize_t n = recvfrom(w->srv, q, sizeof q, 0, (struct sockaddr *)&from, &flen);
    size_t o = n > 0 ? answer(w, q, (size_t)n, r, false) : 0;
    if (o)
        sendto(w->srv, r, o, 0, (struct sockaddr *)&from, flen);
}

/* One TCP connection, one query: two length bytes, the message (RFC 1035 4.2.2). */
static void serve_tcp(struct world *w)
{
    uint8_t q[514], r[1026];
    int c = accept4(w->tcp, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0)
        return;
    struct pollfd pf = { .fd = c, .events = POLLIN };
    size_t got = 0;
    while (got < 2 || got < 2u + (size_t)(q[0] << 8 | q[1])) {
        if (poll(&pf, 1, 1000) <= 0)
            break;
        ssize_t k = read(c, q + got, sizeof q - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    size_t o = got > 2 ? answer(w, q + 2, got - 2, r + 2, true) : 0;
    if (o) {
        put16(r, (uint16_t)o);
        ssize_t k = write(c, r, o + 2);
        (void)k;
    }
    close(c);
}

/* One lookup of `name` with the server in `mode`; the answer is in w->a. */
static void lookup(struct world *w, enum mode mode, enum zvs_res_order order)
{
    memset(w, 0, sizeof *w);
    w->mode = mode;
    w->tcp = -1;
    w->srv = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(w->srv >= 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    assert_int_equal(bind(w->srv, (struct sockaddr *)&sa, sizeof sa), 0);
    socklen_t sl = sizeof sa;
    getsockname(w->srv, (struct sockaddr *)&sa, &sl);
    if (mode == TRUNCATED_TCP) {        /* the same port number, over TCP */
        w->tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(w->tcp >= 0);
        assert_int_equal(bind(w->tcp, (struct sockaddr *)&sa, sizeof sa), 0);
        assert_int_equal(listen(w->tcp, 4), 0);
    }
    char servers[64];
    snprintf(servers, sizeof servers, "127.0.0.1:%u", ntohs(sa.sin_port));
    struct zvs_res_ares_params p = { .servers = servers, .timeout_ms = 300, .tries = 1 };
    struct zvs_res_host host = { host_watch, host_unwatch, w };
    int err;
    struct zvs_resolver *r = zvs_resolver_ares_create(&p, &host, on_done, w, &err);
    assert_non_null(r);
    char shown[128];
    zvs_resolver_servers(r, shown, sizeof shown);
    assert_string_equal(shown, servers);
    assert_int_equal(zvs_resolver_query(r, "peer.lab", order, 77, mono_ns()), 0);
    uint64_t give_up = mono_ns() + 3000000000ull;
    while (!w->done && mono_ns() < give_up) {
        struct pollfd pf[10];
        unsigned np = 0;
        pf[np++] = (struct pollfd){ .fd = w->srv, .events = POLLIN };
        pf[np++] = (struct pollfd){ .fd = w->tcp, .events = POLLIN };   /* -1: ignored */
        for (unsigned i = 0; i < w->nfd; i++)
            pf[np++] = (struct pollfd){ .fd = w->fds[i],
                                        .events = POLLIN | (w->wr[i] ? POLLOUT : 0) };
        uint64_t now = mono_ns();
        uint64_t wake = zvs_resolver_next_wakeup(r, now);
        int ms = 50;
        if (wake)
            ms = wake <= now ? 0 : (int)((wake - now) / 1000000 + 1);
        poll(pf, np, ms < 50 ? ms : 50);
        /* The resolver first: what it sends is in the kernel before the server reads
         * (the server answers a TCP query in one blocking exchange). */
        for (unsigned i = 2; i < np && !w->done; i++)
            if (pf[i].revents)
                zvs_resolver_fd_ready(r, pf[i].fd, pf[i].revents & ~POLLOUT,
                                      pf[i].revents & POLLOUT, mono_ns());
        if (pf[0].revents & POLLIN)
            serve_udp(w);
        if (pf[1].revents & POLLIN)
            serve_tcp(w);
        if (!w->done)
            zvs_resolver_run(r, mono_ns());
    }
    assert_true(w->done);
    zvs_resolver_destroy(r);
    assert_int_equal(w->nfd, 0);        /* every socket unwatched before it closed */
    close(w->srv);
    if (w->tcp >= 0)
        close(w->tcp);
}

static void good_answer_with_ttl(void **state)
{
    struct world w;
    char s[ZVS_RES_ADDR_STR];
    lookup(&w, GOOD, ZVS_RES_ORDER_V4);
    assert_int_equal(w.a.status, ZVS_RES_OK);
    assert_int_equal(w.a.naddr, 1);
    assert_int_equal(w.a.ttl_s, 42);
    zvs_res_addr_format(&w.a.addr[0], s, sizeof s);
    assert_string_equal(s, "192.0.2.33");
}

static void both_families_in_our_order(void **state)
{
    struct world w;
    char s[ZVS_RES_ADDR_STR];
    lookup(&w, GOOD_V6, ZVS_RES_ORDER_V6_V4);
    assert_int_equal(w.a.status, ZVS_RES_OK);
    assert_int_equal(w.a.naddr, 2);
    assert_int_equal(w.a.ttl_s, 17);               /* the smaller TTL */
    zvs_res_addr_format(&w.a.addr[0], s, sizeof s);
    assert_string_equal(s, "2001:db8::33");
    assert_int_equal(w.queries_seen, 2);            /* A and AAAA */
}

static void failures_mapped(void **state)
{
    struct world w;
    lookup(&w, NXDOMAIN, ZVS_RES_ORDER_V4);
    assert_int_equal(w.a.status, ZVS_RES_NXDOMAIN);
    /* c-ares 1.18 ends a query every server answered SERVFAIL with the status it starts
     * with, ECONNREFUSED, as it ends one no server could be reached for: "no server" */
    lookup(&w, SERVFAIL, ZVS_RES_ORDER_V4);
    assert_int_equal(w.a.status, ZVS_RES_NOSERVER);
    lookup(&w, SILENT, ZVS_RES_ORDER_V4);
    assert_int_equal(w.a.status, ZVS_RES_TIMEOUT);
    assert_int_equal(w.a.naddr, 0);
}

static void bad_answers_are_failures(void **state)
{
    struct world w;
    lookup(&w, OVERSIZED, ZVS_RES_ORDER_V4);
    assert_int_equal(w.a.status, ZVS_RES_OVERSIZED);
    assert_int_equal(w.a.naddr, 0);
    lookup(&w, MALFORMED, ZVS_RES_ORDER_V4);
    assert_int_equal(w.a.status, ZVS_RES_BADANSWER);
    assert_int_equal(w.a.naddr, 0);
    /* a truncated answer is never used as it is: c-ares asks again over TCP; nothing
     * there (ECONNREFUSED) is "no server", a failure */
    lookup(&w, TRUNCATED, ZVS_RES_ORDER_V4);
    assert_int_equal(w.a.status, ZVS_RES_NOSERVER);
    assert_int_equal(w.a.naddr, 0);
}

static void truncated_then_tcp(void **state)
{
    struct world w;
    lookup(&w, TRUNCATED_TCP, ZVS_RES_ORDER_V4);
    assert_int_equal(w.a.status, ZVS_RES_OK);
    assert_int_equal(w.a.naddr, 1);
    assert_int_equal(w.a.ttl_s, 42);
    assert_int_equal(w.queries_seen, 2);            /* UDP, then TCP */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_answer_with_ttl),
        cmocka_unit_test(both_families_in_our_order),
        cmocka_unit_test(failures_mapped),
        cmocka_unit_test(bad_answers_are_failures),
        cmocka_unit_test(truncated_then_tcp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
