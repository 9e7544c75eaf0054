/* Runtime changes of a running switch, as CP commands make them: SET VSWITCH GRANT / a new
 * MAC or MACPROTECT of a coupled guest (zvs_switch_update_guest), SET VSWITCH SWITCHOVER
 * (zvs_switch_switchover) and UNCOUPLE / DETACH handing the port back
 * (zvs_switch_detach_port). Recording fake ports: exact frames on exact ports, exact MAC
 * table entries, exact counters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "fake_port.h"
#include "dataplane/mac_table.h"
#include "dataplane/switch.h"

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x01 };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x02 };
static const uint8_t MAC_C[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x03 };
static const uint8_t MAC_D[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x04 };
static const uint8_t MAC_X[6] = { 0x02, 0x00, 0x77, 0x00, 0x00, 0x01 };
static const uint8_t MAC_Y[6] = { 0x02, 0x00, 0x77, 0x00, 0x00, 0x02 };
static const uint8_t MAC_LAN[6] = { 0x00, 0x1B, 0x21, 0x00, 0x00, 0x01 };
static const uint8_t MAC_MCAST[6] = { 0x01, 0x00, 0x5E, 0x00, 0x00, 0x01 };
static const uint8_t SLOW_DST[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x02 };

#define CAPS (ZVS_CAP_CSUM | ZVS_CAP_GSO)

struct lab {
    struct zvs_switch *sw;
    struct fake_port  *up[3];           /* RDEVs 28BA 2902 2A00, attach order */
    struct fake_port  *a, *b, *c;       /* guests */
};

/* dst, src, optional 802.1Q tag, EtherType 0x0800, payload bytes 0..plen-1. */
static uint32_t build(uint8_t *buf, const uint8_t *dst, const uint8_t *src, int vid, uint32_t plen)
{
    uint32_t o = 12;
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    if (vid >= 0) {
        buf[o++] = 0x81;
        buf[o++] = 0x00;
        buf[o++] = (uint8_t)(vid >> 8);
        buf[o++] = (uint8_t)vid;
    }
    buf[o++] = 0x08;
    buf[o++] = 0x00;
    for (uint32_t i = 0; i < plen; i++)
        buf[o++] = (uint8_t)i;
    return o;
}

static void send1(struct lab *l, struct fake_port *from, const uint8_t *bytes, uint32_t len)
{
    struct zvs_frame f = { .data = bytes, .len = len };
    zvs_switch_input(l->sw, &from->port, &f, 1, 1);
}

static struct zvs_guest guest(const char *owner, const uint8_t *mac, bool macprotect,
                              enum zvs_vlan_porttype pt, uint16_t vid)
{
    struct zvs_guest g = { .macprotect = macprotect, .vdev = 0xF000 };
    strcpy(g.owner, owner);
    memcpy(g.mac, mac, 6);
    zvs_vlan_port_init(&g.vlan, pt, vid);
    return g;
}

/* Three RDEVs with carrier and three guests (MACPROTECT off) on ACCESS VLAN vid. */
static void lab_setup(struct lab *l, bool aware, uint16_t vid, uint32_t mac_capacity)
{
    struct zvs_switch_params p = { .name = "CCBVSW1", .mac_capacity = mac_capacity,
                                   .vlan = { .aware = aware, .native_vid = 1 } };
    static const char *const rdev[3] = { "28BA", "2902", "2A00" };

    memset(l, 0, sizeof(*l));
    l->sw = zvs_switch_create(&p);
    assert_non_null(l->sw);
    for (int i = 0; i < 3; i++) {
        l->up[i] = fake_port_new(rdev[i], CAPS, 1500);
        assert_int_equal(zvs_switch_add_uplink(l->sw, &l->up[i]->port), 0);
    }
    l->a = fake_port_new("LNXA.F000", CAPS, 1500);
    l->b = fake_port_new("LNXB.F000", CAPS, 1500);
    l->c = fake_port_new("LNXC.F000", CAPS, 1500);
    struct zvs_guest ga = guest("LNXA", MAC_A, false, ZVS_VLAN_ACCESS, vid);
    struct zvs_guest gb = guest("LNXB", MAC_B, false, ZVS_VLAN_ACCESS, vid);
    struct zvs_guest gc = guest("LNXC", MAC_C, false, ZVS_VLAN_ACCESS, vid);
    assert_int_equal(zvs_switch_add_guest(l->sw, &l->a->port, &ga), 0);
    assert_int_equal(zvs_switch_add_guest(l->sw, &l->b->port, &gb), 0);
    assert_int_equal(zvs_switch_add_guest(l->sw, &l->c->port, &gc), 0);
}

