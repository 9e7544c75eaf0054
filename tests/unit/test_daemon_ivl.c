/* The IVL domain run by the daemon (daemon/daemon_ivl.c), hermetic: one vswitchd (the real
 * daemon on virtual time, its port group's two members cabled to the harness's LACP
 * partner) in a domain of three systems over the in-memory twin of Corosync
 * (ivl/cluster_mem.h), the other two systems being domains of ivl/domain.h driven by the
 * same twin with two members each. SET PORT GROUP GG LACP ACTIVE SHARED makes the daemon
 * join; then:
 *   - SHARED in SYSTEM CONFIG instead (SYSTEM-IVL-SHARED.CONFIG): joined at start, the same;
 *   - joined: QUERY VSWITCH and QUERY PORT GROUP show the domain ACTIVE with all three
 *     systems and their members, the partner sees the domain's System ID, key 1 and the
 *     domain's port numbers (index 1 in the high byte);
 *   - the IVL cut from this system: after the token timeout it has no quorum, holds its
 *     members out (the last LACPDU out of sync), says so, and aggregates again once healed;
 *   - corosync lost under the joined daemon (COROSYNC LOST: held), and back;
 *   - a peer whose group definition differs is refused and reported here too; a daemon
 *     whose own definition differs from the domain's (a lower node id's) refuses and holds;
 *   - no corosync running: the system runs alone, aggregating, and says so; a corosync
 *     started afterwards brings it into the domain with no restart;
 *   - HEARTBEAT TIMEOUT against a token timeout that differs: reported and shown;
 *   - the data path over the IVL port (the IVL switch's RDEV ivl0, its far end played by
 *     the test as systems 2 and 3): a guest's broadcast crosses as FLOOD to each, once; a
 *     guest of system 2 learned from its FLOOD is answered INBOUND to system 2 only and
 *     its frames reach our guest; with our members down the guest's LAN frame crosses
 *     OUTBOUND to the lowest system that distributes; bad frames are counted;
 *   - the IVL device's D6R21 counts what crossed its wire, as an OSA's does: the wrapped
 *     copies sent (one per system) and every wrapped frame received for our IVL MAC,
 *     refused ones too;
 *   - the IVL port follows the TYPE IVL switch (SYSTEM-IVL-MOVE.CONFIG): SET VSWITCH
 *     IVLVSW RDEV E01 moves it to ivl1, DETACH VSWITCH IVLVSW closes it, and the switch
 *     defined again with DOMAIN B gives the partner the System ID of domain B;
 *   - SHARED in a command whose pass fails after the group's step (the fault seam,
 *     SYSTEM-IVL-FALLBACK.CONFIG): no LACPDU, the group as it was; the identity changes
 *     only once a pass stands. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hermetic.h"
#include "daemon/daemon.h"
#include "daemon/evloop.h"
#include "daemon/ivl_conf.h"
#include "daemon/step_fault.h"
#include "ivl/cluster_mem.h"
#include "ivl/frame.h"
#include "ivl/domain.h"
#include "ivl/port_number.h"
#include "lag/lag.h"
#include "lag/lag_domain.h"
#include "monitor/monfile.h"
#include "monitor/monrec.h"

#define TOKEN_MS 2000u                  /* as IVL HEARTBEAT TIMEOUT 2 in the files */

static const char *const links[] = { "ivl0", "osa28ba", "osa2902", "ivl1", "osa2a00", "osa2b00",
                                      NULL };
static const char *const names[4] = { "", "ZVMA", "ZVMB", "ZVMC" };

struct twin {
    struct zvs_cluster_mem_net *net;
    struct zvs_ivl_domain      *peer[4];    /* by index; the daemon's is not here */
    unsigned                    self;       /* the daemon's index */
    struct zvs_timer           *tick;       /* the other systems' loops, every 100 ms */
};

/* The other systems run their domains on loops of their own: here a timer on the daemon's
 * loop, so the twin moves on while the daemon's own cluster is not joined. */
static void peers_tick(void *arg, struct zvs_timer *tm, uint64_t now)
{
    struct twin *t = arg;
    for (unsigned i = 1; i <= 3; i++)
        if (t->peer[i])
            zvs_ivl_domain_run(t->peer[i], now);
    zvs_timer_arm(tm, now + 100 * 1000000ull);
}

static struct zvs_cluster *twin_cluster(void *arg, const char *vswitch, unsigned index)
{
    struct twin *t = arg;
    assert_string_equal(vswitch, "GLOBSW");
    assert_int_equal(index, t->self);
    return zvs_cluster_mem_new(t->net, index, NULL);
}

static void contains(const char *text, const char *want)
{
    if (!strstr(text, want)) {
        size_t len = strlen(text);
        print_message("\"%s\" not in:\n%s\n", want, len > 700 ? text + len - 700 : text);
        fail();
    }
}

