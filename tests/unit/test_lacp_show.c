/* Tests for lacp/lacp_show.c: the port report and the state flags, byte for byte (golden
 * strings), and the snprintf contract at every buffer length. The engine is driven on
 * virtual time by a scripted partner so every number in the report is known. */
#include "lacp/lacp_show.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#define S(x)  ((uint64_t)(x) * ZVS_LACP_NS_PER_SEC)
#define MS(x) ((uint64_t)(x) * 1000000ull)

struct world {
    struct zvs_lacp_port port;
    struct zvs_lacp_marker marker;
    unsigned lacp_tx;                   /* LACPDUs the engine sent */
    struct zvs_marker last_marker;      /* last Marker PDU we sent */
};

static void send_lacp(void *arg, const struct zvs_lacpdu *pdu)
{
    (void)pdu;
    ((struct world *)arg)->lacp_tx++;
}

static void send_marker(void *arg, const struct zvs_marker *m)
{
    ((struct world *)arg)->last_marker = *m;
}

static const uint8_t our_sys[6] = { 0x02, 0x00, 0x0C, 0x00, 0x00, 0x01 };

static struct zvs_lacp_port_cfg cfg(bool fast)
{
    struct zvs_lacp_port_cfg c;

    memset(&c, 0, sizeof(c));
    c.active = true;
    c.fast = fast;
    c.system_priority = 32768;
    memcpy(c.system, our_sys, 6);
    c.key = 1;
    c.port_priority = 32768;
    c.port = 1;
    c.speed_mbps = 10000;
    c.full_duplex = true;
    c.enabled = true;
    return c;
}

static void world_init(struct world *w, const struct zvs_lacp_port_cfg *c, uint64_t now)
{
    static const struct zvs_lacp_port_cb cb = { .send = send_lacp };
    static const struct zvs_lacp_marker_cb mcb = { .send = send_marker };

    memset(w, 0, sizeof(*w));
    assert_int_equal(zvs_lacp_port_init(&w->port, c, &cb, w, now), 0);
    assert_int_equal(zvs_lacp_marker_init(&w->marker, c->port, c->system, &mcb, w), 0);
}

/* Runs the engine at each of its wakeups up to t. */
static void advance(struct world *w, uint64_t t)
{
    while (zvs_lacp_port_next_wakeup(&w->port) <= t)
        zvs_lacp_port_run(&w->port, zvs_lacp_port_next_wakeup(&w->port));
}

/* The partner switch, 32768,02-00-0A-00-00-01 key 1 port 32768,1, seeing us correctly. */
static void partner_says(struct world *w, uint8_t state, uint64_t now)
{
    struct zvs_lacpdu pdu;
    static const uint8_t sw[6] = { 0x02, 0x00, 0x0A, 0x00, 0x00, 0x01 };

    memset(&pdu, 0, sizeof(pdu));
    pdu.version = 1;
    pdu.actor.system_priority = 32768;
    memcpy(pdu.actor.system, sw, 6);
    pdu.actor.key = 1;
    pdu.actor.port_priority = 32768;
    pdu.actor.port = 1;
    pdu.actor.state = state;
    pdu.partner = *zvs_lacp_port_actor(&w->port);
    advance(w, now);
    zvs_lacp_port_rx(&w->port, &pdu, now);
}

/* A formed fast link at 12.4 s: init at 0.5 s, partner PDUs every second from 1 s to 12 s
 * (SYNC from 1 s, COLLECTING from 4 s), one marker answered, one parse error of each MIB
 * kind. tx 15: fast periodic at 0.5, 1.5 ... 11.5 s (12), ATTACHED+COLLECTING at 3 s (one
 * PDU: Transmit runs once per call), the answer to the partner's stale view at 3 s, and
 * DISTRIBUTING at 4 s. Last tx 11.5 s: 0.9 s ago, periodic due at 12.5 s. */
