/* The hermetic daemon harness (hermetic.h): the real daemon on virtual time, dummy links,
 * an in-process LACP partner and in-process QDIO guests.
 * Hazard: the attach protocol is a blocking request/answer over a Unix socket, and the
 * daemon answers from its loop in this thread: the guest's side runs in a short-lived
 * helper thread while this thread settles the loop (virtual time does not move meanwhile).
 */
#include "hermetic.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "backends/dummy.h"
#include "backends/memlink.h"
#include "cp-commands/config.h"
#include "cp-commands/cp_response.h"
#include "daemon/console.h"
#include "daemon/daemon.h"
#include "daemon/daemon_impl.h"          /* the console, to map this process's uid */
#include "daemon/evloop.h"
#include "dataplane/log.h"
#include "lacp/pdu.h"
#include "qdio/qdio_attach.h"
#include "qdio/qdio_guest.h"
#include "tests/switchmodel/sm_config.h"
#include "tests/switchmodel/sm_switch.h"

#define PARTNER_SYSTEM { 0x00, 0x1b, 0x2b, 0x65, 0x09, 0x00 }   /* a Catalyst's base MAC */
#define PARTNER_KEY    100

/* ---- the partner ----------------------------------------------------------------------- */

static struct herm *the_herm;           /* the partner's callbacks carry a link only */

static void far_tx(struct herm_link *l, const uint8_t *buf, uint32_t len)
{
    struct zvs_frame f = { .data = buf, .len = len };
    struct zvs_tx t = { .f = &f, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why;
    /* Refused while the cable is cut: the partner's PDUs are lost, as on a wire. */
    (void)l->far->ops->tx(l->far, &t, 1, &why);
}

static void partner_send(void *arg, const struct zvs_lacpdu *pdu)
{
    struct herm_link *l = arg;
    uint8_t buf[ZVS_SLOW_FRAME_LEN];
    int n = zvs_lacpdu_build(pdu, l->mac, buf, sizeof buf);
    assert_int_equal(n, ZVS_SLOW_FRAME_LEN);
    far_tx(l, buf, (uint32_t)n);
}

static void partner_rearm(struct herm *h)
{
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < h->nlink; i++)
        if (h->link[i].lacp) {
            uint64_t w = zvs_lacp_port_next_wakeup(&h->link[i].engine);
            if (w < next)
                next = w;
        }
    if (next == UINT64_MAX)
        zvs_timer_disarm(h->ptimer);
    else
        zvs_timer_arm(h->ptimer, next);
}

static void on_partner_timer(void *arg, struct zvs_timer *t, uint64_t now)
{
    struct herm *h = arg;
    for (unsigned i = 0; i < h->nlink; i++)
        if (h->link[i].lacp && zvs_lacp_port_next_wakeup(&h->link[i].engine) <= now)
            zvs_lacp_port_run(&h->link[i].engine, now);
    partner_rearm(h);
}

static void far_input(struct herm *h, struct herm_link *l, const struct zvs_frame *f,
                      uint64_t now)
{
    uint8_t buf[HERM_FRAME_MAX];
    uint32_t len = zvs_frame_peek(f, buf, f->len < sizeof buf ? f->len : sizeof buf);
    struct zvs_lacpdu pdu;
    struct zvs_marker mk;
    int kind = zvs_slow_parse(buf, len, &pdu, &mk);
    if (kind == ZVS_SLOW_LACP) {
        l->lacpdu_rx++;
        memcpy(l->last_lacpdu, buf, len);
        l->last_lacpdu_len = len;
        l->last_lacpdu_ns = now - HERM_T0;
        if (l->lacp)
            zvs_lacp_port_rx(&l->engine, &pdu, now);
        return;
    }
    if (kind == ZVS_SLOW_MARKER) {
        if (!mk.response) {             /* 802.1AX 6.5.4: the Marker Responder echoes */
            uint8_t out[ZVS_SLOW_FRAME_LEN];
            int n = zvs_marker_response_build(&mk, l->mac, out, sizeof out);
            assert_int_equal(n, ZVS_SLOW_FRAME_LEN);
            far_tx(l, out, (uint32_t)n);
            l->markers_answered++;
        }
        return;
    }
    l->data_rx++;
    memcpy(l->last, buf, len);
    l->last_len = len;
    if (len >= 14 && buf[12] == 0x08 && buf[13] == 0x06) {     /* a frame of its own may */
        l->arp_rx++;                                            /* come before the last */
        l->last_arp_len = len < sizeof l->last_arp ? len : (uint32_t)sizeof l->last_arp;
        memcpy(l->last_arp, buf, l->last_arp_len);
    }
}