static uint64_t now_ns(const struct herm *h)
{
    return HERM_T0 + herm_now_ns(h);
}

/* The daemon on `sysconfig` as system `self` in a twin of three with `token_ms`, its
 * corosync's file `cs_conf` (NULL: none named). */
static struct herm *start_conf(struct twin *t, const char *sysconfig, unsigned self,
                               uint32_t token_ms, const char *cs_conf)
{
    const uint32_t ids[3] = { 1, 2, 3 };
    memset(t, 0, sizeof *t);
    t->self = self;
    t->net = zvs_cluster_mem_net_new(ids, 3, token_ms, false);
    assert_non_null(t->net);
    struct herm_opts o = {
        .sysconfig = sysconfig, .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true, .console = true,
        .ivl_cluster = twin_cluster, .ivl_cluster_arg = t, .corosync_conf = cs_conf,
        .monitor_interval_s = 30,       /* the IVL port is sampled as a device too */
    };
    return herm_start(&o);
}

static struct herm *start(struct twin *t, const char *sysconfig, unsigned self,
                          uint32_t token_ms)
{
    return start_conf(t, sysconfig, self, token_ms, NULL);
}

/* The other systems: domains of the daemon's group definition (key changed by `key` when
 * not 0), two members each, distributing. */
static void peers_start(struct herm *h, struct twin *t, uint16_t key)
{
    struct zvs_ivl_domain_cfg cfg = { .index = 0, .shared = true, .heartbeat_ms = TOKEN_MS };
    snprintf(cfg.vswitch, sizeof cfg.vswitch, "GLOBSW");
    snprintf(cfg.group, sizeof cfg.group, "GG");
    zvs_lag_domain_def(zvs_lag_params(zvsd_port_group(h->d, "GG")), &cfg.def);
    if (key)
        cfg.def.key = key;
    for (unsigned i = 1; i <= 3; i++) {
        if (i == t->self)
            continue;
        snprintf(cfg.system, sizeof cfg.system, "%s", names[i]);
        cfg.index = (uint8_t)i;
        t->peer[i] = zvs_ivl_domain_new(&cfg, zvs_cluster_mem_new(t->net, i, NULL), NULL, NULL);
        assert_non_null(t->peer[i]);
        assert_int_equal(zvs_ivl_domain_start(t->peer[i]), 0);
        struct zvs_ivl_member m[2] = { { .rdev = "1000" }, { .rdev = "1001" } };
        for (unsigned k = 0; k < 2; k++) {
            m[k].port = zvs_ivl_port_number(i, k);
            m[k].state = ZVS_IVL_MS_CARRIER | ZVS_IVL_MS_SELECTED | ZVS_IVL_MS_COLLECTING |
                         ZVS_IVL_MS_DISTRIBUTING;
            m[k].speed_mbps = 10000;
        }
        zvs_ivl_domain_set_members(t->peer[i], m, 2);
    }
    t->tick = zvs_timer_create(h->loop, peers_tick, t);
    assert_non_null(t->tick);
    zvs_timer_arm(t->tick, now_ns(h) + 100 * 1000000ull);
}

static void stop(struct herm *h, struct twin *t)
{
    if (t->tick)
        zvs_timer_destroy(t->tick);
    herm_stop(h);                       /* the daemon leaves the group, its cluster goes */
    for (unsigned i = 1; i <= 3; i++)
        zvs_ivl_domain_free(t->peer[i]);
    zvs_cluster_mem_net_free(t->net);
}

/* The actor's fields of the last LACPDU the partner got on `link` (802.1AX-2020 6.4.2.3:
 * after the Ethernet header, subtype, version, TLV type and length). */
static void last_actor(struct herm *h, const char *link, uint8_t system[6], uint16_t *key,
                       uint16_t *port, uint8_t *state)
{
    const struct herm_link *l = herm_link(h, link);
    const uint8_t *p = l->last_lacpdu + 14 + 4;
    assert_true(l->last_lacpdu_len >= 14 + 4 + 15);
    memcpy(system, p + 2, 6);
    *key = (uint16_t)(p[8] << 8 | p[9]);
    *port = (uint16_t)(p[12] << 8 | p[13]);
    *state = p[14];
}

#define LACP_SYNC 0x08                  /* actor state: Synchronization */

/* The partner sees the domain's System ID, key 1 and the domain's port numbers (index 1
 * in the high byte) on both members, in sync. */
static void partner_sees_the_domain(struct herm *h)
{
    uint8_t sys[6], st;
    uint16_t key, port;
    const uint8_t domain_id[6] = { 0x02, 'I', 'V', 'L', 0x00, 'A' };
    last_actor(h, "osa28ba", sys, &key, &port, &st);
    assert_memory_equal(sys, domain_id, 6);
    assert_int_equal(key, 1);
    assert_int_equal(port, 0x0101);
    assert_true(st & LACP_SYNC);
    last_actor(h, "osa2902", sys, &key, &port, &st);
    assert_memory_equal(sys, domain_id, 6);
    assert_int_equal(key, 1);
    assert_int_equal(port, 0x0102);
}

