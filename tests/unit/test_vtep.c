/* The VTEP (overlay/vtep.c) on the data plane's bursts: head-end replication of broadcast
 * and unknown unicast, unicast to the learned VTEP, learning from decapsulated frames, ARP
 * on the underlay, the guest MTU the overhead leaves (over IPv4 and IPv6), frames too big
 * for it recorded by their port, an inner frame past the limit dropped, a remote's
 * address changed under traffic, VLAN-to-VNI mapping, and every bad input counted by its
 * reason while the rest of its burst goes on. Two VTEPs talk to each other through their
 * bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "overlay/vtep.h"
#include "tests/unit/vxlan_frames.h"

#define S  UINT64_C(1000000000)
#define VNI 5000

static const uint8_t MAC_A[6] = { 0x02, 0xaa, 0, 0, 0, 1 };     /* underlay: VTEP A */
static const uint8_t MAC_B[6] = { 0x02, 0xaa, 0, 0, 0, 2 };
static const uint8_t MAC_C[6] = { 0x02, 0xaa, 0, 0, 0, 3 };

/* A VTEP at 10.0.0.<me> with remotes at the other two of .1 .2 .3, next hops static
 * unless arp is true. */
static struct zvs_vtep *mk(uint8_t me, bool arp, uint32_t fdb_cap)
{
    const uint8_t *macs[4] = { NULL, MAC_A, MAC_B, MAC_C };
    struct zvs_vtep_config c = { .local = vf_ip4(10, 0, 0, me), .fdb_capacity = fdb_cap };
    memcpy(c.local_mac, macs[me], 6);
    struct zvs_vtep *v = zvs_vtep_create(&c);

    assert_non_null(v);
    assert_int_equal(zvs_vtep_map_vni(v, 0, VNI), 0);
    for (uint8_t o = 1; o <= 3; o++) {
        if (o == me)
            continue;
        struct zvs_ipaddr ip = vf_ip4(10, 0, 0, o);
        char name[16] = "10.0.0.x";
        name[7] = (char)('0' + o);
        assert_true(zvs_vtep_add_remote(v, name, &ip) >= 0);
        if (!arp)
            assert_int_equal(zvs_uarp_set_static(zvs_vtep_uarp(v), &ip, macs[o]), 0);
    }
    return v;
}

static struct zvs_vtep_stats st(const struct zvs_vtep *v)
{
    struct zvs_vtep_stats s;
    zvs_vtep_stats(v, &s);
    return s;
}

/* A copy as the wire carries it: header, then the inner frame (tag removed if any). */
static uint32_t wire(const struct zvs_vtep_tx *tx, const struct zvs_frame *in, uint8_t *buf)
{
    memcpy(buf, tx->hdr, tx->hdr_len);
    return tx->hdr_len + zvs_frame_emit(&in[tx->in_index], (enum zvs_tag_op)tx->tag_op, 0,
                                        buf + tx->hdr_len, NULL);
}

static struct zvs_vtep_tx txs[256];
static uint8_t wbuf[4][2048];

/* Broadcast and unknown unicast go to both remotes; a reply decapsulated at the far end
 * teaches it where the sender is, so the answer goes to one VTEP only. */
