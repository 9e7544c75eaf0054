/* Marker protocol (lacp/marker.c): the responder's echo byte for byte, originated Marker
 * Information bytes and transaction ids, answered / timed out at exact virtual times,
 * unmatched and late responses, the 8-outstanding limit, ordering of expiries. Frames go
 * through the real codec (zvs_slow_parse in, zvs_marker_build out). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "lacp/marker.h"
#include "lacp/pdu.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define T0 (5 * SEC)

/* ---- fixtures ---------------------------------------------------------------------- */

static const uint8_t port_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x11 };   /* SA */
static const uint8_t our_system[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
#define OUR_PORT 5

/* Peer's Marker Information: requester port 0x0102, system 00:aa:bb:cc:dd:ee, xid
 * 0xDEADBEEF, from the peer's port MAC 00:aa:bb:cc:dd:01. */
static const uint8_t peer_info[ZVS_SLOW_FRAME_LEN] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x02, 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0x01, 0x88, 0x09,
    0x02, 0x01, 0x01, 0x10, 0x01, 0x02, 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
    0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x00,
};

/* Our answer to peer_info: same PDU, TLV type 2, SA = our port MAC. */
static const uint8_t our_answer[ZVS_SLOW_FRAME_LEN] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x11, 0x88, 0x09,
    0x02, 0x01, 0x02, 0x10, 0x01, 0x02, 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
    0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x00,
};

/* Our first Marker Information: port 5, system 02:00:00:00:00:01, xid 1. */
static const uint8_t our_info_xid1[ZVS_SLOW_FRAME_LEN] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x11, 0x88, 0x09,
    0x02, 0x01, 0x01, 0x10, 0x00, 0x05, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
};

/* The peer's response to it (echo, type 2, from the peer's port MAC). */
static const uint8_t peer_response_xid1[ZVS_SLOW_FRAME_LEN] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x02, 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0x01, 0x88, 0x09,
    0x02, 0x01, 0x02, 0x10, 0x00, 0x05, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
};

#define MAX_CAP 16

struct harness {
    struct zvs_lacp_marker m;
    uint8_t frames[MAX_CAP][ZVS_SLOW_FRAME_LEN];  /* sent, built by the codec */
    unsigned nframes;
    uint32_t done_xid[MAX_CAP];
    enum zvs_marker_result done_result[MAX_CAP];
    unsigned ndone;
    bool resend_in_done;                /* done() sends a new marker (slot reuse) */
};

static void cap_send(void *arg, const struct zvs_marker *pdu)
{
    struct harness *h = arg;

    assert_true(h->nframes < MAX_CAP);
    assert_int_equal(zvs_marker_build(pdu, port_mac, h->frames[h->nframes],
                                      ZVS_SLOW_FRAME_LEN), ZVS_SLOW_FRAME_LEN);
    h->nframes++;
}

static void cap_done(void *arg, uint32_t xid, enum zvs_marker_result result)
{
    struct harness *h = arg;

    assert_true(h->ndone < MAX_CAP);
    h->done_xid[h->ndone] = xid;
    h->done_result[h->ndone] = result;
    h->ndone++;
    if (h->resend_in_done) {
        h->resend_in_done = false;
        assert_int_equal(zvs_lacp_marker_send(&h->m, T0 + 10 * SEC, SEC, NULL), 0);
    }
}

static const struct zvs_lacp_marker_cb cbs = { .send = cap_send, .done = cap_done };

static void setup(struct harness *h)
{
    memset(h, 0, sizeof(*h));
    assert_int_equal(zvs_lacp_marker_init(&h->m, OUR_PORT, our_system, &cbs, h), 0);
}

/* Parses a frame with the real codec and hands it to the engine. */
static void deliver(struct harness *h, const uint8_t *frame, uint64_t now)
{
    struct zvs_marker pdu;

    assert_int_equal(zvs_slow_parse(frame, ZVS_SLOW_FRAME_LEN, NULL, &pdu), ZVS_SLOW_MARKER);
    zvs_lacp_marker_rx(&h->m, &pdu, now);
}