static void on_far(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct herm_link *l = arg;
    struct herm *h = the_herm;
    struct zvs_frame fr[32];
    int n;
    while ((n = l->far->ops->rx(l->far, fr, 32)) > 0) {
        for (int i = 0; i < n; i++)
            far_input(h, l, &fr[i], now);
        l->far->ops->rx_release(l->far, fr, n);
    }
    partner_rearm(h);
}

/* ---- start, stop, time ------------------------------------------------------------------ */

struct herm *herm_start(const struct herm_opts *o)
{
    struct herm *h = calloc(1, sizeof *h);
    assert_non_null(h);
    /* A test that failed earlier in this binary left its harness behind (cmocka jumped
     * out of it): its links must not block this one's names. */
    zvs_dummy_clear();
    the_herm = h;
    zvs_log_set_level(ZVS_LOG_ERROR);   /* the log is not what these tests read */
    snprintf(h->dir, sizeof h->dir, "/tmp/zvs-herm-XXXXXX");
    assert_non_null(mkdtemp(h->dir));
    snprintf(h->qdio_sock, sizeof h->qdio_sock, "%s/attach.sock", h->dir);
    snprintf(h->mon_path, sizeof h->mon_path, "%s/monitor", h->dir);
    snprintf(h->con_path, sizeof h->con_path, "%s/console.sock", h->dir);
    h->cfg = zvs_cfg_new();
    assert_non_null(h->cfg);
    assert_int_equal(zvs_cfg_load(h->cfg, o->sysconfig, o->userdirect), 0);
    zvs_lacp_aggregator_init(&h->agg, PARTNER_KEY);
    struct zvsd_options opt = {
        .qdio_socket = h->qdio_sock, .uplink_kind = "dummy",
        .virtual_start_ns = HERM_T0, .virtual_wall_us = HERM_WALL_US,
        .monitor_path = o->monitor_interval_s ? h->mon_path : NULL,
        .monitor_interval_s = o->monitor_interval_s,
        .console_path = o->console ? h->con_path : NULL,
        .ivl_cluster = o->ivl_cluster, .ivl_cluster_arg = o->ivl_cluster_arg,
        .corosync_conf = o->corosync_conf,
    };
    /* The links exist before the daemon opens them, as interfaces do before vswitchd
     * starts; their far ends are watched on the daemon's loop once it exists, and the
     * partner's engines start with it at T0. */
    for (const char *const *n = o->links; n && *n; n++) {
        struct herm_link *l = &h->link[h->nlink];
        snprintf(l->name, sizeof l->name, "%s", *n);
        l->bell = -1;
        if (o->switchmodel) {
            char sw_end[16];
            snprintf(sw_end, sizeof sw_end, "sw-%s", *n);
            assert_int_equal(zvs_dummy_create_pair(*n, sw_end), 0);
        } else {
            assert_int_equal(zvs_dummy_create(*n, &l->far), 0);
        }
        h->nlink++;
    }
    for (const char *const *n = o->lan; o->switchmodel && n && *n; n++) {
        struct herm_link *l = &h->link[h->nlink];
        snprintf(l->name, sizeof l->name, "%s", *n);
        l->bell = -1;
        assert_int_equal(zvs_dummy_create(*n, &l->far), 0);
        h->nlink++;
    }
    h->d = zvsd_create(h->cfg, &opt);
    assert_non_null(h->d);
    h->loop = zvsd_loop(h->d);
    assert_true(zvs_evloop_is_virtual(h->loop));
    h->ptimer = zvs_timer_create(h->loop, on_partner_timer, h);
    if (o->switchmodel) {
        /* The model on the daemon's loop, opening its ends of the cables now, as at its
         * start; its clock is the loop's. */
        char err[256];
        int rc = 0;
        assert_false(o->partner_lacp);
        h->smcfg = calloc(1, sizeof *h->smcfg);
        assert_non_null(h->smcfg);
        if (sm_config_load(o->switchmodel, h->smcfg, err, sizeof err) < 0)
            fail_msg("%s", err);
        struct sm_switch_io io = { .kind = "dummy" };
        h->sm = sm_switch_create_io(h->smcfg, h->loop, &io, &rc);
        if (!h->sm)
            fail_msg("switch model: %d", rc);
    }
    for (unsigned i = 0; i < h->nlink; i++) {
        struct herm_link *l = &h->link[i];
        l->port_no = (uint16_t)(0x101 + i);            /* Gi1/1, Gi1/2, ... */
        if (!l->far)
            continue;                   /* the model's end */
        zvs_dummy_mac(l->name, 0, l->mac);
        l->bell = zvs_memlink_doorbell(l->far);
        assert_true(l->bell >= 0);
        assert_int_equal(zvs_evloop_add_fd(h->loop, l->bell, EPOLLIN, on_far, l), 0);
        if (!o->partner_lacp)
            continue;
        struct zvs_lacp_port_cfg cfg = {
            .active = true, .fast = !o->partner_long_timeout, .system_priority = 32768,
            .system = PARTNER_SYSTEM, .key = PARTNER_KEY, .port_priority = 32768,
            .port = l->port_no, .speed_mbps = 10000, .full_duplex = true, .enabled = true,
            .aggregator = &h->agg,
        };
        struct zvs_lacp_port_cb cb = { .send = partner_send };
        assert_int_equal(zvs_lacp_port_init(&l->engine, &cfg, &cb, l,
                                            zvs_evloop_now(h->loop)), 0);
        l->lacp = true;
    }
    partner_rearm(h);
    assert_true(zvs_evloop_settle(h->loop) >= 0);
    return h;
}

