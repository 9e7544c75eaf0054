/* The IVL port's backend (backends/ivl_port.c) between two switches, systems 1 and 2 of
 * domain A, their IVL ports on the two ends of an in-memory cable: each system has a guest
 * and a port group member (a recording fake port), and the frames cross as the rule says.
 *   - a guest's broadcast on system 1 reaches system 2's guest once, as FLOOD, and system
 *     2 learns where that guest lives; the answer crosses back as INBOUND to system 1 only;
 *   - system 1 with no member distributing: its guest's frame for the LAN crosses as
 *     OUTBOUND and leaves on system 2's member; with no system distributing it is counted;
 *   - on the wire: our header, system 2's IVL MAC, one sequence per destination; a frame
 *     with a bad header, for another system's MAC, or of our own index is counted, never
 *     delivered;
 *   - a system alone: its guests' broadcasts have nobody to go to over the IVL, so the IVL
 *     port counts each once as a no-uplink discard and never as sent, in a burst with
 *     frames that do cross too;
 *   - an overrun of the IVL's own ring: copies the lower port never wrote give their
 *     sequence numbers back and are not counted as sent, so the receiver sees no loss. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "fake_port.h"
#include "backends/ivl_port.h"
#include "backends/memlink.h"
#include "dataplane/distribution.h"
#include "dataplane/switch.h"
#include "ivl/frame.h"

static const uint8_t MAC_G1[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x01 };
static const uint8_t MAC_G2[6] = { 0x02, 0x00, 0x0D, 0x00, 0x02, 0x01 };
static const uint8_t MAC_LAN[6] = { 0x00, 0x1B, 0x21, 0x00, 0x00, 0x01 };
static const uint8_t MAC_BCAST[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

struct sys {
    struct zvs_switch *sw;
    struct fake_port  *g, *m;
    struct zvs_port   *ivl;
    struct zvs_pg_map  map;
    struct zvs_pg_dist dist;
};

static void distributes(struct sys *s, bool on)
{
    uint16_t port = on ? s->m->port.index : ZVS_PG_NO_PORT;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        s->map.bucket_port[b] = port;
    s->map.flood_port = port;
    for (unsigned k = 0; k < ZVS_PG_MAX_MEMBERS; k++)
        s->dist.member_port[k] = k == 0 ? port : ZVS_PG_NO_PORT;
    __atomic_store_n(&s->dist.live, &s->map, __ATOMIC_RELEASE);
}

static void sys_setup(struct sys *s, uint8_t index, const uint8_t *gmac, struct zvs_port *lower)
{
    memset(s, 0, sizeof *s);
    struct zvs_switch_params p = { .name = "GLOBSW" };
    s->sw = zvs_switch_create(&p);
    assert_non_null(s->sw);
    s->g = fake_port_new("LNX.F000", 0, 1500);
    s->m = fake_port_new("28BA", 0, 1500);
    struct zvs_guest g = { .macprotect = true, .vdev = 0xF000 };
    strcpy(g.owner, "LNX");
    memcpy(g.mac, gmac, 6);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_add_guest(s->sw, &s->g->port, &g), 0);
    assert_int_equal(zvs_switch_add_group_port(s->sw, &s->m->port), 0);
    zvs_switch_set_collecting(s->sw, &s->m->port, true);
    lower->mtu = 1600;
    struct zvs_ivl_port_params ip = { .self = index, .domain = 'A', .vswitch = 1 };
    int err;
    s->ivl = zvs_ivl_port_open(lower, &ip, &err);
    assert_non_null(s->ivl);
    assert_true(zvs_ivl_port_is(s->ivl));
    assert_int_equal(s->ivl->mtu, 1600 - ZVS_IVL_OUTER_LEN);
    assert_int_equal(zvs_switch_add_ivl_port(s->sw, s->ivl), 0);
    s->dist.hash = ZVS_PG_HASH_DST;
    distributes(s, true);
    zvs_switch_set_group(s->sw, &s->dist);
    zvs_ivl_port_set_view(s->ivl, 0x06, 0x06);      /* systems 1 and 2, both distributing */
}