static int lookup(const struct lab *l, const uint8_t *mac, uint16_t vid)
{
    return zvs_mac_table_lookup(zvs_switch_mac_table(l->sw), mac, vid);
}

static struct zvs_mac_table_stats mac_stats(const struct lab *l)
{
    struct zvs_mac_table_stats st;
    zvs_mac_table_stats(zvs_switch_mac_table(l->sw), &st);
    return st;
}

static struct zvs_port *active(const struct lab *l)
{
    return zvs_switch_active_uplink(l->sw);
}

/* ---- zvs_switch_update_guest ------------------------------------------------------------- */

/* SET VSWITCH GRANT: A goes from ACCESS 10 to a TRUNK of 20 and 30. Its MAC leaves VLAN 10
 * and is registered on 20 and 30; B is untouched; frames follow the new VLANs. */
static void update_guest_moves_static_entries(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, true, 10, 0);
    uint16_t ia = l.a->port.index, ib = l.b->port.index;
    assert_int_equal(lookup(&l, MAC_A, 10), ia);

    struct zvs_guest g = guest("LNXA", MAC_A, false, ZVS_VLAN_TRUNK, 0);
    assert_int_equal(zvs_vlan_parse_set("20 30", &g.vlan), 0);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), 0);
    assert_int_equal(lookup(&l, MAC_A, 10), -1);
    assert_int_equal(lookup(&l, MAC_A, 20), ia);
    assert_int_equal(lookup(&l, MAC_A, 30), ia);
    assert_int_equal(lookup(&l, MAC_B, 10), ib);
    struct zvs_mac_table_stats st = mac_stats(&l);
    assert_int_equal(st.static_entries, 4);        /* A on 20 and 30, B and C on 10 */
    assert_int_equal(st.entries, 4);
    const struct zvs_guest *now = zvs_switch_guest(l.sw, &l.a->port);
    assert_non_null(now);
    assert_int_equal(now->vlan.porttype, ZVS_VLAN_TRUNK);
    assert_true(zvs_vlan_is_granted(&now->vlan, 20));
    assert_false(zvs_vlan_is_granted(&now->vlan, 10));

    /* From the LAN: VLAN 20 for A reaches A tagged; VLAN 10 for A no longer does. */
    uint32_t len = build(fr, MAC_A, MAC_LAN, 20, 46);
    send1(&l, l.up[0], fr, len);
    assert_int_equal(l.a->nframes, 1);
    assert_int_equal(l.a->frames[0].len, len);
    assert_memory_equal(l.a->frames[0].bytes, fr, len);
    len = build(fr, MAC_A, MAC_LAN, 10, 46);
    send1(&l, l.up[0], fr, len);
    assert_int_equal(l.a->nframes, 1);
    assert_int_equal(l.up[0]->port.ctr.drops[ZVS_DROP_FILTERED], 1);
    /* B to C on VLAN 10 as before (untagged on access ports). */
    len = build(fr, MAC_C, MAC_B, -1, 46);
    send1(&l, l.b, fr, len);
    assert_int_equal(l.c->nframes, 1);
    assert_memory_equal(l.c->frames[0].bytes, fr, len);
    /* A now sends tagged 30 to the LAN: allowed, out tagged on the uplink. */
    len = build(fr, MAC_LAN, MAC_A, 30, 46);
    send1(&l, l.a, fr, len);
    assert_int_equal(l.up[0]->nframes, 1);
    assert_memory_equal(l.up[0]->frames[0].bytes, fr, len);
    assert_int_equal(l.a->port.ctr.in_discards, 0);

    /* And back to ACCESS 10: the trunk entries go. */
    g = guest("LNXA", MAC_A, false, ZVS_VLAN_ACCESS, 10);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), 0);
    assert_int_equal(lookup(&l, MAC_A, 10), ia);
    assert_int_equal(lookup(&l, MAC_A, 20), -1);
    assert_int_equal(lookup(&l, MAC_A, 30), -1);
    assert_int_equal(mac_stats(&l).entries, 3);
    zvs_switch_destroy(l.sw);
}

