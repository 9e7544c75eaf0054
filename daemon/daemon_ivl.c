/* The IVL domain in the daemon: a Global VSWITCH whose port group is SHARED (z/VM
 * Connectivity, "Multi-VSwitch Link Aggregation") makes this system one member of its IVL
 * domain, run by ivl/domain.h over a cluster (ivl/cluster.h: Corosync's on a real system,
 * the test's in the hermetic suite), and the domain's answer decides whether the group's
 * members may be in the shared aggregation (lag/lag_domain.h).
 *
 * What runs where:
 *   - the domain is made (its cluster joined) by the reconcile pass that stands with a
 *     SHARED group of a Global VSWITCH and this system among the IVL MEMBERs (its INDEX is
 *     the domain index the group numbers its ports with: daemon_reconcile.c asks
 *     zvsd_ivl_group_index), and made again when the group's definition changes; it goes
 *     when the group is no longer SHARED or no longer served;
 *   - Corosync's descriptors (CPG, votequorum) are watched on the loop while joined and
 *     removed before they close (zvs_cluster_corosync_on_close); a tick every 100 ms runs
 *     the cluster's due work (the in-memory twin's deliveries, a join again once a second
 *     after the engine was lost);
 *   - the domain's answer and the group's members meet at the end of the iteration
 *     (zvsd_ivl_idle, from on_idle): at once when the domain changed, else at most every
 *     10 ms, so a member's LACP state reaches the others within that and nothing per frame;
 *   - what happens is told (ZVSIVL1263I-1267W): the status as it changes, running alone and
 *     why, a system whose definition differs (on both sides), HEARTBEAT TIMEOUT against
 *     corosync's token timeout, and at the first domain an operator's corosync.conf
 *     (vswitchd --corosync-conf) checked against SYSTEM CONFIG.
 * One domain per system: the first Global VSWITCH (in SYSTEM CONFIG's order) with a SHARED
 * group; another SHARED group runs as this system's alone.
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "daemon/ivl_conf.h"
#include "ivl/cluster_corosync.h"
#include "ivl/domain.h"
#include "lag/lag_domain.h"
#include "lag/pgroup.h"

#define TICK_NS     (100ull * 1000000ull)  /* the cluster's due work */
#define SYNC_NS     (10ull * 1000000ull)   /* members to the domain, at most this late */

/* What the running configuration asks of the domain. */
struct want {
    bool    on;                         /* a Global VSWITCH serves a SHARED group */
    char    vswitch[ZVS_NAME_MAX + 1];
    char    group[ZVS_NAME_MAX + 1];
    uint8_t index;                      /* this system's IVL MEMBER INDEX, 0: not one */
    char    letter;                     /* TYPE IVL DOMAIN */
};

struct zvsd_ivl {
    struct zvsd              *d;
    struct zvs_ivl_domain    *dom;      /* NULL: no domain runs */
    struct zvs_cluster       *cl;       /* dom's cluster (dom owns it), or NULL */
    struct zvs_ivl_domain_cfg cfg;      /* what dom was made with */
    bool                      corosync; /* cl is Corosync's: its descriptors are watched */
    unsigned                  nfd;
    int                       fd[2];
    struct zvs_timer         *timer;
    bool                      dirty;    /* the domain changed since the last sync */
    uint64_t                  synced;   /* when the members last went to the domain */
    char                      alone[96];/* why the system runs alone, "" when it does not */
    enum zvs_ivl_status       told;     /* the status last told */
    bool                      told_any;
    uint32_t                  differs_told;   /* node ids (bit n-1) told as differing */
    bool                      heartbeat_told;
    bool                      conf_checked;   /* --corosync-conf checked (once) */
    char                      letter;   /* TYPE IVL DOMAIN: the IVL port's MACs */
};

