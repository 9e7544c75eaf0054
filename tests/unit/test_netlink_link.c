/* netlink_link: the exact sequence of link events for a veth end that is created, taken
 * up and down from both sides, deleted, re-created and renamed, in the test's own network
 * namespace (skipped when the process may not make one); and the parser against crafted
 * good and malformed messages (no namespace needed). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "backends/netlink_link.h"
#include "netns.h"

struct ev {
    char name[IFNAMSIZ];
    int  ifindex;
    bool carrier;
    bool exists;
};

struct rec {
    struct ev ev[64];
    int       n;
};

static bool netns_ok;

/* MTU changes: the last one told, and how many. */
static struct {
    char     name[IFNAMSIZ];
    int      ifindex;
    uint32_t mtu;
    int      n;
} mtu_seen;

static void record_mtu(void *arg, const char *ifname, int ifindex, uint32_t mtu)
{
    snprintf(mtu_seen.name, IFNAMSIZ, "%s", ifname);
    mtu_seen.ifindex = ifindex;
    mtu_seen.mtu = mtu;
    mtu_seen.n++;
}

static void record(void *arg, const char *ifname, int ifindex, bool carrier, bool exists)
{
    struct rec *r = arg;
    assert_true(r->n < 64);
    snprintf(r->ev[r->n].name, IFNAMSIZ, "%s", ifname);
    r->ev[r->n].ifindex = ifindex;
    r->ev[r->n].carrier = carrier;
    r->ev[r->n].exists = exists;
    r->n++;
}

/* Process events until r holds `want` of them or 3 s pass; then a short quiet period
 * must bring no more (so extra events are caught, not left unread). */
static void wait_events(struct zvs_netlink_link *nl, struct rec *r, int want)
{
    int64_t deadline = tnet_now_ms() + 3000;
    struct pollfd pfd = { .fd = zvs_netlink_link_fd(nl), .events = POLLIN };

    while (r->n < want && tnet_now_ms() < deadline) {
        (void)poll(&pfd, 1, 50);
        assert_true(zvs_netlink_link_process(nl) >= 0);
    }
    int64_t quiet = tnet_now_ms() + 150;
    while (tnet_now_ms() < quiet) {
        (void)poll(&pfd, 1, 20);
        assert_true(zvs_netlink_link_process(nl) >= 0);
    }
    assert_int_equal(r->n, want);
}

static void assert_ev(const struct rec *r, int i, const char *name, int ifindex, bool carrier,
                      bool exists)
{
    assert_true(i < r->n);
    assert_string_equal(r->ev[i].name, name);
    assert_int_equal(r->ev[i].ifindex, ifindex);
    assert_int_equal(r->ev[i].carrier, carrier);
    assert_int_equal(r->ev[i].exists, exists);
}

static int setup_netns(void **state)
{
    netns_ok = tnet_enter();
    return 0;
}