static const char golden_formed[] =
    "Port 1: LACP ACTIVE  Timeout SHORT  Mux INDEPENDENT  Carrier UP  Duplex FULL  Speed 10000\n"
    "Actor:   Sys 32768,02-00-0C-00-00-01  Key 1  Port 32768,1  State ACT STO AGG SYN COL DIS\n"
    "Partner: Sys 32768,02-00-0A-00-00-01  Key 1  Port 32768,1  State ACT STO AGG SYN COL DIS\n"
    "Machines: RX CURRENT  PTX FAST_PERIODIC  SEL SELECTED  MUX DISTRIBUTING  CHURN NO_CHURN/NO_CHURN\n"
    "LACPDUs: rx 12  tx 15  illegal 1  unknown 1  loopback 0  Last rx 0.4s ago  Last tx 0.9s ago\n"
    "Markers: rx 0  tx 1  Responses rx 1  tx 0  Timeouts 0  Unmatched 0  Outstanding 0  Suppressed 0\n"
    "Timers left: current_while 2.6s  periodic 0.1s  wait_while -  churn -/-\n"
    "Flaps 0  Expired 1  Defaulted 0  Actor churn 0  Partner churn 0  Ignored 0  Rate limited 0  Transitions 33\n"
    "Faults: drop_rx OFF  drop_tx OFF  delay_tx OFF  Dropped rx 0  tx 0  Delayed 0  Queued 0  Overflow 0\n";

static void build_formed(struct world *w)
{
    struct zvs_lacp_port_cfg c = cfg(true);
    struct zvs_marker resp;
    unsigned t;

    world_init(w, &c, MS(500));
    for (t = 1; t <= 12; t++)
        partner_says(w, t < 4 ? 0x0F : 0x3F, S(t));
    assert_int_equal(zvs_lacp_marker_send(&w->marker, S(12), ZVS_LACP_MARKER_TIMEOUT_NS, NULL),
                     0);
    resp = w->last_marker;
    resp.response = true;
    zvs_lacp_marker_rx(&w->marker, &resp, S(12) + MS(100));
    zvs_lacp_port_count_parse_error(&w->port, ZVS_LACP_ERR_SHORT);
    zvs_lacp_port_count_parse_error(&w->port, ZVS_LACP_ERR_ETHERTYPE);
    advance(w, S(12) + MS(400));
}

static void test_format_formed(void **st)
{
    struct world w;
    char buf[2048];
    int n;

    (void)st;
    build_formed(&w);
    n = zvs_lacp_port_format(&w.port, &w.marker, S(12) + MS(400), buf, sizeof(buf));
    assert_string_equal(buf, golden_formed);
    assert_int_equal(n, (int)strlen(golden_formed));
}

/* A Marker flood on the formed port: 20 Marker Information at one instant. The port's
 * Marker budget is 7 frames a second (802.3 Annex 43B's 10, less LACP's 3) and our own
 * Marker 0.4 s earlier took one: 6 answered, 14 shown suppressed; LACPDUs untouched. */
static void test_format_marker_suppressed(void **st)
{
    struct world w;
    char buf[2048];
    struct zvs_marker info = { .version = ZVS_MARKER_VERSION, .requester_port = 9,
                               .requester_system = { 0x02, 0, 0x0A, 0, 0, 1 } };

    (void)st;
    build_formed(&w);
    for (unsigned i = 0; i < 20; i++) {
        info.transaction_id = 100 + i;
        zvs_lacp_marker_rx(&w.marker, &info, S(12) + MS(400));
    }
    zvs_lacp_port_format(&w.port, &w.marker, S(12) + MS(400), buf, sizeof(buf));
    assert_non_null(strstr(buf, "\nMarkers: rx 20  tx 1  Responses rx 1  tx 6  Timeouts 0"
                                "  Unmatched 0  Outstanding 0  Suppressed 14\n"));
    assert_non_null(strstr(buf, "\nLACPDUs: rx 12  tx 15  illegal 1  unknown 1  loopback 0"));
}

/* Every buffer length: never more than len bytes, NUL-terminated, a prefix of the whole
 * report, and the return value is the whole length. */
static void test_format_truncation(void **st)
{
    struct world w;
    char buf[2048];
    size_t len, full = strlen(golden_formed);

    (void)st;
    build_formed(&w);
    assert_int_equal(zvs_lacp_port_format(&w.port, &w.marker, S(12) + MS(400), NULL, 0),
                     (int)full);
    for (len = 1; len <= full + 2; len++) {
        memset(buf, 'Z', sizeof(buf));
        assert_int_equal(zvs_lacp_port_format(&w.port, &w.marker, S(12) + MS(400), buf, len),
                         (int)full);
        assert_int_equal(strlen(buf), len - 1 < full ? len - 1 : full);
        assert_memory_equal(buf, golden_formed, strlen(buf));
        assert_int_equal(buf[len], 'Z');                /* nothing past len */
    }
}