/* peer_response_xid1 with another requester port, system byte or transaction id. */
static void response_variant(uint8_t out[ZVS_SLOW_FRAME_LEN], unsigned off, uint8_t val)
{
    memcpy(out, peer_response_xid1, ZVS_SLOW_FRAME_LEN);
    out[off] = val;
}

static void assert_stats(const struct zvs_lacp_marker *m, uint64_t tx, uint64_t rx,
                         uint64_t resp_tx, uint64_t resp_rx, uint64_t timeouts,
                         uint64_t unmatched)
{
    const struct zvs_lacp_marker_stats *s = zvs_lacp_marker_stats(m);

    assert_int_equal(s->marker_pdus_tx, tx);
    assert_int_equal(s->marker_pdus_rx, rx);
    assert_int_equal(s->marker_response_pdus_tx, resp_tx);
    assert_int_equal(s->marker_response_pdus_rx, resp_rx);
    assert_int_equal(s->marker_timeouts, timeouts);
    assert_int_equal(s->marker_response_unmatched, unmatched);
}

/* ---- tests ------------------------------------------------------------------------- */

static void test_init_refuses(void **state)
{
    struct zvs_lacp_marker m;
    struct zvs_lacp_marker_cb nosend = { .send = NULL, .done = cap_done };

    (void)state;
    assert_int_equal(zvs_lacp_marker_init(NULL, 1, our_system, &cbs, NULL), -EINVAL);
    assert_int_equal(zvs_lacp_marker_init(&m, 0, our_system, &cbs, NULL), -EINVAL);
    assert_int_equal(zvs_lacp_marker_init(&m, 1, NULL, &cbs, NULL), -EINVAL);
    assert_int_equal(zvs_lacp_marker_init(&m, 1, our_system, NULL, NULL), -EINVAL);
    assert_int_equal(zvs_lacp_marker_init(&m, 1, our_system, &nosend, NULL), -EINVAL);
    assert_int_equal(zvs_lacp_marker_init(&m, 1, our_system, &cbs, NULL), 0);
    assert_int_equal(zvs_lacp_marker_outstanding(&m), 0);
    assert_true(zvs_lacp_marker_next_wakeup(&m) == ZVS_LACP_MARKER_NEVER);
}

static void test_answer_echo_bytes(void **state)
{
    struct harness h;

    (void)state;
    setup(&h);
    deliver(&h, peer_info, T0);
    assert_int_equal(h.nframes, 1);
    assert_memory_equal(h.frames[0], our_answer, ZVS_SLOW_FRAME_LEN);
    assert_int_equal(h.ndone, 0);
    assert_int_equal(zvs_lacp_marker_outstanding(&h.m), 0);
    assert_stats(&h.m, 0, 1, 1, 0, 0, 0);
}

static void test_send_bytes_and_xid_increments(void **state)
{
    struct harness h;
    uint32_t xid = 0;

    (void)state;
    setup(&h);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, &xid), 0);
    assert_int_equal(xid, 1);
    assert_int_equal(h.nframes, 1);
    assert_memory_equal(h.frames[0], our_info_xid1, ZVS_SLOW_FRAME_LEN);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, &xid), 0);
    assert_int_equal(xid, 2);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, NULL), 0);
    assert_int_equal(h.nframes, 3);
    /* Only the transaction id (frame offset 26..29) differs. */
    assert_memory_equal(h.frames[2], our_info_xid1, 26);
    assert_int_equal(h.frames[2][29], 3);
    assert_memory_equal(h.frames[2] + 30, our_info_xid1 + 30, ZVS_SLOW_FRAME_LEN - 30);
    assert_int_equal(zvs_lacp_marker_outstanding(&h.m), 3);
    assert_stats(&h.m, 3, 0, 0, 0, 0, 0);
}