/* The port's learned entries are flushed (MACPROTECT on); other ports' are kept. */
static void update_guest_flushes_learned_of_the_port(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 0);
    uint32_t len = build(fr, MAC_LAN, MAC_X, -1, 46);
    send1(&l, l.a, fr, len);                        /* A learns X */
    len = build(fr, MAC_LAN, MAC_Y, -1, 46);
    send1(&l, l.b, fr, len);                        /* B learns Y */
    assert_int_equal(lookup(&l, MAC_X, 0), l.a->port.index);
    assert_int_equal(mac_stats(&l).learned, 2);

    struct zvs_guest g = guest("LNXA", MAC_A, true, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), 0);
    assert_int_equal(lookup(&l, MAC_X, 0), -1);
    assert_int_equal(lookup(&l, MAC_Y, 0), l.b->port.index);
    assert_int_equal(lookup(&l, MAC_A, 0), l.a->port.index);
    struct zvs_mac_table_stats st = mac_stats(&l);
    assert_int_equal(st.learned, 1);
    assert_int_equal(st.static_entries, 3);
    assert_true(zvs_switch_guest(l.sw, &l.a->port)->macprotect);
    /* MACPROTECT holds A to its MAC now. */
    len = build(fr, MAC_LAN, MAC_X, -1, 46);
    send1(&l, l.a, fr, len);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_MACPROTECT], 1);
    assert_int_equal(lookup(&l, MAC_X, 0), -1);
    zvs_switch_destroy(l.sw);
}

/* A new assigned MAC: the old one is gone, the new one reaches A; a MAC another port only
 * learned is taken over. */
static void update_guest_new_mac(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 0);
    uint32_t len = build(fr, MAC_LAN, MAC_D, -1, 46);
    send1(&l, l.c, fr, len);                        /* C learns D */
    assert_int_equal(lookup(&l, MAC_D, 0), l.c->port.index);
    assert_int_equal(l.up[0]->nframes, 1);
    fake_port_reset(l.up[0]);

    struct zvs_guest g = guest("LNXA", MAC_D, true, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), 0);
    assert_int_equal(lookup(&l, MAC_A, 0), -1);
    assert_int_equal(lookup(&l, MAC_D, 0), l.a->port.index);
    struct zvs_mac_table_stats st = mac_stats(&l);
    assert_int_equal(st.static_entries, 3);
    assert_int_equal(st.learned, 0);
    assert_memory_equal(zvs_switch_guest(l.sw, &l.a->port)->mac, MAC_D, 6);

    len = build(fr, MAC_D, MAC_B, -1, 60);
    send1(&l, l.b, fr, len);
    assert_int_equal(l.a->nframes, 1);
    assert_memory_equal(l.a->frames[0].bytes, fr, len);
    assert_int_equal(l.c->nframes, 0);
    len = build(fr, MAC_A, MAC_B, -1, 60);          /* the old MAC: unknown, to the LAN */
    send1(&l, l.b, fr, len);
    assert_int_equal(l.a->nframes, 1);
    assert_int_equal(l.up[0]->nframes, 1);
    assert_memory_equal(l.up[0]->frames[0].bytes, fr, len);
    /* A sending from its old MAC is now a MACPROTECT violation. */
    len = build(fr, MAC_LAN, MAC_A, -1, 46);
    send1(&l, l.a, fr, len);
    assert_int_equal(l.a->port.ctr.drops[ZVS_DROP_MACPROTECT], 1);
    zvs_switch_destroy(l.sw);
}

