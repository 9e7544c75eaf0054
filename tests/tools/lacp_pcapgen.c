/* lacp_pcapgen: Slow Protocols captures for tshark checks, replay tests and fixtures.
 *
 *   lacp_pcapgen --emitted FILE                 every kind of PDU the project sends
 *   lacp_pcapgen --crafted DIR [--system MAC] [--sys-prio N]   the bad-input set
 *   lacp_pcapgen --flood FILE N                 N valid LACPDUs from one partner, 10,000/s
 *   lacp_pcapgen --parse FILE [--system MAC] [--sys-prio N]    our codec's verdict per frame
 *
 * Design note.
 * Owns: writing and reading pcap files (DLT_EN10MB, no FCS) of Slow Protocols frames; it
 * is a test tool, not part of the switch.
 * Rules: every frame it writes comes out of the project's own code paths. --emitted runs
 * two zvs_lacp_port engines back to back on virtual time (A active/fast, B passive/slow,
 * 1 ms wire delay) from link up through convergence and a little beyond, dumping each
 * LACPDU as the engine's Transmit hands it to cb.send, framed by zvs_lacpdu_build with the
 * sending port's MAC; then A originates a Marker through zvs_lacp_marker and B's
 * responder answers it (both dumped). The crafted set starts from zvs_lacpdu_build /
 * zvs_marker_build output and changes the few bytes a fixture is about; each crafted frame
 * is parsed back before it is written and the tool fails if our codec's verdict is not the
 * one documented in tests/pcap/README.md, so fixtures and README cannot drift apart.
 * Timestamps are virtual time from a fixed epoch and strictly increasing (a frame at the
 * same virtual instant as the previous one is written 1 us later).
 * Hazards: engine callbacks must not call back into an engine, so PDUs are queued and
 * delivered by the event loop, never from inside a callback. --parse trusts nothing in the
 * file: caplen bounds every read (zvs_slow_parse reads at most caplen bytes).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lacp/lacp_port.h"
#include "lacp/marker.h"
#include "lacp/pdu.h"

#define PCAP_SNAPLEN    65535
#define EPOCH_SEC       1700000000ull   /* fixed, so regenerated files are identical */
#define WIRE_DELAY_NS   1000000ull      /* 1 ms between the back-to-back engines */
#define EMIT_SETTLE_NS  (8ull * ZVS_LACP_NS_PER_SEC)  /* run on after convergence */
#define EMIT_LIMIT_NS   (60ull * ZVS_LACP_NS_PER_SEC) /* give up converging after this */
#define QUEUE_CAP       64
#define FLOOD_GAP_NS    100000ull       /* 10,000 PDUs per second */
#define FRAME_MAX       ZVS_SLOW_FRAME_MAX  /* the longest untagged frame (1518) */

/* ---- pcap writer --------------------------------------------------------------------- */

struct writer {
    pcap_t *dead;                       /* pcap_open_dead handle, for the dumper */
    pcap_dumper_t *dump;                /* open output file */
    uint64_t last_us;                   /* timestamp of the last frame, for monotony */
    unsigned frames;                    /* frames written */
};

static int writer_open(struct writer *w, const char *path)
{
    memset(w, 0, sizeof(*w));
    w->dead = pcap_open_dead(DLT_EN10MB, PCAP_SNAPLEN);
    if (!w->dead) {
        fprintf(stderr, "pcap_open_dead failed\n");
        return -ENOMEM;
    }
    w->dump = pcap_dump_open(w->dead, path);
    if (!w->dump) {
        fprintf(stderr, "%s\n", pcap_geterr(w->dead));
        pcap_close(w->dead);
        w->dead = NULL;
        return -EIO;
    }
    return 0;
}

/* Writes one frame at virtual time now_ns (strictly after the previous frame). */
static void writer_put(struct writer *w, uint64_t now_ns, const uint8_t *frame, uint32_t len)
{
    struct pcap_pkthdr h;
    uint64_t us = EPOCH_SEC * 1000000ull + now_ns / 1000;

    if (w->frames && us <= w->last_us)
        us = w->last_us + 1;
    w->last_us = us;
    memset(&h, 0, sizeof(h));
    h.ts.tv_sec = (time_t)(us / 1000000);
    h.ts.tv_usec = (suseconds_t)(us % 1000000);
    h.caplen = len;
    h.len = len;
    pcap_dump((u_char *)w->dump, &h, frame);
    w->frames++;
}

static int writer_close(struct writer *w)
{
    int rc = 0;

    if (w->dump) {
        if (pcap_dump_flush(w->dump) != 0)
            rc = -EIO;
        pcap_dump_close(w->dump);
    }
    if (w->dead)
        pcap_close(w->dead);
    memset(w, 0, sizeof(*w));
    return rc;
}