static void shared_and_joined(struct herm *h, struct twin *t, uint16_t peer_key)
{
    herm_warp(h, 3);
    contains(herm_op(h, "SET PORT GROUP GG LACP ACTIVE SHARED"), "Command complete");
    peers_start(h, t, peer_key);        /* the definition SHARED gave the group */
    herm_warp(h, 12);
}

static void test_joined_shows_the_domain(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL.CONFIG", 1, TOKEN_MS);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    shared_and_joined(h, &t, 0);
    const char *q = herm_op(h, "QUERY VSWITCH GLOBSW");
    contains(q, "  IVL domain: A  Status: ACTIVE  Systems: 3  Heartbeat timeout: 2 s"
                "  Token timeout: 2000 ms\n");
    contains(q, "  System ZVMA     Index: 1  Node: 1  AGGREGATING  Definition: SAME"
                "  (this system)\n");
    contains(q, "    RDEV 28BA     Port: 0101  UP    Selected: YES Collecting: YES "
                "Distributing: YES Speed: 10000 Mbit/s\n");
    contains(q, "  System ZVMB     Index: 2  Node: 2  AGGREGATING  Definition: SAME\n");
    contains(q, "    RDEV 1001     Port: 0302  UP ");
    q = herm_op(h, "QUERY PORT GROUP GG");
    contains(q, "Members: 2  Distributing: 2");
    contains(q, "  IVL domain: A  Status: ACTIVE  Systems: 3");
    partner_sees_the_domain(h);
    /* the others know this system's members */
    struct zvs_ivl_system_view v[4];
    unsigned n = zvs_ivl_domain_systems(t.peer[2], v, 4);
    assert_int_equal(n, 3);
    assert_string_equal(v[0].state.system, "ZVMA");
    assert_int_equal(v[0].state.nmembers, 2);
    assert_int_equal(v[0].state.member[1].port, 0x0102);
    assert_true(v[0].state.member[1].state & ZVS_IVL_MS_DISTRIBUTING);
    contains(herm_console_read(h, op), "ZVSIVL1263I VSWITCH GLOBSW IVL domain status is ACTIVE");
    stop(h, &t);
}

/* SHARED in SYSTEM CONFIG (ours): the daemon joins at start as if the command had been
 * typed: the domain ACTIVE with the three systems, the domain's port numbers and actor
 * identity toward the partner, QUERY PORT GROUP's global view; no command typed. */
static void test_shared_in_system_config_joins_at_start(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL-SHARED.CONFIG", 1, TOKEN_MS);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    peers_start(h, &t, 0);
    herm_warp(h, 15);
    const char *q = herm_op(h, "QUERY PORT GROUP GG");
    contains(q, "Members: 2  Distributing: 2");
    contains(q, "  IVL domain: A  Status: ACTIVE  Systems: 3");
    contains(q, "  System ZVMA     Index: 1  Node: 1  AGGREGATING  Definition: SAME"
                "  (this system)\n");
    contains(q, "  System ZVMB     Index: 2  Node: 2  AGGREGATING  Definition: SAME\n");
    contains(q, "  System ZVMC     Index: 3  Node: 3  AGGREGATING  Definition: SAME\n");
    contains(q, "    RDEV 1001     Port: 0302  UP ");
    partner_sees_the_domain(h);
    struct zvs_ivl_system_view v[4];
    assert_int_equal(zvs_ivl_domain_systems(t.peer[3], v, 4), 3);
    assert_string_equal(v[0].state.system, "ZVMA");
    assert_int_equal(v[0].state.member[0].port, 0x0101);
    contains(herm_console_read(h, op), "ZVSIVL1263I VSWITCH GLOBSW IVL domain status is ACTIVE");
    stop(h, &t);
}

static void test_ivl_cut_holds_the_members_out(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL.CONFIG", 1, TOKEN_MS);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    shared_and_joined(h, &t, 0);
    herm_console_read(h, op);
    zvs_cluster_mem_set_side(t.net, 1, 1, now_ns(h));
    herm_warp(h, 12 + 1.5);             /* within the token timeout: still in the LAG */
    contains(herm_op(h, "QUERY PORT GROUP GG"), "Members: 2  Distributing: 2");
    herm_warp(h, 12 + 2.5);
    const char *q = herm_op(h, "QUERY PORT GROUP GG");
    contains(q, "Members: 2  Distributing: 0");
    contains(q, "  IVL domain: A  Status: NO QUORUM  Systems: 1");
    uint8_t sys[6], st;
    uint16_t key, port;
    last_actor(h, "osa28ba", sys, &key, &port, &st);
    assert_false(st & LACP_SYNC);       /* the final LACPDU said it */
    assert_int_equal(zvs_ivl_domain_status(t.peer[2]), ZVS_IVL_ACTIVE);  /* 2 and 3 keep it */
    const char *c = herm_console_read(h, op);
    contains(c, "ZVSIVL1263I VSWITCH GLOBSW IVL domain status is NO QUORUM");
    contains(c, "ZVSLAG1172E Port group GG member 28BA is not in use: IVL domain");
    /* healed: back in the view, quorate, and the members negotiate again */
    zvs_cluster_mem_set_side(t.net, 1, 0, now_ns(h));
    herm_warp(h, 22);
    q = herm_op(h, "QUERY PORT GROUP GG");
    contains(q, "Members: 2  Distributing: 2");
    contains(q, "  IVL domain: A  Status: ACTIVE  Systems: 3");
    contains(herm_console_read(h, op), "ZVSIVL1263I VSWITCH GLOBSW IVL domain status is ACTIVE");
    stop(h, &t);
}