void herm_replug(struct herm *h, const char *name)
{
    struct herm_link *l = herm_link(h, name);
    assert_non_null(l->far);
    if (l->bell >= 0)
        assert_int_equal(zvs_evloop_del_fd(h->loop, l->bell), 0);
    l->far->ops->destroy(l->far);
    l->far = NULL;
    assert_int_equal(zvs_dummy_create(name, &l->far), 0);
    l->bell = zvs_memlink_doorbell(l->far);
    assert_true(l->bell >= 0);
    assert_int_equal(zvs_evloop_add_fd(h->loop, l->bell, EPOLLIN, on_far, l), 0);
}

void herm_stop(struct herm *h)
{
    for (unsigned i = 0; i < h->nguest; i++) {
        zvs_qdio_guest_detach(h->guest[i].g);
        close(h->guest[i].session);
        close(h->guest[i].memfd);
        close(h->guest[i].siga);
        close(h->guest[i].irq);
    }
    zvs_timer_destroy(h->ptimer);
    for (unsigned i = 0; i < h->nlink; i++)
        if (h->link[i].bell >= 0)
            zvs_evloop_del_fd(h->loop, h->link[i].bell);
    sm_switch_destroy(h->sm);           /* its timers and descriptors are on the loop */
    zvsd_destroy(h->d);
    for (unsigned i = 0; i < h->nlink; i++) {
        if (h->link[i].lacp)
            zvs_lacp_port_fini(&h->link[i].engine, 0);
        if (h->link[i].far)
            h->link[i].far->ops->destroy(h->link[i].far);
    }
    zvs_dummy_clear();
    free(h->smcfg);
    free(h->sm_out);
    free(h->con_out);
    zvs_cfg_free(h->cfg);
    unlink(h->qdio_sock);
    if (!h->keep_monitor) {
        unlink(h->mon_path);
        rmdir(h->dir);
    }
    the_herm = NULL;
    free(h);
}