/* ---- MAC parsing and printing ------------------------------------------------------- */

static int parse_mac(const char *s, uint8_t mac[6])
{
    unsigned v[6];
    char tail;

    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
               &tail) != 6)
        return -EINVAL;
    for (int i = 0; i < 6; i++)
        mac[i] = (uint8_t)v[i];
    return 0;
}

static const char *mac_str(const uint8_t mac[6], char buf[18])
{
    snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
             mac[4], mac[5]);
    return buf;
}

/* ---- --emitted: two engines back to back ---------------------------------------------- */

enum pdu_kind { PDU_LACP, PDU_MARKER };

/* One PDU on the virtual wire. */
struct wire_pdu {
    uint64_t at;                        /* delivery time */
    unsigned dst;                       /* receiving side, 0 (A) or 1 (B) */
    enum pdu_kind kind;                 /* which union member */
    struct zvs_lacpdu lacp;             /* PDU_LACP */
    struct zvs_marker marker;           /* PDU_MARKER */
};

struct side;

/* The virtual world: two sides, the wire between them, the output file. */
struct world {
    uint64_t now;                       /* virtual time, ns */
    struct writer *out;                 /* where every sent frame goes */
    struct wire_pdu q[QUEUE_CAP];       /* in flight, unordered (small) */
    unsigned qlen;                      /* entries used in q */
    int error;                          /* first failure (queue full, build error) */
    struct side *sides[2];              /* A and B */
};

/* One system with one aggregation port. */
struct side {
    unsigned idx;                       /* 0 A, 1 B */
    uint8_t port_mac[6];                /* source MAC of its frames */
    struct world *w;                    /* back pointer */
    struct zvs_lacp_port port;          /* LACP engine */
    struct zvs_lacp_marker marker;      /* Marker protocol */
    unsigned lacpdus_sent;              /* LACPDUs dumped */
    unsigned markers_sent;              /* Marker PDUs (either TLV) dumped */
    unsigned answered;                  /* markers answered (done callback) */
};

static void world_queue(struct world *w, unsigned dst, const struct wire_pdu *p)
{
    if (w->qlen == QUEUE_CAP) {
        w->error = -ENOSPC;
        return;
    }
    w->q[w->qlen] = *p;
    w->q[w->qlen].at = w->now + WIRE_DELAY_NS;
    w->q[w->qlen].dst = dst;
    w->qlen++;
}

static void side_send_lacp(void *arg, const struct zvs_lacpdu *pdu)
{
    struct side *s = arg;
    uint8_t frame[ZVS_SLOW_FRAME_LEN];
    struct wire_pdu p;
    int n = zvs_lacpdu_build(pdu, s->port_mac, frame, sizeof(frame));

    if (n < 0) {
        s->w->error = n;
        return;
    }
    writer_put(s->w->out, s->w->now, frame, (uint32_t)n);
    s->lacpdus_sent++;
    memset(&p, 0, sizeof(p));
    p.kind = PDU_LACP;
    p.lacp = *pdu;
    world_queue(s->w, 1 - s->idx, &p);
}

static void side_send_marker(void *arg, const struct zvs_marker *m)
{
    struct side *s = arg;
    uint8_t frame[ZVS_SLOW_FRAME_LEN];
    struct wire_pdu p;
    int n = zvs_marker_build(m, s->port_mac, frame, sizeof(frame));

    if (n < 0) {
        s->w->error = n;
        return;
    }
    writer_put(s->w->out, s->w->now, frame, (uint32_t)n);
    s->markers_sent++;
    memset(&p, 0, sizeof(p));
    p.kind = PDU_MARKER;
    p.marker = *m;
    world_queue(s->w, 1 - s->idx, &p);
}

static void side_marker_done(void *arg, uint32_t xid, enum zvs_marker_result result)
{
    struct side *s = arg;

    if (result == ZVS_MARKER_ANSWERED)
        s->answered++;
}

