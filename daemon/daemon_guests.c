/* Hercules machines in vswitchd: the machine commands (cp-commands/command.h) and
 * the LCS NICs of running machines.
 *
 * A machine is guests/vm.h's supervisor; this file gives it the daemon's event loop (its
 * output pipe and pidfd are watched, one timer serves every machine's deadline) and turns
 * its events into NIC state: when the machine's LCS tap opens, the NIC bound to it
 * (NICBIND vdev LCS) gets a guest_tap driver on a packet socket in the machine's
 * namespace (backends/lcs.h) and is bound to its queues if coupled; when the machine
 * ends, the driver goes and the NIC stays defined and coupled, discarding (and counting)
 * frames for it, as for a z/VM guest that logged off with its NIC coupled.
 *
 * Responses (z/VM's where general knowledge has them, ours marked in cp_messages.c):
 *   XAUTOLOG  "Command accepted" and "AUTO LOGON ***  userid   USERS = n"
 *   FORCE     "USER DSC   LOGOFF AS  userid   USERS = n    FORCED BY issuer"
 *   SIGNAL    "User userid has been signaled to shut down (WITHIN s)"  (ours)
 *   SEND      nothing (rc 0)
 *   QUERY NAMES / USERS  "userid   - DSC" (four to a line, ", " between), machines only
 * What happens later (no tap within 10 s, an early exit, a disabled wait) goes to the
 * machine's console log (QUERY CONSLOG) and vswitchd's log.
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>

#include "backends/lcs.h"
#include "guests/vm.h"

#define MAX_VMS 256

struct zvsd_guests {
    struct zvsd      *d;
    struct zvs_timer *timer;
    unsigned          nvm;
    struct zvs_vm    *vm[MAX_VMS];
};

static uint64_t now_ms(struct zvsd *d)
{
    return zvs_evloop_now(d->loop) / 1000000u;
}

static int find_vm(struct zvsd_guests *g, const char *userid)
{
    for (unsigned i = 0; i < g->nvm; i++)
        if (g->vm[i] && strcmp(zvs_vm_userid(g->vm[i]), userid) == 0)
            return (int)i;
    return -1;
}

static unsigned running(const struct zvsd_guests *g)
{
    unsigned n = 0;
    for (unsigned i = 0; i < g->nvm; i++)
        n += g->vm[i] != NULL;
    return n;
}

static void rearm(struct zvsd_guests *g)
{
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < g->nvm; i++)
        if (g->vm[i] && zvs_vm_deadline(g->vm[i]) < next)
            next = zvs_vm_deadline(g->vm[i]);
    if (next == UINT64_MAX)
        zvs_timer_disarm(g->timer);
    else
        zvs_timer_arm(g->timer, next * 1000000u);
}

/* The LCS NIC slot of a user, or NULL. */
static struct d_nic *lcs_nic(struct zvsd *d, const char *userid)
{
    for (unsigned i = 0; i < d->nnic; i++)
        if (d->nic[i].used && d->nic[i].lcs && strcmp(d->nic[i].userid, userid) == 0)
            return &d->nic[i];
    return NULL;
}

static void drop_driver(struct zvsd *d, struct d_nic *n)
{
    if (!n || !n->tap)
        return;
    if (n->ds)
        while (zvs_switch_poll(n->ds->sw, n->port, zvs_evloop_now(d->loop)) > 0)
            ;
    zvsd_lcs_fold(n);                   /* the last of them, before the socket goes */
    zvsd_tap_unwatch(d, n);
    zvs_guest_tap_close(n->tap);        /* unbinds: the queues go back to not initialised */
    n->tap = NULL;
    n->ifname[0] = '\0';
}

static void adopt(struct zvsd *d, struct d_nic *n, int netns_fd, const char *ifname)
{
    struct zvs_guest_tap *t;
    int err = zvs_lcs_open(netns_fd, ifname, &t);
    if (err < 0) {
        zvs_warn("%s.%04X: cannot open LCS tap %s: %s", n->userid, n->vdev, ifname,
                 strerror(-err));
        return;
    }
    drop_driver(d, n);
    n->tap = t;
    n->lcs_kdrops = 0;
    snprintf(n->ifname, sizeof n->ifname, "%s", ifname);
    if (n->port && (err = zvs_guest_tap_bind(t, n->port)) < 0)
        zvs_warn("%s.%04X: cannot bind LCS tap %s: %s", n->userid, n->vdev, ifname,
                 strerror(-err));
    zvs_evloop_add_fd(d->loop, zvs_guest_tap_fd(t), EPOLLIN, zvsd_on_tap, n);
    zvs_evloop_add_fd(d->loop, zvs_guest_tap_irq_fd(t), EPOLLIN, zvsd_on_nic_irq, n);
    zvs_info("%s.%04X: LCS tap %s of the machine is its backend%s", n->userid, n->vdev,
             ifname, n->port ? "" : " (NIC not coupled)");
}