static void test_answered_after_1ms(void **state)
{
    struct harness h;
    uint32_t xid = 0;

    (void)state;
    setup(&h);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, &xid), 0);
    assert_true(zvs_lacp_marker_next_wakeup(&h.m) == T0 + 3 * SEC);
    deliver(&h, peer_response_xid1, T0 + MS);
    assert_int_equal(h.ndone, 1);
    assert_int_equal(h.done_xid[0], 1);
    assert_int_equal(h.done_result[0], ZVS_MARKER_ANSWERED);
    assert_int_equal(zvs_lacp_marker_outstanding(&h.m), 0);
    assert_true(zvs_lacp_marker_next_wakeup(&h.m) == ZVS_LACP_MARKER_NEVER);
    /* No response is sent to a response, and the deadline no longer fires. */
    assert_int_equal(h.nframes, 1);
    zvs_lacp_marker_run(&h.m, T0 + 3 * SEC);
    assert_int_equal(h.ndone, 1);
    assert_stats(&h.m, 1, 0, 0, 1, 0, 0);
    /* The next marker takes the next id even though 1 is free again. */
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0 + 4 * SEC, 3 * SEC, &xid), 0);
    assert_int_equal(xid, 2);
}

static void test_timed_out_exactly_at_deadline(void **state)
{
    struct harness h;

    (void)state;
    setup(&h);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, NULL), 0);
    zvs_lacp_marker_run(&h.m, T0 + 3 * SEC - 1);
    assert_int_equal(h.ndone, 0);
    assert_int_equal(zvs_lacp_marker_outstanding(&h.m), 1);
    assert_int_equal(zvs_lacp_marker_stats(&h.m)->marker_timeouts, 0);
    zvs_lacp_marker_run(&h.m, T0 + 3 * SEC);
    assert_int_equal(h.ndone, 1);
    assert_int_equal(h.done_xid[0], 1);
    assert_int_equal(h.done_result[0], ZVS_MARKER_TIMED_OUT);
    assert_int_equal(zvs_lacp_marker_outstanding(&h.m), 0);
    assert_true(zvs_lacp_marker_next_wakeup(&h.m) == ZVS_LACP_MARKER_NEVER);
    zvs_lacp_marker_run(&h.m, T0 + 10 * SEC);
    assert_int_equal(h.ndone, 1);
    assert_stats(&h.m, 1, 0, 0, 0, 1, 0);
}

static void test_unmatched_responses(void **state)
{
    struct harness h;
    uint8_t f[ZVS_SLOW_FRAME_LEN];

    (void)state;
    setup(&h);
    deliver(&h, peer_response_xid1, T0);                /* nothing outstanding */
    assert_stats(&h.m, 0, 0, 0, 1, 0, 1);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, NULL), 0);   /* xid 1 */
    response_variant(f, 19, 0x06);                      /* requester port 6, not 5 */
    deliver(&h, f, T0 + MS);
    response_variant(f, 25, 0x02);                      /* system ..:02, not ..:01 */
    deliver(&h, f, T0 + MS);
    response_variant(f, 29, 0x02);                      /* xid 2, never sent */
    deliver(&h, f, T0 + MS);
    assert_int_equal(h.ndone, 0);
    assert_int_equal(zvs_lacp_marker_outstanding(&h.m), 1);
    assert_int_equal(h.nframes, 1);                     /* responses are never answered */
    assert_stats(&h.m, 1, 0, 0, 4, 0, 4);
    deliver(&h, peer_response_xid1, T0 + 2 * MS);       /* the right one still matches */
    assert_int_equal(h.ndone, 1);
    assert_int_equal(h.done_result[0], ZVS_MARKER_ANSWERED);
    assert_stats(&h.m, 1, 0, 0, 5, 0, 4);
    deliver(&h, peer_response_xid1, T0 + 3 * MS);       /* duplicate: already answered */
    assert_int_equal(h.ndone, 1);
    assert_stats(&h.m, 1, 0, 0, 6, 0, 5);
}

static void test_ninth_outstanding_refused(void **state)
{
    struct harness h;
    uint32_t xid = 0;
    uint8_t f[ZVS_SLOW_FRAME_LEN];

    (void)state;
    setup(&h);
    for (uint32_t i = 1; i <= ZVS_LACP_MARKER_MAX_OUTSTANDING; i++) {
        assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, &xid), 0);
        assert_int_equal(xid, i);
    }
    xid = 0;
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, &xid), -EBUSY);
    assert_int_equal(xid, 0);
    assert_int_equal(h.nframes, 8);
    assert_int_equal(zvs_lacp_marker_outstanding(&h.m), 8);
    assert_stats(&h.m, 8, 0, 0, 0, 0, 0);
    /* Answer xid 3: one slot frees, and the refused send consumed no id. */
    response_variant(f, 29, 0x03);
    deliver(&h, f, T0 + MS);
    assert_int_equal(h.done_xid[0], 3);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0 + MS, 3 * SEC, &xid), 0);
    assert_int_equal(xid, 9);
    assert_int_equal(h.frames[8][29], 9);
}