static void test_corosync_lost_and_back(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL.CONFIG", 1, TOKEN_MS);
    shared_and_joined(h, &t, 0);
    zvs_cluster_mem_set_engine(t.net, 1, false, now_ns(h));
    herm_warp(h, 12.5);
    const char *q = herm_op(h, "QUERY PORT GROUP GG");
    contains(q, "Members: 2  Distributing: 0");
    contains(q, "  IVL domain: A  Status: COROSYNC LOST");
    herm_warp(h, 15);                   /* the others saw it leave (token timeout) */
    zvs_cluster_mem_set_engine(t.net, 1, true, now_ns(h));
    herm_warp(h, 25);
    q = herm_op(h, "QUERY PORT GROUP GG");
    contains(q, "Members: 2  Distributing: 2");
    contains(q, "  IVL domain: A  Status: ACTIVE  Systems: 3");
    stop(h, &t);
}

static void test_peer_that_differs_is_refused(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL.CONFIG", 1, TOKEN_MS);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    shared_and_joined(h, &t, 7);        /* ZVMB and ZVMC say key 7; ZVMA (node 1) rules */
    assert_int_equal(zvs_ivl_domain_status(t.peer[2]), ZVS_IVL_REFUSED);
    assert_int_equal(zvs_ivl_domain_status(t.peer[3]), ZVS_IVL_REFUSED);
    const char *q = herm_op(h, "QUERY VSWITCH GLOBSW");
    contains(q, "  IVL domain: A  Status: ACTIVE  Systems: 3");
    contains(q, "  System ZVMB     Index: 2  Node: 2  NOT AGGREGATING  Definition: DIFFERS\n");
    contains(herm_op(h, "QUERY PORT GROUP GG"), "Members: 2  Distributing: 2");
    const char *c = herm_console_read(h, op);
    contains(c, "ZVSIVL1265E Port group GG of system ZVMB differs from the IVL domain's "
                "definition: that system refuses to share it");
    contains(c, "ZVSIVL1265E Port group GG of system ZVMC differs");
    stop(h, &t);
}

static void test_differing_system_refuses_and_holds(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVLC.CONFIG", 3, TOKEN_MS);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    shared_and_joined(h, &t, 7);        /* ZVMA (node 1) and ZVMB say key 7: the domain's */
    const char *q = herm_op(h, "QUERY PORT GROUP GG");
    contains(q, "Members: 2  Distributing: 0");
    contains(q, "  IVL domain: A  Status: REFUSED (GROUP DEFINITION DIFFERS)  Systems: 3");
    contains(q, "  System ZVMC     Index: 3  Node: 3  NOT AGGREGATING  Definition: DIFFERS"
                "  (this system)\n");
    assert_int_equal(zvs_ivl_domain_status(t.peer[1]), ZVS_IVL_ACTIVE);
    assert_int_equal(zvs_ivl_domain_disagreeing(t.peer[1]), 1);     /* told on both sides */
    contains(herm_console_read(h, op),
             "ZVSIVL1265E Port group GG of system ZVMC differs from the IVL domain's "
             "definition: this system refuses to share it");
    stop(h, &t);
}

static void test_no_corosync_runs_alone(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL.CONFIG", 1, TOKEN_MS);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    zvs_cluster_mem_set_engine(t.net, 1, false, now_ns(h));
    shared_and_joined(h, &t, 0);
    const char *q = herm_op(h, "QUERY PORT GROUP GG");
    contains(q, "Members: 2  Distributing: 2");
    contains(q, "  IVL domain: A  Status: ALONE (COROSYNC NOT RUNNING)  Systems: 1");
    contains(herm_console_read(h, op), "ZVSIVL1264W VSWITCH GLOBSW runs alone: corosync is"
                                       " not running (no answer on its IPC)");
    /* corosync started afterwards: the join tried once a second finds it, no restart */
    zvs_cluster_mem_set_engine(t.net, 1, true, now_ns(h));
    herm_warp(h, 16);
    q = herm_op(h, "QUERY PORT GROUP GG");
    contains(q, "Members: 2  Distributing: 2");
    contains(q, "  IVL domain: A  Status: ACTIVE  Systems: 3");
    contains(herm_console_read(h, op), "ZVSIVL1263I VSWITCH GLOBSW IVL domain status is ACTIVE");
    stop(h, &t);
}

