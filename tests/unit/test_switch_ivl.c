/* The IVL port of a Global VSWITCH in the switch core (dataplane/forward.c, the rule of
 * ivl/forward_rule.h carried out on frames): recording fake ports for two guests, one port
 * group member and the IVL port; each case checks where a frame went, with which kind, and
 * that nothing goes back over the IVL or twice to anyone. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "fake_port.h"
#include "dataplane/distribution.h"
#include "dataplane/switch.h"

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x01 };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x02 };
static const uint8_t MAC_R[6] = { 0x02, 0x00, 0x0D, 0x00, 0x02, 0x01 };    /* remote guest */
static const uint8_t MAC_LAN[6] = { 0x00, 0x1B, 0x21, 0x00, 0x00, 0x01 };
static const uint8_t MAC_BCAST[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

struct lab {
    struct zvs_switch *sw;
    struct fake_port  *m, *a, *b, *ivl;   /* member, guests, IVL port */
    struct zvs_pg_map  map;
    struct zvs_pg_dist dist;
};

static uint32_t build(uint8_t *buf, const uint8_t *dst, const uint8_t *src)
{
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    buf[12] = 0x08;
    buf[13] = 0x00;
    memset(buf + 14, 0x5A, 46);
    return 60;
}

static void send1(struct lab *l, struct fake_port *from, const uint8_t *bytes, uint8_t ivl)
{
    struct zvs_frame f = { .data = bytes, .len = 60, .ivl = ivl };
    zvs_switch_input(l->sw, &from->port, &f, 1, 1);
}

static void add_guest(struct lab *l, struct fake_port *p, const char *owner, const uint8_t *mac)
{
    struct zvs_guest g = { .macprotect = true, .vdev = 0xF000 };
    strcpy(g.owner, owner);
    memcpy(g.mac, mac, 6);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_add_guest(l->sw, &p->port, &g), 0);
}

/* The member distributes every bucket (distributing) or none. */
static void member_distributes(struct lab *l, bool on)
{
    struct zvs_pg_map *m = &l->map;
    uint16_t port = on ? l->m->port.index : ZVS_PG_NO_PORT;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        m->bucket_port[b] = port;
    m->flood_port = port;
    for (unsigned k = 0; k < ZVS_PG_MAX_MEMBERS; k++)
        l->dist.member_port[k] = k == 0 ? port : ZVS_PG_NO_PORT;
    __atomic_store_n(&l->dist.live, m, __ATOMIC_RELEASE);
}

static void lab_setup(struct lab *l)
{
    memset(l, 0, sizeof *l);
    struct zvs_switch_params p = { .name = "GLOBSW", .vlan = { .aware = false } };
    l->sw = zvs_switch_create(&p);
    assert_non_null(l->sw);
    l->m = fake_port_new("28BA", 0, 1500);
    l->a = fake_port_new("LNXA.F000", 0, 1500);
    l->b = fake_port_new("LNXB.F000", 0, 1500);
    l->ivl = fake_port_new("IVL", 0, 1500);
    assert_int_equal(zvs_switch_add_group_port(l->sw, &l->m->port), 0);
    zvs_switch_set_collecting(l->sw, &l->m->port, true);
    add_guest(l, l->a, "LNXA", MAC_A);
    add_guest(l, l->b, "LNXB", MAC_B);
    assert_int_equal(zvs_switch_add_ivl_port(l->sw, &l->ivl->port), 0);
    assert_int_equal(zvs_switch_add_ivl_port(l->sw, &l->ivl->port), -EEXIST);
    l->dist.hash = ZVS_PG_HASH_DST;
    member_distributes(l, true);
    zvs_switch_set_group(l->sw, &l->dist);
}

static void lab_reset(struct lab *l)
{
    fake_port_reset(l->m);
    fake_port_reset(l->a);
    fake_port_reset(l->b);
    fake_port_reset(l->ivl);
}

static void lab_done(struct lab *l)
{
    zvs_switch_set_group(l->sw, NULL);
    zvs_switch_destroy(l->sw);
}

/* A guest's broadcast: the other guest, the member, and FLOOD from a guest to the other
 * systems; with no member distributing, also OUTBOUND for another system's members. */
static void guest_broadcast(void **state)
{
    struct lab l;
    uint8_t fr[64];
    lab_setup(&l);
    build(fr, MAC_BCAST, MAC_A);
    send1(&l, l.a, fr, 0);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.m->nframes, 1);
    assert_int_equal(l.ivl->nframes, 1);
    assert_int_equal(l.ivl->frames[0].ivl, ZVS_FIVL_FLOOD | ZVS_FIVL_GUEST_SRC);
    assert_int_equal(l.a->nframes, 0);
    lab_reset(&l);
    member_distributes(&l, false);
    send1(&l, l.a, fr, 0);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.m->nframes, 0);
    assert_int_equal(l.ivl->nframes, 2);
    assert_int_equal(l.ivl->frames[0].ivl, ZVS_FIVL_FLOOD | ZVS_FIVL_GUEST_SRC);
    assert_int_equal(l.ivl->frames[1].ivl, ZVS_FIVL_OUTBOUND | ZVS_FIVL_GUEST_SRC);
    lab_done(&l);
}

/* A guest's frame for the LAN leaves on the member; with none distributing, OUTBOUND. */
static void guest_to_lan(void **state)
{
    struct lab l;
    uint8_t fr[64];
    lab_setup(&l);
    build(fr, MAC_LAN, MAC_A);
    send1(&l, l.a, fr, 0);
    assert_int_equal(l.m->nframes, 1);
    assert_int_equal(l.ivl->nframes, 0);
    lab_reset(&l);
    member_distributes(&l, false);
    send1(&l, l.a, fr, 0);
    assert_int_equal(l.m->nframes, 0);
    assert_int_equal(l.ivl->nframes, 1);
    assert_int_equal(l.ivl->frames[0].ivl, ZVS_FIVL_OUTBOUND | ZVS_FIVL_GUEST_SRC);
    lab_done(&l);
}

