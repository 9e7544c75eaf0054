/* backend registry and dummy links: every kind found with its side and netlink source
 * (the guest NIC kinds with their ops table, "lcs" once guests/ registered it, a second
 * registration of it a no-op and another class of its kind refused), unknown kinds and
 * the guest tap refused by open with their errors, a dummy link's near
 * end opened by name and carrying frames both ways byte for byte with its doorbell
 * readable exactly while frames wait, unknown dummy names -ENODEV, a second create
 * -EEXIST, and the MACs derived from the name. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/dummy.h"
#include "backends/memlink.h"
#include "backends/nic_class.h"
#include "guests/nic_lcs.h"

static void make_frame(uint8_t *buf, uint32_t len, uint8_t seed)
{
    static const uint8_t hdr[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x88, 0xB5 };
    memcpy(buf, hdr, sizeof(hdr));
    for (uint32_t i = 14; i < len; i++)
        buf[i] = (uint8_t)(seed + i);
}

static int tx1(struct zvs_port *p, const struct zvs_frame *f, enum zvs_drop *why)
{
    struct zvs_tx tx = { .f = f, .tag_op = ZVS_TAG_KEEP };
    return p->ops->tx(p, &tx, 1, why);
}

static bool readable(int fd)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

static void test_find_each_kind(void **state)
{
    static const struct {
        const char *kind;
        enum zvs_backend_side side;
        bool netlink, opens;
    } want[] = {
        { "afpacket", ZVS_BACKEND_UPLINK, true, true },
        { "pcap", ZVS_BACKEND_UPLINK, true, true },
        { "dummy", ZVS_BACKEND_UPLINK, false, true },
        { "tap", ZVS_BACKEND_GUEST, false, false },
        { "qdio", ZVS_BACKEND_GUEST, false, false },
        { "none", ZVS_BACKEND_GUEST, false, false },
        { "lcs", ZVS_BACKEND_GUEST, false, false },  /* adopted with its machine's tap */
    };
    assert_null(zvs_backend_find("lcs"));           /* registered from above, at start */
    assert_int_equal(zvs_nic_lcs_register(), 0);
    assert_int_equal(zvs_nic_lcs_register(), 0);
    static const struct zvs_backend_class other = { .kind = "lcs", .side = ZVS_BACKEND_GUEST };
    assert_int_equal(zvs_backend_register(&other), -EEXIST);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct zvs_backend_class *c = zvs_backend_find(want[i].kind);
        assert_non_null(c);
        assert_string_equal(c->kind, want[i].kind);
        assert_int_equal(c->side, want[i].side);
        assert_int_equal(c->netlink, want[i].netlink);
        assert_int_equal(c->open != NULL, want[i].opens);
        assert_int_equal(c->mac != NULL, want[i].opens);
        assert_int_equal(c->nic != NULL, c->side == ZVS_BACKEND_GUEST);
        assert_ptr_equal(zvs_nic_class_find(want[i].kind), c->nic);
    }
    assert_null(zvs_backend_find("AFPACKET"));      /* kinds are lower case */
    assert_null(zvs_backend_find(""));
    assert_null(zvs_backend_find(NULL));
}

static void test_open_refusals(void **state)
{
    int err = 0;
    assert_null(zvs_backend_open("nosuchkind", "eth0", &err));
    assert_int_equal(err, -ENOENT);
    err = 0;
    assert_null(zvs_backend_open("tap", "tap0", &err));
    assert_int_equal(err, -EOPNOTSUPP);
    err = 0;
    assert_null(zvs_backend_open("dummy", "osa0nothere", &err));
    assert_int_equal(err, -ENODEV);
    err = 0;
    assert_null(zvs_backend_open("dummy", "a/b", &err));
    assert_int_equal(err, -EINVAL);
    err = 0;
    assert_null(zvs_backend_open("afpacket", "", &err));
    assert_int_equal(err, -EINVAL);
    err = 0;
    assert_null(zvs_backend_open("pcap", "0123456789abcdef", &err));  /* 16 bytes */
    assert_int_equal(err, -EINVAL);
}