uint64_t herm_now_ns(const struct herm *h)
{
    return zvs_evloop_now(h->loop) - HERM_T0;
}

void herm_warp_ns(struct herm *h, uint64_t ns)
{
    assert_true(zvs_evloop_warp(h->loop, HERM_T0 + ns) >= 0);
}

void herm_warp(struct herm *h, double s)
{
    herm_warp_ns(h, (uint64_t)(s * 1e9 + 0.5));
}

/* ---- the operator console --------------------------------------------------------------- */

int herm_console_attach(struct herm *h, const char *userid, const char *classes)
{
    uint32_t cls = 0;
    for (const char *c = classes; *c; c++)
        cls |= ZVS_PRIVCLASS(*c);
    assert_non_null(h->d->console);
    assert_int_equal(zvs_console_map_user(h->d->console, getuid(), userid, cls), 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", h->con_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(send(fd, "\x1e" "CONSOLE\n", 9, MSG_NOSIGNAL), 9);
    assert_true(zvs_evloop_settle(h->loop) >= 0);   /* accepted, then the request read */
    assert_true(zvs_evloop_settle(h->loop) >= 0);
    char ack[16] = "";
    struct pollfd p = { .fd = fd, .events = POLLIN };
    assert_int_equal(poll(&p, 1, 1000), 1);
    assert_int_equal(recv(fd, ack, sizeof ack - 1, MSG_DONTWAIT), 6);
    assert_string_equal(ack, "\x1eRC=0\n");
    return fd;
}

const char *herm_console_read(struct herm *h, int fd)
{
    char raw[65536];
    size_t len = 0;
    ssize_t n;
    while ((n = recv(fd, raw + len, sizeof raw - 1 - len, MSG_DONTWAIT)) > 0)
        len += (size_t)n;
    raw[len] = '\0';
    free(h->con_out);
    h->con_out = calloc(1, len * 2 + 1);
    assert_non_null(h->con_out);
    char *out = h->con_out;
    for (char *line = raw, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        *nl = '\0';
        unsigned long long sec, usec;
        int off = 0;
        if (sscanf(line, "\x1eMSG %llu.%llu %n", &sec, &usec, &off) != 2 || off == 0)
            fail_msg("not a console message: %s", line);
        uint64_t us = sec * 1000000ull + usec - HERM_WALL_US;
        out += sprintf(out, "%llu.%03llus %s\n", (unsigned long long)(us / 1000000u),
                       (unsigned long long)(us % 1000000u / 1000u), line + off);
    }
    return h->con_out;
}

/* ---- commands --------------------------------------------------------------------------- */

static struct zvs_cp_response last_resp;

const char *herm_cp(struct herm *h, const char *userid, const char *classes, const char *line,
                    int *rc)
{
    uint32_t pc = 0;
    for (const char *c = classes; *c; c++)
        pc |= ZVS_PRIVCLASS(*c);
    zvs_cp_response_fini(&last_resp);
    zvs_cp_response_init(&last_resp);
    zvsd_exec(h->d, userid, pc, line, &last_resp);
    /* What the command sent (PDUs of a JOIN, ...) is received at this same instant. */
    assert_true(zvs_evloop_settle(h->loop) >= 0);
    if (rc)
        *rc = last_resp.rc;
    if (!last_resp.text)
        return "";
    /* Lines end with '\n' inside the response; the lab's vmcp prints the last without. */
    if (last_resp.len && last_resp.text[last_resp.len - 1] == '\n')
        last_resp.text[--last_resp.len] = 0;
    return last_resp.text;
}

const char *herm_op(struct herm *h, const char *line)
{
    int rc;
    const char *out = herm_cp(h, "OPERATOR", "ABCDEFG", line, &rc);
    if (rc != 0)
        fail_msg("'%s': rc %d: %s", line, rc, out);
    return out;
}

const char *herm_model(struct herm *h, const char *line, int *rc)
{
    assert_non_null(h->sm);
    size_t len = 0;
    free(h->sm_out);
    h->sm_out = NULL;
    FILE *f = open_memstream(&h->sm_out, &len);
    assert_non_null(f);
    int r = sm_switch_command(h->sm, line, f);
    fclose(f);
    /* What the command sent (a shutdown's carrier event) is received at this instant. */
    assert_true(zvs_evloop_settle(h->loop) >= 0);
    if (rc)
        *rc = r;
    return h->sm_out;
}

/* ---- links -------------------------------------------------------------------------------- */

struct herm_link *herm_link(struct herm *h, const char *name)
{
    for (unsigned i = 0; i < h->nlink; i++)
        if (strcmp(h->link[i].name, name) == 0)
            return &h->link[i];
    fail_msg("no link %s", name);
    return NULL;
}

void herm_cut(struct herm *h, const char *name, bool up)
{
    struct herm_link *l = herm_link(h, name);
    if (!l->far)
        fail_msg("%s: the switch model holds its end: use its shutdown", name);
    zvs_memlink_set_carrier(l->far, up);
    if (l->lacp) {
        zvs_lacp_port_set_enabled(&l->engine, up, zvs_evloop_now(h->loop));
        partner_rearm(h);
    }
    assert_true(zvs_evloop_settle(h->loop) >= 0);
}

void herm_link_send(struct herm *h, const char *name, const uint8_t *frame, uint32_t len)
{
    struct herm_link *l = herm_link(h, name);
    if (!l->far)
        fail_msg("%s: the switch model holds its end", name);
    far_tx(l, frame, len);
    assert_true(zvs_evloop_settle(h->loop) >= 0);
}

/* ---- guests ------------------------------------------------------------------------------- */

struct attach_job {
    struct herm       *h;
    struct herm_guest *g;
    int                rc;
    char               err[128];
    atomic_bool        done;
};

static void *attach_thread(void *arg)
{
    struct attach_job *j = arg;
    j->rc = zvs_qdio_attach_connect(j->h->qdio_sock, j->g->userid, j->g->vdev, &j->g->memfd,
                                    &j->g->siga, &j->g->irq, &j->g->session, j->err,
                                    sizeof j->err);
    atomic_store(&j->done, true);
    return NULL;
}

struct herm_guest *herm_guest_attach(struct herm *h, const char *userid, uint16_t vdev)
{
    assert_true(h->nguest < HERM_GUESTS);
    struct herm_guest *g = &h->guest[h->nguest];
    memset(g, 0, sizeof *g);
    snprintf(g->userid, sizeof g->userid, "%s", userid);
    g->vdev = vdev;
    struct attach_job j = { .h = h, .g = g };
    atomic_init(&j.done, false);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, attach_thread, &j), 0);
    /* The daemon answers from its loop; virtual time stands still meanwhile. */
    for (int i = 0; i < 20000 && !atomic_load(&j.done); i++) {
        assert_true(zvs_evloop_settle(h->loop) >= 0);
        struct timespec ts = { 0, 100000 };
        nanosleep(&ts, NULL);
    }
    pthread_join(t, NULL);
    if (j.rc < 0)
        fail_msg("attach %s %04X: %d %s", userid, vdev, j.rc, j.err);
    assert_int_equal(zvs_qdio_guest_map(g->memfd, g->siga, g->irq, &g->g), 0);
    assert_int_equal(zvs_qdio_guest_init_queues(g->g), 0);
    assert_true(zvs_evloop_settle(h->loop) >= 0);
    h->nguest++;
    return g;
}