static void test_veth_lifecycle_exact_events(void **state)
{
    struct rec r = { .n = 0 };
    int err = 0;

    if (!netns_ok)
        skip();
    struct zvs_netlink_link *nl = zvs_netlink_link_open(record, &r, &err);
    assert_non_null(nl);
    assert_int_equal(zvs_netlink_link_watch(nl, "va"), 0);
    assert_int_equal(zvs_netlink_link_watch(nl, "va"), -EEXIST);
    assert_int_equal(zvs_netlink_link_watch(nl, "ghost0"), 0);
    /* The initial dump: neither exists yet, each said once, in watch order. */
    wait_events(nl, &r, 2);
    assert_ev(&r, 0, "va", 0, false, false);
    assert_ev(&r, 1, "ghost0", 0, false, false);

    tnet_sh("ip link add va type veth peer name vb");
    int idx = tnet_ifindex("va");
    assert_true(idx > 0);
    wait_events(nl, &r, 3);
    assert_ev(&r, 2, "va", idx, false, true);

    /* Admin up while the peer is down: no carrier, so no event. */
    tnet_sh("ip link set va up");
    wait_events(nl, &r, 3);
    struct zvs_link_state st;
    assert_int_equal(zvs_netlink_link_state(nl, "va", &st), 0);
    assert_true(st.admin_up);
    assert_false(st.lower_up);
    assert_false(st.carrier);

    tnet_sh("ip link set vb up");
    wait_events(nl, &r, 4);
    assert_ev(&r, 3, "va", idx, true, true);
    assert_int_equal(zvs_netlink_link_state(nl, "va", &st), 0);
    assert_int_equal(st.operstate, IF_OPER_UP);
    assert_int_equal(st.mtu, 1500);

    /* The MTU alone: no carrier event, the MTU callback instead (once it is set). */
    tnet_sh("ip link set va mtu 1450");
    wait_events(nl, &r, 4);
    assert_int_equal(zvs_netlink_link_state(nl, "va", &st), 0);
    assert_int_equal(st.mtu, 1450);
    zvs_netlink_link_on_mtu(nl, record_mtu);
    tnet_sh("ip link set va mtu 1400");
    wait_events(nl, &r, 4);
    assert_int_equal(mtu_seen.n, 1);
    assert_string_equal(mtu_seen.name, "va");
    assert_int_equal(mtu_seen.ifindex, idx);
    assert_int_equal(mtu_seen.mtu, 1400);
    tnet_sh("ip link set va mtu 1500");
    wait_events(nl, &r, 4);
    assert_int_equal(mtu_seen.n, 2);
    assert_int_equal(mtu_seen.mtu, 1500);

    tnet_sh("ip link set vb down");          /* the far end: carrier lost */
    wait_events(nl, &r, 5);
    assert_ev(&r, 4, "va", idx, false, true);
    tnet_sh("ip link set vb up");
    wait_events(nl, &r, 6);
    assert_ev(&r, 5, "va", idx, true, true);
    tnet_sh("ip link set va down");          /* our end, administratively */
    wait_events(nl, &r, 7);
    assert_ev(&r, 6, "va", idx, false, true);
    tnet_sh("ip link set va up");
    wait_events(nl, &r, 8);
    assert_ev(&r, 7, "va", idx, true, true);

    /* Deletion closes the device first (carrier false), then removes it. */
    tnet_sh("ip link del va");
    wait_events(nl, &r, 10);
    assert_ev(&r, 8, "va", idx, false, true);
    assert_ev(&r, 9, "va", 0, false, false);

    tnet_sh("ip link add va type veth peer name vb");
    int idx2 = tnet_ifindex("va");
    assert_true(idx2 > 0 && idx2 != idx);
    wait_events(nl, &r, 11);
    assert_ev(&r, 10, "va", idx2, false, true);

    /* A rename is the watched name going away; a watch on the new name finds it. */
    tnet_sh("ip link set va name vc");
    wait_events(nl, &r, 12);
    assert_ev(&r, 11, "va", 0, false, false);
    assert_int_equal(zvs_netlink_link_watch(nl, "vc"), 0);
    wait_events(nl, &r, 13);
    assert_ev(&r, 12, "vc", idx2, false, true);
    assert_int_equal(zvs_netlink_link_unwatch(nl, "vc"), 0);
    assert_int_equal(zvs_netlink_link_unwatch(nl, "vc"), -ENOENT);
    assert_int_equal(zvs_netlink_link_state(nl, "vc", &st), -ENOENT);
    tnet_sh("ip link del vc");
    wait_events(nl, &r, 13);            /* no longer watched: silent */

    struct zvs_netlink_link_stats s;
    zvs_netlink_link_stats(nl, &s);
    assert_int_equal(s.events, 13);
    assert_int_equal(s.malformed, 0);
    assert_int_equal(s.overruns, 0);
    zvs_netlink_link_close(nl);
}

/* The same with the kernel: the dump carrier_lost asks for reports a carrier that is in
 * fact up (the flap is over, or the caller was wrong) as an event; a carrier that is
 * down, as the caller said, is no event, nor is linkwatch's late message about it. */