static int side_init(struct side *s, struct world *w, unsigned idx, bool active, bool fast,
                     const uint8_t system[6], const uint8_t port_mac[6], uint16_t key)
{
    static const struct zvs_lacp_port_cb lacp_cb = { .send = side_send_lacp };
    static const struct zvs_lacp_marker_cb marker_cb = {
        .send = side_send_marker,
        .done = side_marker_done,
    };
    struct zvs_lacp_port_cfg cfg;
    int rc;

    memset(s, 0, sizeof(*s));
    s->idx = idx;
    s->w = w;
    memcpy(s->port_mac, port_mac, 6);
    memset(&cfg, 0, sizeof(cfg));
    cfg.active = active;
    cfg.fast = fast;
    cfg.system_priority = 32768;
    memcpy(cfg.system, system, 6);
    cfg.key = key;
    cfg.port_priority = 255;
    cfg.port = 1;
    cfg.speed_mbps = 1000;
    cfg.full_duplex = true;
    cfg.enabled = true;
    rc = zvs_lacp_marker_init(&s->marker, cfg.port, system, &marker_cb, s);
    if (rc < 0)
        return rc;
    return zvs_lacp_port_init(&s->port, &cfg, &lacp_cb, s, w->now);
}

static uint64_t world_next(const struct world *w)
{
    uint64_t t = UINT64_MAX;

    for (unsigned i = 0; i < 2; i++) {
        uint64_t a = zvs_lacp_port_next_wakeup(&w->sides[i]->port);
        uint64_t b = zvs_lacp_marker_next_wakeup(&w->sides[i]->marker);

        if (a < t)
            t = a;
        if (b < t)
            t = b;
    }
    for (unsigned i = 0; i < w->qlen; i++)
        if (w->q[i].at < t)
            t = w->q[i].at;
    return t;
}

/* Delivers every queued PDU due at w->now (in queue order), then runs the engines. */
static void world_step(struct world *w)
{
    unsigned i = 0;

    while (i < w->qlen) {
        struct wire_pdu p = w->q[i];
        struct side *s;

        if (p.at > w->now) {
            i++;
            continue;
        }
        w->q[i] = w->q[--w->qlen];      /* remove before delivering: delivery may queue */
        s = w->sides[p.dst];
        if (p.kind == PDU_LACP)
            zvs_lacp_port_rx(&s->port, &p.lacp, w->now);
        else
            zvs_lacp_marker_rx(&s->marker, &p.marker, w->now);
        i = 0;                          /* order changed: rescan */
    }
    for (unsigned k = 0; k < 2; k++) {
        zvs_lacp_port_run(&w->sides[k]->port, w->now);
        zvs_lacp_marker_run(&w->sides[k]->marker, w->now);
    }
}

/* Advances virtual time event by event until `until` (inclusive). */
static void world_run_until(struct world *w, uint64_t until)
{
    while (!w->error) {
        uint64_t t = world_next(w);

        if (t > until)
            break;
        if (t > w->now)
            w->now = t;
        world_step(w);
    }
    if (w->now < until)
        w->now = until;
}

/* Collecting and distributing, read from the actor state octet so that it holds for
 * coupled and independent control alike. */
static bool side_distributing(const struct side *s)
{
    const uint8_t both = ZVS_LACP_STATE_COLLECTING | ZVS_LACP_STATE_DISTRIBUTING;

    return (zvs_lacp_port_actor(&s->port)->state & both) == both;
}

static int emit_run(struct world *w, struct side *a, struct side *b)
{
    uint64_t converged_at = 0;
    uint32_t xid = 0;
    int rc;

    /* Link up to both ports distributing, in 10 ms steps so the moment is known. */
    while (!(side_distributing(a) && side_distributing(b))) {
        if (w->now >= EMIT_LIMIT_NS || w->error) {
            fprintf(stderr, "emitted: no convergence by %" PRIu64 " ns (error %d)\n", w->now,
                    w->error);
            return -ETIMEDOUT;
        }
        world_run_until(w, w->now + 10000000ull);
    }
    converged_at = w->now;
    world_run_until(w, w->now + EMIT_SETTLE_NS);
    /* A flushes with a Marker; B's responder answers it. */
    rc = zvs_lacp_marker_send(&a->marker, w->now, ZVS_LACP_MARKER_TIMEOUT_NS, &xid);
    if (rc < 0)
        return rc;
    world_run_until(w, w->now + ZVS_LACP_NS_PER_SEC);
    if (w->error)
        return w->error;
    if (a->answered != 1 || b->markers_sent != 1) {
        fprintf(stderr, "emitted: marker xid %u not answered\n", xid);
        return -EPROTO;
    }
    fprintf(stderr, "emitted: converged at %" PRIu64 " ms; A sent %u LACPDUs, B %u; "
            "marker xid %u answered\n", converged_at / 1000000, a->lacpdus_sent,
            b->lacpdus_sent, xid);
    return 0;
}