/* Refusals change nothing: not a guest, another guest's MAC, a bad MAC, no room. */
static void update_guest_refusals_change_nothing(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, true, 10, 6);
    uint32_t len = build(fr, MAC_LAN, MAC_X, -1, 46);
    send1(&l, l.a, fr, len);                        /* A learns X on 10 */
    uint16_t ia = l.a->port.index;
    const struct zvs_guest before = *zvs_switch_guest(l.sw, &l.a->port);

    struct zvs_guest g = guest("LNXA", MAC_B, false, ZVS_VLAN_ACCESS, 10);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), -EEXIST);
    g = guest("LNXA", MAC_A, false, ZVS_VLAN_TRUNK, 0);   /* B's MAC on one of the VIDs */
    assert_int_equal(zvs_vlan_parse_set("5 10", &g.vlan), 0);
    memcpy(g.mac, MAC_B, 6);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), -EEXIST);
    g = guest("LNXA", MAC_MCAST, false, ZVS_VLAN_ACCESS, 10);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), -EINVAL);
    g = guest("LNXA", MAC_A, false, ZVS_VLAN_ACCESS, 4095);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), -EINVAL);
    /* 4 entries of 6: a trunk of 4 VIDs needs 4 and frees 1: 7 */
    g = guest("LNXA", MAC_A, false, ZVS_VLAN_TRUNK, 0);
    assert_int_equal(zvs_vlan_parse_set("20-23", &g.vlan), 0);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), -ENOSPC);
    /* not a guest of this switch */
    struct fake_port *stray = fake_port_new("STRAY", CAPS, 1500);
    stray->port.index = ia;
    assert_int_equal(zvs_switch_update_guest(l.sw, &stray->port, &g), -ENOENT);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.up[0]->port, &g), -ENOENT);
    stray->port.ops->destroy(&stray->port);

    assert_int_equal(lookup(&l, MAC_A, 10), ia);
    assert_int_equal(lookup(&l, MAC_X, 10), ia);   /* learned entry not flushed */
    assert_int_equal(lookup(&l, MAC_B, 10), l.b->port.index);
    assert_int_equal(lookup(&l, MAC_B, 5), -1);
    struct zvs_mac_table_stats st = mac_stats(&l);
    assert_int_equal(st.entries, 4);
    assert_int_equal(st.refused_full, 0);
    const struct zvs_guest *now = zvs_switch_guest(l.sw, &l.a->port);
    assert_memory_equal(now->mac, before.mac, 6);
    assert_int_equal(now->macprotect, before.macprotect);
    assert_int_equal(now->vlan.porttype, before.vlan.porttype);
    assert_int_equal(now->vlan.access_vid, before.vlan.access_vid);
    assert_memory_equal(now->vlan.granted, before.vlan.granted, sizeof(before.vlan.granted));

    /* Three VIDs fit exactly (4 - 1 - 1 learned flushed + 3 = 5 <= 6; counted as 6). */
    g = guest("LNXA", MAC_A, false, ZVS_VLAN_TRUNK, 0);
    assert_int_equal(zvs_vlan_parse_set("20-22", &g.vlan), 0);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), 0);
    st = mac_stats(&l);
    assert_int_equal(st.entries, 5);
    assert_int_equal(st.static_entries, 5);
    assert_int_equal(lookup(&l, MAC_A, 22), ia);
    /* B's MAC on another VLAN is a different key (independent VLAN learning), as for a
     * couple: allowed. */
    g = guest("LNXA", MAC_B, false, ZVS_VLAN_ACCESS, 40);
    assert_int_equal(zvs_switch_update_guest(l.sw, &l.a->port, &g), 0);
    assert_int_equal(lookup(&l, MAC_B, 40), ia);
    assert_int_equal(lookup(&l, MAC_B, 10), l.b->port.index);
    assert_int_equal(mac_stats(&l).entries, 3);
    zvs_switch_destroy(l.sw);
}

/* ---- zvs_switch_switchover --------------------------------------------------------------- */

/* SWITCHOVER AVAILABLE walks the RDEVs in attach order, wrapping, skipping those without
 * carrier; traffic follows. */