static void test_flood_learn_unicast(void **state)
{
    struct zvs_vtep *a = mk(1, false, 0), *b = mk(2, false, 0);
    uint8_t g1[6], g2[6], f1[100], f2[100];
    vf_mac(g1, 1);                                      /* guest behind A */
    vf_mac(g2, 2);                                      /* guest behind B */
    vf_tcp(f1, sizeof f1, NULL, g1, 1000);              /* broadcast */
    vf_tcp(f2, sizeof f2, g2, g1, 1000);                /* unknown unicast */
    struct zvs_frame in[2] = { vf_frame(f1, 100, 0), vf_frame(f2, 100, 0) };

    int k = zvs_vtep_encap_burst(a, in, 2, 1, txs, 256, NULL);
    assert_int_equal(k, 4);
    assert_int_equal(st(a).replicated, 2);
    assert_int_equal(st(a).encapsulated, 4);
    assert_int_equal(txs[0].remote, txs[2].remote);
    assert_int_not_equal(txs[0].remote, txs[1].remote);
    assert_memory_equal(txs[0].hdr, txs[0].remote == 0 ? MAC_B : MAC_C, 6);
    assert_int_equal(txs[0].len, 150);

    /* B decapsulates the copies meant for it. */
    struct zvs_frame under[2], out[2];
    int nu = 0;
    for (int i = 0; i < k; i++) {
        if (memcmp(txs[i].hdr, MAC_B, 6) == 0) {
            uint32_t n = wire(&txs[i], in, wbuf[nu]);
            under[nu] = vf_frame(wbuf[nu], n, 0);
            under[nu].cookie = 77 + (uint64_t)nu;
            nu++;
        }
    }
    assert_int_equal(nu, 2);
    uint16_t idx[2];
    assert_int_equal(zvs_vtep_decap_burst(b, under, nu, 2, out, idx, NULL), 2);
    assert_memory_equal(out[0].data, f1, 100);
    assert_int_equal(out[0].len, 100);
    assert_true(out[0].flags & ZVS_FF_BCAST);
    assert_int_equal(out[1].flags, 0);
    assert_int_equal(out[1].cookie, 78);
    assert_int_equal(idx[1], 1);
    assert_int_equal(st(b).decapsulated, 2);
    assert_int_equal(zvs_vtep_fdb_lookup(zvs_vtep_fdb(b), g1, VNI),
                     zvs_vtep_find_remote(b, "10.0.0.1"));

    /* B answers g1: one copy, to A. */
    uint8_t r[100];
    vf_tcp(r, sizeof r, g1, g2, 80);
    struct zvs_frame rin = vf_frame(r, 100, 0);
    assert_int_equal(zvs_vtep_encap_burst(b, &rin, 1, 3, txs, 256, NULL), 1);
    assert_memory_equal(txs[0].hdr, MAC_A, 6);
    assert_int_equal(st(b).replicated, 0);
    zvs_vtep_destroy(a);
    zvs_vtep_destroy(b);
}

/* No next hop known: the frame is counted, an ARP request goes out (once a second, not
 * per frame); the reply, seen on the underlay, lets traffic through. A request for our
 * own address is answered. */
static void test_underlay_arp(void **state)
{
    struct zvs_vtep *a = mk(1, true, 0);
    uint8_t g1[6], f[80];
    vf_mac(g1, 1);
    vf_tcp(f, sizeof f, NULL, g1, 1000);
    struct zvs_frame in = vf_frame(f, 80, 0);
    struct zvs_vtep_ctl ctl = { .n = 0 };

    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, txs, 256, &ctl), 0);
    assert_int_equal(st(a).reason[ZVS_VTEP_NO_NEIGHBOUR], 2);
    assert_int_equal(ctl.n, 2);                         /* who has .2, who has .3 */
    assert_int_equal(zvs_be16(ctl.frame[0] + 12), 0x0806);
    assert_int_equal(zvs_be16(ctl.frame[0] + 20), 1);
    const uint8_t t2[4] = { 10, 0, 0, 2 };
    assert_memory_equal(ctl.frame[0] + 38, t2, 4);
    ctl.n = 0;
    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1 + S / 2, txs, 256, &ctl), 0);
    assert_int_equal(ctl.n, 0);                         /* asked half a second ago */

    /* .2 answers (a reply built as a request answered by .2 for .1). */
    uint8_t rep[ZVS_UARP_FRAME_LEN];
    const uint8_t ip2[4] = { 10, 0, 0, 2 }, ip1[4] = { 10, 0, 0, 1 };
    zvs_uarp_request(rep, MAC_B, ip2, ip1);
    struct zvs_frame ru = vf_frame(rep, sizeof rep, 0);
    struct zvs_frame out[1];
    ctl.n = 0;
    assert_int_equal(zvs_vtep_decap_burst(a, &ru, 1, 2 * S, out, NULL, &ctl), 0);
    assert_int_equal(ctl.n, 1);                         /* it asked for us: answered */
    assert_int_equal(zvs_be16(ctl.frame[0] + 20), 2);
    assert_memory_equal(ctl.frame[0], MAC_B, 6);
    assert_memory_equal(ctl.frame[0] + 22, MAC_A, 6);
    ctl.n = 0;
    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 2 * S, txs, 256, &ctl), 1);
    assert_memory_equal(txs[0].hdr, MAC_B, 6);
    assert_int_equal(ctl.n, 1);                         /* .3 asked again after 1 s */
    zvs_vtep_destroy(a);
}