static void want_of(const struct zvsd *d, struct want *w)
{
    const struct zvs_cfg *cfg = d->run;
    memset(w, 0, sizeof *w);
    w->letter = 'A';
    for (unsigned i = 0; i < cfg->nvswitch; i++) {
        const struct zvs_cfg_vswitch *vs = &cfg->vswitch[i];
        if (vs->scope == ZVS_VSW_IVL && vs->ivl_domain)
            w->letter = vs->ivl_domain;
        if (w->on || vs->scope != ZVS_VSW_GLOBAL || !vs->group[0])
            continue;
        int gi = zvs_cfg_find_group(cfg, vs->group);
        if (gi < 0 || !cfg->group[gi].shared)
            continue;
        w->on = true;
        snprintf(w->vswitch, sizeof w->vswitch, "%s", vs->name);
        snprintf(w->group, sizeof w->group, "%s", vs->group);
    }
    for (unsigned k = 0; w->on && k < cfg->ivl.nmember; k++)
        if (strcmp(cfg->ivl.member[k].sysname, d->sysname) == 0)
            w->index = cfg->ivl.member[k].index;
}

unsigned zvsd_ivl_group_index(const struct zvsd *d, const char *group)
{
    struct want w;
    want_of(d, &w);
    return w.on && strcmp(w.group, group) == 0 ? w.index : 0;
}

bool zvsd_ivl_group_held(const struct zvsd *d, const char *group)
{
    const struct zvsd_ivl *iv = d->ivl;
    return iv && iv->dom && strcmp(iv->cfg.group, group) == 0 &&
           !zvs_ivl_domain_aggregating(iv->dom);
}

static struct zvs_lag *group_lag(struct zvsd *d, const char *group)
{
    return group[0] ? zvsd_port_group(d, group) : NULL;
}

/* ---- the cluster on the loop ---------------------------------------------------------- */

static void on_changed(void *arg)
{
    struct zvsd_ivl *iv = arg;
    iv->dirty = true;
}

/* Corosync closes its descriptors: their watches go first (evloop.h's contract). */
static void on_cluster_close(void *arg, const int *fds, unsigned n)
{
    struct zvsd_ivl *iv = arg;
    for (unsigned i = 0; i < iv->nfd; i++)
        if (!iv->d->stopping)           /* a stop removed every watch already */
            zvs_evloop_del_fd(iv->d->loop, iv->fd[i]);
    iv->nfd = 0;
}

static void fds_sync(struct zvsd_ivl *iv);

static void run_cluster(struct zvsd_ivl *iv, uint64_t now)
{
    if (!iv->dom)
        return;
    zvs_ivl_domain_run(iv->dom, now);
    fds_sync(iv);
}

static void on_fd(void *arg, int fd, uint32_t events, uint64_t now)
{
    run_cluster(arg, now);
}

static void on_tick(void *arg, struct zvs_timer *t, uint64_t now)
{
    struct zvsd_ivl *iv = arg;
    run_cluster(iv, now);
    if (iv->dom && iv->cl)
        zvs_timer_arm(t, now + TICK_NS);
}

/* The descriptors of a joined Corosync cluster on the loop (new after a join again). */
static void fds_sync(struct zvsd_ivl *iv)
{
    if (!iv->corosync || !iv->cl)
        return;
    int f[2];
    unsigned n = zvs_cluster_corosync_fds(iv->cl, f);
    for (unsigned i = 0; i < n; i++) {
        bool known = false;
        for (unsigned k = 0; k < iv->nfd; k++)
            known |= iv->fd[k] == f[i];
        if (known || iv->nfd == 2)
            continue;
        int rc = zvs_evloop_add_fd(iv->d->loop, f[i], EPOLLIN, on_fd, iv);
        if (rc == 0)
            iv->fd[iv->nfd++] = f[i];
        else                            /* the tick still dispatches it */
            zvs_warn("IVL domain: cannot watch corosync's descriptor %d: %s", f[i],
                     strerror(-rc));
    }
}

/* ---- making and dropping the domain --------------------------------------------------- */