static void switchover_available_walks_the_rdevs(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 0);
    assert_ptr_equal(active(&l), &l.up[0]->port);
    assert_int_equal(zvs_switch_switchover(l.sw, NULL), 0);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    assert_int_equal(zvs_switch_switchover(l.sw, NULL), 0);
    assert_ptr_equal(active(&l), &l.up[2]->port);
    assert_int_equal(zvs_switch_switchover(l.sw, NULL), 0);
    assert_ptr_equal(active(&l), &l.up[0]->port);  /* wrapped */
    zvs_switch_set_carrier(l.sw, &l.up[1]->port, false);
    assert_ptr_equal(active(&l), &l.up[0]->port);
    assert_int_equal(zvs_switch_switchover(l.sw, NULL), 0);
    assert_ptr_equal(active(&l), &l.up[2]->port);  /* 2902 has no carrier */

    uint32_t len = build(fr, MAC_LAN, MAC_A, -1, 46);
    send1(&l, l.a, fr, len);
    assert_int_equal(l.up[2]->nframes, 1);
    assert_memory_equal(l.up[2]->frames[0].bytes, fr, len);
    assert_int_equal(l.up[0]->nframes + l.up[1]->nframes, 0);
    assert_int_equal(l.up[1]->port.ctr.out_discards, 0);
    zvs_switch_destroy(l.sw);
}

/* A forced RDEV keeps the traffic through other ports' carrier events; when it loses
 * carrier the switch fails over again, and the usual rule applies from then on. */
static void switchover_forced_is_sticky_until_carrier_loss(void **state)
{
    struct lab l;
    uint8_t fr[128];
    lab_setup(&l, false, 1, 0);
    uint32_t len = build(fr, MAC_LAN, MAC_A, -1, 46);

    assert_int_equal(zvs_switch_switchover(l.sw, &l.up[1]->port), 0);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    zvs_switch_set_carrier(l.sw, &l.up[0]->port, false);
    zvs_switch_set_carrier(l.sw, &l.up[0]->port, true);    /* the primary returns */
    assert_ptr_equal(active(&l), &l.up[1]->port);
    zvs_switch_set_carrier(l.sw, &l.up[2]->port, false);
    zvs_switch_set_carrier(l.sw, &l.up[2]->port, true);
    zvs_switch_set_carrier(l.sw, &l.a->port, false);        /* a guest's carrier, too */
    zvs_switch_set_carrier(l.sw, &l.a->port, true);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    struct fake_port *late = fake_port_new("2B00", CAPS, 1500);    /* a fourth RDEV */
    assert_int_equal(zvs_switch_add_uplink(l.sw, &late->port), 0);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    send1(&l, l.a, fr, len);
    assert_int_equal(l.up[1]->nframes, 1);

    /* The forced RDEV loses carrier: failover to the first with carrier. */
    zvs_switch_set_carrier(l.sw, &l.up[1]->port, false);
    assert_ptr_equal(active(&l), &l.up[0]->port);
    send1(&l, l.a, fr, len);
    assert_int_equal(l.up[0]->nframes, 1);
    assert_memory_equal(l.up[0]->frames[0].bytes, fr, len);
    assert_int_equal(l.up[1]->nframes, 1);
    assert_int_equal(l.up[1]->port.ctr.out_discards, 0);
    /* It returns: no longer forced, the primary keeps the traffic. */
    zvs_switch_set_carrier(l.sw, &l.up[1]->port, true);
    assert_ptr_equal(active(&l), &l.up[0]->port);
    /* Plain failover and preemption again. */
    zvs_switch_set_carrier(l.sw, &l.up[0]->port, false);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    zvs_switch_set_carrier(l.sw, &l.up[0]->port, true);
    assert_ptr_equal(active(&l), &l.up[0]->port);

    /* Forced onto the last one, which then fails: the first with carrier again. */
    assert_int_equal(zvs_switch_switchover(l.sw, &late->port), 0);
    zvs_switch_set_carrier(l.sw, &l.up[0]->port, false);
    assert_ptr_equal(active(&l), &late->port);
    zvs_switch_set_carrier(l.sw, &late->port, false);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    zvs_switch_destroy(l.sw);
}