/* A's guest MTU is `mtu` on a 1500-byte underlay: an inner IP packet of mtu bytes goes
 * out as `copies` full 1514-byte underlay frames, one of mtu + 1 is counted
 * vxlan-mtu-exceeded, never fragmented. */
static void mtu_boundary(struct zvs_vtep *a, uint32_t mtu, int copies)
{
    static uint8_t f[1600];
    uint8_t g1[6];
    vf_mac(g1, 1);
    vf_tcp(f, mtu + 1 + 14, NULL, g1, 1);
    struct zvs_frame in[2] = { vf_frame(f, mtu + 14, 0), vf_frame(f, mtu + 1 + 14, 0) };

    assert_int_equal(zvs_vtep_inner_mtu(a), mtu);
    assert_int_equal(zvs_vtep_encap_burst(a, in, 2, 1, txs, 256, NULL), copies);
    assert_int_equal(st(a).reason[ZVS_VTEP_MTU_EXCEEDED], 1);
    for (int k = 0; k < copies; k++) {
        assert_int_equal(txs[k].in_index, 0);
        assert_int_equal(txs[k].len, 1514);
    }
}

/* 50 bytes of overhead over IPv4: a 1450-byte guest MTU fits a 1500 underlay, 1451 is
 * reported, not fragmented. */
static void test_mtu(void **state)
{
    struct zvs_vtep *a = mk(1, false, 0);
    mtu_boundary(a, 1450, 2);                           /* to both remotes */
    zvs_vtep_destroy(a);
}

/* The same boundary over IPv6: 70 bytes of overhead leave a 1500-byte underlay an inner
 * IP MTU of 1430 (the outer IPv6 header is 40 bytes, 20 more than IPv4's). */
static void test_mtu_ipv6(void **state)
{
    struct zvs_vtep_config c = { .local = { .family = 6, .a = { 0x20, 0x01, 0x0d, 0xb8,
                                                               [15] = 1 } } };
    struct zvs_ipaddr far = { .family = 6, .a = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 } };
    memcpy(c.local_mac, MAC_A, 6);
    struct zvs_vtep *a = zvs_vtep_create(&c);
    assert_non_null(a);
    assert_int_equal(zvs_vtep_map_vni(a, 0, VNI), 0);
    assert_true(zvs_vtep_add_remote(a, "2001:db8::2", &far) >= 0);
    assert_int_equal(zvs_uarp_set_static(zvs_vtep_uarp(a), &far, MAC_B), 0);
    mtu_boundary(a, 1430, 1);
    assert_int_equal(st(a).encapsulated, 1);
    zvs_vtep_destroy(a);
}

/* Frames too big for the segment are recorded by the port they came in on, for the daemon
 * to name the NIC: one record per port with the last frame's length and the count, cleared
 * by the take; the frames that fit in the same burst go on. */