static int do_emitted(const char *path)
{
    static const uint8_t sys_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x01 };
    static const uint8_t mac_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x11 };
    static const uint8_t sys_b[6] = { 0x02, 0x00, 0x00, 0x00, 0x0b, 0x01 };
    static const uint8_t mac_b[6] = { 0x02, 0x00, 0x00, 0x00, 0x0b, 0x11 };
    struct writer out;
    struct world w;
    struct side a, b;
    int rc;

    rc = writer_open(&out, path);
    if (rc < 0)
        return rc;
    memset(&w, 0, sizeof(w));
    w.out = &out;
    w.sides[0] = &a;
    w.sides[1] = &b;
    rc = side_init(&a, &w, 0, true, true, sys_a, mac_a, 10);
    if (rc == 0)
        rc = side_init(&b, &w, 1, false, false, sys_b, mac_b, 20);
    if (rc == 0)
        rc = emit_run(&w, &a, &b);
    if (rc < 0)
        fprintf(stderr, "emitted: failed: %s\n", strerror(-rc));
    {
        int crc = writer_close(&out);

        if (rc == 0)
            rc = crc;
    }
    return rc;
}

/* ---- crafted frames ------------------------------------------------------------------ */

/* Verdicts of our parser (tests/pcap/README.md uses the same words). */
enum verdict { V_VALID, V_ILLEGAL, V_UNKNOWN, V_LOOPBACK, V_NOT_SLOW };

static const char *verdict_name(enum verdict v)
{
    switch (v) {
    case V_VALID: return "valid";
    case V_ILLEGAL: return "illegal";
    case V_UNKNOWN: return "unknown";
    case V_LOOPBACK: return "loopback";
    case V_NOT_SLOW: return "not-slow";
    }
    return "?";
}

/* The identity a loopback test compares with (--system / --sys-prio). */
struct identity {
    bool set;                           /* --system given */
    uint16_t sys_prio;                  /* --sys-prio, default 32768 */
    uint8_t system[6];                  /* --system */
};

static enum verdict classify(int rc, const struct zvs_lacpdu *pdu, const struct identity *me)
{
    if (rc == ZVS_SLOW_LACP && me->set && zvs_lacp_is_loopback(pdu, me->sys_prio, me->system))
        return V_LOOPBACK;
    if (rc >= 0 && rc != ZVS_SLOW_OTHER)
        return V_VALID;
    if (zvs_slow_rx_is_unknown(rc))
        return V_UNKNOWN;
    if (zvs_slow_rx_is_illegal(rc))
        return V_ILLEGAL;
    return V_NOT_SLOW;
}

/* The partner every crafted LACPDU comes from. */
static const uint8_t crafted_sys[6] = { 0x02, 0x00, 0x00, 0x00, 0x0c, 0x01 };
static const uint8_t crafted_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x0c, 0x11 };

/* A valid, converged LACPDU from the crafted partner (system 02:00:00:00:0c:01, key 33,
 * port 3) to system A of --emitted. */
static void crafted_lacpdu(struct zvs_lacpdu *pdu, uint16_t port)
{
    static const uint8_t partner[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x01 };

    memset(pdu, 0, sizeof(*pdu));
    pdu->version = ZVS_LACP_VERSION;
    pdu->actor.system_priority = 32768;
    memcpy(pdu->actor.system, crafted_sys, 6);
    pdu->actor.key = 33;
    pdu->actor.port_priority = 128;
    pdu->actor.port = port;
    pdu->actor.state = 0x3f;
    pdu->partner.system_priority = 32768;
    memcpy(pdu->partner.system, partner, 6);
    pdu->partner.key = 10;
    pdu->partner.port_priority = 255;
    pdu->partner.port = 1;
    pdu->partner.state = 0x3f;
}

static uint32_t build_lacp(uint8_t *f, const struct zvs_lacpdu *pdu)
{
    int n = zvs_lacpdu_build(pdu, crafted_mac, f, FRAME_MAX);

    return n < 0 ? 0 : (uint32_t)n;
}

/* Payload offsets (LACPDU: IEEE 802.1AX-2008 5.4.2 / 2014 6.4.2; Marker PDU: 5.5.3 /
 * 6.5.3), as frame offsets. */
#define F_PAYLOAD        14
#define F_ACTOR_LEN      (F_PAYLOAD + 3)
#define F_PARTNER_LEN    (F_PAYLOAD + 23)
#define F_COLLECTOR_LEN  (F_PAYLOAD + 43)
#define F_TERMINATOR     (F_PAYLOAD + 58)
#define F_MARKER_TLV     (F_PAYLOAD + 2)

/* One crafted fixture: fills f, returns its length (0: build failure). */
struct crafted {
    const char *file;                   /* name under DIR */
    enum verdict want;                  /* our parser's verdict */
    uint32_t (*make)(uint8_t *f, const struct identity *me);
};