void herm_guest_send(struct herm *h, struct herm_guest *g, const uint8_t *frame, uint32_t len,
                     int n)
{
    for (int i = 0; i < n; i++) {
        struct zvs_qdio_pkt p = { .data = frame, .len = len };
        assert_int_equal(zvs_qdio_guest_send(g->g, &p, 1), 1);
        /* One frame per SIGA, as a ping sends: each is its own buffer hand-over. */
        assert_true(zvs_evloop_settle(h->loop) >= 0);
        zvs_qdio_guest_reap(g->g);
    }
}

void herm_guest_blast(struct herm *h, struct herm_guest *g, const uint8_t *frame, uint32_t len,
                      int n)
{
    struct zvs_qdio_pkt p[16];
    for (int i = 0; i < 16; i++)
        p[i] = (struct zvs_qdio_pkt){ .data = frame, .len = len };
    for (int stalled = 0; n > 0;) {
        int sent = zvs_qdio_guest_send(g->g, p, n < 16 ? n : 16);
        if (sent == -ENOBUFS)
            sent = 0;                   /* every page set is out: let the daemon take them */
        assert_true(sent >= 0);
        stalled = sent ? 0 : stalled + 1;
        if (stalled > 3)
            fail_msg("%s %04X: the daemon takes no output buffer", g->userid, g->vdev);
        n -= sent;
        assert_true(zvs_evloop_settle(h->loop) >= 0);
        zvs_qdio_guest_reap(g->g);
    }
}