static void sys_done(struct sys *s)
{
    zvs_switch_set_group(s->sw, NULL);
    zvs_switch_destroy(s->sw);
}

static void frame60(uint8_t *buf, const uint8_t *dst, const uint8_t *src)
{
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    buf[12] = 0x08;
    buf[13] = 0x06;
    memset(buf + 14, 0x11, 46);
}

static void send_from(struct sys *s, struct fake_port *p, const uint8_t *bytes)
{
    struct zvs_frame f = { .data = bytes, .len = 60 };
    zvs_switch_input(s->sw, &p->port, &f, 1, 1);
}

/* Systems 1 and 2 on the two ends of a memlink of `nslots` frames each way. */
static void two_on_link(struct sys *s1, struct sys *s2, uint32_t nslots, struct zvs_port **la,
                        struct zvs_port **lb)
{
    assert_int_equal(zvs_memlink_pair("ivl-a", "ivl-b", nslots, 2048, la, lb), 0);
    sys_setup(s1, 1, MAC_G1, *la);
    sys_setup(s2, 2, MAC_G2, *lb);
}

static void two_systems(void **state)
{
    struct zvs_port *la, *lb;
    struct sys s1, s2;
    two_on_link(&s1, &s2, 64, &la, &lb);
    uint8_t fr[64];

    /* a broadcast: system 1's member and system 2's guest, once each */
    frame60(fr, MAC_BCAST, MAC_G1);
    send_from(&s1, s1.g, fr);
    assert_int_equal(s1.m->nframes, 1);
    assert_int_equal(zvs_switch_poll(s2.sw, s2.ivl, 2), 1);
    assert_int_equal(s2.g->nframes, 1);
    assert_memory_equal(s2.g->frames[0].bytes, fr, 60);
    assert_int_equal(s2.m->nframes, 0);             /* never back into the LAG */
    assert_int_equal(zvs_memlink_pending(lb), 0);   /* nor back over the IVL */

    /* the answer: INBOUND to system 1 only */
    frame60(fr, MAC_G1, MAC_G2);
    send_from(&s2, s2.g, fr);
    assert_int_equal(s2.m->nframes, 0);
    assert_int_equal(zvs_switch_poll(s1.sw, s1.ivl, 3), 1);
    assert_int_equal(s1.g->nframes, 1);
    assert_memory_equal(s1.g->frames[0].bytes, fr, 60);
    struct zvs_ivl_port_stats st;
    zvs_ivl_port_stats(s2.ivl, &st);
    assert_int_equal(st.link.tx_frames[ZVS_IVL_INBOUND], 1);
    assert_int_equal(st.link.rx_frames[ZVS_IVL_FLOOD], 1);
    assert_int_equal(st.no_guest_known, 0);

    /* system 1 no longer distributes: its guest's LAN frame leaves on system 2's member */
    distributes(&s1, false);
    zvs_ivl_port_set_view(s1.ivl, 0x06, 0x04);
    frame60(fr, MAC_LAN, MAC_G1);
    send_from(&s1, s1.g, fr);
    assert_int_equal(zvs_switch_poll(s2.sw, s2.ivl, 4), 1);
    assert_int_equal(s2.m->nframes, 1);
    assert_memory_equal(s2.m->frames[0].bytes, fr, 60);
    assert_int_equal(s2.g->nframes, 1);             /* still only the broadcast */
    /* and with nobody distributing, nothing crosses: counted */
    zvs_ivl_port_set_view(s1.ivl, 0x06, 0x00);
    send_from(&s1, s1.g, fr);
    assert_int_equal(zvs_memlink_pending(la), 0);
    zvs_ivl_port_stats(s1.ivl, &st);
    assert_int_equal(st.no_system, 1);
    assert_int_equal(st.link.tx_frames[ZVS_IVL_OUTBOUND], 1);

    /* on the wire: our header to system 2's IVL MAC, its own sequence */
    zvs_ivl_port_set_view(s1.ivl, 0x06, 0x04);
    send_from(&s1, s1.g, fr);
    uint8_t wire[2048];
    int n = zvs_memlink_read(la, wire, sizeof wire, NULL);
    assert_int_equal(n, ZVS_IVL_OUTER_LEN + 60);
    uint8_t mac2[6];
    zvs_ivl_port_mac('A', 2, mac2);
    assert_memory_equal(wire, mac2, 6);
    struct zvs_ivl_hdr h;
    const uint8_t *inner;
    size_t inner_len;
    assert_int_equal(zvs_ivl_frame_decap(wire, (size_t)n, &h, &inner, &inner_len), 0);
    assert_int_equal(h.kind, ZVS_IVL_OUTBOUND);
    assert_int_equal(h.origin, 1);
    assert_int_equal(h.flags, ZVS_IVL_HF_GUEST_SRC);
    assert_int_equal(h.seq, 2);         /* the FLOOD was 0, the OUTBOUND 1, to system 2 */

    /* refused on the way in: counted, never delivered */
    wire[14] = 9;                       /* a version we do not speak */
    assert_int_equal(zvs_memlink_inject(lb, wire, (uint32_t)n, NULL), 0);
    wire[14] = ZVS_IVL_FRAME_VERSION;
    wire[5] = 3;                        /* system 3's MAC */
    assert_int_equal(zvs_memlink_inject(lb, wire, (uint32_t)n, NULL), 0);
    wire[5] = 2;
    wire[16] = 2;                       /* claims to be system 2 itself */
    assert_int_equal(zvs_memlink_inject(lb, wire, (uint32_t)n, NULL), 0);
    assert_int_equal(zvs_switch_poll(s2.sw, s2.ivl, 5), 0);
    frame60(fr, MAC_G2, MAC_LAN);       /* and the ring is free again: the next one comes */
    struct zvs_ivl_hdr in = { .kind = ZVS_IVL_INBOUND, .origin = 1, .vswitch = 1, .seq = 9 };
    n = zvs_ivl_frame_encap(&in, mac2, wire + 6, fr, 60, wire, sizeof wire);
    assert_int_equal(zvs_memlink_inject(lb, wire, (uint32_t)n, NULL), 0);
    assert_int_equal(zvs_switch_poll(s2.sw, s2.ivl, 6), 1);
    assert_int_equal(s2.g->nframes, 2);
    zvs_ivl_port_stats(s2.ivl, &st);
    assert_int_equal(st.link.rx_bad[ZVS_IVL_FE_VERSION], 1);
    assert_int_equal(st.not_ours, 1);
    assert_int_equal(st.link.rx_own, 1);
    assert_int_equal(s2.m->nframes, 1);
    sys_done(&s1);
    sys_done(&s2);
}