static uint32_t mk_truncated(uint8_t *f, const struct identity *me)
{
    struct zvs_lacpdu pdu;

    crafted_lacpdu(&pdu, 3);
    return build_lacp(f, &pdu) ? 64 : 0;    /* 14 + 50 payload bytes of 110 */
}

static uint32_t mk_oversize(uint8_t *f, const struct identity *me)
{
    struct zvs_lacpdu pdu;

    crafted_lacpdu(&pdu, 3);
    if (!build_lacp(f, &pdu))
        return 0;
    memset(f + ZVS_SLOW_FRAME_LEN, 0xee, 32);  /* 32 trailing non-zero bytes */
    return ZVS_SLOW_FRAME_LEN + 32;
}

static uint32_t mk_tlv_len(uint8_t *f, unsigned off, uint8_t len)
{
    struct zvs_lacpdu pdu;

    crafted_lacpdu(&pdu, 3);
    if (!build_lacp(f, &pdu))
        return 0;
    f[off] = len;
    return ZVS_SLOW_FRAME_LEN;
}

static uint32_t mk_actor19(uint8_t *f, const struct identity *me)
{
    return mk_tlv_len(f, F_ACTOR_LEN, 19);
}

static uint32_t mk_partner21(uint8_t *f, const struct identity *me)
{
    return mk_tlv_len(f, F_PARTNER_LEN, 21);
}

static uint32_t mk_collector15(uint8_t *f, const struct identity *me)
{
    return mk_tlv_len(f, F_COLLECTOR_LEN, 15);
}

static uint32_t mk_terminator1(uint8_t *f, const struct identity *me)
{
    return mk_tlv_len(f, F_TERMINATOR + 1, 1);
}

/* ITU-T G.8264 ESMC (OSSP, subtype 10): OUI 00-19-A7, ITU subtype 1, version 1 event 0,
 * QL TLV (type 1, length 4, SSM 0x0b), padded to the 60-byte Ethernet minimum. */
static uint32_t mk_ossp(uint8_t *f, const struct identity *me)
{
    static const uint8_t pdu[] = {
        0x0a, 0x00, 0x19, 0xa7, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x04, 0x0b,
    };

    memset(f, 0, 60);
    memcpy(f, zvs_slow_protocols_mac, 6);
    memcpy(f + 6, crafted_mac, 6);
    f[12] = 0x88;
    f[13] = 0x09;
    memcpy(f + F_PAYLOAD, pdu, sizeof(pdu));
    return 60;
}

static uint32_t mk_marker(uint8_t *f, bool response, uint8_t tlv_type)
{
    struct zvs_marker m;
    int n;

    memset(&m, 0, sizeof(m));
    m.version = ZVS_MARKER_VERSION;
    m.response = response;
    m.requester_port = 3;
    memcpy(m.requester_system, crafted_sys, 6);
    m.transaction_id = 7;
    n = zvs_marker_build(&m, crafted_mac, f, FRAME_MAX);
    if (n < 0)
        return 0;
    if (tlv_type)
        f[F_MARKER_TLV] = tlv_type;
    return (uint32_t)n;
}

static uint32_t mk_marker_tlv3(uint8_t *f, const struct identity *me)
{
    return mk_marker(f, false, 3);
}

static uint32_t mk_marker_info(uint8_t *f, const struct identity *me)
{
    return mk_marker(f, false, 0);
}

/* Version 2 (802.1AX-2014): a Port Algorithm TLV (type 4, length 6, algorithm 0
 * "unspecified") between Collector and Terminator; the Terminator moves to payload 64. */
static uint32_t mk_version2(uint8_t *f, const struct identity *me)
{
    static const uint8_t port_algorithm[6] = { 0x04, 0x06, 0x00, 0x00, 0x00, 0x00 };
    struct zvs_lacpdu pdu;

    crafted_lacpdu(&pdu, 3);
    pdu.version = 2;
    if (!build_lacp(f, &pdu))
        return 0;
    memcpy(f + F_TERMINATOR, port_algorithm, sizeof(port_algorithm));
    f[F_TERMINATOR + 6] = 0;            /* Terminator type, length: already zero */
    f[F_TERMINATOR + 7] = 0;
    return ZVS_SLOW_FRAME_LEN;
}

/* Version 2 with the TLVs `tlvs` (type, length; length - 2 bytes of 0x5A follow) from
 * payload 58 on, then the Terminator, zero-padded to `len` bytes. 0 if they do not fit. */