static void ev_tap_open(void *ctx, struct zvs_vm *vm, int netns_fd, const char *ifname)
{
    struct zvsd *d = ctx;
    struct d_nic *n = lcs_nic(d, zvs_vm_userid(vm));
    if (n)
        adopt(d, n, netns_fd, ifname);
    rearm(d->guests);
}

static void ev_gone(void *ctx, struct zvs_vm *vm, const char *why)
{
    struct zvsd *d = ctx;
    zvs_warn("%s", why);
    drop_driver(d, lcs_nic(d, zvs_vm_userid(vm)));
}

/* The guest's MAC is not its NIC's (vm.h: mac_wrong). The NIC stays its backend: what
 * the guest sends still goes through it, and the log says why the LAN learns another MAC
 * for it (FORCE and XAUTOLOG give the guest the right one again). */
static void ev_mac_wrong(void *ctx, struct zvs_vm *vm, const char *why)
{
    (void)ctx;
    (void)vm;
    zvs_warn("%s", why);
}

static void on_vm_exit(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd *d = arg;
    struct zvsd_guests *g = d->guests;
    for (unsigned i = 0; i < g->nvm; i++) {
        struct zvs_vm *vm = g->vm[i];
        if (!vm || zvs_vm_exit_fd(vm) != fd)
            continue;
        zvs_evloop_del_fd(d->loop, fd);
        if (zvs_vm_out_fd(vm) >= 0)
            zvs_evloop_del_fd(d->loop, zvs_vm_out_fd(vm));
        zvs_vm_on_exit(vm, now / 1000000u);
        zvs_vm_destroy(vm);
        g->vm[i] = NULL;
        break;
    }
    rearm(g);
}

static void on_vm_output(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd *d = arg;
    struct zvsd_guests *g = d->guests;
    for (unsigned i = 0; i < g->nvm; i++) {
        struct zvs_vm *vm = g->vm[i];
        if (!vm || zvs_vm_out_fd(vm) != fd)
            continue;
        zvs_vm_on_output(vm, now / 1000000u);
        if (events & (EPOLLHUP | EPOLLERR))
            zvs_evloop_del_fd(d->loop, fd);     /* the pidfd says the rest */
        break;
    }
    rearm(g);
}

static void on_timer(void *arg, struct zvs_timer *t, uint64_t now)
{
    struct zvsd *d = arg;
    struct zvsd_guests *g = d->guests;
    for (unsigned i = 0; i < g->nvm; i++)
        if (g->vm[i])
            zvs_vm_tick(g->vm[i], now / 1000000u);
    rearm(g);
}

int zvsd_guests_create(struct zvsd *d)
{
    d->guests = calloc(1, sizeof *d->guests);
    if (!d->guests)
        return -ENOMEM;
    d->guests->d = d;
    d->guests->timer = zvs_timer_create(d->loop, on_timer, d);
    return d->guests->timer ? 0 : -ENOMEM;
}

void zvsd_guests_destroy(struct zvsd *d)
{
    struct zvsd_guests *g = d->guests;
    if (!g)
        return;
    for (unsigned i = 0; i < g->nvm; i++) {
        if (!g->vm[i])
            continue;
        zvs_evloop_del_fd(d->loop, zvs_vm_exit_fd(g->vm[i]));
        if (zvs_vm_out_fd(g->vm[i]) >= 0)
            zvs_evloop_del_fd(d->loop, zvs_vm_out_fd(g->vm[i]));
        drop_driver(d, lcs_nic(d, zvs_vm_userid(g->vm[i])));
        zvs_vm_destroy(g->vm[i]);       /* SIGKILL and reap: no machine outlives us */
    }
    if (g->timer)
        zvs_timer_destroy(g->timer);
    free(g);
    d->guests = NULL;
}

/* A NIC (re)defined while its machine runs: the machine's tap is adopted at once when it
 * is the tap this NIC describes (same LCS device, the guest's MAC the NIC's: Hercules took
 * the tap's MAC from the NIC at XAUTOLOG and cannot change it now). Otherwise the NIC
 * waits for the next XAUTOLOG, and the log says why. */