static void test_oversize_by_port(void **state)
{
    struct zvs_vtep *a = mk(1, false, 0);
    static uint8_t f[1600];
    uint8_t g1[6];
    vf_mac(g1, 1);
    vf_tcp(f, 1514, NULL, g1, 1);
    struct zvs_frame in[4] = { vf_frame(f, 1514, 0), vf_frame(f, 100, 0),
                               vf_frame(f, 1500, 0), vf_frame(f, 1465, 0) };
    in[0].in_port = 7;
    in[1].in_port = 7;
    in[2].in_port = 7;
    in[3].in_port = 3;
    struct zvs_oversize_rec o[16];

    assert_int_equal(zvs_vtep_inner_mtu(a), 1450);
    assert_int_equal(zvs_vtep_take_oversize(a, o, 16), 0);
    assert_int_equal(zvs_vtep_encap_burst(a, in, 4, 1, txs, 256, NULL), 2);     /* 2 remotes */
    assert_int_equal(txs[0].in_index, 1);
    assert_int_equal(st(a).reason[ZVS_VTEP_MTU_EXCEEDED], 3);
    assert_int_equal(zvs_vtep_take_oversize(a, o, 16), 2);
    assert_int_equal(o[1].in_port, 7);                  /* by port index */
    assert_int_equal(o[1].len, 1500);                   /* the last of the port's */
    assert_int_equal(o[1].frames, 2);
    assert_int_equal(o[0].in_port, 3);
    assert_int_equal(o[0].len, 1465);                   /* one byte past 1450 + 14 */
    assert_int_equal(o[0].frames, 1);
    assert_int_equal(zvs_vtep_take_oversize(a, o, 16), 0);  /* taken */

    /* Ten ports in one interval, port 1023 among them: every one recorded (a table of 8
     * slots once left the 9th and 10th counted only), taken a few at a time. */
    struct zvs_frame many[10];
    for (unsigned i = 0; i < 10; i++) {
        many[i] = vf_frame(f, 1514, 0);
        many[i].in_port = (uint16_t)(i < 9 ? 10 + i : 1023);
    }
    assert_int_equal(zvs_vtep_encap_burst(a, many, 10, 2, txs, 256, NULL), 0);
    assert_int_equal(st(a).reason[ZVS_VTEP_MTU_EXCEEDED], 3 + 10);
    assert_int_equal(zvs_vtep_take_oversize(a, o, 8), 8);
    assert_int_equal(o[7].in_port, 17);
    assert_int_equal(zvs_vtep_take_oversize(a, o, 8), 2);
    assert_int_equal(o[0].in_port, 18);
    assert_int_equal(o[1].in_port, 1023);
    assert_int_equal(o[1].frames, 1);
    assert_int_equal(zvs_vtep_take_oversize(a, o, 8), 0);
    zvs_vtep_destroy(a);
}

/* A decapsulated inner frame longer than the VTEP's inner_max is counted
 * vxlan-inner-oversize and dropped; the frames around it in the burst are delivered. */
static void test_inner_oversize(void **state)
{
    struct zvs_vtep *a = mk(1, false, 0);
    struct zvs_vtep_config cb = { .local = vf_ip4(10, 0, 0, 2), .inner_max = 1000 };
    memcpy(cb.local_mac, MAC_B, 6);
    struct zvs_vtep *b = zvs_vtep_create(&cb);
    assert_non_null(b);
    assert_int_equal(zvs_vtep_map_vni(b, 0, VNI), 0);
    struct zvs_ipaddr ia = vf_ip4(10, 0, 0, 1);
    assert_true(zvs_vtep_add_remote(b, "10.0.0.1", &ia) >= 0);

    static uint8_t f[3][1100], buf[3][1200];
    const uint32_t ilen[3] = { 1000, 1001, 64 };        /* at the limit, past it, small */
    struct zvs_frame under[3], out[3];
    for (int i = 0; i < 3; i++) {
        uint8_t g[6];
        vf_mac(g, (uint16_t)(20 + i));
        vf_tcp(f[i], ilen[i], NULL, g, 1);
        struct zvs_frame in = vf_frame(f[i], ilen[i], 0);
        assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, txs, 256, NULL), 2);
        int to_b = memcmp(txs[0].hdr, MAC_B, 6) == 0 ? 0 : 1;
        under[i] = vf_frame(buf[i], wire(&txs[to_b], &in, buf[i]), 0);
    }
    uint16_t idx[3];
    assert_int_equal(zvs_vtep_decap_burst(b, under, 3, 2, out, idx, NULL), 2);
    assert_int_equal(idx[0], 0);
    assert_int_equal(idx[1], 2);
    assert_int_equal(out[0].len, 1000);
    assert_int_equal(out[1].len, 64);
    struct zvs_vtep_stats s = st(b);
    assert_int_equal(s.reason[ZVS_VTEP_INNER_OVERSIZE], 1);
    assert_int_equal(s.decapsulated, 2);
    for (int k = 0; k < ZVS_VTEP_REASONS; k++)
        if (k != ZVS_VTEP_INNER_OVERSIZE)
            assert_int_equal(s.reason[k], 0);
    assert_string_equal(zvs_vtep_reason_name(ZVS_VTEP_INNER_OVERSIZE), "vxlan-inner-oversize");
    zvs_vtep_destroy(a);
    zvs_vtep_destroy(b);
}