static uint32_t mk_v2_tlvs(uint8_t *f, const uint8_t (*tlvs)[2], size_t n, uint32_t len)
{
    struct zvs_lacpdu pdu;
    uint32_t off = F_TERMINATOR;

    crafted_lacpdu(&pdu, 3);
    pdu.version = 2;
    if (len > FRAME_MAX || !build_lacp(f, &pdu))
        return 0;
    memset(f + F_TERMINATOR, 0, len - F_TERMINATOR);
    for (size_t i = 0; i < n; i++) {
        if (tlvs[i][1] < 2 || off + tlvs[i][1] + 2 > len)
            return 0;
        f[off] = tlvs[i][0];
        f[off + 1] = tlvs[i][1];
        memset(f + off + 2, 0x5A, tlvs[i][1] - 2u);
        off += tlvs[i][1];
    }
    return len;                         /* Terminator (0, 0) at off: already zero */
}

/* The v2 TLVs of 802.1AX-2014 6.4.2.3 a partner with Conversation-sensitive collection
 * sends: Port Algorithm (4, 6), Port Conversation ID Digest (5, 20), Port Conversation
 * Mask-1 (6, 131), Masks 2-4 (7-9, 130); Terminator at payload 605; 642 bytes. */
static const uint8_t v2_set[][2] = {
    { 4, 6 }, { 5, 20 }, { 6, 131 }, { 7, 130 }, { 8, 130 }, { 9, 130 },
};

static uint32_t mk_v2_long(uint8_t *f, const struct identity *me)
{
    return mk_v2_tlvs(f, v2_set, sizeof(v2_set) / sizeof(v2_set[0]), 642);
}

/* The same set and Port Conversation Service Mapping TLVs (type 10: 255, 255, 255, 128
 * bytes) up to a Terminator that ends the longest untagged frame: 1514 bytes without FCS
 * (802.3 4.4.2 maxUntaggedFrameSize 1518 with it). */
static uint32_t mk_v2_max(uint8_t *f, const struct identity *me)
{
    static const uint8_t max_set[][2] = {
        { 4, 6 }, { 5, 20 }, { 6, 131 }, { 7, 130 }, { 8, 130 }, { 9, 130 },
        { 10, 255 }, { 10, 255 }, { 10, 255 }, { 10, 128 },
    };

    return mk_v2_tlvs(f, max_set, sizeof(max_set) / sizeof(max_set[0]), 1514);
}

/* Our own PDU back: actor System ID = --system/--sys-prio, as a reflecting peer sends it
 * (actor and partner both us, since it is our PDU unchanged). */
static uint32_t mk_loopback(uint8_t *f, const struct identity *me)
{
    struct zvs_lacpdu pdu;

    crafted_lacpdu(&pdu, 1);
    pdu.actor.system_priority = me->sys_prio;
    memcpy(pdu.actor.system, me->system, 6);
    pdu.actor.key = 10;
    pdu.actor.port_priority = 255;
    pdu.actor.state = 0x47;             /* ACT, SHORT, AGG, DEF: what we send unpaired */
    memset(&pdu.partner, 0, sizeof(pdu.partner));
    return build_lacp(f, &pdu);
}

static uint32_t mk_tagged(uint8_t *f, const struct identity *me)
{
    struct zvs_lacpdu pdu;
    uint8_t plain[FRAME_MAX];

    crafted_lacpdu(&pdu, 3);
    if (!build_lacp(plain, &pdu))
        return 0;
    memcpy(f, plain, 12);
    f[12] = 0x81;                       /* 802.1Q, VID 100 */
    f[13] = 0x00;
    f[14] = 0x00;
    f[15] = 100;
    memcpy(f + 16, plain + 12, ZVS_SLOW_FRAME_LEN - 12);
    return ZVS_SLOW_FRAME_LEN + 4;
}

static uint32_t mk_bad_da(uint8_t *f, const struct identity *me)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    struct zvs_lacpdu pdu;

    crafted_lacpdu(&pdu, 3);
    if (!build_lacp(f, &pdu))
        return 0;
    memcpy(f, bcast, 6);
    return ZVS_SLOW_FRAME_LEN;
}

static uint32_t mk_subtype0(uint8_t *f, const struct identity *me)
{
    struct zvs_lacpdu pdu;

    crafted_lacpdu(&pdu, 3);
    if (!build_lacp(f, &pdu))
        return 0;
    f[F_PAYLOAD] = 0;
    return ZVS_SLOW_FRAME_LEN;
}

static uint32_t mk_marker_version2(uint8_t *f, const struct identity *me)
{
    uint32_t n = mk_marker(f, false, 0);

    f[F_PAYLOAD + 1] = 2;
    return n;
}