static void switchover_refusals(void **state)
{
    struct lab l;
    lab_setup(&l, false, 1, 0);
    struct fake_port *member = fake_port_new("2C00", CAPS, 1500);
    assert_int_equal(zvs_switch_add_group_port(l.sw, &member->port), 0);
    struct fake_port *stray = fake_port_new("2D00", CAPS, 1500);
    stray->port.index = l.up[1]->port.index;       /* looks like a slot it does not own */

    assert_int_equal(zvs_switch_switchover(l.sw, &l.a->port), -EINVAL);
    assert_int_equal(zvs_switch_switchover(l.sw, &member->port), -EINVAL);
    assert_int_equal(zvs_switch_switchover(l.sw, &stray->port), -EINVAL);
    assert_int_equal(zvs_switch_switchover(l.sw, &l.up[0]->port), -EALREADY);
    zvs_switch_set_carrier(l.sw, &l.up[2]->port, false);
    assert_int_equal(zvs_switch_switchover(l.sw, &l.up[2]->port), -ENETDOWN);
    zvs_switch_set_carrier(l.sw, &l.up[1]->port, false);
    assert_int_equal(zvs_switch_switchover(l.sw, NULL), -ENODEV);
    assert_ptr_equal(active(&l), &l.up[0]->port);
    stray->port.ops->destroy(&stray->port);
    zvs_switch_destroy(l.sw);

    /* One RDEV, and none at all. */
    struct zvs_switch_params p = { .name = "VSW2" };
    struct zvs_switch *sw = zvs_switch_create(&p);
    assert_non_null(sw);
    assert_int_equal(zvs_switch_switchover(sw, NULL), -ENODEV);
    struct fake_port *only = fake_port_new("28BA", CAPS, 1500);
    assert_int_equal(zvs_switch_add_uplink(sw, &only->port), 0);
    assert_int_equal(zvs_switch_switchover(sw, NULL), -ENODEV);
    assert_int_equal(zvs_switch_switchover(sw, &only->port), -EALREADY);
    assert_ptr_equal(zvs_switch_active_uplink(sw), &only->port);
    zvs_switch_destroy(sw);
}

/* The forced RDEV detached: the forcing ends with it. */
static void switchover_forced_rdev_detached(void **state)
{
    struct lab l;
    int destroyed = 0;
    lab_setup(&l, false, 1, 0);
    l.up[2]->destroyed = &destroyed;
    assert_int_equal(zvs_switch_switchover(l.sw, &l.up[2]->port), 0);
    assert_ptr_equal(zvs_switch_detach_port(l.sw, &l.up[2]->port), &l.up[2]->port);
    assert_int_equal(destroyed, 0);
    assert_ptr_equal(active(&l), &l.up[0]->port);
    zvs_switch_set_carrier(l.sw, &l.up[0]->port, false);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    zvs_switch_set_carrier(l.sw, &l.up[0]->port, true);
    assert_ptr_equal(active(&l), &l.up[0]->port);  /* preemption: not forced any more */
    /* Re-attached: the last backup, not active. */
    assert_int_equal(zvs_switch_add_uplink(l.sw, &l.up[2]->port), 0);
    assert_ptr_equal(active(&l), &l.up[0]->port);
    assert_int_equal(zvs_switch_switchover(l.sw, NULL), 0);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    zvs_switch_destroy(l.sw);
    assert_int_equal(destroyed, 1);
}

/* ---- zvs_switch_detach_port --------------------------------------------------------------- */