/* A remote's name resolves to a new address: the next burst goes there, MACs learned
 * behind it stay, and frames from the new address are accepted, from the old refused. */
static void test_remote_address_change(void **state)
{
    struct zvs_vtep *a = mk(1, false, 0);
    int r2 = zvs_vtep_find_remote(a, "10.0.0.2");
    uint8_t g2[6], g1[6], f[80];
    vf_mac(g1, 1);
    vf_mac(g2, 2);
    assert_int_equal(zvs_vtep_fdb_add_static(zvs_vtep_fdb(a), g2, VNI, (uint16_t)r2), 0);
    struct zvs_ipaddr moved = vf_ip4(10, 0, 0, 9);
    assert_int_equal(zvs_uarp_set_static(zvs_vtep_uarp(a), &moved, MAC_C), 0);
    assert_int_equal(zvs_vtep_set_remote_addr(a, (unsigned)r2, &moved), 0);

    vf_tcp(f, sizeof f, g2, g1, 1);
    struct zvs_frame in = vf_frame(f, 80, 0);
    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, txs, 256, NULL), 1);
    struct zvs_vxlan_decoded d;
    uint32_t n = wire(&txs[0], &in, wbuf[0]);
    assert_int_equal(zvs_vxlan_decode(wbuf[0], n, 4789, 9216, &d), ZVS_VXLAN_OK);
    assert_true(zvs_ipaddr_equal(&d.dst, &moved));

    /* A name that stops resolving: its MACs flood to the others instead. */
    assert_int_equal(zvs_vtep_set_remote_addr(a, (unsigned)r2, NULL), 0);
    assert_int_equal(zvs_vtep_remote(a, (unsigned)r2)->state, ZVS_VTEP_REMOTE_RESOLVING);
    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, txs, 256, NULL), 1);
    assert_int_not_equal(txs[0].remote, r2);
    zvs_vtep_destroy(a);
}

/* A remote's name moving 100 times under traffic (a DNS record changed again and again):
 * each old address leaves the neighbour table, so it never fills and every new address
 * is asked for; a static entry for an address it leaves stays. */