static void test_carrier_lost_resynced_by_dump(void **state)
{
    struct rec r = { .n = 0 };
    int err = 0;

    if (!netns_ok)
        skip();
    tnet_veth_add("vd", "02:00:00:00:0d:01", "ve", "02:00:00:00:0e:01");
    tnet_wait_running("vd", true);
    int idx = tnet_ifindex("vd");
    struct zvs_netlink_link *nl = zvs_netlink_link_open(record, &r, &err);
    assert_non_null(nl);
    assert_int_equal(zvs_netlink_link_watch(nl, "vd"), 0);
    wait_events(nl, &r, 1);
    assert_ev(&r, 0, "vd", idx, true, true);

    struct zvs_netlink_link_stats s0, s;
    zvs_netlink_link_stats(nl, &s0);
    assert_int_equal(zvs_netlink_link_carrier_lost(nl, "vd"), 0);
    zvs_netlink_link_stats(nl, &s);
    assert_int_equal(s.dumps, s0.dumps + 1);
    wait_events(nl, &r, 2);
    assert_ev(&r, 1, "vd", idx, true, true);

    tnet_sh("ip link set ve down");
    assert_int_equal(zvs_netlink_link_carrier_lost(nl, "vd"), 0);
    wait_events(nl, &r, 2);
    struct zvs_link_state st;
    assert_int_equal(zvs_netlink_link_state(nl, "vd", &st), 0);
    assert_false(st.carrier);
    assert_false(st.lower_up);
    tnet_sh("ip link del vd");
    zvs_netlink_link_close(nl);
}

/* ---- crafted messages ---------------------------------------------------------------- */

struct msgbuf {
    union {
        struct nlmsghdr h;
        uint8_t         b[1024];
    } u;
    size_t len;                         /* bytes of finished messages */
    size_t cur;                         /* start of the message being built */
};

static void msg_begin(struct msgbuf *m, uint16_t type, int ifindex, unsigned flags, uint8_t family)
{
    m->cur = m->len;
    struct nlmsghdr *h = (struct nlmsghdr *)(void *)(m->u.b + m->cur);
    memset(h, 0, NLMSG_LENGTH(sizeof(struct ifinfomsg)));
    h->nlmsg_type = type;
    h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
    struct ifinfomsg *ifi = NLMSG_DATA(h);
    ifi->ifi_family = family;
    ifi->ifi_index = ifindex;
    ifi->ifi_flags = flags;
}

static void msg_attr(struct msgbuf *m, uint16_t type, const void *data, size_t len)
{
    struct nlmsghdr *h = (struct nlmsghdr *)(void *)(m->u.b + m->cur);
    struct rtattr *a = (struct rtattr *)(void *)(m->u.b + m->cur + NLMSG_ALIGN(h->nlmsg_len));
    a->rta_type = type;
    a->rta_len = (uint16_t)RTA_LENGTH(len);
    memcpy(RTA_DATA(a), data, len);
    h->nlmsg_len = (uint32_t)(NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len));
}

static void msg_end(struct msgbuf *m)
{
    struct nlmsghdr *h = (struct nlmsghdr *)(void *)(m->u.b + m->cur);
    m->len = m->cur + NLMSG_ALIGN(h->nlmsg_len);
}

static void link_msg(struct msgbuf *m, uint16_t type, int ifindex, unsigned flags,
                     const char *name, int oper)
{
    msg_begin(m, type, ifindex, flags, AF_UNSPEC);
    if (name)
        msg_attr(m, IFLA_IFNAME, name, strlen(name) + 1);
    if (oper >= 0) {
        uint8_t o = (uint8_t)oper;
        msg_attr(m, IFLA_OPERSTATE, &o, 1);
    }
    msg_end(m);
}

#define UP_CARRIER (IFF_UP | IFF_RUNNING | IFF_LOWER_UP)