/* UNCOUPLE: the guest's port comes back to the caller alive; COUPLE again works. */
static void detach_guest_hands_the_port_back(void **state)
{
    struct lab l;
    uint8_t fr[128];
    int destroyed = 0;
    lab_setup(&l, false, 1, 0);
    l.a->destroyed = &destroyed;
    uint32_t len = build(fr, MAC_LAN, MAC_X, -1, 46);
    send1(&l, l.a, fr, len);                        /* A learns X */
    uint16_t ia = l.a->port.index;
    assert_int_equal(l.up[0]->nframes, 1);
    fake_port_reset(l.up[0]);

    assert_ptr_equal(zvs_switch_detach_port(l.sw, &l.a->port), &l.a->port);
    assert_int_equal(destroyed, 0);
    assert_null(zvs_switch_port(l.sw, ia));
    assert_null(zvs_switch_guest(l.sw, &l.a->port));
    assert_int_equal(lookup(&l, MAC_A, 0), -1);
    assert_int_equal(lookup(&l, MAC_X, 0), -1);
    assert_int_equal(mac_stats(&l).entries, 2);
    assert_null(zvs_switch_detach_port(l.sw, &l.a->port));
    assert_int_equal(zvs_switch_remove_port(l.sw, &l.a->port), -ENOENT);
    for (struct zvs_port *p = zvs_switch_next_port(l.sw, NULL); p; p = zvs_switch_next_port(l.sw, p))
        assert_ptr_not_equal(p, &l.a->port);
    /* B to A's MAC: unknown now, to the LAN; a broadcast reaches C only. */
    len = build(fr, MAC_A, MAC_B, -1, 46);
    send1(&l, l.b, fr, len);
    assert_int_equal(l.up[0]->nframes, 1);
    len = build(fr, MAC_MCAST, MAC_B, -1, 46);
    send1(&l, l.b, fr, len);
    assert_int_equal(l.c->nframes, 1);
    assert_int_equal(l.a->nframes, 0);

    /* COUPLE again: same port, frames reach it. */
    struct zvs_guest g = guest("LNXA", MAC_A, true, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_add_guest(l.sw, &l.a->port, &g), 0);
    len = build(fr, MAC_A, MAC_B, -1, 50);
    send1(&l, l.b, fr, len);
    assert_int_equal(l.a->nframes, 1);
    assert_memory_equal(l.a->frames[0].bytes, fr, len);
    zvs_switch_destroy(l.sw);
    assert_int_equal(destroyed, 1);
}

/* DETACH of the active RDEV: the next takes over; the port is the caller's. */
static void detach_active_uplink_fails_over(void **state)
{
    struct lab l;
    uint8_t fr[128];
    int destroyed = 0;
    lab_setup(&l, false, 1, 0);
    struct fake_port *gone = l.up[0];
    gone->destroyed = &destroyed;
    assert_ptr_equal(zvs_switch_detach_port(l.sw, &gone->port), &gone->port);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    uint32_t len = build(fr, MAC_LAN, MAC_A, -1, 46);
    send1(&l, l.a, fr, len);
    assert_int_equal(l.up[1]->nframes, 1);
    assert_int_equal(gone->nframes, 0);
    assert_int_equal(destroyed, 0);
    /* SWITCHOVER AVAILABLE sees the two left. */
    assert_int_equal(zvs_switch_switchover(l.sw, NULL), 0);
    assert_ptr_equal(active(&l), &l.up[2]->port);
    assert_int_equal(zvs_switch_switchover(l.sw, NULL), 0);
    assert_ptr_equal(active(&l), &l.up[1]->port);
    zvs_switch_destroy(l.sw);
    assert_int_equal(destroyed, 0);
    gone->port.ops->destroy(&gone->port);
    assert_int_equal(destroyed, 1);
}

/* A detach from the Slow Protocols handler: the handler runs after the burst's frames
 * are written, so what the burst queued for the port reaches it first; the frames after
 * the detach find it gone. */
struct in_burst {
    struct zvs_switch *sw;
    struct zvs_port   *victim;
    struct zvs_port   *got;             /* what detach returned */
    bool               remove;          /* remove (destroy) instead of detach */
    int                calls;
    int                victim_frames;   /* frames the victim had when the handler ran */
};

static void on_slow_detach(void *arg, struct zvs_port *port, const struct zvs_frame *f, uint64_t now)
{
    struct in_burst *b = arg;
    b->calls++;
    b->victim_frames = ((struct fake_port *)b->victim)->nframes;
    if (b->remove)
        assert_int_equal(zvs_switch_remove_port(b->sw, b->victim), 0);
    else
        b->got = zvs_switch_detach_port(b->sw, b->victim);
}