static void alone_counts_discards(void **state)
{
    struct zvs_port *la, *lb;
    assert_int_equal(zvs_memlink_pair("ivl-a", "ivl-b", 64, 2048, &la, &lb), 0);
    struct sys s1;
    sys_setup(&s1, 1, MAC_G1, la);
    zvs_ivl_port_set_view(s1.ivl, 0x02, 0x02);      /* system 1 alone */
    uint8_t fr[64];
    frame60(fr, MAC_BCAST, MAC_G1);
    for (int i = 0; i < 3; i++)
        send_from(&s1, s1.g, fr);
    assert_int_equal(s1.m->nframes, 3);             /* the LAN has them */
    assert_int_equal(zvs_memlink_pending(la), 0);
    struct zvs_ivl_port_stats st;
    zvs_ivl_port_stats(s1.ivl, &st);
    assert_int_equal(st.no_system, 3);
    const struct zvs_port_counters *c = &s1.ivl->ctr;
    assert_int_equal(c->out_packets, 0);
    assert_int_equal(c->out_bytes, 0);
    assert_int_equal(c->out_discards, 3);
    assert_int_equal(c->drops[ZVS_DROP_NO_UPLINK], 3);
    assert_int_equal(c->drops[ZVS_DROP_TX_FAIL], 0);
    sys_done(&s1);
    lb->ops->destroy(lb);
}