static void domain_drop(struct zvsd_ivl *iv)
{
    if (!iv->dom)
        return;
    zvs_info("IVL domain: VSWITCH %s leaves its domain", iv->cfg.vswitch);
    zvsd_ivl_port_close(iv->d, zvs_evloop_now(iv->d->loop));
    zvs_ivl_domain_free(iv->dom);       /* a clean leave; Corosync's watches go first */
    iv->dom = NULL;
    iv->cl = NULL;
    iv->corosync = false;
    iv->nfd = 0;
    zvs_timer_disarm(iv->timer);
    memset(&iv->cfg, 0, sizeof iv->cfg);
    iv->told_any = false;
    iv->differs_told = 0;
    iv->heartbeat_told = false;
}

static void say_alone(struct zvsd_ivl *iv, const char *vswitch, const char *why)
{
    if (strcmp(iv->alone, why) == 0)
        return;
    snprintf(iv->alone, sizeof iv->alone, "%s", why);
    zvsd_say(iv->d, ZVS_CPMSG_IVL_ALONE, NULL, vswitch, why, NULL);
}

/* --corosync-conf: the operator's file against SYSTEM CONFIG, once, at the first domain.
 * What ivl_conf.c prints (a header line, then a line per difference; or why it could not
 * check) becomes one message: "n difference(s): a; b" or the reason. */
static void check_conf(struct zvsd_ivl *iv)
{
    const char *path = iv->d->opt.corosync_conf;
    if (!path || iv->conf_checked)
        return;
    iv->conf_checked = true;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return;
    int rc = zvsd_ivl_check_corosync(iv->d->run, path, out);
    fclose(out);
    if (rc == 0) {
        zvs_info("IVL domain: %s agrees with SYSTEM CONFIG", path);
        free(text);
        return;
    }
    char msg[ZVS_CPMSG_TEXT_MAX], list[ZVS_CPMSG_TEXT_MAX] = "";
    size_t off = 0;
    char *p = text;
    if (rc > 0 && p)                    /* the header line says what the message says */
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    while (p && *p && off < sizeof list) {
        p += strspn(p, " -");           /* the list's indent */
        if (strncmp(p, "vswitchd: ", 10) == 0)
            p += 10;
        size_t n = strcspn(p, "\n");
        if (n)
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%.*s", off ? "; " : "",
                                    (int)n, p);
        p += n + (p[n] == '\n');
    }
    if (rc > 0)
        snprintf(msg, sizeof msg, "%d difference(s): %.480s", rc, list);
    else
        snprintf(msg, sizeof msg, "%s", list[0] ? list : "cannot be checked");
    if (rc > 0)                         /* whole: the message cuts the list at 480 bytes */
        zvs_warn("IVL domain: %s: %d difference(s): %s", path, rc, list);
    else
        zvs_warn("IVL domain: %s: %s", path, msg);
    zvsd_say(iv->d, ZVS_CPMSG_IVL_COROSYNC_CONF, NULL, path, msg, NULL);
    free(text);
}

static struct zvs_cluster *make_cluster(struct zvsd_ivl *iv, const struct want *w)
{
    struct zvsd *d = iv->d;
    iv->corosync = false;
    if (d->opt.ivl_cluster)
        return d->opt.ivl_cluster(d->opt.ivl_cluster_arg, w->vswitch, w->index);
    if (zvs_evloop_is_virtual(d->loop))
        return NULL;                    /* the hermetic suite without a cluster: alone */
    struct zvs_cluster *cl = zvs_cluster_corosync_new(w->vswitch, NULL);
    if (cl) {
        zvs_cluster_corosync_on_close(cl, on_cluster_close, iv);
        iv->corosync = true;
    }
    return cl;
}