static void detach_from_the_slow_handler_after_the_burst(void **state)
{
    struct lab l;
    uint8_t fr[4][128];
    uint32_t len[4];
    struct zvs_frame f[4];
    int destroyed = 0;
    lab_setup(&l, false, 1, 0);
    struct in_burst ib = { .sw = l.sw, .victim = &l.a->port };
    zvs_switch_set_slow_handler(l.sw, on_slow_detach, &ib);

    len[0] = build(fr[0], MAC_A, MAC_LAN, -1, 46);  /* for A */
    len[1] = build(fr[1], MAC_A, MAC_LAN, -1, 47);  /* for A */
    len[2] = build(fr[2], SLOW_DST, MAC_LAN, -1, 110);
    fr[2][12] = 0x88;
    fr[2][13] = 0x09;                               /* LACP: the handler detaches A */
    len[3] = build(fr[3], MAC_B, MAC_LAN, -1, 48);
    for (int i = 0; i < 4; i++)
        f[i] = (struct zvs_frame){ .data = fr[i], .len = len[i] };
    zvs_switch_input(l.sw, &l.up[0]->port, f, 4, 1);
    assert_int_equal(ib.calls, 1);
    assert_ptr_equal(ib.got, &l.a->port);
    assert_int_equal(ib.victim_frames, 2);          /* written before the handler ran */
    assert_int_equal(l.a->nframes, 2);
    assert_memory_equal(l.a->frames[0].bytes, fr[0], len[0]);
    assert_memory_equal(l.a->frames[1].bytes, fr[1], len[1]);
    assert_int_equal(l.a->tx_calls, 1);
    assert_int_equal(l.a->flushes, 1);
    assert_int_equal(l.a->port.ctr.out_discards, 0);
    assert_int_equal(l.a->port.ctr.out_packets, 2);
    assert_int_equal(l.b->nframes, 1);
    assert_memory_equal(l.b->frames[0].bytes, fr[3], len[3]);
    assert_int_equal(l.b->flushes, 1);
    assert_null(zvs_switch_port(l.sw, l.a->port.index));

    /* The same with remove: B is destroyed by the handler after its frame was written,
     * and nothing touches it afterwards (ASan / valgrind would tell). */
    l.b->destroyed = &destroyed;
    ib = (struct in_burst){ .sw = l.sw, .victim = &l.b->port, .remove = true };
    len[0] = build(fr[0], MAC_B, MAC_LAN, -1, 46);
    len[3] = build(fr[3], MAC_C, MAC_LAN, -1, 48);
    for (int i = 0; i < 4; i++)
        f[i] = (struct zvs_frame){ .data = fr[i], .len = len[i] };
    zvs_switch_input(l.sw, &l.up[0]->port, f, 4, 2);
    assert_int_equal(ib.calls, 1);
    assert_int_equal(ib.victim_frames, 2);          /* frame 0 after the first burst's */
    assert_int_equal(destroyed, 1);
    assert_int_equal(l.c->nframes, 1);
    assert_memory_equal(l.c->frames[0].bytes, fr[3], len[3]);
    /* frame 1 is for A, no longer coupled */
    assert_int_equal(l.up[0]->port.ctr.drops[ZVS_DROP_FILTERED], 1);
    /* the next burst finds B gone */
    zvs_switch_input(l.sw, &l.up[0]->port, f, 1, 3);
    assert_int_equal(l.up[0]->port.ctr.drops[ZVS_DROP_FILTERED], 2);
    zvs_switch_destroy(l.sw);
    l.a->port.ops->destroy(&l.a->port);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(update_guest_moves_static_entries),
        cmocka_unit_test(update_guest_flushes_learned_of_the_port),
        cmocka_unit_test(update_guest_new_mac),
        cmocka_unit_test(update_guest_refusals_change_nothing),
        cmocka_unit_test(switchover_available_walks_the_rdevs),
        cmocka_unit_test(switchover_forced_is_sticky_until_carrier_loss),
        cmocka_unit_test(switchover_refusals),
        cmocka_unit_test(switchover_forced_rdev_detached),
        cmocka_unit_test(detach_guest_hands_the_port_back),
        cmocka_unit_test(detach_active_uplink_fails_over),
        cmocka_unit_test(detach_from_the_slow_handler_after_the_burst),
    };
    return cmocka_run_group_tests_name("switch_runtime", tests, NULL, NULL);
}