static void on_guest_rx(void *arg, const struct zvs_qdio_rx *rx)
{
    struct herm_guest *g = arg;
    g->rx_frames++;
    g->rx_bytes += rx->len;
}

int herm_guest_receive(struct herm *h, struct herm_guest *g)
{
    uint64_t before = g->rx_frames;
    while (zvs_qdio_guest_rx_pending(g->g))
        zvs_qdio_guest_receive(g->g, 256, on_guest_rx, g);
    zvs_qdio_guest_irq_ack(g->g);
    assert_true(zvs_evloop_settle(h->loop) >= 0);
    return (int)(g->rx_frames - before);
}

void herm_report_group(struct herm *h)
{
    herm_op(h, "SET PORT GROUP CCBGROUP JOIN 28BA 2902");
    herm_op(h, "SET PORT GROUP CCBGROUP INTERVAL 30");
    herm_op(h, "DEFINE VSWITCH CCBVSW1 ETHERNET GROUP CCBGROUP QUEUESTORAGE 1M");
}

struct herm_guest *herm_report_sequence(struct herm *h)
{
    herm_report_group(h);
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXA");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1");
    return herm_guest_attach(h, "LNXA", 0xF000);
}

struct herm *herm_start_report(struct herm_guest **lnxa)
{
    static const char *const links[] = { "osa28ba", "osa2902", NULL };
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true,
    };
    struct herm *h = herm_start(&o);
    *lnxa = herm_report_sequence(h);
    return h;
}

uint32_t herm_frame(uint8_t *buf, uint32_t len, const uint8_t dst[6], const uint8_t src[6],
                    uint32_t seq)
{
    assert_true(len >= 14 && len <= HERM_FRAME_MAX);
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    buf[12] = 0x08;
    buf[13] = 0x00;
    for (uint32_t i = 14; i < len; i++)
        buf[i] = (uint8_t)(seq * 31u + i);
    return len;
}

/* ---- golden files --------------------------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    size_t n;
    while ((n = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2)
            s = realloc(s, cap *= 2);
    }
    s[len] = 0;
    fclose(f);
    return s;
}

static void compare(const char *path, const char *want, const char *got)
{
    if (!want)
        fail_msg("golden %s missing (ZVS_GOLDEN_UPDATE=1 writes it); got:\n%s", path, got);
    if (strcmp(want, got) == 0)
        return;
    /* The first line that differs, then both texts. */
    const char *a = want, *b = got;
    int line = 1;
    while (*a && *a == *b) {
        if (*a == '\n')
            line++;
        a++, b++;
    }
    fail_msg("%s differs at line %d\n--- want\n%s--- got\n%s", path, line, want, got);
}