static void test_parser_states_and_malformed(void **state)
{
    struct rec r = { .n = 0 };
    int err = 0;
    struct zvs_netlink_link *nl = zvs_netlink_link_open(record, &r, &err);
    assert_non_null(nl);
    assert_int_equal(zvs_netlink_link_watch(nl, "up0"), 0);
    assert_int_equal(zvs_netlink_link_watch(nl, ""), -EINVAL);
    assert_int_equal(zvs_netlink_link_watch(nl, "a-name-too-long0"), -EINVAL);

    struct msgbuf m = { .len = 0 };
    /* Three messages in one datagram: carrier up, a duplicate, then dormant (802.1X). */
    link_msg(&m, RTM_NEWLINK, 7, UP_CARRIER, "up0", IF_OPER_UP);
    link_msg(&m, RTM_NEWLINK, 7, UP_CARRIER, "up0", IF_OPER_UP);
    link_msg(&m, RTM_NEWLINK, 7, IFF_UP | IFF_LOWER_UP, "up0", IF_OPER_DORMANT);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 2);
    assert_ev(&r, 0, "up0", 7, true, true);
    assert_ev(&r, 1, "up0", 7, false, true);

    /* No operstate attribute: IFF_RUNNING decides. */
    m.len = 0;
    link_msg(&m, RTM_NEWLINK, 7, UP_CARRIER, "up0", -1);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 1);
    assert_ev(&r, 2, "up0", 7, true, true);

    /* Ignored without harm: bridge-family message, other names, a DELLINK for an old
     * ifindex of the name. */
    m.len = 0;
    msg_begin(&m, RTM_NEWLINK, 7, 0, AF_BRIDGE);
    msg_attr(&m, IFLA_IFNAME, "up0", 4);
    msg_end(&m);
    link_msg(&m, RTM_NEWLINK, 9, 0, "other", IF_OPER_DOWN);
    link_msg(&m, RTM_DELLINK, 3, 0, "up0", -1);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);

    struct zvs_netlink_link_stats s;
    zvs_netlink_link_stats(nl, &s);
    assert_int_equal(s.malformed, 0);

    /* Malformed, one datagram each; none may change the state or crash. */
    m.len = 0;                          /* a name without its NUL inside the attribute */
    msg_begin(&m, RTM_NEWLINK, 7, 0, AF_UNSPEC);
    msg_attr(&m, IFLA_IFNAME, "up0X", 4);
    msg_end(&m);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);
    m.len = 0;                          /* a name longer than IFNAMSIZ */
    link_msg(&m, RTM_NEWLINK, 7, 0, "up0-0123456789abc", -1);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);
    m.len = 0;                          /* ifindex 0 */
    link_msg(&m, RTM_NEWLINK, 0, 0, "up0", IF_OPER_DOWN);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);
    m.len = 0;                          /* an attribute longer than the message */
    link_msg(&m, RTM_NEWLINK, 7, 0, "up0", IF_OPER_DOWN);
    struct rtattr *a = (struct rtattr *)(void *)(m.u.b + NLMSG_LENGTH(sizeof(struct ifinfomsg)));
    a->rta_len = 200;
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);
    m.len = 0;                          /* an operstate without payload */
    msg_begin(&m, RTM_NEWLINK, 7, 0, AF_UNSPEC);
    msg_attr(&m, IFLA_OPERSTATE, "", 0);
    msg_end(&m);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);
    m.len = 0;                          /* a header claiming more than the datagram */
    link_msg(&m, RTM_NEWLINK, 7, 0, "up0", -1);
    m.u.h.nlmsg_len = (uint32_t)m.len + 4;
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);
    m.u.h.nlmsg_len = NLMSG_LENGTH(4);  /* shorter than struct ifinfomsg */
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, NLMSG_LENGTH(4)), 0);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, 10), 0);  /* less than a header */
    zvs_netlink_link_stats(nl, &s);
    assert_int_equal(s.malformed, 8);
    assert_int_equal(r.n, 3);
    struct zvs_link_state st;
    assert_int_equal(zvs_netlink_link_state(nl, "up0", &st), 0);
    assert_true(st.exists && st.carrier && st.admin_up && st.lower_up);
    assert_int_equal(st.ifindex, 7);

    /* Deletion of the current ifindex: gone. */
    m.len = 0;
    link_msg(&m, RTM_DELLINK, 7, 0, "up0", -1);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 1);
    assert_ev(&r, 3, "up0", 0, false, false);
    zvs_netlink_link_close(nl);
}

/* The daemon learned from a refused transmit that the carrier went and acted on it. A
 * flap shorter than linkwatch's delay reaches netlink as one message, carrier up: that
 * must be an event now, or the port would stay down for good. A dump is asked for so the
 * kernel's word comes even if linkwatch sends nothing more. */