static void test_address_churn_keeps_table(void **state)
{
    struct zvs_vtep *a = mk(1, true, 0);
    int r2 = zvs_vtep_find_remote(a, "10.0.0.2");
    const struct zvs_uarp *u = zvs_vtep_uarp(a);
    uint8_t g1[6], f[80];
    vf_mac(g1, 1);
    vf_tcp(f, sizeof f, NULL, g1, 1);
    struct zvs_frame in = vf_frame(f, 80, 0);
    struct zvs_vtep_ctl ctl = { .n = 0 };

    for (unsigned k = 0; k < 100; k++) {
        struct zvs_ipaddr moved = vf_ip4(10, 0, 1 + k / 200, (uint8_t)(1 + k % 200));
        unsigned used = 0;

        assert_int_equal(zvs_vtep_set_remote_addr(a, (unsigned)r2, &moved), 0);
        ctl.n = 0;
        zvs_vtep_encap_burst(a, &in, 1, (1 + k) * S, txs, 256, &ctl);
        assert_true(ctl.n >= 1);                        /* the new address asked for */
        assert_non_null(zvs_uarp_find(u, &moved));
        for (unsigned i = 0; i < ZVS_UARP_MAX; i++)
            used += u->e[i].state != ZVS_UARP_FREE;
        assert_int_equal(used, 2);                      /* .3 and the new address */
    }
    assert_int_equal(u->full, 0);
    assert_int_equal(u->reclaimed, 0);

    /* Moved off an address that has a static entry: the entry stays. */
    struct zvs_ipaddr fixed = vf_ip4(10, 0, 2, 1), next = vf_ip4(10, 0, 2, 2);
    assert_int_equal(zvs_uarp_set_static(zvs_vtep_uarp(a), &fixed, MAC_C), 0);
    assert_int_equal(zvs_vtep_set_remote_addr(a, (unsigned)r2, &fixed), 0);
    assert_int_equal(zvs_vtep_set_remote_addr(a, (unsigned)r2, &next), 0);
    assert_int_equal(zvs_uarp_find(u, &fixed)->state, ZVS_UARP_STATIC);
    /* Another remote's address: its entry stays too. */
    int r3 = zvs_vtep_find_remote(a, "10.0.0.3");
    struct zvs_ipaddr three = vf_ip4(10, 0, 0, 3);
    assert_int_equal(zvs_vtep_set_remote_addr(a, (unsigned)r2, &three), 0);
    assert_int_equal(zvs_vtep_set_remote_addr(a, (unsigned)r2, &next), 0);
    assert_non_null(zvs_uarp_find(u, &three));
    assert_int_equal(zvs_vtep_remote(a, (unsigned)r3)->state, ZVS_VTEP_REMOTE_ACTIVE);
    zvs_vtep_destroy(a);
}

/* One burst of good and bad underlay frames: each bad one counted by its reason, the
 * good ones delivered in order. */