/* A passive, long-timeout, coupled port without carrier and without a marker: nothing runs,
 * the partner is the admin default, and the knobs show. */
static const char golden_down[] =
    "Port 7: LACP PASSIVE  Timeout LONG  Mux COUPLED  Carrier DOWN  Duplex FULL  Speed 1000\n"
    "Actor:   Sys 32768,02-00-0C-00-00-01  Key 1  Port 32768,7  State AGG DEF\n"
    "Partner: Sys 0,00-00-00-00-00-00  Key 0  Port 0,0  State -\n"
    "Machines: RX PORT_DISABLED  PTX NO_PERIODIC  SEL UNSELECTED  MUX DETACHED  CHURN CHURN_MONITOR/CHURN_MONITOR\n"
    "LACPDUs: rx 0  tx 0  illegal 0  unknown 0  loopback 0  Last rx never  Last tx never\n"
    "Markers: -\n"
    "Timers left: current_while -  periodic -  wait_while -  churn -/-\n"
    "Flaps 0  Expired 0  Defaulted 0  Actor churn 0  Partner churn 0  Ignored 0  Rate limited 0  Transitions 1\n"
    "Faults: drop_rx ON  drop_tx OFF  delay_tx 2.5s  Dropped rx 0  tx 0  Delayed 0  Queued 0  Overflow 0\n";

static void test_format_down(void **st)
{
    struct world w;
    struct zvs_lacp_port_cfg c = cfg(false);
    struct zvs_lacp_faults f = { .drop_rx = true, .delay_tx_ns = S(2) + MS(599) };
    char buf[2048];

    (void)st;
    c.active = false;
    c.port = 7;
    c.speed_mbps = 1000;
    c.enabled = false;
    c.coupled_mux = true;
    world_init(&w, &c, S(1));
    zvs_lacp_port_set_faults(&w.port, &f, S(1));
    assert_int_equal(zvs_lacp_port_format(&w.port, NULL, S(5), buf, sizeof(buf)),
                     (int)strlen(golden_down));
    assert_string_equal(buf, golden_down);
}

/* Timers and ages while WAITING and with the churn machines running. */
static void test_format_waiting(void **st)
{
    struct world w;
    struct zvs_lacp_port_cfg c = cfg(false);
    char buf[2048];
    char *line;

    (void)st;
    world_init(&w, &c, S(10));
    partner_says(&w, 0x05, S(11) + MS(250));
    assert_int_equal(zvs_lacp_port_mux_state(&w.port), ZVS_LACP_MUX_WAITING);
    zvs_lacp_port_format(&w.port, &w.marker, S(12), buf, sizeof(buf));
    line = strstr(buf, "Timers left:");
    assert_non_null(line);
    *strchr(line, '\n') = '\0';
    assert_string_equal(line, "Timers left: current_while 89.2s  periodic 29.2s  "
                              "wait_while 1.2s  churn 58.0s/58.0s");
    line = strstr(buf, "LACPDUs:");
    *strchr(line, '\n') = '\0';
    assert_string_equal(line, "LACPDUs: rx 1  tx 2  illegal 0  unknown 0  loopback 0  "
                              "Last rx 0.7s ago  Last tx 1.0s ago");
}

static void test_state_flags(void **st)
{
    char b[ZVS_LACP_STATE_FLAGS_LEN];

    (void)st;
    assert_string_equal(zvs_lacp_state_flags(0x00, b), "-");
    assert_string_equal(zvs_lacp_state_flags(0x3F, b), "ACT STO AGG SYN COL DIS");
    assert_string_equal(zvs_lacp_state_flags(0x3D, b), "ACT AGG SYN COL DIS");
    assert_string_equal(zvs_lacp_state_flags(0x45, b), "ACT AGG DEF");
    assert_string_equal(zvs_lacp_state_flags(0x80, b), "EXP");
    assert_string_equal(zvs_lacp_state_flags(0xFF, b), "ACT STO AGG SYN COL DIS DEF EXP");
    assert_int_equal(strlen(b), 31);
    assert_ptr_equal(zvs_lacp_state_flags(0x01, b), b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_formed),
        cmocka_unit_test(test_format_marker_suppressed),
        cmocka_unit_test(test_format_truncation),
        cmocka_unit_test(test_format_down),
        cmocka_unit_test(test_format_waiting),
        cmocka_unit_test(test_state_flags),
    };

    return cmocka_run_group_tests_name("lacp_show", tests, NULL, NULL);
}