static void domain_make(struct zvsd_ivl *iv, const struct want *w,
                        const struct zvs_ivl_domain_cfg *cfg, uint64_t now)
{
    struct zvs_cluster *cl = make_cluster(iv, w);
    iv->dom = zvs_ivl_domain_new(cfg, cl, on_changed, iv);  /* owns cl, even on failure */
    if (!iv->dom) {
        iv->corosync = false;
        say_alone(iv, w->vswitch, "the domain cannot be made (system or switch name, index)");
        return;
    }
    iv->cl = cl;
    iv->cfg = *cfg;
    iv->letter = w->letter;
    iv->dirty = true;
    int rc = zvs_ivl_domain_start(iv->dom);
    if (!cl) {
        say_alone(iv, w->vswitch, "no cluster engine configured");
    } else if (rc < 0) {
        char why[96];
        if (rc == -ENOTCONN)
            snprintf(why, sizeof why, "corosync is not running (no answer on its IPC)");
        else
            snprintf(why, sizeof why, "corosync failed the join (%s)", strerror(-rc));
        say_alone(iv, w->vswitch, why);
    } else {
        iv->alone[0] = '\0';
        zvs_info("IVL domain: VSWITCH %s joined as system %s, index %u, node %u", w->vswitch,
                 cfg->system, cfg->index, zvs_cluster_node_id(cl));
    }
    fds_sync(iv);
    if (cl)
        zvs_timer_arm(iv->timer, now + TICK_NS);
}

void zvsd_ivl_reconcile(struct zvsd *d)
{
    struct want w;
    want_of(d, &w);
    if (!w.on && !d->ivl)
        return;
    if (!d->ivl) {
        struct zvsd_ivl *iv = calloc(1, sizeof *iv);
        if (!iv)
            return;
        iv->d = d;
        iv->timer = zvs_timer_create(d->loop, on_tick, iv);
        if (!iv->timer) {
            free(iv);
            return;
        }
        d->ivl = iv;
    }
    struct zvsd_ivl *iv = d->ivl;
    struct zvs_lag *lag = w.on ? group_lag(d, w.group) : NULL;
    if (!w.on || !lag || !w.index) {
        domain_drop(iv);
        if (w.on && !w.index) {
            char why[96];
            snprintf(why, sizeof why, "system %s is not an IVL MEMBER", d->sysname);
            say_alone(iv, w.vswitch, why);
        } else if (!w.on) {
            iv->alone[0] = '\0';
        }
        return;
    }
    struct zvs_ivl_domain_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.system, sizeof cfg.system, "%s", d->sysname);
    cfg.index = w.index;
    snprintf(cfg.vswitch, sizeof cfg.vswitch, "%s", w.vswitch);
    snprintf(cfg.group, sizeof cfg.group, "%s", w.group);
    cfg.shared = true;
    zvs_lag_domain_def(zvs_lag_params(lag), &cfg.def);
    /* HEARTBEAT TIMEOUT is compared here (tell), not in the domain's configuration:
     * IVLPORT changes it on a running domain, and a new domain would leave and join the
     * group for nothing. */
    iv->dirty = true;                   /* the group may be new: sync it either way */
    /* The IVL port follows the TYPE IVL switch: detached, or given another RDEV, the port
     * closes (the next idle opens it on the switch's RDEV now, if any), so the old device
     * is free for another switch. */
    if (!zvsd_ivl_port_current(d))
        zvsd_ivl_port_close(d, zvs_evloop_now(d->loop));
    /* The DOMAIN letter is in the IVL port's MACs: a new letter remakes both. */
    if (iv->dom && memcmp(&cfg, &iv->cfg, sizeof cfg) == 0 && iv->letter == w.letter)
        return;
    domain_drop(iv);
    check_conf(iv);
    domain_make(iv, &w, &cfg, zvs_evloop_now(d->loop));
}

void zvsd_ivl_destroy(struct zvsd *d)
{
    struct zvsd_ivl *iv = d->ivl;
    if (!iv)
        return;
    domain_drop(iv);
    zvs_timer_destroy(iv->timer);
    free(iv);
    d->ivl = NULL;
}