static const struct crafted crafted_set[] = {
    { "lacp_truncated.pcap", V_ILLEGAL, mk_truncated },
    { "lacp_oversize.pcap", V_VALID, mk_oversize },
    { "lacp_actor_len19.pcap", V_ILLEGAL, mk_actor19 },
    { "lacp_partner_len21.pcap", V_ILLEGAL, mk_partner21 },
    { "lacp_collector_len15.pcap", V_ILLEGAL, mk_collector15 },
    { "lacp_terminator_len1.pcap", V_ILLEGAL, mk_terminator1 },
    { "lacp_version2.pcap", V_VALID, mk_version2 },
    { "lacp_v2_long.pcap", V_VALID, mk_v2_long },
    { "lacp_v2_max.pcap", V_VALID, mk_v2_max },
    { "lacp_loopback.pcap", V_LOOPBACK, mk_loopback },
    { "lacp_tagged.pcap", V_ILLEGAL, mk_tagged },
    { "lacp_bad_da.pcap", V_ILLEGAL, mk_bad_da },
    { "slow_subtype0.pcap", V_ILLEGAL, mk_subtype0 },
    { "slow_subtype_ossp.pcap", V_UNKNOWN, mk_ossp },
    { "marker_info.pcap", V_VALID, mk_marker_info },
    { "marker_unknown_tlv.pcap", V_ILLEGAL, mk_marker_tlv3 },
    { "marker_version2.pcap", V_ILLEGAL, mk_marker_version2 },
};

static int write_one(const char *path, const uint8_t *f, uint32_t len)
{
    struct writer out;
    int rc = writer_open(&out, path);

    if (rc < 0)
        return rc;
    writer_put(&out, 0, f, len);
    return writer_close(&out);
}

static int do_crafted(const char *dir, const struct identity *me)
{
    char path[PATH_MAX];
    int rc = 0;

    for (size_t i = 0; i < sizeof(crafted_set) / sizeof(crafted_set[0]); i++) {
        const struct crafted *c = &crafted_set[i];
        uint8_t f[FRAME_MAX];
        struct zvs_lacpdu pdu;
        uint32_t len;
        enum verdict got;
        int prc;

        memset(f, 0, sizeof(f));
        len = c->make(f, me);
        if (len == 0 || len > sizeof(f)) {
            fprintf(stderr, "%s: build failed\n", c->file);
            return -EINVAL;
        }
        prc = zvs_slow_parse(f, len, &pdu, NULL);
        got = classify(prc, &pdu, me);
        if (got != c->want) {
            fprintf(stderr, "%s: our parser says %s (%s), fixture wants %s\n", c->file,
                    verdict_name(got), zvs_lacp_err_name(prc), verdict_name(c->want));
            rc = -EPROTO;
            continue;
        }
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, c->file) >= sizeof(path))
            return -ENAMETOOLONG;
        prc = write_one(path, f, len);
        if (prc < 0)
            return prc;
        printf("%s %u %s\n", c->file, len, verdict_name(c->want));
    }
    return rc;
}

/* ---- --flood ------------------------------------------------------------------------- */

static int do_flood(const char *path, unsigned long n)
{
    struct zvs_lacpdu pdu;
    struct writer out;
    uint8_t f[FRAME_MAX];
    uint32_t len;
    int rc;

    crafted_lacpdu(&pdu, 3);
    len = build_lacp(f, &pdu);
    if (!len)
        return -EINVAL;
    rc = writer_open(&out, path);
    if (rc < 0)
        return rc;
    for (unsigned long i = 0; i < n; i++)
        writer_put(&out, i * FLOOD_GAP_NS, f, len);
    return writer_close(&out);
}

/* ---- --parse ------------------------------------------------------------------------- */

struct parse_totals {
    unsigned frames, lacp, marker, other;
    unsigned verdicts[V_NOT_SLOW + 1];
};

static void print_info(const char *who, const struct zvs_lacp_info *i)
{
    char mac[18];
    char st[ZVS_LACP_STATE_STR_LEN];

    printf(" %s_sys=%u,%s %s_key=%u %s_port=%u,%u %s_state=0x%02x(%s)", who,
           i->system_priority, mac_str(i->system, mac), who, i->key, who, i->port_priority,
           i->port, who, i->state, zvs_lacp_state_str(i->state, st));
}

static void parse_frame(unsigned idx, const uint8_t *f, uint32_t len, const struct identity *me,
                        struct parse_totals *t)
{
    struct zvs_lacpdu pdu;
    struct zvs_marker m;
    char mac[18];
    int rc = zvs_slow_parse(f, len, &pdu, &m);
    enum verdict v = classify(rc, &pdu, me);