/* A remote guest is learned from a frame its system marks GUEST_SRC; then our guest's
 * unicast to it and the LAN's (hashed onto our member) cross as INBOUND, once. */
static void remote_guest_learned(void **state)
{
    struct lab l;
    uint8_t fr[64];
    lab_setup(&l);
    build(fr, MAC_BCAST, MAC_R);        /* the remote guest's ARP, flooded to us */
    send1(&l, l.ivl, fr, ZVS_FIVL_FLOOD | ZVS_FIVL_GUEST_SRC);
    assert_int_equal(l.a->nframes, 1);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.m->nframes, 0);  /* never back out: its own system sent it there */
    assert_int_equal(l.ivl->nframes, 0);
    lab_reset(&l);
    build(fr, MAC_R, MAC_A);
    send1(&l, l.a, fr, 0);
    assert_int_equal(l.ivl->nframes, 1);
    assert_int_equal(l.ivl->frames[0].ivl, ZVS_FIVL_INBOUND | ZVS_FIVL_GUEST_SRC);
    assert_int_equal(l.m->nframes, 0);
    lab_reset(&l);
    build(fr, MAC_R, MAC_LAN);
    send1(&l, l.m, fr, 0);
    assert_int_equal(l.ivl->nframes, 1);
    assert_int_equal(l.ivl->frames[0].ivl, ZVS_FIVL_INBOUND);
    assert_int_equal(l.a->nframes + l.b->nframes, 0);
    lab_done(&l);
}

/* From the LAG: a broadcast reaches our guests and, as FLOOD (not a guest's), the others;
 * a unicast for nobody we know crosses as FLOOD for the system that has it. */
static void lag_broadcast_and_unknown(void **state)
{
    struct lab l;
    uint8_t fr[64];
    lab_setup(&l);
    build(fr, MAC_BCAST, MAC_LAN);
    send1(&l, l.m, fr, 0);
    assert_int_equal(l.a->nframes, 1);
    assert_int_equal(l.b->nframes, 1);
    assert_int_equal(l.ivl->nframes, 1);
    assert_int_equal(l.ivl->frames[0].ivl, ZVS_FIVL_FLOOD);
    assert_int_equal(l.m->nframes, 0);
    lab_reset(&l);
    build(fr, MAC_R, MAC_LAN);
    send1(&l, l.m, fr, 0);
    assert_int_equal(l.ivl->nframes, 1);
    assert_int_equal(l.ivl->frames[0].ivl, ZVS_FIVL_FLOOD);
    lab_done(&l);
}

/* From the IVL: OUTBOUND out of the member only (none: dropped, counted), INBOUND to the
 * guest only, FLOOD to the guests only; a LAN source (no GUEST_SRC) is not learned. */
static void from_the_ivl(void **state)
{
    struct lab l;
    uint8_t fr[64];
    lab_setup(&l);
    build(fr, MAC_LAN, MAC_R);
    send1(&l, l.ivl, fr, ZVS_FIVL_OUTBOUND | ZVS_FIVL_GUEST_SRC);
    assert_int_equal(l.m->nframes, 1);
    assert_int_equal(l.a->nframes + l.b->nframes + l.ivl->nframes, 0);
    lab_reset(&l);
    build(fr, MAC_BCAST, MAC_R);        /* an OUTBOUND broadcast: the member only */
    send1(&l, l.ivl, fr, ZVS_FIVL_OUTBOUND | ZVS_FIVL_GUEST_SRC);
    assert_int_equal(l.m->nframes, 1);
    assert_int_equal(l.a->nframes + l.b->nframes + l.ivl->nframes, 0);
    lab_reset(&l);
    member_distributes(&l, false);
    build(fr, MAC_LAN, MAC_R);
    send1(&l, l.ivl, fr, ZVS_FIVL_OUTBOUND | ZVS_FIVL_GUEST_SRC);
    assert_int_equal(l.m->nframes + l.ivl->nframes, 0);
    assert_int_equal(l.ivl->port.ctr.drops[ZVS_DROP_NO_UPLINK], 1);
    lab_reset(&l);
    build(fr, MAC_A, MAC_LAN);
    send1(&l, l.ivl, fr, ZVS_FIVL_INBOUND);
    assert_int_equal(l.a->nframes, 1);
    assert_int_equal(l.b->nframes + l.m->nframes + l.ivl->nframes, 0);
    lab_reset(&l);
    build(fr, MAC_LAN, MAC_A);          /* the LAN station was not learned on the IVL */
    send1(&l, l.a, fr, 0);
    assert_int_equal(l.ivl->nframes, 1);            /* no member: OUTBOUND, not INBOUND */
    assert_int_equal(l.ivl->frames[0].ivl, ZVS_FIVL_OUTBOUND | ZVS_FIVL_GUEST_SRC);
    lab_reset(&l);
    build(fr, MAC_R, MAC_LAN);          /* INBOUND for a guest we do not have: filtered */
    send1(&l, l.ivl, fr, ZVS_FIVL_INBOUND);
    assert_int_equal(l.a->nframes + l.b->nframes + l.m->nframes + l.ivl->nframes, 0);
    assert_int_equal(l.ivl->port.ctr.drops[ZVS_DROP_FILTERED], 1);
    lab_done(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(guest_broadcast),
        cmocka_unit_test(guest_to_lan),
        cmocka_unit_test(remote_guest_learned),
        cmocka_unit_test(lag_broadcast_and_unknown),
        cmocka_unit_test(from_the_ivl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