/* With ZVS_GOLDEN_UPDATE set, writes `got` as the golden file `path`; otherwise compares
 * them. Frees `got`. */
static void golden_check(const char *path, char *got)
{
    if (getenv("ZVS_GOLDEN_UPDATE")) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
        free(got);
        return;
    }
    char *want = slurp(path);
    compare(path, want, got);
    free(want);
    free(got);
}

void herm_golden(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "tests/golden/hermetic/%s", name);
    size_t n = strlen(text);
    char *got = malloc(n + 2);
    memcpy(got, text, n + 1);
    if (n == 0 || got[n - 1] != '\n')
        strcpy(got + n, "\n");          /* files end with a newline */
    golden_check(path, got);
}

static bool has(const char *line, size_t n, const char *what)
{
    size_t w = strlen(what);
    for (size_t i = 0; i + w <= n; i++)
        if (memcmp(line + i, what, w) == 0)
            return true;
    return false;
}

/* One line of the lab's awk program: digits to '#', then "# +" to "# ". */
static void mask_digits(const char *p, size_t n, char *out, size_t *o, bool squeeze)
{
    for (size_t i = 0; i < n;) {
        if (p[i] >= '0' && p[i] <= '9') {
            while (i < n && p[i] >= '0' && p[i] <= '9')
                i++;
            out[(*o)++] = '#';
            if (squeeze && i < n && p[i] == ' ') {
                while (i < n && p[i] == ' ')
                    i++;
                out[(*o)++] = ' ';
            }
            continue;
        }
        out[(*o)++] = p[i++];
    }
}

char *herm_lab_normalize(const char *text)
{
    size_t len = strlen(text);
    char *out = malloc(len * 2 + 2);
    size_t o = 0;
    int up = 0;
    bool lag = false;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        bool skip = false;
        if (n > 11 && memcmp(p, "PORT GROUP ", 11) == 0 && has(p, n, " Timeout: "))
            lag = true;
        if (lag && n >= 12 && memcmp(p, "  MAC table:", 12) == 0)
            lag = false;
        if (lag)
            skip = true;
        if (!skip && has(p, n, "RDEV: "))
            up = 5;
        if (!skip && up > 0 && has(p, n, "Drops:"))
            skip = true;
        if (!skip) {
            size_t start = o;
            if (up > 0 && !has(p, n, "RDEV: ")) {
                mask_digits(p, n, out, &o, true);
                up--;
            } else {
                if (up > 0)
                    up--;
                if (has(p, n, "MAC table:"))
                    mask_digits(p, n, out, &o, false);
                else {
                    memcpy(out + o, p, n);
                    o += n;
                }
            }
            /* "Out: 12.3 Mbit" -> "Out: # Mbit", "In: 4.5" -> "In: #". */
            if (has(out + start, o - start, "Mbit")) {
                char tmp[512];
                size_t t = 0, m = o - start;
                for (size_t i = 0; i < m && t < sizeof tmp - 2;) {
                    const char *q = out + start + i;
                    if ((m - i > 5 && memcmp(q, "Out: ", 5) == 0) ||
                        (m - i > 4 && memcmp(q, "In: ", 4) == 0)) {
                        size_t k = q[0] == 'O' ? 5 : 4;
                        memcpy(tmp + t, q, k);
                        t += k, i += k;
                        size_t d = i;
                        while (d < m && ((out[start + d] >= '0' && out[start + d] <= '9') ||
                                         out[start + d] == '.'))
                            d++;
                        if (d > i) {
                            tmp[t++] = '#';
                            i = d;
                        }
                        continue;
                    }
                    tmp[t++] = out[start + i++];
                }
                memcpy(out + start, tmp, t);
                o = start + t;
            }
            out[o++] = '\n';
        }
        p += n + (nl ? 1 : 0);
    }
    out[o] = 0;
    return out;
}

void herm_golden_lab(const char *path, const char *text)
{
    /* Updated, the file is the lab's as cp_commands.sh masks it. */
    golden_check(path, herm_lab_normalize(text));
}