void zvsd_guests_nic_created(struct zvsd *d, struct d_nic *n)
{
    struct zvsd_guests *g = d->guests;
    int k = g ? find_vm(g, n->userid) : -1;
    if (k < 0 || zvs_vm_tap(g->vm[k])[0] == '\0')
        return;                         /* not running, or its tap not open yet */
    const struct zvs_vm_spec *s = zvs_vm_spec(g->vm[k]);
    int u = zvs_cfg_find_user(d->run, n->userid);
    const struct zvs_cfg_nic *nic = NULL;
    if (u >= 0)
        for (unsigned i = d->run->user[u].first_nic;
             i < (unsigned)d->run->user[u].first_nic + d->run->user[u].nnic; i++)
            if (d->run->nic[i].vdev == n->vdev)
                nic = &d->run->nic[i];
    if (!nic || !s->has_lcs || nic->lcs_devno != s->lcs_devno || memcmp(nic->mac, s->nic_mac, 6)) {
        zvs_info("%s.%04X: defined while the machine runs with another LCS device or MAC: "
                 "its tap is adopted at the next XAUTOLOG", n->userid, n->vdev);
        return;
    }
    adopt(d, n, zvs_vm_netns_fd(g->vm[k]), zvs_vm_tap(g->vm[k]));
}

/* The kernel's drops of what the guest sent (lcs.h: zvs_lcs_fold_kernel_drops) become the
 * NIC's TX discards (guest-overrun) while it is coupled; lcs_kdrops keeps the sum since
 * the tap opened, coupled or not, for the LCS line of QUERY NIC DETAILS. */
void zvsd_lcs_fold(struct d_nic *n)
{
    if (n->lcs && n->tap)
        n->lcs_kdrops += zvs_lcs_fold_kernel_drops(n->tap, n->ds ? n->port : NULL);
}

/* Before anything reads the counters (a command, a monitor sample): one getsockopt per
 * running machine's NIC. */
void zvsd_lcs_fold_all(struct zvsd *d)
{
    for (unsigned i = 0; i < d->nnic; i++)
        if (d->nic[i].used)
            zvsd_lcs_fold(&d->nic[i]);
}

/* The LCS driver's side of an LCS NIC: what the tap refused (down at a STARTLAN flap, or
 * its queue to Hercules full), which the NIC's own counters cannot show, and the kernel's
 * drops before the driver read them (the socket buffer full: the guest outran the switch),
 * which are also the NIC's guest-overrun discards while coupled. Since the tap opened
 * (the machine's XAUTOLOG). */
void zvsd_lcs_counters(const struct d_nic *n, struct zvs_cp_response *r)
{
    struct zvs_guest_tap_stats st;
    zvs_guest_tap_stats(n->tap, &st);
    /* Kernel drops: folded when the command began (zvsd_execute), as the NIC's counters. */
    zvs_cp_printf(r, "  LCS to guest: %llu frames  Dropped: %llu tap down  %llu tap full",
                  (unsigned long long)st.tap_tx_frames,
                  (unsigned long long)st.tap_tx_dropped_down,
                  (unsigned long long)st.tap_tx_dropped_full);
    zvs_cp_printf(r, "  LCS from guest: %llu frames  Read errors: %llu  Queue full: %llu  "
                  "Kernel drops: %llu", (unsigned long long)st.tap_rx_frames,
                  (unsigned long long)st.tap_rx_errors,
                  (unsigned long long)st.tap_rx_queue_full,
                  (unsigned long long)n->lcs_kdrops);
}

/* ---- the commands -------------------------------------------------------------------- */