/* ---- the domain and the group, each iteration ---------------------------------------- */

static uint32_t heartbeat_ms(const struct zvsd *d)
{
    return (uint32_t)d->run->ivl.heartbeat_s * 1000u;
}

/* What changed is told: the status, systems that differ, the heartbeat's mismatch. */
static void tell(struct zvsd_ivl *iv)
{
    struct zvsd *d = iv->d;
    enum zvs_ivl_status st = zvs_ivl_domain_status(iv->dom);
    if (!iv->told_any || st != iv->told)
        zvsd_say(d, ZVS_CPMSG_IVL_STATUS, NULL, iv->cfg.vswitch, zvs_ivl_status_name(st), NULL);
    /* Alone, then not: the domain's join once a second succeeded (a corosync started, or
     * taking the join, since); only that leaves an ALONE status. */
    if (iv->told_any && zvs_ivl_status_alone(iv->told) && !zvs_ivl_status_alone(st)) {
        iv->alone[0] = '\0';
        zvs_info("IVL domain: VSWITCH %s joined as system %s, index %u, node %u",
                 iv->cfg.vswitch, iv->cfg.system, iv->cfg.index, zvs_cluster_node_id(iv->cl));
    }
    iv->told = st;
    iv->told_any = true;
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    unsigned n = zvs_ivl_domain_systems(iv->dom, v, ZVS_CL_MAX_NODES);
    uint32_t differs = 0;
    for (unsigned i = 0; i < n; i++) {
        if (v[i].agrees || v[i].node_id == 0 || v[i].node_id > 32)
            continue;
        uint32_t bit = 1u << (v[i].node_id - 1);
        differs |= bit;
        if (!(iv->differs_told & bit))
            zvsd_say(d, ZVS_CPMSG_IVL_DIFFERS, NULL, iv->cfg.group, v[i].state.system,
                     v[i].self ? "this system refuses to share it"
                               : "that system refuses to share it", NULL);
    }
    iv->differs_told = differs;
    uint32_t token = iv->cl ? zvs_cluster_token_ms(iv->cl) : 0;
    uint32_t hb = heartbeat_ms(d);
    if (hb && token && token != hb) {
        if (!iv->heartbeat_told) {
            char s[16], t[16];
            snprintf(s, sizeof s, "%u", (unsigned)d->run->ivl.heartbeat_s);
            snprintf(t, sizeof t, "%u", (unsigned)token);
            zvsd_say(d, ZVS_CPMSG_IVL_HEARTBEAT, NULL, s, t, NULL);
        }
        iv->heartbeat_told = true;
    } else {
        iv->heartbeat_told = false;
    }
}

/* The IVL port's view: the systems in the domain's view and those whose members are in
 * the aggregation with one distributing (bit per index). */
static void port_view(struct zvsd_ivl *iv)
{
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    unsigned n = zvs_ivl_domain_systems(iv->dom, v, ZVS_CL_MAX_NODES);
    uint8_t present = 0, distributing = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct zvs_ivl_state *s = &v[i].state;
        if (s->index < 1 || s->index > ZVS_IVL_MAX_SYSTEMS || !v[i].agrees)
            continue;
        present |= (uint8_t)(1u << s->index);
        for (unsigned m = 0; (s->flags & ZVS_IVL_SF_AGGREGATING) && m < s->nmembers; m++)
            if (s->member[m].state & ZVS_IVL_MS_DISTRIBUTING)
                distributing |= (uint8_t)(1u << s->index);
    }
    zvsd_ivl_port_view(iv->d, present, distributing);
}

void zvsd_ivl_idle(struct zvsd *d, uint64_t now)
{
    struct zvsd_ivl *iv = d->ivl;
    if (!iv || !iv->dom || (!iv->dirty && now < iv->synced + SYNC_NS))
        return;
    struct zvs_lag *lag = group_lag(d, iv->cfg.group);
    if (!lag)
        return;
    iv->dirty = false;
    iv->synced = now;
    zvs_lag_domain_sync(lag, iv->dom, now);
    zvsd_ivl_port_sync(d, iv->cfg.vswitch, iv->cfg.index, iv->letter, now);
    port_view(iv);
    tell(iv);
}

