/* Remote VTEPs by host name (overlay/vtep_names.c) on the in-memory resolver: a remote
 * named vtep2.lab carries traffic once it resolves, its DNS record changed under traffic
 * moves the next burst to the new address (the MACs learned behind it kept), a name that
 * stops existing floods its traffic to the others, and a literal is never looked up. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "names/resolver_mem.h"
#include "overlay/vtep_names.h"
#include "tests/unit/vxlan_frames.h"

#define MS UINT64_C(1000000)
#define S  (1000 * MS)

static void on_event(void *arg, const struct zvs_name *n, enum zvs_name_event ev,
                     const struct zvs_res_addr *old, unsigned nold, uint64_t now)
{
    zvs_vtep_name_event(n->user, n);
}

struct lab {
    struct zvs_names    *names;
    struct zvs_resolver *res;
    struct zvs_vtep     *v;
    int                  named, lit;
};

static void lab_setup(struct lab *l)
{
    struct zvs_names_params p = { .event = on_event };
    struct zvs_vtep_config c = { .local = vf_ip4(10, 0, 0, 1) };
    const uint8_t mac[6] = { 0x02, 0xaa, 0, 0, 0, 9 };

    l->names = zvs_names_create(&p);
    assert_non_null(l->names);
    l->res = zvs_resolver_mem_create(zvs_names_answer, l->names);
    zvs_names_set_resolver(l->names, l->res, 0);
    l->v = zvs_vtep_create(&c);
    assert_int_equal(zvs_vtep_map_vni(l->v, 0, 5000), 0);
    const char *a1[] = { "2001:db8::2", "10.0.0.2" };
    assert_int_equal(zvs_resolver_mem_set(l->res, "vtep2.lab", a1, 2, 30), 0);
    /* Every next hop static: the test is about addresses, not ARP. */
    for (uint8_t h = 2; h <= 9; h++) {
        struct zvs_ipaddr ip = vf_ip4(10, 0, 0, h);
        assert_int_equal(zvs_uarp_set_static(zvs_vtep_uarp(l->v), &ip, mac), 0);
    }
    l->named = zvs_vtep_add_remote_name(l->v, l->names, "VTEP2.lab.", 0);
    l->lit = zvs_vtep_add_remote_name(l->v, l->names, "10.0.0.3", 0);
    assert_true(l->named >= 0 && l->lit >= 0);
}

static void lab_teardown(struct lab *l)
{
    zvs_vtep_destroy(l->v);
    zvs_names_destroy(l->names);
}

/* Where a unicast to MAC 02:..:02 goes now (the remote's address's last byte), or 0. */
static int dest_of(struct lab *l, uint64_t now, const uint8_t *dst)
{
    static struct zvs_vtep_tx tx[8];
    uint8_t f[80], src[6];
    vf_mac(src, 1);
    vf_tcp(f, sizeof f, dst, src, 1);
    struct zvs_frame in = vf_frame(f, 80, 0);
    int k = zvs_vtep_encap_burst(l->v, &in, 1, now, tx, 8, NULL);
    return k == 1 ? tx[0].hdr[14 + 19] : -k;
}

static void run_until(struct lab *l, uint64_t now)
{
    zvs_names_run(l->names, now);
    zvs_names_run(l->names, now + 2 * MS);      /* the answers, 1 ms after the queries */
}

static void test_name_resolves_then_moves(void **state)
{
    struct lab l;
    uint8_t m2[6];
    lab_setup(&l);
    vf_mac(m2, 2);

    const struct zvs_vtep_remote *r = zvs_vtep_remote(l.v, (unsigned)l.named);
    assert_string_equal(r->name, "vtep2.lab");
    assert_int_equal(r->state, ZVS_VTEP_REMOTE_RESOLVING);
    assert_int_equal(zvs_vtep_remote(l.v, (unsigned)l.lit)->state, ZVS_VTEP_REMOTE_ACTIVE);
    assert_null(zvs_names_find(l.names, "10.0.0.3"));   /* literals are not watched */

    run_until(&l, 1 * MS);
    assert_int_equal(r->state, ZVS_VTEP_REMOTE_ACTIVE);
    assert_int_equal(r->addr.family, 4);                 /* the VTEP's family, not the first */
    assert_int_equal(r->addr.a[3], 2);
    assert_int_equal(zvs_vtep_fdb_add_static(zvs_vtep_fdb(l.v), m2, 5000,
                                             (uint16_t)l.named), 0);
    assert_int_equal(dest_of(&l, 10 * MS, m2), 2);

    /* The record changes; at the TTL's end the next lookup moves the traffic. */
    const char *a2[] = { "10.0.0.9" };
    assert_int_equal(zvs_resolver_mem_set(l.res, "vtep2.lab", a2, 1, 30), 0);
    run_until(&l, 20 * S);
    assert_int_equal(dest_of(&l, 20 * S, m2), 2);        /* TTL not over: still .2 */
    run_until(&l, 32 * S);
    assert_int_equal(r->addr.a[3], 9);
    assert_int_equal(dest_of(&l, 32 * S + 3 * MS, m2), 9);

    /* The name goes away: its MACs flood to the remote that is left. */
    assert_int_equal(zvs_resolver_mem_fail(l.res, "vtep2.lab", ZVS_RES_NXDOMAIN), 0);
    run_until(&l, 70 * S);
    assert_int_equal(r->state, ZVS_VTEP_REMOTE_RESOLVING);
    assert_int_equal(dest_of(&l, 70 * S + 3 * MS, m2), 3);

    assert_int_equal(zvs_vtep_del_remote_name(l.v, l.names, (unsigned)l.named), 0);
    assert_null(zvs_names_find(l.names, "vtep2.lab"));
    lab_teardown(&l);
}

static void test_bad_names(void **state)
{
    struct lab l;
    lab_setup(&l);

    assert_int_equal(zvs_vtep_add_remote_name(l.v, l.names, "-bad-.lab", 0), -EINVAL);
    assert_int_equal(zvs_vtep_add_remote_name(l.v, l.names, "2001:db8::5", 0), -EINVAL);
    assert_int_equal(zvs_vtep_add_remote_name(l.v, l.names, "vtep2.lab", 0), -EEXIST);
    lab_teardown(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_resolves_then_moves),
        cmocka_unit_test(test_bad_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