static void test_heartbeat_differs_from_token(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL.CONFIG", 1, 3000);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    shared_and_joined(h, &t, 0);
    contains(herm_op(h, "QUERY VSWITCH GLOBSW"),
             "Heartbeat timeout: 2 s  Token timeout: 3000 ms (DIFFERS)\n");
    contains(herm_console_read(h, op), "ZVSIVL1266W IVL HEARTBEAT TIMEOUT 2 s differs from "
                                       "corosync's token timeout of 3000 ms");
    stop(h, &t);
}

/* vswitchd --corosync-conf: checked when the domain is joined; a file that differs from
 * SYSTEM CONFIG is told (the daemon runs on), one that agrees is not. */
static void test_corosync_conf_checked(void **state)
{
    char path[] = "/tmp/zvs-ivl-cs-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char other[] = "totem {\n    version: 2\n    cluster_name: OTHER\n"
                                "    token: 9000\n}\n";
    assert_int_equal(write(fd, other, sizeof other - 1), (ssize_t)(sizeof other - 1));
    close(fd);
    struct twin t;
    struct herm *h = start_conf(&t, "tests/unit/hermetic/SYSTEM-IVL.CONFIG", 1, TOKEN_MS, path);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    shared_and_joined(h, &t, 0);
    const char *c = herm_console_read(h, op);
    char want[128];
    snprintf(want, sizeof want, "ZVSIVL1267W Corosync configuration %s differs from SYSTEM "
             "CONFIG's IVL domain: ", path);
    contains(c, want);
    contains(herm_op(h, "QUERY PORT GROUP GG"), "Status: ACTIVE  Systems: 3");
    stop(h, &t);
    /* the file vswitchd --write-corosync writes agrees: nothing told */
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_non_null(cfg);
    assert_int_equal(zvs_cfg_load(cfg, "tests/unit/hermetic/SYSTEM-IVL.CONFIG",
                                  "tests/unit/hermetic/USER-CCB.DIRECT"), 0);
    assert_int_equal(zvsd_ivl_write_corosync(cfg, path, NULL, NULL, stderr), 0);
    zvs_cfg_free(cfg);
    h = start_conf(&t, "tests/unit/hermetic/SYSTEM-IVL.CONFIG", 1, TOKEN_MS, path);
    op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    shared_and_joined(h, &t, 0);
    c = herm_console_read(h, op);
    if (strstr(c, "ZVSIVL1267W"))
        fail_msg("told of an agreeing file:\n%s", c);
    stop(h, &t);
    unlink(path);
}

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x01 };  /* LNXA F000 */
static const uint8_t MAC_R[6] = { 0x02, 0x00, 0x0D, 0x00, 0x02, 0x01 };  /* system 2's */
static const uint8_t MAC_LAN[6] = { 0x00, 0x1B, 0x21, 0x00, 0x00, 0x09 };
static const uint8_t BCAST[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

/* The last frame the IVL's far end received, decoded: its kind, flags and inner frame. */
static void ivl_last(struct herm *h, uint8_t to_index, uint8_t kind, uint8_t flags,
                     struct zvs_ivl_hdr *out)
{
    const struct herm_link *l = herm_link(h, "ivl0");
    const uint8_t *inner;
    size_t inner_len;
    assert_int_equal(zvs_ivl_frame_decap(l->last, l->last_len, out, &inner, &inner_len), 0);
    uint8_t mac[6] = { 0x02, 'I', 'V', 'L', 'A', to_index };
    assert_memory_equal(l->last, mac, 6);
    assert_int_equal(out->kind, kind);
    assert_int_equal(out->flags, flags);
    assert_int_equal(out->origin, 1);
}

/* System `origin` sends `inner` to us over the IVL. */
static void ivl_send(struct herm *h, uint8_t origin, uint8_t kind, uint8_t flags,
                     uint16_t vswitch, uint32_t seq, const uint8_t *inner, uint32_t len)
{
    uint8_t out[256];
    const uint8_t us[6] = { 0x02, 'I', 'V', 'L', 'A', 1 };
    const uint8_t them[6] = { 0x02, 'I', 'V', 'L', 'A', origin };
    struct zvs_ivl_hdr hd = { .kind = kind, .origin = origin, .flags = flags,
                              .vswitch = vswitch, .seq = seq };
    int n = zvs_ivl_frame_encap(&hd, us, them, inner, len, out, sizeof out);
    assert_true(n > 0);
    herm_link_send(h, "ivl0", out, (uint32_t)n);
}

/* System 1 joined, its guest LNXA coupled to the Global VSWITCH GLOBSW. */
static struct herm *joined_with_guest(struct twin *t, struct herm_guest **a)
{
    struct herm *h = start(t, "tests/unit/hermetic/SYSTEM-IVL.CONFIG", 1, TOKEN_MS);
    shared_and_joined(h, t, 0);
    herm_op(h, "SET VSWITCH GLOBSW GRANT LNXA");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM GLOBSW");
    *a = herm_guest_attach(h, "LNXA", 0xF000);
    return h;
}

static void test_frames_cross_the_ivl(void **state)
{
    struct twin t;
    struct herm_guest *a;
    struct herm *h = joined_with_guest(&t, &a);
    struct herm_link *ivl = herm_link(h, "ivl0");
    uint64_t osa0 = herm_link(h, "osa28ba")->data_rx + herm_link(h, "osa2902")->data_rx;
    uint8_t f[100];
    struct zvs_ivl_hdr hd;

    /* our guest's broadcast: our member, and FLOOD to systems 2 and 3, once each */
    herm_frame(f, 100, BCAST, MAC_A, 1);
    herm_guest_send(h, a, f, 100, 1);
    assert_int_equal(ivl->data_rx, 2);
    ivl_last(h, 3, ZVS_IVL_FLOOD, ZVS_IVL_HF_GUEST_SRC, &hd);
    assert_memory_equal(ivl->last + ZVS_IVL_OUTER_LEN, f, 100);
    assert_int_equal(herm_link(h, "osa28ba")->data_rx + herm_link(h, "osa2902")->data_rx,
                     osa0 + 1);
    uint16_t vsw = hd.vswitch;

    /* system 2's guest broadcasts: our guest gets it once, nothing goes back out */
    herm_frame(f, 100, BCAST, MAC_R, 2);
    ivl_send(h, 2, ZVS_IVL_FLOOD, ZVS_IVL_HF_GUEST_SRC, vsw, 0, f, 100);
    assert_int_equal(herm_guest_receive(h, a), 1);
    assert_int_equal(ivl->data_rx, 2);
    assert_int_equal(herm_link(h, "osa28ba")->data_rx + herm_link(h, "osa2902")->data_rx,
                     osa0 + 1);
    /* our guest answers it: INBOUND to system 2 only */
    herm_frame(f, 100, MAC_R, MAC_A, 3);
    herm_guest_send(h, a, f, 100, 1);
    assert_int_equal(ivl->data_rx, 3);
    ivl_last(h, 2, ZVS_IVL_INBOUND, ZVS_IVL_HF_GUEST_SRC, &hd);
    /* the LAN's frame for our guest that the switch hashed onto system 2's member */
    herm_frame(f, 100, MAC_A, MAC_LAN, 4);
    ivl_send(h, 2, ZVS_IVL_INBOUND, 0, vsw, 1, f, 100);
    assert_int_equal(herm_guest_receive(h, a), 1);

    /* our members go down: the guest's LAN frame leaves on system 2's members */
    herm_cut(h, "osa28ba", false);
    herm_cut(h, "osa2902", false);
    herm_warp(h, 13);
    herm_frame(f, 100, MAC_LAN, MAC_A, 5);
    herm_guest_send(h, a, f, 100, 1);
    assert_int_equal(ivl->data_rx, 4);
    ivl_last(h, 2, ZVS_IVL_OUTBOUND, ZVS_IVL_HF_GUEST_SRC, &hd);

    /* a frame that claims to be ours (the IVL loops): counted, not delivered */
    herm_frame(f, 100, MAC_A, MAC_LAN, 6);
    ivl_send(h, 1, ZVS_IVL_INBOUND, 0, vsw, 2, f, 100);
    assert_int_equal(herm_guest_receive(h, a), 0);
    const char *q = herm_op(h, "QUERY VSWITCH GLOBSW");
    contains(q, "  IVL port: 0E00  UP  MTU: ");
    contains(q, "    Sent:     OUTBOUND 1 (100 bytes)  INBOUND 1 (100 bytes)  FLOOD 2 (200 bytes)"
                "  No system: 0\n");
    contains(q, "    Received: OUTBOUND 0 (0 bytes)  INBOUND 1 (100 bytes)  FLOOD 1 (100 bytes)\n");
    /* (not ours: the harness's LACP partner talks on ivl0 too, to nobody's IVL MAC) */
    contains(q, "    Refused: 0  own: 1  other VSWITCH: 0  not ours: ");
    contains(q, "  Lost: 0  Reordered: 0");
    stop(h, &t);
}

/* The last D6R21 of device `rdev` in the monitor file at `path` (removed, with `dir`). */
static struct zvs_mon_vswitch_activity last_d6r21(const char *path, const char *dir,
                                                  uint16_t rdev)
{
    struct zvs_mon_vswitch_activity v;
    memset(&v, 0, sizeof v);
    int err = 0;
    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_non_null(rd);
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    bool found = false;
    while (zvs_mon_reader_next(rd, &g, &e) == 1)
        for (unsigned i = 0; i < g.nrec; i++) {
            const struct zvs_mon_record *r = &g.rec[i];
            if (r->domain == ZVS_MON_DOMAIN_IO && r->number == ZVS_MON_REC_D6R21 &&
                r->u.vsw.rdev == rdev) {
                v = r->u.vsw;
                found = true;
            }
        }
    zvs_mon_reader_close(rd);
    unlink(path);
    rmdir(dir);
    assert_true(found);
    return v;
}

static void test_ivl_device_counts_its_wire(void **state)
{
    struct twin t;
    struct herm_guest *a;
    struct herm *h = joined_with_guest(&t, &a);
    uint8_t f[100];
    herm_frame(f, 100, BCAST, MAC_A, 1);
    herm_guest_send(h, a, f, 100, 1);               /* FLOOD: one copy to 2, one to 3 */
    assert_int_equal(herm_link(h, "ivl0")->data_rx, 2);
    struct zvs_ivl_hdr hd;
    ivl_last(h, 3, ZVS_IVL_FLOOD, ZVS_IVL_HF_GUEST_SRC, &hd);
    uint16_t vsw = hd.vswitch;
    herm_frame(f, 100, BCAST, MAC_R, 2);
    ivl_send(h, 2, ZVS_IVL_FLOOD, ZVS_IVL_HF_GUEST_SRC, vsw, 0, f, 100);   /* delivered */
    assert_int_equal(herm_guest_receive(h, a), 1);
    ivl_send(h, 1, ZVS_IVL_FLOOD, 0, vsw, 0, f, 100);                      /* refused: ours */
    herm_warp(h, 31);
    char path[128], dir[64];
    snprintf(path, sizeof path, "%s", h->mon_path);
    snprintf(dir, sizeof dir, "%s", h->dir);
    h->keep_monitor = true;
    stop(h, &t);
    struct zvs_mon_vswitch_activity v = last_d6r21(path, dir, 0x0E00);
    const uint64_t wrapped = ZVS_IVL_OUTER_LEN + 100;
    assert_int_equal(v.tx_packets, 2);
    assert_int_equal(v.tx_bytes, 2 * wrapped);
    assert_int_equal(v.rx_packets, 2);
    assert_int_equal(v.rx_bytes, 2 * wrapped);
    assert_int_equal(v.tx_discards + v.rx_discards, 0);
}

/* The IVL switch given another RDEV: the IVL port leaves E00 (free for another switch)
 * and opens on E01, where the guests' broadcasts now cross. */
static void test_ivl_port_follows_the_rdev(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL-MOVE.CONFIG", 1, TOKEN_MS);
    shared_and_joined(h, &t, 0);
    contains(herm_op(h, "QUERY VSWITCH GLOBSW"), "  IVL port: 0E00  UP  MTU: ");
    contains(herm_op(h, "SET VSWITCH IVLVSW RDEV E01"), "Command complete");
    herm_warp(h, 13);
    contains(herm_op(h, "QUERY VSWITCH GLOBSW"), "  IVL port: 0E01  UP  MTU: ");
    herm_op(h, "SET VSWITCH GLOBSW GRANT LNXA");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM GLOBSW");
    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);
    uint64_t old_rx = herm_link(h, "ivl0")->data_rx;
    uint8_t f[100];
    herm_frame(f, 100, BCAST, MAC_A, 1);
    herm_guest_send(h, a, f, 100, 1);
    assert_int_equal(herm_link(h, "ivl1")->data_rx, 2);     /* FLOOD to systems 2 and 3 */
    assert_int_equal(herm_link(h, "ivl0")->data_rx, old_rx);
    stop(h, &t);
}