/* ---- QUERY ---------------------------------------------------------------------------- */

static const char *yes(bool b)
{
    return b ? "YES" : "NO";
}

static void show_system(const struct zvs_ivl_system_view *v, struct zvs_cp_response *r)
{
    const struct zvs_ivl_state *s = &v->state;
    zvs_cp_printf(r, "  System %-8s Index: %u  Node: %u  %s  Definition: %s%s", s->system,
                  s->index, (unsigned)v->node_id,
                  s->flags & ZVS_IVL_SF_AGGREGATING ? "AGGREGATING" : "NOT AGGREGATING",
                  v->agrees ? "SAME" : "DIFFERS", v->self ? "  (this system)" : "");
    for (unsigned m = 0; m < s->nmembers; m++) {
        const struct zvs_ivl_member *mb = &s->member[m];
        zvs_cp_printf(r, "    RDEV %-8s Port: %04X  %-4s  Selected: %-3s Collecting: %-3s "
                      "Distributing: %-3s Speed: %u Mbit/s", mb->rdev, mb->port,
                      mb->state & ZVS_IVL_MS_CARRIER ? "UP" : "DOWN",
                      yes(mb->state & ZVS_IVL_MS_SELECTED),
                      yes(mb->state & ZVS_IVL_MS_COLLECTING),
                      yes(mb->state & ZVS_IVL_MS_DISTRIBUTING), (unsigned)mb->speed_mbps);
    }
}

void zvsd_ivl_query(struct zvsd *d, const char *group, struct zvs_cp_response *r)
{
    struct want w;
    want_of(d, &w);
    if (!w.on || strcmp(w.group, group) != 0)
        return;
    const struct zvsd_ivl *iv = d->ivl;
    char hb[16] = "DEFAULT";
    if (d->run->ivl.heartbeat_s)
        snprintf(hb, sizeof hb, "%u s", (unsigned)d->run->ivl.heartbeat_s);
    if (!iv || !iv->dom) {
        zvs_cp_printf(r, "  IVL domain: %c  Status: ALONE (%s)  Heartbeat timeout: %s",
                      w.letter, iv && iv->alone[0] ? iv->alone : "not started", hb);
        return;
    }
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    unsigned n = zvs_ivl_domain_systems(iv->dom, v, ZVS_CL_MAX_NODES);
    uint32_t token = iv->cl ? zvs_cluster_token_ms(iv->cl) : 0;
    char tok[40] = "UNKNOWN";
    if (token)
        snprintf(tok, sizeof tok, "%u ms%s", (unsigned)token,
                 heartbeat_ms(d) && token != heartbeat_ms(d) ? " (DIFFERS)" : "");
    zvs_cp_printf(r, "  IVL domain: %c  Status: %s  Systems: %u  Heartbeat timeout: %s"
                  "  Token timeout: %s", w.letter, zvs_ivl_status_name(zvs_ivl_domain_status(iv->dom)),
                  n, hb, tok);
    for (unsigned i = 0; i < n; i++)
        show_system(&v[i], r);
    const struct zvs_ivl_counters *c = zvs_ivl_domain_counters(iv->dom);
    uint64_t bad = 0;
    for (unsigned k = 0; k < ZVS_IVL_SE_COUNT; k++)
        bad += c->state_bad[k];
    zvs_cp_printf(r, "  State messages: sent %llu  received %llu  refused %llu"
                  "  Configuration changes: %llu", (unsigned long long)c->state_tx,
                  (unsigned long long)c->state_rx, (unsigned long long)bad,
                  (unsigned long long)c->confchg);
    zvsd_ivl_port_query(d, r);
}