static void spec_of(struct zvsd *d, const struct zvs_cfg_user *u, struct zvs_vm_spec *s)
{
    const struct zvs_cfg *cfg = d->run;
    memset(s, 0, sizeof *s);
    snprintf(s->userid, sizeof s->userid, "%s", u->userid);
    snprintf(s->dir, sizeof s->dir, "%s/%s",
             d->opt.guest_dir ? d->opt.guest_dir : "/run/zvswitch/guests", u->userid);
    snprintf(s->images, sizeof s->images, "%s",
             d->opt.guest_images ? d->opt.guest_images : "build/guests");
    snprintf(s->hercules, sizeof s->hercules, "%s", d->opt.hercules ? d->opt.hercules : "hercules");
    s->ipl = u->ipl == ZVS_IPL_INS ? ZVS_VM_IPL_INS : ZVS_VM_IPL_NAMED;
    snprintf(s->ipl_name, sizeof s->ipl_name, "%s", u->ipl_name);
    snprintf(s->ipl_path, sizeof s->ipl_path, "%s", u->ipl_path);
    s->mainsize_mb = (uint32_t)((u->storage + (1u << 20) - 1) >> 20);
    s->ip = u->guest_ip;
    s->prefix = u->guest_prefix;
    s->gw = u->guest_gw;
    for (unsigned k = u->first_nic; k < (unsigned)u->first_nic + u->nnic; k++) {
        const struct zvs_cfg_nic *n = &cfg->nic[k];
        if (n->backend != ZVS_NIC_BACKEND_LCS)
            continue;
        s->has_lcs = true;
        s->lcs_devno = n->lcs_devno;
        memcpy(s->nic_mac, n->mac, 6);
        zvs_lcs_tap_mac(n->mac, s->tap_mac);
        break;
    }
}

static void ensure_dir(const char *path)
{
    char p[ZVS_VM_PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            (void)mkdir(p, 0755);
            *s = '/';
        }
    (void)mkdir(p, 0755);
}

static void xautolog(struct zvsd *d, const char *issuer, const char *userid,
                     struct zvs_cp_response *r)
{
    struct zvsd_guests *g = d->guests;
    int u = zvs_cfg_find_user(d->run, userid);
    char why[ZVS_VM_WHY_MAX + 64];

    if (u < 0) {
        zvs_cp_error(r, ZVS_CPMSG_NOT_IN_DIRECTORY, userid);
        return;
    }
    const struct zvs_cfg_user *usr = &d->run->user[u];
    if (usr->ipl == ZVS_IPL_NONE) {
        zvs_cp_error(r, ZVS_CPMSG_NO_IPL, userid);
        return;
    }
    if (find_vm(g, userid) >= 0) {
        zvs_cp_error(r, ZVS_CPMSG_ALREADY_LOGGED_ON, userid);
        return;
    }
    unsigned slot = 0;
    while (slot < g->nvm && g->vm[slot])
        slot++;
    if (slot == MAX_VMS) {
        zvs_cp_error(r, ZVS_CPMSG_LIMIT_REACHED, "machine", "256");
        return;
    }
    struct zvs_vm_spec s;
    spec_of(d, usr, &s);
    ensure_dir(d->opt.guest_dir ? d->opt.guest_dir : "/run/zvswitch/guests");
    const struct zvs_vm_events ev = { .tap_open = ev_tap_open, .gone = ev_gone,
                                      .mac_wrong = ev_mac_wrong, .ctx = d };
    why[0] = '\0';
    if (zvs_vm_prepare(&s, why, sizeof why) < 0) {
        /* The response's reason is short (files by name); the log says where. */
        zvs_warn("XAUTOLOG %s: %s (images %s, IPL INS %s, folder %s)", userid, why, s.images,
                 s.ipl == ZVS_VM_IPL_INS ? s.ipl_path : "-", s.dir);
        zvs_cp_error(r, ZVS_CPMSG_IMAGE_MISSING, usr->ipl == ZVS_IPL_INS ? "INS" : usr->ipl_name,
                     why);
        return;
    }
    struct zvs_vm *vm = zvs_vm_start(&s, &zvs_vm_runner_linux, &ev, now_ms(d), why, sizeof why);
    if (!vm) {
        zvs_cp_error(r, ZVS_CPMSG_START_FAILED, userid, why);
        return;
    }
    g->vm[slot] = vm;
    if (slot == g->nvm)
        g->nvm++;
    zvs_evloop_add_fd(d->loop, zvs_vm_exit_fd(vm), EPOLLIN, on_vm_exit, d);
    zvs_evloop_add_fd(d->loop, zvs_vm_out_fd(vm), EPOLLIN, on_vm_output, d);
    rearm(g);
    zvs_info("XAUTOLOG %s by %s: Hercules pid %d, log %s", userid, issuer, zvs_vm_pid(vm),
             zvs_vm_log_path(vm));
    zvs_cp_printf(r, "Command accepted");
    zvs_cp_printf(r, "AUTO LOGON  ***       %-8s USERS = %u", userid, running(g));
}