    t->frames++;
    t->verdicts[v]++;
    switch (rc) {
    case ZVS_SLOW_LACP:
        t->lacp++;
        printf("%u lacp %s len=%u ver=%u", idx, verdict_name(v), len, pdu.version);
        print_info("actor", &pdu.actor);
        print_info("partner", &pdu.partner);
        printf("\n");
        break;
    case ZVS_SLOW_MARKER:
        t->marker++;
        printf("%u %s %s len=%u req_port=%u req_sys=%s xid=%u\n", idx,
               m.response ? "marker-response" : "marker-info", verdict_name(v), len,
               m.requester_port, mac_str(m.requester_system, mac), m.transaction_id);
        break;
    case ZVS_SLOW_OTHER:
        t->other++;
        printf("%u slow-subtype-%u %s len=%u\n", idx, len > 14 ? f[14] : 0, verdict_name(v),
               len);
        break;
    default:
        printf("%u %s %s len=%u\n", idx, zvs_lacp_err_name(rc), verdict_name(v), len);
        break;
    }
}

static int do_parse(const char *path, const struct identity *me)
{
    char err[PCAP_ERRBUF_SIZE];
    struct parse_totals t;
    struct pcap_pkthdr *h;
    const u_char *data;
    pcap_t *p;
    int rc;

    memset(&t, 0, sizeof(t));
    p = pcap_open_offline(path, err);
    if (!p) {
        fprintf(stderr, "%s\n", err);
        return -EIO;
    }
    if (pcap_datalink(p) != DLT_EN10MB) {
        fprintf(stderr, "%s: link type %d, not Ethernet\n", path, pcap_datalink(p));
        pcap_close(p);
        return -EINVAL;
    }
    while ((rc = pcap_next_ex(p, &h, &data)) == 1)
        parse_frame(t.frames + 1, data, h->caplen, me, &t);
    if (rc == PCAP_ERROR)
        fprintf(stderr, "%s: %s\n", path, pcap_geterr(p));
    pcap_close(p);
    printf("summary frames=%u lacp=%u marker=%u other=%u valid=%u illegal=%u unknown=%u "
           "loopback=%u not_slow=%u\n", t.frames, t.lacp, t.marker, t.other,
           t.verdicts[V_VALID], t.verdicts[V_ILLEGAL], t.verdicts[V_UNKNOWN],
           t.verdicts[V_LOOPBACK], t.verdicts[V_NOT_SLOW]);
    return rc == PCAP_ERROR ? -EIO : 0;
}

/* ---- main ---------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr,
            "usage: lacp_pcapgen --emitted FILE\n"
            "       lacp_pcapgen --crafted DIR [--system MAC] [--sys-prio N]\n"
            "       lacp_pcapgen --flood FILE N\n"
            "       lacp_pcapgen --parse FILE [--system MAC] [--sys-prio N]\n");
    return 2;
}

int main(int argc, char **argv)
{
    static const uint8_t default_system[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x01 };
    struct identity me = { .set = false, .sys_prio = 32768 };
    const char *mode = NULL, *arg = NULL;
    unsigned long count = 0;
    int rc;

    memcpy(me.system, default_system, 6);
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];

        if (!strcmp(o, "--system") && i + 1 < argc) {
            if (parse_mac(argv[++i], me.system) < 0)
                return usage();
            me.set = true;
        } else if (!strcmp(o, "--sys-prio") && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 0);

            if (*end || v > 65535)
                return usage();
            me.sys_prio = (uint16_t)v;
        } else if ((!strcmp(o, "--emitted") || !strcmp(o, "--crafted") ||
                    !strcmp(o, "--parse")) && i + 1 < argc && !mode) {
            mode = o;
            arg = argv[++i];
        } else if (!strcmp(o, "--flood") && i + 2 < argc && !mode) {
            char *end;

            mode = o;
            arg = argv[++i];
            count = strtoul(argv[++i], &end, 0);
            if (*end || count == 0 || count > 10000000)
                return usage();
        } else {
            return usage();
        }
    }
    if (!mode)
        return usage();
    if (!strcmp(mode, "--emitted")) {
        rc = do_emitted(arg);
    } else if (!strcmp(mode, "--crafted")) {
        me.set = true;                  /* the loopback fixture needs an identity */
        rc = do_crafted(arg, &me);
    } else if (!strcmp(mode, "--flood")) {
        rc = do_flood(arg, count);
    } else {
        rc = do_parse(arg, &me);
    }
    if (rc < 0) {
        fprintf(stderr, "lacp_pcapgen %s: %s\n", mode, strerror(-rc));
        return 1;
    }
    return 0;
}