/* DETACH VSWITCH of the IVL switch: the IVL port closes and says why it is not open. */
static void test_ivl_port_closes_at_detach(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL-MOVE.CONFIG", 1, TOKEN_MS);
    shared_and_joined(h, &t, 0);
    contains(herm_op(h, "QUERY VSWITCH GLOBSW"), "  IVL port: 0E00  UP  MTU: ");
    herm_op(h, "DETACH VSWITCH IVLVSW");
    herm_warp(h, 13);
    contains(herm_op(h, "QUERY VSWITCH GLOBSW"),
             "  IVL port: not open: no VSWITCH of TYPE IVL with an RDEV");
    stop(h, &t);
}

/* The IVL switch defined again with DOMAIN B: the actor's System ID becomes domain B's
 * (802.1AX-2020 9.3.2: the portal's one emulated System ID), the domain and the IVL port
 * are made again under the new letter. */
static void test_domain_letter_changes_the_system_id(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL-MOVE.CONFIG", 1, TOKEN_MS);
    shared_and_joined(h, &t, 0);
    partner_sees_the_domain(h);
    herm_op(h, "DETACH VSWITCH IVLVSW");
    contains(herm_op(h, "DEFINE VSWITCH IVLVSW TYPE IVL DOMAIN B RDEV E00"), "is created");
    herm_replug(h, "ivl0");             /* closed by the DETACH: plugged in again */
    herm_warp(h, 20);
    const uint8_t domain_b[6] = { 0x02, 'I', 'V', 'L', 0x00, 'B' };
    uint8_t sys[6], st;
    uint16_t key, port;
    last_actor(h, "osa28ba", sys, &key, &port, &st);
    assert_memory_equal(sys, domain_b, 6);
    assert_int_equal(key, 1);
    assert_int_equal(port, 0x0101);
    last_actor(h, "osa2902", sys, &key, &port, &st);
    assert_memory_equal(sys, domain_b, 6);
    const char *q = herm_op(h, "QUERY VSWITCH GLOBSW");
    contains(q, "  IVL domain: B  Status: ");
    contains(q, "  IVL port: 0E00  UP  MTU: ");
    stop(h, &t);
}