static void names(struct zvsd_guests *g, struct zvs_cp_response *r)
{
    char line[128] = "";
    unsigned k = 0;
    for (unsigned i = 0; i < g->nvm; i++) {
        if (!g->vm[i])
            continue;
        size_t n = strlen(line);
        snprintf(line + n, sizeof line - n, "%s%-8s - DSC", k % 4 ? " , " : "",
                 zvs_vm_userid(g->vm[i]));
        if (++k % 4 == 0) {
            zvs_cp_printf(r, "%s", line);
            line[0] = '\0';
        }
    }
    if (line[0])
        zvs_cp_printf(r, "%s", line);
    if (k == 0)
        zvs_cp_error(r, ZVS_CPMSG_NOTHING_TO_SHOW, "logged-on machines");
}

static void conslog(struct zvsd *d, const char *userid, unsigned lines,
                    struct zvs_cp_response *r)
{
    char path[ZVS_VM_PATH_MAX + 32];
    static char buf[64 * 1024];
    snprintf(path, sizeof path, "%s/%s/console.log",
             d->opt.guest_dir ? d->opt.guest_dir : "/run/zvswitch/guests", userid);
    if (zvs_cfg_find_user(d->run, userid) < 0) {
        zvs_cp_error(r, ZVS_CPMSG_NOT_IN_DIRECTORY, userid);
        return;
    }
    int n = zvs_vm_log_tail(path, lines, buf, sizeof buf);
    if (n <= 0) {
        zvs_cp_error(r, ZVS_CPMSG_NOTHING_TO_SHOW, "console log lines");
        return;
    }
    char *save = NULL;
    for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        for (char *c = l; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x1e)
                *c = ' ';               /* responses never carry control bytes (RS) */
        zvs_cp_printf(r, "%s", l);
    }
}

static bool machine_verb(enum zvs_cmd_verb v)
{
    return v == ZVS_CMD_XAUTOLOG || v == ZVS_CMD_FORCE || v == ZVS_CMD_SIGNAL_SHUTDOWN ||
           v == ZVS_CMD_SEND || v == ZVS_CMD_QUERY_NAMES || v == ZVS_CMD_QUERY_USERS ||
           v == ZVS_CMD_QUERY_CONSLOG;
}

bool zvsd_guests_exec(struct zvsd *d, const char *userid, const struct zvs_cmd *c,
                      struct zvs_cp_response *r)
{
    struct zvsd_guests *g = d->guests;
    if (!machine_verb(c->verb))
        return false;
    if (!g)
        return true;
    int k = c->userid[0] ? find_vm(g, c->userid) : -1;
    switch (c->verb) {
    case ZVS_CMD_XAUTOLOG:
        xautolog(d, userid, c->userid, r);
        break;
    case ZVS_CMD_FORCE:
        if (k < 0) {
            zvs_cp_error(r, ZVS_CPMSG_NOT_LOGGED_ON, c->userid);
            break;
        }
        zvs_vm_force(g->vm[k], now_ms(d));
        zvs_cp_printf(r, "USER DSC   LOGOFF AS  %-8s USERS = %u    FORCED BY %s", c->userid,
                      running(g) - 1, userid);
        break;
    case ZVS_CMD_SIGNAL_SHUTDOWN: {
        unsigned hit = 0;
        for (unsigned i = 0; i < g->nvm; i++) {
            if (!g->vm[i] || (c->userid[0] && (int)i != k))
                continue;
            if (zvs_vm_signal_shutdown(g->vm[i], c->within_s, now_ms(d)) == 0) {
                zvs_cp_printf(r, "User %s has been signaled to shut down (WITHIN %u)",
                              zvs_vm_userid(g->vm[i]), (unsigned)c->within_s);
                hit++;
            }
        }
        if (hit == 0)
            zvs_cp_error(r, ZVS_CPMSG_NOT_LOGGED_ON, c->userid[0] ? c->userid : "ALL");
        rearm(g);
        break;
    }
    case ZVS_CMD_SEND:
        if (k < 0) {
            zvs_cp_error(r, ZVS_CPMSG_NOT_LOGGED_ON, c->userid);
            break;
        }
        if (zvs_vm_send(g->vm[k], c->text) < 0)
            zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "SEND", "console busy");
        break;
    case ZVS_CMD_QUERY_NAMES:
        names(g, r);
        break;
    case ZVS_CMD_QUERY_USERS:
        if (k < 0)
            zvs_cp_error(r, ZVS_CPMSG_NOT_LOGGED_ON, c->userid);
        else
            zvs_cp_printf(r, "%-8s - DSC", c->userid);
        break;
    case ZVS_CMD_QUERY_CONSLOG:
        conslog(d, c->userid, c->lines, r);
        break;
    default:                            /* not a machine verb: returned above */
        break;
    }
    return true;
}