static void test_bad_input_counted(void **state)
{
    struct zvs_vtep *a = mk(1, false, 0), *b = mk(2, false, 4);
    uint8_t gsrc[6], f[80];
    enum { N = 14 };
    static uint8_t buf[N][256];
    struct zvs_frame under[N], out[N];
    uint32_t len[N];

    for (int i = 0; i < N; i++) {
        vf_mac(gsrc, (uint16_t)(100 + i));
        vf_tcp(f, sizeof f, NULL, gsrc, 1);
        struct zvs_frame in = vf_frame(f, 80, 0);
        int k = zvs_vtep_encap_burst(a, &in, 1, 1, txs, 256, NULL);
        assert_int_equal(k, 2);
        int to_b = memcmp(txs[0].hdr, MAC_B, 6) == 0 ? 0 : 1;
        len[i] = wire(&txs[to_b], &in, buf[i]);
    }
    /* 0-3 good (fill B's table of 4), then: */
    len[4] = 40;                                        /* 4 truncated */
    buf[5][42] = 0;                                     /* 5 I flag clear */
    buf[6][49] = 0x01;                                  /* 6 reserved bits: delivered */
    memcpy(buf[6] + 56, buf[0] + 56, 6);                /*   (a known source) */
    buf[7][48] = 0x99;                                  /* 7 VNI not served */
    buf[8][29] = 7;                                     /* 8 from 10.0.0.7 (unknown) */
    buf[9][33] = 5;                                     /* 9 to 10.0.0.5, not us */
    zvs_put_be16(buf[10] + 62, 0x8100);                 /* 10 inner tag */
    zvs_put_be16(buf[11] + 38, 8 + 8 + 10);             /* 11 inner runt */
    buf[12][56] = 0x01;                                 /* 12 inner source multicast */
    /* 13: a fifth new source: past the table's 4 */
    for (int i = 0; i < N; i++) {
        if (i == 8 || i == 9)                           /* a good header checksum again */
            vf_ip_csum(buf[i] + 14);
        under[i] = vf_frame(buf[i], len[i], 0);
    }
    uint16_t idx[N];
    int k = zvs_vtep_decap_burst(b, under, N, 2, out, idx, NULL);
    assert_int_equal(k, 5);
    const uint16_t want[5] = { 0, 1, 2, 3, 6 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(idx[i], want[i]);
    struct zvs_vtep_stats s = st(b);
    assert_int_equal(s.reason[ZVS_VTEP_TRUNCATED], 1);
    assert_int_equal(s.reason[ZVS_VTEP_I_FLAG_CLEAR], 1);
    assert_int_equal(s.reason[ZVS_VTEP_RESERVED_BITS], 1);
    assert_int_equal(s.reason[ZVS_VTEP_UNKNOWN_VNI], 1);
    assert_int_equal(s.reason[ZVS_VTEP_UNKNOWN_VTEP], 1);
    assert_int_equal(s.reason[ZVS_VTEP_NOT_LOCAL], 1);
    assert_int_equal(s.reason[ZVS_VTEP_INNER_TAGGED], 1);
    assert_int_equal(s.reason[ZVS_VTEP_INNER_RUNT], 1);
    assert_int_equal(s.reason[ZVS_VTEP_BAD_INNER_SOURCE], 1);
    assert_int_equal(s.reason[ZVS_VTEP_MAC_LIMIT], 1);
    assert_int_equal(s.decapsulated, 5);
    assert_string_equal(zvs_vtep_reason_name(ZVS_VTEP_MAC_LIMIT), "vxlan-mac-limit");
    zvs_vtep_destroy(a);
    zvs_vtep_destroy(b);
}

/* VLAN aware: VLAN 10 travels as VNI 10010 with its tag removed and comes back on VLAN
 * 10; a VLAN without a VNI is counted. A GSO super-frame must be segmented first; an inner
 * partial checksum rides along over IPv4, moved by the outer header. */
static void test_vlan_map_and_offloads(void **state)
{
    struct zvs_vtep *a = mk(1, false, 0), *b = mk(2, false, 0);
    assert_int_equal(zvs_vtep_map_vni(a, 10, 10010), 0);
    assert_int_equal(zvs_vtep_map_vni(b, 10, 10010), 0);
    assert_int_equal(zvs_vtep_map_vni(a, 11, 10010), -EEXIST);
    assert_int_equal(zvs_vtep_map_vni(a, 10, 7), -EEXIST);
    assert_int_equal(zvs_vtep_map_vni(a, 12, ZVS_VXLAN_VNI_MAX + 1), -EINVAL);
    /* A map changed at run time: unmapped, the VNI is free for another VLAN. */
    assert_int_equal(zvs_vtep_map_vni(a, 12, 10012), 0);
    assert_int_equal(zvs_vtep_nvnis(a), 3);                 /* mk's untagged VNI too */
    assert_int_equal(zvs_vtep_unmap_vid(a, 12), 0);
    assert_int_equal(zvs_vtep_unmap_vid(a, 12), -ENOENT);
    assert_int_equal(zvs_vtep_vni_of(a, 12), ZVS_VTEP_NO_VNI);
    assert_int_equal(zvs_vtep_vid_of(a, 10012), -1);
    assert_int_equal(zvs_vtep_nvnis(a), 2);
    uint16_t vid;
    assert_int_equal(zvs_vtep_vni_at(a, 1, &vid), 10010);
    assert_int_equal(vid, 10);

    uint8_t g1[6], f[84], plain[80];
    vf_mac(g1, 1);
    vf_tcp(plain, sizeof plain, NULL, g1, 1);
    memcpy(f, plain, 12);                               /* the same frame, tagged VLAN 10 */
    zvs_put_be16(f + 12, 0x8100);
    zvs_put_be16(f + 14, 10);
    memcpy(f + 16, plain + 12, 68);
    struct zvs_frame in[4] = { vf_frame(f, 84, 10), vf_frame(f, 84, 20),
                               vf_frame(plain, 80, 0), vf_frame(plain, 80, 0) };
    in[2].vnet.gso_type = ZVS_VNET_GSO_TCPV4;
    in[3].vnet = (struct zvs_vnet){ .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34,
                                    .csum_offset = 16 };

    int k = zvs_vtep_encap_burst(a, in, 4, 1, txs, 256, NULL);
    assert_int_equal(k, 4);                             /* in[0] and in[3], to 2 remotes */
    assert_int_equal(st(a).reason[ZVS_VTEP_UNMAPPED_VLAN], 1);
    assert_int_equal(st(a).reason[ZVS_VTEP_NOT_SEGMENTED], 1);
    assert_int_equal(txs[0].tag_op, ZVS_TAG_STRIP);
    assert_int_equal(txs[0].len, 50 + 80);
    assert_int_equal(txs[2].in_index, 3);
    assert_int_equal(txs[2].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(txs[2].vnet.csum_start, 50 + 34);
    /* Tagged and untagged copies of one flow share the outer source port. */
    assert_int_equal(txs[0].sport, txs[2].sport);

    int to_b = memcmp(txs[0].hdr, MAC_B, 6) == 0 ? 0 : 1;
    uint32_t n = wire(&txs[to_b], in, wbuf[0]);
    struct zvs_frame u = vf_frame(wbuf[0], n, 0), out;
    assert_int_equal(zvs_vtep_decap_burst(b, &u, 1, 2, &out, NULL, NULL), 1);
    assert_int_equal(out.vid, 10);
    assert_int_equal(out.len, 80);
    assert_memory_equal(out.data, plain, 80);
    zvs_vtep_destroy(a);
    zvs_vtep_destroy(b);
}

static void test_remotes_config(void **state)
{
    struct zvs_vtep *a = mk(1, false, 0);
    struct zvs_ipaddr v6;
    zvs_ipaddr_parse("2001:db8::1", &v6);

    assert_int_equal(zvs_vtep_add_remote(a, "10.0.0.2", NULL), -EEXIST);
    assert_int_equal(zvs_vtep_add_remote(a, "vtep9.lab", &v6), -EINVAL);
    int r = zvs_vtep_add_remote(a, "vtep9.lab", NULL);
    assert_true(r >= 0);
    assert_int_equal(zvs_vtep_remote(a, (unsigned)r)->state, ZVS_VTEP_REMOTE_RESOLVING);
    uint8_t m[6];
    vf_mac(m, 5);
    zvs_vtep_fdb_learn(zvs_vtep_fdb(a), m, VNI, (uint16_t)r, 1);
    assert_int_equal(zvs_vtep_del_remote(a, (unsigned)r), 0);
    assert_int_equal(zvs_vtep_fdb_lookup(zvs_vtep_fdb(a), m, VNI), -1);
    assert_int_equal(zvs_vtep_find_remote(a, "vtep9.lab"), -1);
    zvs_vtep_destroy(a);

    struct zvs_vtep_config c = { 0 };
    errno = 0;
    assert_null(zvs_vtep_create(&c));
    assert_int_equal(errno, EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flood_learn_unicast),
        cmocka_unit_test(test_underlay_arp),
        cmocka_unit_test(test_mtu),
        cmocka_unit_test(test_mtu_ipv6),
        cmocka_unit_test(test_oversize_by_port),
        cmocka_unit_test(test_inner_oversize),
        cmocka_unit_test(test_remote_address_change),
        cmocka_unit_test(test_bad_input_counted),
        cmocka_unit_test(test_vlan_map_and_offloads),
        cmocka_unit_test(test_remotes_config),
        cmocka_unit_test(test_address_churn_keeps_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