/* SET PORT GROUP ... SHARED whose pass fails after the group's step (the fallback RDEV
 * 2A00 cannot be attached again): the command is rolled back with no LACPDU sent, under
 * either identity, and QUERY PORT GROUP unchanged; the same command once the pass stands
 * gives the partner the domain's identity. */
static void test_failed_shared_keeps_the_identity(void **state)
{
    struct twin t;
    struct herm *h = start(&t, "tests/unit/hermetic/SYSTEM-IVL-FALLBACK.CONFIG", 1, TOKEN_MS);
    herm_warp(h, 3);
    /* 2A00 reopened in a new order: a dummy link opens once, so it waits for its cable */
    contains(herm_op(h, "SET VSWITCH GLOBSW RDEV 2B00 2A00"), "RDEV 2A00 cannot be opened");
    herm_replug(h, "osa2a00");
    const uint8_t own[6] = { 0x02, 0x00, 0x0C, 0x00, 0x00, 0x00 };   /* MACPREFIX 02000C */
    uint8_t sys[6], st;
    uint16_t key, port;
    last_actor(h, "osa28ba", sys, &key, &port, &st);
    assert_memory_equal(sys, own, 6);
    char *before = strdup(herm_op(h, "QUERY PORT GROUP GG"));
    assert_non_null(before);
    uint64_t pdus[2] = { herm_link(h, "osa28ba")->lacpdu_rx, herm_link(h, "osa2902")->lacpdu_rx };
    zvsd_step_fail(h->d, ZVSD_STEP_UPLINK_ADD, 1, ENOSPC);
    int rc;
    const char *out = herm_cp(h, "OPERATOR", "ABCDEFG", "SET PORT GROUP GG LACP ACTIVE SHARED",
                              &rc);
    assert_int_equal(rc, 1119);
    contains(out, "VSWITCH GLOBSW RDEV 2A00: no room for the uplink");
    zvsd_step_fail(h->d, ZVSD_STEP_UPLINK_ADD, 0, 0);
    assert_int_equal(herm_link(h, "osa28ba")->lacpdu_rx, pdus[0]);
    assert_int_equal(herm_link(h, "osa2902")->lacpdu_rx, pdus[1]);
    assert_string_equal(herm_op(h, "QUERY PORT GROUP GG"), before);
    free(before);
    herm_warp(h, 5);
    last_actor(h, "osa28ba", sys, &key, &port, &st);
    assert_memory_equal(sys, own, 6);
    /* the pass stands: the members negotiate under the domain's identity */
    herm_replug(h, "osa2a00");
    contains(herm_op(h, "SET PORT GROUP GG LACP ACTIVE SHARED"), "Command complete");
    peers_start(h, &t, 0);
    herm_warp(h, 17);
    partner_sees_the_domain(h);
    stop(h, &t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_joined_shows_the_domain),
        cmocka_unit_test(test_shared_in_system_config_joins_at_start),
        cmocka_unit_test(test_ivl_cut_holds_the_members_out),
        cmocka_unit_test(test_corosync_lost_and_back),
        cmocka_unit_test(test_peer_that_differs_is_refused),
        cmocka_unit_test(test_differing_system_refuses_and_holds),
        cmocka_unit_test(test_no_corosync_runs_alone),
        cmocka_unit_test(test_heartbeat_differs_from_token),
        cmocka_unit_test(test_corosync_conf_checked),
        cmocka_unit_test(test_frames_cross_the_ivl),
        cmocka_unit_test(test_ivl_device_counts_its_wire),
        cmocka_unit_test(test_ivl_port_follows_the_rdev),
        cmocka_unit_test(test_ivl_port_closes_at_detach),
        cmocka_unit_test(test_domain_letter_changes_the_system_id),
        cmocka_unit_test(test_failed_shared_keeps_the_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
