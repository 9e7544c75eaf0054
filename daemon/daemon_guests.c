/* Hercules machines in vswitchd: the machine commands (cp-commands/command.h) and
 * what their devices mean to the user's NICs.
 *
 * A machine is guests/vm.h's supervisor; this file gives it the daemon's event loop (its
 * output pipe and pidfd are watched, one timer serves every machine's deadline) and tells
 * the user's NICs its events through their kinds (backends/nic_class.h): its device
 * opened (machine_up), it ended (machine_gone), and, to a NIC defined while it runs, the
 * machine itself (zvsd_guests_machine). The NIC of its LCS device (NICBIND vdev LCS,
 * guests/nic_lcs.c) takes the tap then and lets it go; other kinds have nothing to do.
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

#include "cp-commands/command.h"
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
        n += g->vm[i] != NULL && zvs_vm_logged_on(g->vm[i]);
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

/* The machine as its NICs see it, its device open. */
static void machine_of(const struct zvs_vm *vm, struct zvs_nic_machine *m)
{
    const struct zvs_vm_spec *s = zvs_vm_spec(vm);
    *m = (struct zvs_nic_machine){ .netns_fd = zvs_vm_netns_fd(vm), .tap = zvs_vm_tap(vm),
                                   .has_device = s->has_lcs, .devno = s->lcs_devno };
    memcpy(m->mac, s->nic_mac, sizeof m->mac);
}

/* Each NIC of the machine's user hears it: its device opened (m), or it ended (m NULL). */
static void tell_nics(struct zvsd *d, const struct zvs_vm *vm, const struct zvs_nic_machine *m)
{
    uint64_t now = zvs_evloop_now(d->loop);
    for (unsigned i = 0; i < d->nnic; i++) {
        struct d_nic *n = &d->nic[i];
        if (!n->used || strcmp(n->userid, zvs_vm_userid(vm)) != 0)
            continue;
        if (m)
            zvs_nic_machine_up(n->side, m, now);
        else
            zvs_nic_machine_gone(n->side, now);
    }
}

static void ev_tap_open(void *ctx, struct zvs_vm *vm, int netns_fd, const char *ifname)
{
    struct zvsd *d = ctx;
    struct zvs_nic_machine m;
    machine_of(vm, &m);
    m.netns_fd = netns_fd;
    m.tap = ifname;
    tell_nics(d, vm, &m);
    rearm(d->guests);
}

static void ev_gone(void *ctx, struct zvs_vm *vm, const char *why)
{
    struct zvsd *d = ctx;
    zvs_warn("%s", why);
    tell_nics(d, vm, NULL);
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
        tell_nics(d, g->vm[i], NULL);
        zvs_vm_destroy(g->vm[i]);       /* SIGKILL and reap: no machine outlives us */
    }
    if (g->timer)
        zvs_timer_destroy(g->timer);
    free(g);
    d->guests = NULL;
}

bool zvsd_guests_machine(struct zvsd *d, const char *userid, struct zvs_nic_machine *m)
{
    struct zvsd_guests *g = d->guests;
    int k = g ? find_vm(g, userid) : -1;
    if (k < 0 || zvs_vm_tap(g->vm[k])[0] == '\0')
        return false;                   /* not running, or its tap not open yet */
    machine_of(g->vm[k], m);
    return true;
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
    const struct zvs_cfg_nic *n = zvs_cfg_machine_nic(cfg, (unsigned)(u - cfg->user));
    if (n) {
        s->has_lcs = true;
        s->lcs_devno = n->lcs_devno;
        memcpy(s->nic_mac, n->mac, 6);
        zvs_lcs_tap_mac(n->mac, s->tap_mac);
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
        if (!g->vm[i] || !zvs_vm_logged_on(g->vm[i]))   /* forced: gone for CP already */
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
        if (k < 0 || !zvs_vm_logged_on(g->vm[k])) {      /* forced already: logged off */
            zvs_cp_error(r, ZVS_CPMSG_NOT_LOGGED_ON, c->userid);
            break;
        }
        zvs_vm_force(g->vm[k], now_ms(d));
        zvs_cp_printf(r, "USER DSC   LOGOFF AS  %-8s USERS = %u    FORCED BY %s", c->userid,
                      running(g), userid);
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
