/* libFuzzer target for the Slow Protocols codec (lacp/pdu.c).
 *
 * Input: one received Ethernet frame, as is (no prefix). It is parsed from an exactly sized
 * heap copy, so ASan sees any read past its end.
 *
 * Invariants:
 *   - the result is a zvs_slow_kind or a ZVS_LACP_ERR_* with a name, and lands in at most
 *     one MIB counter (illegal_rx, unknown_rx); LACP and Marker land in neither;
 *   - a refused frame writes neither output struct;
 *   - round trip: an accepted LACPDU or Marker is built again (124 bytes, or -EINVAL for an
 *     LACP version 0, which we accept but never send), the rebuilt frame parses to the same
 *     kind and identical fields, and building that again gives the same 124 bytes;
 *   - the Marker Response of an accepted Marker parses as a Response with the same fields;
 *   - zvs_lacp_state_str of both state octets fits its buffer.
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_lacp_pdu.c lacp/pdu.c -o build/fuzz/fuzz_lacp_pdu
 *   build/fuzz/fuzz_lacp_pdu -max_total_time=60 work/ tests/fuzz/corpus/lacp_pdu
 * Without libFuzzer (replay a corpus with any compiler): add -DZVS_FUZZ_MAIN and pass the
 * files (or directories of files) as arguments.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lacp/pdu.h"
#include "fuzz_common.h"

/* TRACE (-DFUZZ_TRACE) prints each input's result. */

static bool info_equal(const struct zvs_lacp_info *a, const struct zvs_lacp_info *b)
{
    return a->system_priority == b->system_priority &&
           memcmp(a->system, b->system, sizeof(a->system)) == 0 && a->key == b->key &&
           a->port_priority == b->port_priority && a->port == b->port && a->state == b->state;
}

static bool lacpdu_equal(const struct zvs_lacpdu *a, const struct zvs_lacpdu *b)
{
    return a->version == b->version && info_equal(&a->actor, &b->actor) &&
           info_equal(&a->partner, &b->partner) &&
           a->collector_max_delay == b->collector_max_delay;
}

static bool marker_equal(const struct zvs_marker *a, const struct zvs_marker *b)
{
    return a->version == b->version && a->response == b->response &&
           a->requester_port == b->requester_port &&
           memcmp(a->requester_system, b->requester_system, sizeof(a->requester_system)) == 0 &&
           a->transaction_id == b->transaction_id;
}

static void check_state_str(uint8_t st)
{
    char buf[ZVS_LACP_STATE_STR_LEN];

    zvs_lacp_state_str(st, buf);
    CHECK(strlen(buf) < sizeof(buf));
    CHECK(buf[0] != '\0');
}

static void round_trip_lacp(const struct zvs_lacpdu *p, const uint8_t src[6])
{
    uint8_t out[ZVS_SLOW_FRAME_LEN];
    uint8_t again[ZVS_SLOW_FRAME_LEN];
    struct zvs_lacpdu q;
    int n = zvs_lacpdu_build(p, src, out, sizeof(out));

    check_state_str(p->actor.state);
    check_state_str(p->partner.state);
    if (p->version == 0) {
        CHECK(n == -EINVAL);
        return;
    }
    CHECK(n == ZVS_SLOW_FRAME_LEN);
    CHECK(zvs_slow_parse(out, (uint32_t)n, &q, NULL) == ZVS_SLOW_LACP);
    CHECK(lacpdu_equal(p, &q));
    CHECK(zvs_lacpdu_build(&q, src, again, sizeof(again)) == ZVS_SLOW_FRAME_LEN);
    CHECK(memcmp(out, again, sizeof(out)) == 0);
    CHECK(memcmp(out + 6, src, 6) == 0);
}

static void round_trip_marker(const struct zvs_marker *m, const uint8_t src[6])
{
    uint8_t out[ZVS_SLOW_FRAME_LEN];
    uint8_t again[ZVS_SLOW_FRAME_LEN];
    struct zvs_marker q;
    struct zvs_marker r;

    CHECK(m->version == ZVS_MARKER_VERSION);
    CHECK(zvs_marker_build(m, src, out, sizeof(out)) == ZVS_SLOW_FRAME_LEN);
    CHECK(zvs_slow_parse(out, sizeof(out), NULL, &q) == ZVS_SLOW_MARKER);
    CHECK(marker_equal(m, &q));
    CHECK(zvs_marker_build(&q, src, again, sizeof(again)) == ZVS_SLOW_FRAME_LEN);
    CHECK(memcmp(out, again, sizeof(out)) == 0);

    CHECK(zvs_marker_response_build(m, src, out, sizeof(out)) == ZVS_SLOW_FRAME_LEN);
    CHECK(zvs_slow_parse(out, sizeof(out), NULL, &r) == ZVS_SLOW_MARKER);
    CHECK(r.response);
    r.response = m->response;
    CHECK(marker_equal(m, &r));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *frame = malloc(size ? size : 1);
    struct zvs_lacpdu p;
    struct zvs_marker m;
    struct zvs_lacpdu p0;
    struct zvs_marker m0;
    uint32_t len = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    int rc;

    CHECK(frame);
    if (size)
        memcpy(frame, data, size);
    memset(&p, 0xA5, sizeof(p));
    memset(&m, 0xA5, sizeof(m));
    p0 = p;
    m0 = m;
    rc = zvs_slow_parse(frame, len, &p, &m);
    TRACE("len %u -> %d %s\n", len, rc, zvs_lacp_err_name(rc));

    CHECK(rc >= -ZVS_LACP_ERR_COUNT && rc <= ZVS_SLOW_OTHER);
    CHECK(strcmp(zvs_lacp_err_name(rc), "invalid-code") != 0);
    CHECK(!(zvs_slow_rx_is_illegal(rc) && zvs_slow_rx_is_unknown(rc)));
    CHECK((rc < 0 && rc != ZVS_LACP_ERR_NOT_SLOW && rc != ZVS_LACP_ERR_ETHERTYPE) ==
          zvs_slow_rx_is_illegal(rc));
    if (rc != ZVS_SLOW_LACP)
        CHECK(memcmp(&p, &p0, sizeof(p)) == 0);
    if (rc != ZVS_SLOW_MARKER)
        CHECK(memcmp(&m, &m0, sizeof(m)) == 0);
    if (rc >= 0)
        CHECK(len >= 15 && frame[12] == 0x88 && frame[13] == 0x09);

    if (rc == ZVS_SLOW_LACP) {
        CHECK(len >= ZVS_SLOW_FRAME_LEN);
        CHECK(!zvs_slow_rx_is_illegal(rc) && !zvs_slow_rx_is_unknown(rc));
        round_trip_lacp(&p, frame + 6);
    } else if (rc == ZVS_SLOW_MARKER) {
        CHECK(len >= ZVS_SLOW_FRAME_LEN);
        CHECK(!zvs_slow_rx_is_illegal(rc) && !zvs_slow_rx_is_unknown(rc));
        round_trip_marker(&m, frame + 6);
    }
    free(frame);
    return 0;
}

#include "fuzz_replay.h"