static void test_dummy_traffic_both_ways(void **state)
{
    struct zvs_port *far = NULL, *far2 = NULL;
    uint8_t buf[120], mac[6];
    struct zvs_frame fr[ZVS_BATCH];
    enum zvs_drop why = ZVS_DROP__COUNT;
    int err = 0;

    assert_int_equal(zvs_dummy_create("osa28ba", &far), 0);
    assert_non_null(far);
    assert_string_equal(far->name, "osa28ba.far");
    assert_int_equal(zvs_dummy_create("osa28ba", &far2), -EEXIST);
    assert_null(far2);

    struct zvs_port *near = zvs_backend_open("dummy", "osa28ba", &err);
    assert_non_null(near);
    assert_string_equal(near->name, "osa28ba");
    assert_true(near->carrier);
    assert_ptr_equal(zvs_backend_of(near), zvs_backend_find("dummy"));
    /* Taken out of the table: a second open finds nothing, like a missing interface. */
    assert_null(zvs_backend_open("dummy", "osa28ba", &err));
    assert_int_equal(err, -ENODEV);

    /* MACs: 02:00 / 06:00 then FNV-1a("osa28ba") = 0x52AD6EDD. */
    static const uint8_t near_mac[6] = { 0x02, 0x00, 0x52, 0xAD, 0x6E, 0xDD };
    static const uint8_t far_mac[6] = { 0x06, 0x00, 0x52, 0xAD, 0x6E, 0xDD };
    zvs_backend_find("dummy")->mac(near, mac);
    assert_memory_equal(mac, near_mac, 6);
    zvs_memlink_mac(far, mac);
    assert_memory_equal(mac, far_mac, 6);

    /* The test's end transmits: the doorbell rings, the near end receives the bytes. */
    int bell = near->ops->fd(near);
    assert_true(bell >= 0);
    assert_false(readable(bell));
    make_frame(buf, sizeof(buf), 3);
    struct zvs_frame f = { .data = buf, .len = sizeof(buf) };
    assert_int_equal(tx1(far, &f, &why), 1);
    assert_true(readable(bell));
    assert_int_equal(near->ops->rx(near, fr, ZVS_BATCH), 1);
    assert_int_equal(fr[0].len, sizeof(buf));
    assert_memory_equal(fr[0].data, buf, sizeof(buf));
    assert_false(readable(bell));                   /* everything handed out: quiet */
    near->ops->rx_release(near, fr, 1);

    /* The switch transmits on the near end: the far end's rx returns the same bytes. */
    make_frame(buf, 64, 9);
    struct zvs_frame g = { .data = buf, .len = 64 };
    assert_int_equal(tx1(near, &g, &why), 1);
    assert_int_equal(why, ZVS_DROP__COUNT);
    assert_int_equal(far->ops->rx(far, fr, ZVS_BATCH), 1);
    assert_int_equal(fr[0].len, 64);
    assert_memory_equal(fr[0].data, buf, 64);
    far->ops->rx_release(far, fr, 1);
    assert_int_equal(far->ops->fd(far), -1);       /* the far end has no doorbell */

    near->ops->destroy(near);
    far->ops->destroy(far);
    /* The name is free again once opened. */
    assert_int_equal(zvs_dummy_create("osa28ba", &far), 0);
    assert_int_equal(zvs_dummy_destroy("osa28ba"), 0);
    assert_int_equal(zvs_dummy_destroy("osa28ba"), -ENODEV);
    far->ops->destroy(far);
}

static void test_dummy_table_limits(void **state)
{
    struct zvs_port *far[ZVS_DUMMY_MAX + 1];
    char name[16];
    int err = 0;

    assert_int_equal(zvs_dummy_create("", &far[0]), -EINVAL);
    assert_int_equal(zvs_dummy_create("0123456789abcdef", &far[0]), -EINVAL);
    for (int i = 0; i < ZVS_DUMMY_MAX; i++) {
        snprintf(name, sizeof(name), "d%d", i);
        assert_int_equal(zvs_dummy_create(name, &far[i]), 0);
    }
    assert_int_equal(zvs_dummy_create("one.more", &far[ZVS_DUMMY_MAX]), -ENOSPC);
    /* A doorbell rung before the open stays readable for the opener. */
    uint8_t buf[60];
    make_frame(buf, sizeof(buf), 1);
    struct zvs_frame f = { .data = buf, .len = sizeof(buf) };
    enum zvs_drop why;
    assert_int_equal(tx1(far[5], &f, &why), 1);
    struct zvs_port *near = zvs_dummy_open("d5", &err);
    assert_non_null(near);
    assert_true(readable(near->ops->fd(near)));
    near->ops->destroy(near);
    zvs_dummy_clear();
    for (int i = 0; i < ZVS_DUMMY_MAX; i++) {
        snprintf(name, sizeof(name), "d%d", i);
        assert_null(zvs_dummy_open(name, &err));
        assert_int_equal(err, -ENODEV);
        far[i]->ops->destroy(far[i]);
    }
}

/* A cable between two named ends, both opened by name (the daemon's and the switch
 * model's in the hermetic suite): traffic both ways, each end's doorbell, a cut at one
 * end heard at the other as a link event. */
static void test_dummy_pair_both_ends_by_name(void **state)
{
    int err = 0;
    uint8_t buf[64];
    struct zvs_frame fr[ZVS_BATCH];
    enum zvs_drop why = ZVS_DROP__COUNT;
    struct zvs_port_link_event ev;

    assert_int_equal(zvs_dummy_create_pair("osa28ba", "osa28ba"), -EINVAL);
    assert_int_equal(zvs_dummy_create_pair("osa28ba", "sw-osa28ba"), 0);
    assert_int_equal(zvs_dummy_create_pair("sw-osa28ba", "x"), -EEXIST);
    struct zvs_port *a = zvs_backend_open("dummy", "osa28ba", &err);
    struct zvs_port *b = zvs_backend_open("dummy", "sw-osa28ba", &err);
    assert_non_null(a);
    assert_non_null(b);
    make_frame(buf, sizeof(buf), 5);
    struct zvs_frame f = { .data = buf, .len = sizeof(buf) };
    assert_int_equal(tx1(a, &f, &why), 1);
    assert_true(readable(b->ops->fd(b)));
    assert_int_equal(b->ops->rx(b, fr, ZVS_BATCH), 1);
    assert_memory_equal(fr[0].data, buf, sizeof(buf));
    b->ops->rx_release(b, fr, 1);
    assert_int_equal(tx1(b, &f, &why), 1);
    assert_int_equal(a->ops->rx(a, fr, ZVS_BATCH), 1);
    a->ops->rx_release(a, fr, 1);

    zvs_memlink_set_carrier(b, false);
    assert_false(a->carrier);
    assert_true(readable(a->ops->fd(a)));
    assert_int_equal(a->ops->link_poll(a, &ev), 1);
    assert_false(ev.carrier);
    assert_int_equal(b->ops->link_poll(b, &ev), 0);
    a->ops->destroy(a);
    b->ops->destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_each_kind),
        cmocka_unit_test(test_open_refusals),
        cmocka_unit_test(test_dummy_traffic_both_ways),
        cmocka_unit_test(test_dummy_table_limits),
        cmocka_unit_test(test_dummy_pair_both_ends_by_name),
    };
    return cmocka_run_group_tests_name("backend", tests, NULL, NULL);
}