static void test_late_response_unmatched(void **state)
{
    struct harness h;

    (void)state;
    setup(&h);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, NULL), 0);
    zvs_lacp_marker_run(&h.m, T0 + 3 * SEC);
    assert_int_equal(h.ndone, 1);
    assert_int_equal(h.done_result[0], ZVS_MARKER_TIMED_OUT);
    deliver(&h, peer_response_xid1, T0 + 3 * SEC + 1);
    assert_int_equal(h.ndone, 1);
    assert_stats(&h.m, 1, 0, 0, 1, 1, 1);
}

/* Delivered at the deadline but before run() processed it: the response wins. */
static void test_response_at_deadline_before_run_wins(void **state)
{
    struct harness h;

    (void)state;
    setup(&h);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, NULL), 0);
    deliver(&h, peer_response_xid1, T0 + 3 * SEC);
    zvs_lacp_marker_run(&h.m, T0 + 3 * SEC);
    assert_int_equal(h.ndone, 1);
    assert_int_equal(h.done_result[0], ZVS_MARKER_ANSWERED);
    assert_stats(&h.m, 1, 0, 0, 1, 0, 0);
}

/* Earliest deadline first; equal deadlines in send order; wakeup follows. */
static void test_expiry_order(void **state)
{
    struct harness h;

    (void)state;
    setup(&h);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, NULL), 0);           /* 1: T0+3s */
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0 + SEC, 1 * SEC, NULL), 0);     /* 2: T0+2s */
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0 + SEC, 2 * SEC, NULL), 0);     /* 3: T0+3s */
    assert_true(zvs_lacp_marker_next_wakeup(&h.m) == T0 + 2 * SEC);
    zvs_lacp_marker_run(&h.m, T0 + 2 * SEC);
    assert_int_equal(h.ndone, 1);
    assert_int_equal(h.done_xid[0], 2);
    assert_true(zvs_lacp_marker_next_wakeup(&h.m) == T0 + 3 * SEC);
    zvs_lacp_marker_run(&h.m, T0 + 5 * SEC);
    assert_int_equal(h.ndone, 3);
    assert_int_equal(h.done_xid[1], 1);
    assert_int_equal(h.done_xid[2], 3);
    assert_stats(&h.m, 3, 0, 0, 0, 3, 0);
}

/* done() may send the next marker: it gets the freed slot and a fresh id. */
static void test_send_from_done(void **state)
{
    struct harness h;

    (void)state;
    setup(&h);
    for (unsigned i = 0; i < ZVS_LACP_MARKER_MAX_OUTSTANDING; i++)
        assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, NULL), 0);
    h.resend_in_done = true;
    deliver(&h, peer_response_xid1, T0 + MS);
    assert_int_equal(h.ndone, 1);
    assert_int_equal(zvs_lacp_marker_outstanding(&h.m), 8);
    assert_int_equal(h.nframes, 9);
    assert_int_equal(h.frames[8][29], 9);
    /* 8 expire at T0+3s; the one sent from done (at T0+10s) waits until T0+11s. */
    zvs_lacp_marker_run(&h.m, T0 + 3 * SEC);
    assert_int_equal(h.ndone, 8);
    assert_true(zvs_lacp_marker_next_wakeup(&h.m) == T0 + 11 * SEC);
}

/* White box: after a wrap the counter meets an outstanding id and skips it. */
static void test_xid_skips_outstanding(void **state)
{
    struct harness h;
    uint32_t xid = 0;

    (void)state;
    setup(&h);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, &xid), 0);           /* 1 */
    h.m.next_xid = UINT32_MAX;
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, &xid), 0);
    assert_true(xid == UINT32_MAX);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, &xid), 0);
    assert_int_equal(xid, 0);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 3 * SEC, &xid), 0);
    assert_int_equal(xid, 2);                           /* 1 is still outstanding */
}