/* One burst with a frame that crosses (a FLOOD to system 2) and frames nobody takes
 * (OUTBOUND while no system distributes: the LAN frame, and the broadcast's copy for the
 * LAN): the one sent counted as sent, the others as discards, whatever their order. */
static void mixed_burst_counts_each_once(void **state)
{
    struct zvs_port *la, *lb;
    struct sys s1, s2;
    two_on_link(&s1, &s2, 64, &la, &lb);
    distributes(&s1, false);
    zvs_ivl_port_set_view(s1.ivl, 0x06, 0x00);
    uint8_t bc[64], lan[64];
    frame60(bc, MAC_BCAST, MAC_G1);
    frame60(lan, MAC_LAN, MAC_G1);
    struct zvs_frame f[2] = { { .data = lan, .len = 60 }, { .data = bc, .len = 60 } };
    zvs_switch_input(s1.sw, &s1.g->port, f, 2, 1);
    assert_int_equal(zvs_memlink_pending(la), 1);
    const struct zvs_port_counters *c = &s1.ivl->ctr;
    assert_int_equal(c->out_packets, 1);            /* the broadcast's FLOOD */
    assert_int_equal(c->out_discards, 2);           /* its OUTBOUND and the LAN frame */
    assert_int_equal(c->drops[ZVS_DROP_NO_UPLINK], 2);
    sys_done(&s1);
    sys_done(&s2);
}

static void overrun_gives_numbers_back(void **state)
{
    struct zvs_port *la, *lb;
    struct sys s1, s2;
    two_on_link(&s1, &s2, 4, &la, &lb);
    uint8_t fr[64];
    frame60(fr, MAC_BCAST, MAC_G1);
    struct zvs_frame f[8];
    for (int i = 0; i < 8; i++)
        f[i] = (struct zvs_frame){ .data = fr, .len = 60 };
    zvs_switch_input(s1.sw, &s1.g->port, f, 8, 1);  /* 8 broadcasts, room for 4 */
    struct zvs_ivl_port_stats st;
    zvs_ivl_port_stats(s1.ivl, &st);
    assert_int_equal(zvs_memlink_pending(la), 4);
    assert_int_equal(st.link.tx_frames[ZVS_IVL_FLOOD], 4);
    assert_int_equal(st.link.tx_bytes[ZVS_IVL_FLOOD], 4 * 60);
    assert_int_equal(s1.ivl->ctr.out_packets, 4);
    assert_int_equal(s1.ivl->ctr.out_discards, 4);
    assert_int_equal(zvs_switch_poll(s2.sw, s2.ivl, 2), 4);
    send_from(&s1, s1.g, fr);                       /* the next one is number 4 */
    assert_int_equal(zvs_switch_poll(s2.sw, s2.ivl, 3), 1);
    assert_int_equal(s2.g->nframes, 5);
    zvs_ivl_port_stats(s1.ivl, &st);
    assert_int_equal(st.link.tx_frames[ZVS_IVL_FLOOD], 5);
    zvs_ivl_port_stats(s2.ivl, &st);
    assert_int_equal(st.link.rx_frames[ZVS_IVL_FLOOD], 5);
    assert_int_equal(st.link.rx_lost, 0);
    assert_int_equal(st.link.rx_reordered, 0);
    sys_done(&s1);
    sys_done(&s2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_systems),
        cmocka_unit_test(alone_counts_discards),
        cmocka_unit_test(overrun_gives_numbers_back),
        cmocka_unit_test(mixed_burst_counts_each_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