static void test_carrier_lost_told_by_the_caller(void **state)
{
    struct rec r = { .n = 0 };
    int err = 0;
    struct zvs_netlink_link *nl = zvs_netlink_link_open(record, &r, &err);
    assert_non_null(nl);
    assert_int_equal(zvs_netlink_link_watch(nl, "up0"), 0);
    struct zvs_netlink_link_stats s0, s;
    zvs_netlink_link_stats(nl, &s0);

    struct msgbuf m = { .len = 0 };
    link_msg(&m, RTM_NEWLINK, 7, UP_CARRIER, "up0", IF_OPER_UP);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 1);
    assert_ev(&r, 0, "up0", 7, true, true);

    assert_int_equal(zvs_netlink_link_carrier_lost(nl, "up0"), 0);
    assert_int_equal(zvs_netlink_link_carrier_lost(nl, "nope0"), -ENOENT);
    assert_int_equal(zvs_netlink_link_carrier_lost(nl, NULL), -ENOENT);
    assert_int_equal(r.n, 1);           /* the caller knows already: no callback */
    struct zvs_link_state st;
    assert_int_equal(zvs_netlink_link_state(nl, "up0", &st), 0);
    assert_false(st.carrier);
    /* The dump open asked for has not ended (nothing fed its DONE): the new one waits. */
    zvs_netlink_link_stats(nl, &s);
    assert_int_equal(s.dumps, s0.dumps);

    /* The kernel's next word: carrier up (the flap is over). */
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 1);
    assert_ev(&r, 1, "up0", 7, true, true);

    /* Or, the usual case, carrier down: what the caller believes already, so silent. */
    assert_int_equal(zvs_netlink_link_carrier_lost(nl, "up0"), 0);
    m.len = 0;
    link_msg(&m, RTM_NEWLINK, 7, IFF_UP, "up0", IF_OPER_DOWN);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);
    assert_int_equal(r.n, 2);
    zvs_netlink_link_close(nl);
}

/* Carrier on with operstate not yet computed (linkwatch pending): the watcher says no
 * carrier yet and asks the kernel for the link once, so it settles now instead of up to a
 * second later; once per pending spell. */
static void test_pending_carrier_is_settled(void **state)
{
    struct rec r = { .n = 0 };
    int err = 0;
    struct zvs_netlink_link *nl = zvs_netlink_link_open(record, &r, &err);
    assert_non_null(nl);
    assert_int_equal(zvs_netlink_link_watch(nl, "up0"), 0);
    struct zvs_netlink_link_stats s;

    struct msgbuf m = { .len = 0 };
    link_msg(&m, RTM_NEWLINK, 7, IFF_UP | IFF_LOWER_UP, "up0", IF_OPER_DOWN);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 1);
    assert_ev(&r, 0, "up0", 7, false, true);
    zvs_netlink_link_stats(nl, &s);
    assert_int_equal(s.settles, 1);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);  /* still pending */
    zvs_netlink_link_stats(nl, &s);
    assert_int_equal(s.settles, 1);

    m.len = 0;                          /* the kernel's settled answer */
    link_msg(&m, RTM_NEWLINK, 7, UP_CARRIER, "up0", IF_OPER_UP);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 1);
    assert_ev(&r, 1, "up0", 7, true, true);

    /* Settled states are never asked about: dormant, admin down, no carrier. */
    m.len = 0;
    link_msg(&m, RTM_NEWLINK, 7, IFF_UP | IFF_LOWER_UP, "up0", IF_OPER_DORMANT);
    link_msg(&m, RTM_NEWLINK, 7, IFF_LOWER_UP, "up0", IF_OPER_DOWN);
    link_msg(&m, RTM_NEWLINK, 7, IFF_UP, "up0", IF_OPER_LOWERLAYERDOWN);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 1);
    assert_ev(&r, 2, "up0", 7, false, true);
    zvs_netlink_link_stats(nl, &s);
    assert_int_equal(s.settles, 1);

    /* A new pending spell, here without IFLA_OPERSTATE (IFF_RUNNING clear): asked again. */
    m.len = 0;
    link_msg(&m, RTM_NEWLINK, 7, IFF_UP | IFF_LOWER_UP, "up0", -1);
    assert_int_equal(zvs_netlink_link_feed(nl, m.u.b, m.len), 0);
    zvs_netlink_link_stats(nl, &s);
    assert_int_equal(s.settles, 2);
    zvs_netlink_link_close(nl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parser_states_and_malformed),
        cmocka_unit_test(test_carrier_lost_told_by_the_caller),
        cmocka_unit_test(test_pending_carrier_is_settled),
        cmocka_unit_test(test_veth_lifecycle_exact_events),
        cmocka_unit_test(test_carrier_lost_resynced_by_dump),
    };
    return cmocka_run_group_tests_name("netlink_link", tests, setup_netns, NULL);
}