static void test_send_refuses_zero_timeout(void **state)
{
    struct harness h;

    (void)state;
    setup(&h);
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, 0, NULL), -EINVAL);
    assert_int_equal(h.nframes, 0);
    /* Saturating deadline: a huge timeout never wraps into the past. */
    assert_int_equal(zvs_lacp_marker_send(&h.m, T0, UINT64_MAX, NULL), 0);
    zvs_lacp_marker_run(&h.m, UINT64_MAX - 1);
    assert_int_equal(h.ndone, 0);
    assert_stats(&h.m, 1, 0, 0, 0, 0, 0);
}

/* ---- rate limit ---------------------------------------------------------------------- */

static unsigned flood_sent;

static void count_send(void *arg, const struct zvs_marker *pdu)
{
    flood_sent++;
}

/* 10,000 Marker Information a second for 5 s (one every 100 us, virtual time): IEEE 802.3
 * Annex 43B allows a port 10 Slow Protocols frames in any one-second period and LACP keeps
 * 3 of them (802.1AX Transmit machine), so 7 are answered per second (at 0..600 us of each
 * second), 35 in all, and the other 49,965 are counted suppressed. Our own Marker still
 * goes out in the middle of the flood. */
static void test_responder_rate_limited(void **state)
{
    struct zvs_lacp_marker m;
    struct zvs_lacp_marker_cb cb = { .send = count_send };
    struct zvs_marker info;

    flood_sent = 0;
    assert_int_equal(zvs_lacp_marker_init(&m, OUR_PORT, our_system, &cb, NULL), 0);
    assert_int_equal(zvs_slow_parse(peer_info, sizeof(peer_info), NULL, &info),
                     ZVS_SLOW_MARKER);
    for (unsigned k = 0; k < 50000; k++) {
        zvs_lacp_marker_rx(&m, &info, T0 + k * 100000ull);
        if (k == 6 || k == 7 || k == 10000 + 6)
            assert_int_equal(m.stats.marker_response_pdus_tx, k == 10006 ? 14 : 7);
        if (k == 9999)
            assert_int_equal(flood_sent, 7);
    }
    assert_int_equal(m.stats.marker_pdus_rx, 50000);
    assert_int_equal(m.stats.marker_response_pdus_tx, 35);
    assert_int_equal(m.stats.marker_response_suppressed, 49965);
    assert_int_equal(flood_sent, 35);
    /* The flush of our own conversation is never starved by the flood. */
    assert_int_equal(zvs_lacp_marker_send(&m, T0 + 5 * SEC + 300000, SEC, NULL), 0);
    assert_int_equal(flood_sent, 36);
    assert_int_equal(m.stats.marker_pdus_tx, 1);
    /* A quiet second later the responder answers again. */
    zvs_lacp_marker_rx(&m, &info, T0 + 7 * SEC);
    assert_int_equal(m.stats.marker_response_pdus_tx, 36);
    assert_int_equal(m.stats.marker_response_suppressed, 49965);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_refuses),
        cmocka_unit_test(test_answer_echo_bytes),
        cmocka_unit_test(test_send_bytes_and_xid_increments),
        cmocka_unit_test(test_answered_after_1ms),
        cmocka_unit_test(test_timed_out_exactly_at_deadline),
        cmocka_unit_test(test_unmatched_responses),
        cmocka_unit_test(test_ninth_outstanding_refused),
        cmocka_unit_test(test_late_response_unmatched),
        cmocka_unit_test(test_response_at_deadline_before_run_wins),
        cmocka_unit_test(test_expiry_order),
        cmocka_unit_test(test_send_from_done),
        cmocka_unit_test(test_xid_skips_outstanding),
        cmocka_unit_test(test_send_refuses_zero_timeout),
        cmocka_unit_test(test_responder_rate_limited),
    };
    return cmocka_run_group_tests_name("lacp_marker", tests, NULL, NULL);
}
