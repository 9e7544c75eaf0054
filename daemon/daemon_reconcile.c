/* The reconciler: makes the running data plane match the running configuration (d->run).
 *
 * Owns: creating and destroying switches, opening and closing their uplinks (RDEV devices
 * and port-group members), binding and unbinding port groups, coupling, uncoupling and
 * re-registering guest NICs (each NIC's kind opened, bound, unbound and closed through
 * backends/nic_class.h, never named). vswitchd builds everything through it at start,
 * and every configuration command (cp-commands/cfg_apply.c changes d->run) ends here.
 *
 * Order of one pass, chosen so nothing is ever attached to something about to go:
 *   0. a command's pass only: every device it will open is opened (open_ahead);
 *   1. NICs whose switch changed or vanished are uncoupled, NICs no longer defined freed;
 *   2. switches no longer defined are destroyed (their uplinks closed, group released);
 *   3. new switches are created;
 *   4. every switch's attributes, uplinks and group follow its definition;
 *   5. NICs are created, coupled, or re-registered (GRANT, MACPROTECT changed).
 * Rules:
 *  - Uplinks are open only while the switch is CONNECTed and has an uplink: DISCONNECT
 *    closes the RDEV devices and the group members; CONNECT opens them again.
 *  - A group member that leaves goes through zvs_lag_leave (its buckets move, a Marker
 *    flush, then the port goes), so a LEAVE under load loses nothing the switch holds.
 *  - A device that cannot be opened (no interface yet) is logged and counted as a problem
 *    but leaves the rest in place, as at start: the switch runs without it.
 *  - QUEUESTORAGE sizes a NIC's queues when it couples; a change applies to the next
 *    COUPLE, as a z/VM guest's buffers change when its device is set up again.
 *  - A command's pass is the forward half of a transaction (README.md, "Commands are
 *    transactions"): a step that fails, and had no problem for the same object in the
 *    previous pass, stops it (problem(ps, true, ...)); the executor reconciles back to
 *    the previous configuration. Every step that can fail comes before any that cannot be undone:
 *    devices are opened ahead, a group to create and the members to join are checked
 *    (group_checked) before a group is released or a member leaves, the RDEVs to attach
 *    (uplinks_checked) before the RDEVs close. A device that waits
 *    for its interface and a NIC not authorized are problems, not failures.
 *  - Every step that can fail asks step_fault.h first (tests make it fail there).
 * Hazard: the data plane is compared with d_switch.cfg (what it was built from), not with
 * the previous running configuration, so a pass is idempotent and a waiting problem is
 * retried by the next command's pass. An attribute set before a later step fails is
 * written into d_switch.cfg at once (ISOLATION), or the way back would not see it.
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp-commands/cp_messages.h"
#include "monitor/monrec.h"
#include "qdio/nic_qdio.h"
#include "overlay/uplink_vxlan.h"
#include "lag/pgroup.h"

#define MB (1024u * 1024u)

/* A real device the pass opens, opened before it changes anything (a command's pass):
 * a device that cannot be opened fails the command while there is nothing to undo. */
struct opened {
    struct zvs_rdev  dev;
    struct zvs_port *port;              /* NULL: not opened (err, why) */
    const char      *ifname;
    uint8_t          mac[6];
    int              err;
    bool             told;              /* its failure is reported already */
    bool             taken;             /* a step used it */
    char             why[96];
};

/* One reconciler pass: who asked (for the warnings it may read) and what went wrong. */
struct pass {
    struct zvsd            *d;
    struct zvs_cp_response *r;          /* the command's response, or NULL (start-up) */
    const char             *viewer;     /* issuer without class B: its own NICs only */
    int                     count;      /* problems met, new or not */
    unsigned                nseen;      /* hashes of this pass's problems */
    uint32_t               *seen;       /* ZVSD_PROBLEMS_KEPT: the buffer d->problems is not */
    bool                    txn;        /* a command's pass: a new failed step fails it */
    bool                    failed;     /* it did: the pass stops, the command rolls back */
    char                   *why;        /* the failed step's text (txn only) */
    size_t                  whylen;
    unsigned                nopen;      /* devices opened ahead (txn only) */
    struct opened          *open;
};

static uint32_t text_hash(const char *s)
{
    uint32_t h = 2166136261u;           /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* A problem of the pass. A problem the previous pass had already (a device still missing,
 * a NIC still not authorized) is logged at debug level only: every command makes a pass,
 * and repeating a known problem with each would bury the new ones. A new one is a warning
 * in the log and, when the issuer may see the object (owner NULL: switches and devices,
 * for class B), a "Warning:" line of the response. A failed step (failed true: something
 * the command asked for cannot be done, as opposed to a device or an authorization still
 * waiting) fails a command's pass, unless the same step for the same object (`object`:
 * the device, the NIC userid.vdev, the switch or group; `step`: step_fault.h's kind, or
 * ZVSD_STEPS for an authorization) had a problem in the previous pass already: a device
 * whose interface appeared but cannot be opened, a tap that could not be made at start,
 * are not the doing of whichever command next retries them. */
__attribute__((format(printf, 6, 7)))
static void problem(struct pass *ps, bool failed, const char *owner, const char *object,
                    enum zvsd_step step, const char *fmt, ...)
{
    char text[256], key[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(key, sizeof key, "\001%s %d", object, (int)step);    /* never a problem's text */
    ps->count++;
    uint32_t h = text_hash(text), k = text_hash(key);
    if (ps->nseen + 2 <= ZVSD_PROBLEMS_KEPT) {
        ps->seen[ps->nseen++] = h;
        ps->seen[ps->nseen++] = k;
    }
    struct zvsd *d = ps->d;
    bool known = false, object_known = false;
    for (unsigned i = 0; i < d->nproblems; i++) {
        known = known || d->problems[i] == h;
        object_known = object_known || d->problems[i] == k;
    }
    if (failed && ps->txn && !ps->failed && !object_known) {
        ps->failed = true;
        snprintf(ps->why, ps->whylen, "%s", text);
    }
    if (known) {
        zvs_debug("%s (still)", text);
        return;
    }
    zvs_warn("%s", text);
    bool visible = !ps->viewer || (owner && strcmp(owner, ps->viewer) == 0);
    if (ps->r && visible)
        zvs_cp_printf(ps->r, "Warning: %s", text);
}

/* A device that cannot be opened because it is not there yet (no interface, no RDEVICE
 * statement) waits, NOT READY, and every pass tries it again (z/VM accepts an RDEV that
 * is not ready); any other error is a failed step. */
static bool device_waits(int err)
{
    return err == -ENODEV || err == -ENOENT;
}

struct d_switch *zvsd_switch_by_name(struct zvsd *d, const char *name)
{
    for (unsigned i = 0; i < d->nsw; i++)
        if (d->sw[i].sw && strcmp(d->sw[i].cfg.name, name) == 0)
            return &d->sw[i];
    return NULL;
}

struct d_nic *zvsd_nic_find(struct zvsd *d, const char *userid, uint16_t vdev)
{
    for (unsigned i = 0; i < d->nnic; i++)
        if (d->nic[i].used && d->nic[i].vdev == vdev && strcmp(d->nic[i].userid, userid) == 0)
            return &d->nic[i];
    return NULL;
}

void zvsd_nic_params(const struct zvsd *d, const struct zvs_cfg_nic *nic,
                     struct zvs_nic_params *p)
{
    *p = (struct zvs_nic_params){ .kind = zvs_nic_backend_kind(nic->backend),
                                  .userid = d->run->user[nic->user].userid,
                                  .vdev = nic->vdev, .ifname = nic->ifname,
                                  .devno = nic->lcs_devno, .attach_socket = d->attach_fd >= 0 };
    memcpy(p->mac, nic->mac, sizeof p->mac);
}

bool zvsd_nic_has_backend(const struct zvsd *d, const struct zvs_cfg_nic *nic)
{
    struct zvs_nic_params p;
    zvsd_nic_params(d, nic, &p);
    return zvs_nic_usable(&p);
}

/* ---- guest registration -------------------------------------------------------------- */

/* The GRANTs of the running configuration sorted by (switch, userid), built once per
 * pass: a pass looks up one GRANT per coupled NIC, and a linear search each time made a
 * command on a system with hundreds of guests cost milliseconds (bench_cp). */
struct grant_index {
    unsigned                 n;
    const struct zvs_cfg_grant **g;     /* NULL when out of memory: linear search */
};

static int grant_cmp(const void *a, const void *b)
{
    const struct zvs_cfg_grant *x = *(const struct zvs_cfg_grant *const *)a;
    const struct zvs_cfg_grant *y = *(const struct zvs_cfg_grant *const *)b;
    if (x->vswitch != y->vswitch)
        return x->vswitch < y->vswitch ? -1 : 1;
    return strcmp(x->userid, y->userid);
}

static void grant_index_build(struct grant_index *ix, const struct zvs_cfg *cfg)
{
    ix->n = cfg->ngrant;
    ix->g = cfg->ngrant ? malloc(cfg->ngrant * sizeof *ix->g) : NULL;
    if (!ix->g)
        return;
    for (unsigned i = 0; i < cfg->ngrant; i++)
        ix->g[i] = &cfg->grant[i];
    qsort(ix->g, ix->n, sizeof *ix->g, grant_cmp);
}

static const struct zvs_cfg_grant *find_grant(const struct grant_index *ix,
                                              const struct zvs_cfg *cfg, unsigned sw,
                                              const char *user)
{
    if (!ix || !ix->g) {
        for (unsigned i = 0; i < cfg->ngrant; i++)
            if (cfg->grant[i].vswitch == sw && strcmp(cfg->grant[i].userid, user) == 0)
                return &cfg->grant[i];
        return NULL;
    }
    struct zvs_cfg_grant key = { .vswitch = (uint16_t)sw };
    snprintf(key.userid, sizeof key.userid, "%s", user);
    const struct zvs_cfg_grant *kp = &key;
    const struct zvs_cfg_grant **hit = bsearch(&kp, ix->g, ix->n, sizeof *ix->g, grant_cmp);
    return hit ? *hit : NULL;
}

/* The guest registration of a NIC: MAC, MACPROTECT and VLAN rules from the NICDEF's
 * directory authorization or the GRANT, with the switch's defaults. -EPERM when the user
 * is not authorized for the switch. */
static int guest_of(const struct grant_index *ix, const struct zvs_cfg *cfg,
                    const struct zvs_cfg_nic *nic, struct zvs_guest *g)
{
    const struct zvs_cfg_vswitch *vs = &cfg->vswitch[nic->vswitch];
    const struct zvs_cfg_user *u = &cfg->user[nic->user];
    const struct zvs_cfg_grant *gr = find_grant(ix, cfg, (unsigned)nic->vswitch, u->userid);
    bool dna = nic->has_vlan || nic->porttype != ZVS_PORTTYPE_UNSPEC;

    if (!gr && !dna)
        return -EPERM;
    memset(g, 0, sizeof(*g));
    snprintf(g->owner, sizeof(g->owner), "%s", u->userid);
    g->vdev = nic->vdev;
    memcpy(g->mac, nic->mac, 6);
    /* MACPROTECT UNSPECIFIED behaves as OFF, z/VM's system default. */
    g->macprotect = vs->macprotect == ZVS_MACPROTECT_ON;

    enum zvs_porttype pt = dna ? nic->porttype : gr->porttype;
    if (pt == ZVS_PORTTYPE_UNSPEC)
        pt = vs->porttype == ZVS_PORTTYPE_UNSPEC ? ZVS_PORTTYPE_ACCESS : vs->porttype;
    const struct zvs_vidset *set = dna ? (nic->has_vlan ? &nic->vlan : NULL)
                                       : (gr->has_vlan ? &gr->vlan : NULL);
    if (!vs->vlan_aware) {
        zvs_vlan_port_init(&g->vlan, ZVS_VLAN_ACCESS, ZVS_VID_NONE);
        return 0;
    }
    if (pt == ZVS_PORTTYPE_ACCESS) {
        uint16_t vid = set && set->n ? set->r[0].lo : vs->default_vid;
        zvs_vlan_port_init(&g->vlan, ZVS_VLAN_ACCESS, vid);
        return 0;
    }
    zvs_vlan_port_init(&g->vlan, ZVS_VLAN_TRUNK, 0);
    if (set && set->n) {
        for (unsigned i = 0; i < set->n; i++)
            zvs_vlan_grant(&g->vlan, set->r[i].lo, set->r[i].hi);
    } else {
        zvs_vlan_grant(&g->vlan, vs->default_vid, vs->default_vid);
    }
    return 0;
}

/* ---- NICs ---------------------------------------------------------------------------- */

static void nic_name(const struct d_nic *n, char *buf, size_t size)
{
    snprintf(buf, size, "%s.%04X", n->userid, n->vdev);
}

static void nic_uncouple(struct zvsd *d, struct d_nic *n, uint64_t now)
{
    if (!n->ds)
        return;
    zvsd_monitor_nic_gone(d, n, now);
    /* What the guest already handed over is delivered before its queues go; then its
     * kind lets them go (a program is detached, a tap stays unbound). */
    while (zvs_switch_poll(n->ds->sw, n->port, now) > 0)
        ;
    zvs_nic_unbind(n->side, now);
    zvsd_vxlan_mtu_detaching(d, n->ds, now);
    struct zvs_port *p = zvs_switch_detach_port(n->ds->sw, n->port);
    if (p && p->ops->destroy)
        p->ops->destroy(p);
    char vdev[8];
    snprintf(vdev, sizeof vdev, "%04X", n->vdev);
    zvsd_say(d, ZVS_CPMSG_NIC_DISCONNECTED, n->userid, vdev, n->userid, n->ds->cfg.name,
             NULL);
    n->port = NULL;
    n->ds = NULL;
    memset(&n->base, 0, sizeof n->base);
}

static void nic_free(struct zvsd *d, struct d_nic *n, uint64_t now)
{
    nic_uncouple(d, n, now);
    zvs_nic_close(n->side);
    *n = (struct d_nic){ 0 };
}

/* A slot for a NIC of the configuration, its kind's instance opened (unbound). NULL when
 * nothing drives it here or the instance cannot be made (counted as a problem). */
static struct d_nic *nic_create(struct zvsd *d, const struct zvs_cfg *cfg,
                                const struct zvs_cfg_nic *nic, struct pass *ps)
{
    const char *userid = cfg->user[nic->user].userid;
    struct d_nic *n = NULL;

    if (!zvsd_nic_has_backend(d, nic))
        return NULL;
    for (unsigned i = 0; i < d->nnic && !n; i++)
        if (!d->nic[i].used)
            n = &d->nic[i];
    if (!n) {
        if (d->nnic == ZVS_CFG_MAX_NICS)
            return NULL;
        n = &d->nic[d->nnic++];
    }
    *n = (struct d_nic){ .d = d, .used = true, .vdev = nic->vdev };
    snprintf(n->userid, sizeof n->userid, "%s", userid);
    /* The kind opens its half: a tap is made (or adopted after a crash), a machine that
     * runs gives its device, a program attaches later. */
    struct zvs_nic_params p;
    struct zvs_nic_machine m;
    zvsd_nic_params(d, nic, &p);
    p.machine = zvsd_guests_machine(d, userid, &m) ? &m : NULL;
    p.mtu = zvsd_vxlan_nic_mtu(d, nic); /* a tap made for a VXLAN segment fits it */
    int err = zvsd_step_fault(d, ZVSD_STEP_NIC_OPEN);
    if (err == 0)
        err = zvs_nic_open(&p, &d->nics, n, &n->side);
    if (err < 0) {
        char what[64];
        zvs_nic_driver(&p, NULL, what, sizeof what);
        char name[24];
        snprintf(name, sizeof name, "%s.%04X", userid, nic->vdev);
        problem(ps, true, userid, name, ZVSD_STEP_NIC_OPEN, "%s: cannot make %s: %s", name,
                what, strerror(-err));
        *n = (struct d_nic){ 0 };
        return NULL;
    }
    return n;
}

static void nic_couple(struct zvsd *d, const struct grant_index *ix, const struct zvs_cfg *cfg,
                       const struct zvs_cfg_nic *nic, struct d_nic *n, struct d_switch *ds,
                       struct pass *ps)
{
    char name[24], mac[18];
    struct zvs_guest g;
    nic_name(n, name, sizeof name);
    if (guest_of(ix, cfg, nic, &g) < 0) {
        problem(ps, false, n->userid, name, ZVSD_STEPS, "%s: not authorized for VSWITCH %s "
                "(no GRANT, no NICDEF VLAN/PORTTYPE); not coupled", name, ds->cfg.name);
        return;
    }
    int err = zvsd_step_fault(d, ZVSD_STEP_NIC_QUEUES);
    struct zvs_port *p = err < 0 ? NULL : zvs_nic_qdio_create(name, ds->cfg.queuestorage_mb * MB,
                                                              ZVS_NIC_MTU_DEFAULT, &err);
    if (!p) {
        problem(ps, true, n->userid, name, ZVSD_STEP_NIC_QUEUES,
                "%s: cannot make QDIO queues: %s", name, strerror(-err));
        return;
    }
    err = zvsd_step_fault(d, ZVSD_STEP_NIC_ATTACH);
    if (err == 0)
        err = zvs_switch_add_guest(ds->sw, p, &g);
    zvs_mac_format(g.mac, mac, sizeof mac);
    if (err < 0) {
        problem(ps, true, n->userid, name, ZVSD_STEP_NIC_ATTACH,
                "%s: cannot couple to VSWITCH %s (MAC %s): %s", name,
                ds->cfg.name, mac, strerror(-err));
        p->ops->destroy(p);
        return;
    }
    struct zvs_nic_params np;
    char what[64];
    zvsd_nic_params(d, nic, &np);
    zvs_nic_driver(&np, n->side, what, sizeof what);
    err = zvsd_step_fault(d, ZVSD_STEP_NIC_BIND);
    if (err < 0 || (err = zvs_nic_bind(n->side, p)) < 0) {
        problem(ps, true, n->userid, name, ZVSD_STEP_NIC_BIND, "%s: cannot bind %s: %s", name,
                what, strerror(-err));
        zvs_switch_remove_port(ds->sw, p);
        return;
    }
    n->ds = ds;
    n->port = p;
    n->guest = g;
    memset(&n->base, 0, sizeof n->base);
    /* External: frames for it are discarded (no input buffers) until a program attaches
     * and establishes the queues, as for a z/VM guest not yet running. */
    /* The operator's line is ZVSNIC1176I below; this one adds the data plane's detail. */
    zvs_debug("%s coupled to VSWITCH %s: MAC %s, %s", name, ds->cfg.name, mac, what);
    char vdev[8];
    snprintf(vdev, sizeof vdev, "%04X", n->vdev);
    zvsd_say(d, ZVS_CPMSG_NIC_CONNECTED, n->userid, vdev, n->userid, ds->cfg.name, NULL);
    zvsd_vxlan_mtu_couple(d, n);
}

/* The coupled NIC's registration follows its GRANT and the switch's MACPROTECT. */
static void nic_update(const struct grant_index *ix, const struct zvs_cfg *cfg,
                       const struct zvs_cfg_nic *nic,
                       struct d_nic *n, struct pass *ps)
{
    struct zvs_guest g;
    char name[24];
    nic_name(n, name, sizeof name);
    if (guest_of(ix, cfg, nic, &g) < 0) {
        nic_uncouple(n->d, n, zvs_evloop_now(n->d->loop));
        return;
    }
    if (memcmp(&g, &n->guest, sizeof g) == 0)
        return;
    int err = zvsd_step_fault(n->d, ZVSD_STEP_NIC_UPDATE);
    if (err == 0)
        err = zvs_switch_update_guest(n->ds->sw, n->port, &g);
    if (err < 0) {
        problem(ps, true, n->userid, name, ZVSD_STEP_NIC_UPDATE,
                "%s: cannot change its registration: %s", name,
                strerror(-err));
        return;
    }
    n->guest = g;
    zvs_info("%s: registration on VSWITCH %s changed (GRANT or MACPROTECT)", name,
             n->ds->cfg.name);
}

static bool plays(const struct zvs_cfg *cfg, const struct zvs_cfg_nic *nic, const struct d_nic *n)
{
    return n->used && nic->vdev == n->vdev && strcmp(cfg->user[nic->user].userid, n->userid) == 0;
}

/* The NIC of the configuration a slot plays, or NULL. Slots are made in configuration
 * order, so slot i usually plays nic[i]: checking that first keeps a pass linear in the
 * number of NICs (a command on a system with thousands of guests stays cheap). */
static const struct zvs_cfg_nic *cfg_nic_of(const struct zvs_cfg *cfg, const struct d_nic *n)
{
    size_t slot = (size_t)(n - n->d->nic);
    if (slot < cfg->nnic && plays(cfg, &cfg->nic[slot], n))
        return &cfg->nic[slot];
    int u = zvs_cfg_find_user(cfg, n->userid);
    if (u < 0)
        return NULL;
    const struct zvs_cfg_user *usr = &cfg->user[u];
    for (unsigned i = usr->first_nic; i < (unsigned)usr->first_nic + usr->nnic; i++)
        if (cfg->nic[i].vdev == n->vdev)
            return &cfg->nic[i];
    return NULL;
}

/* Step 1: uncouple what must go, free slots of NICs no longer defined. */
static void nics_release(struct zvsd *d, uint64_t now)
{
    const struct zvs_cfg *cfg = d->run;
    for (unsigned i = 0; i < d->nnic; i++) {
        struct d_nic *n = &d->nic[i];
        if (!n->used)
            continue;
        const struct zvs_cfg_nic *nic = cfg_nic_of(cfg, n);
        if (!nic || !zvsd_nic_has_backend(d, nic)) {
            nic_free(d, n, now);
            continue;
        }
        if (n->ds && (nic->vswitch < 0 || strcmp(nic->lan, n->ds->cfg.name) != 0))
            nic_uncouple(d, n, now);
    }
}

/* Step 5: create, couple and update. */
static void nics_apply(struct zvsd *d, struct pass *ps)
{
    const struct zvs_cfg *cfg = d->run;
    struct grant_index ix;
    grant_index_build(&ix, cfg);
    for (unsigned i = 0; i < cfg->nnic && !ps->failed; i++) {
        const struct zvs_cfg_nic *nic = &cfg->nic[i];
        const char *userid = cfg->user[nic->user].userid;
        struct d_nic *n = i < d->nnic && plays(cfg, nic, &d->nic[i])
                          ? &d->nic[i] : zvsd_nic_find(d, userid, nic->vdev);
        if (!n && !(n = nic_create(d, cfg, nic, ps)))
            continue;
        if (nic->vswitch < 0)
            continue;
        struct d_switch *ds = zvsd_switch_by_name(d, nic->lan);
        if (!ds)
            continue;
        if (!n->ds)
            nic_couple(d, &ix, cfg, nic, n, ds, ps);
        else
            nic_update(&ix, cfg, nic, n, ps);
    }
    free(ix.g);
}

/* ---- uplinks and port groups --------------------------------------------------------- */

static struct d_uplink *uplink_of(struct zvsd *d, const struct zvs_port *p)
{
    for (unsigned i = 0; i < d->nup; i++)
        if (d->up[i].port == p)
            return &d->up[i];
    return NULL;
}

/* Whether the switch should have its uplinks open now. */
/* A TYPE IVL switch opens no uplink: its RDEV is the Global VSWITCHes' IVL port
 * (daemon_ivl_port.c). */
static bool uplinks_wanted(const struct zvs_cfg_vswitch *vs)
{
    return vs->connect && !vs->nouplink && vs->scope != ZVS_VSW_IVL;
}

/* The backend of `dev` for a step: the one opened ahead for this pass (open_ahead), or
 * opened now. NULL with *err and why when it cannot be; *told when open_ahead reported
 * that already. */
static struct zvs_port *device_open(struct pass *ps, struct zvs_rdev dev, const char **ifname,
                                    uint8_t mac[6], char *why, size_t whylen, int *err,
                                    bool *told)
{
    for (unsigned i = 0; i < ps->nopen; i++) {
        struct opened *o = &ps->open[i];
        if (o->taken || !zvs_rdev_equal(o->dev, dev))
            continue;
        o->taken = true;
        *ifname = o->ifname;
        memcpy(mac, o->mac, 6);
        snprintf(why, whylen, "%s", o->why);
        *err = o->err;
        *told = o->told;
        return o->port;
    }
    *told = false;
    return zvsd_open_rdev(ps->d, dev, ifname, mac, why, whylen, err);
}

static void rdev_not_opened(struct pass *ps, const char *vswitch, const char *dev,
                            const char *why, int err)
{
    problem(ps, !device_waits(err), NULL, dev, ZVSD_STEP_DEVICE_OPEN,
            "VSWITCH %s RDEV %s cannot be opened: %s",
            vswitch, dev, why);
}

static void member_not_opened(struct pass *ps, const char *group, const char *dev,
                              const char *why, int err)
{
    problem(ps, !device_waits(err), NULL, dev, ZVSD_STEP_DEVICE_OPEN,
            "port group %s: device %s cannot be opened: %s",
            group, dev, why);
}

static void rdevs_close(struct zvsd *d, struct d_switch *ds, uint64_t now)
{
    struct zvs_port *p = zvs_switch_next_port(ds->sw, NULL);
    while (p) {
        struct zvs_port *next = zvs_switch_next_port(ds->sw, p);
        if (p->role == ZVS_PORT_UPLINK && !zvs_switch_is_group_port(ds->sw, p) &&
            p != zvs_switch_ivl_port(ds->sw)) {     /* the IVL port is daemon_ivl_port.c's */
            zvs_info("VSWITCH %s RDEV %s closed", ds->cfg.name, p->name);
            struct d_uplink *u = uplink_of(d, p);
            if (u)
                zvsd_monitor_uplink_gone(d, u, ZVS_MON_FAIL_DETACHED, now);
            zvsd_untrack_uplink(d, p);
            if (zvs_uplink_is_vxlan(p))         /* its names must not outlive it */
                zvsd_vxlan_closing(d, ds, p);
            zvs_switch_remove_port(ds->sw, p);
        }
        p = next;
    }
}

static bool rdev_is_open(const struct d_switch *ds, const char *dev)
{
    for (struct zvs_port *p = zvs_switch_next_port(ds->sw, NULL); p;
         p = zvs_switch_next_port(ds->sw, p))
        if (p->role == ZVS_PORT_UPLINK && !zvs_switch_is_group_port(ds->sw, p) &&
            p != zvs_switch_ivl_port(ds->sw) && strcmp(p->name, dev) == 0)
            return true;
    return false;
}

/* Opens the switch's RDEV devices that are not open, in the definition's order: all of
 * them after a change, or those that could not be opened before (a retry that leaves the
 * working ones alone). */
static void rdevs_open(struct zvsd *d, struct d_switch *ds, const struct zvs_cfg_vswitch *vs,
                       struct pass *ps)
{
    for (unsigned k = 0; k < vs->nrdev && !ps->failed; k++) {
        const char *ifname = NULL;
        uint8_t mac[6];
        char dev[12];
        zvs_rdev_format(vs->rdev[k], dev, sizeof dev);
        if (rdev_is_open(ds, dev))
            continue;
        char why[96];
        int err;
        bool told;
        struct zvs_port *p = device_open(ps, vs->rdev[k], &ifname, mac, why, sizeof why, &err,
                                         &told);
        if (!p) {
            if (!told)
                rdev_not_opened(ps, vs->name, dev, why, err);
            continue;
        }
        if ((!ps->txn && zvsd_step_fault(d, ZVSD_STEP_UPLINK_ADD) < 0) ||   /* txn: ahead */
            zvs_switch_add_uplink(ds->sw, p) < 0) {
            p->ops->destroy(p);
            problem(ps, true, NULL, dev, ZVSD_STEP_UPLINK_ADD,
                    "VSWITCH %s RDEV %s: no room for the uplink", vs->name, dev);
            continue;
        }
        zvsd_track_uplink(d, ds, p, ifname, false);
        zvs_info("VSWITCH %s RDEV %s on %s (%s, MTU %u, %s)", vs->name, p->name, ifname,
                 p->ops->kind, p->mtu, p->carrier ? "carrier up" : "no carrier");
    }
}

static void rdevs_wanted_list(const struct zvs_cfg_vswitch *vs, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    if (!uplinks_wanted(vs))
        return;
    for (unsigned k = 0; k < vs->nrdev && len < size; k++) {
        char dev[12];
        zvs_rdev_format(vs->rdev[k], dev, sizeof dev);
        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "", dev);
    }
}

static void group_release(struct zvsd *d, struct d_switch *ds, uint64_t now)
{
    if (!ds->lag)
        return;
    char name[ZVS_NAME_MAX + 1];
    snprintf(name, sizeof name, "%s", zvs_lag_params(ds->lag)->pg.name);
    zvsd_vxlan_close_group(d, ds);      /* it borrows the members */
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        struct zvs_port *p = zvs_lag_member_port(ds->lag, s);
        if (!p)
            continue;
        struct d_uplink *u = uplink_of(d, p);
        if (u)
            zvsd_monitor_uplink_gone(d, u, ZVS_MON_FAIL_DETACHED, now);
        zvsd_untrack_uplink(d, p);
        zvs_lag_leave(ds->lag, p, now);
    }
    zvs_lag_destroy(ds->lag, now);
    ds->lag = NULL;
    zvs_timer_destroy(ds->lag_timer);
    ds->lag_timer = NULL;
    zvs_info("VSWITCH %s: port group %s released", ds->cfg.name, name);
}

static void on_lag_timer(void *arg, struct zvs_timer *t, uint64_t now)
{
    /* The wake-up itself: the work happens in on_idle of the same iteration. */
}

static void group_join_one(struct zvsd *d, struct d_switch *ds, struct zvs_rdev dev,
                           uint64_t now, struct pass *ps)
{
    const char *ifname = NULL;
    uint8_t mac[6] = { 0 };
    char rdev[12];
    const char *group = zvs_lag_params(ds->lag)->pg.name;
    zvs_rdev_format(dev, rdev, sizeof rdev);
    char why[96];
    int err;
    bool told;
    struct zvs_port *p = device_open(ps, dev, &ifname, mac, why, sizeof why, &err, &told);
    if (!p) {
        if (!told)
            member_not_opened(ps, group, rdev, why, err);
        if (ds->nclosed < sizeof ds->closed / sizeof ds->closed[0]) {
            ds->closed[ds->nclosed].dev = dev;
            snprintf(ds->closed[ds->nclosed].why, sizeof ds->closed[0].why, "%s", why);
            ds->nclosed++;
        }
        return;
    }
    uint32_t speed = zvsd_if_speed_mbps(ifname, 10000);
    int rc = ps->txn ? 0 : zvsd_step_fault(d, ZVSD_STEP_JOIN);    /* txn: group_checked */
    if (rc == 0)
        rc = zvs_lag_join(ds->lag, p, rdev, mac, speed, now);
    if (rc < 0) {
        p->ops->destroy(p);
        problem(ps, true, NULL, rdev, ZVSD_STEP_JOIN, "port group %s: cannot JOIN %s: %s", group,
                rdev, strerror(-rc));
        return;
    }
    zvsd_track_uplink(d, ds, p, ifname, true);
    zvs_info("VSWITCH %s port group %s: JOIN %s on %s (%s, %u Mbit/s, %s)", ds->cfg.name,
             group, rdev, ifname, p->ops->kind, speed, p->carrier ? "carrier up" : "no carrier");
}

static struct zvs_port *member_by_rdev(struct d_switch *ds, struct zvs_rdev dev)
{
    char rdev[12];
    zvs_rdev_format(dev, rdev, sizeof rdev);
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        struct zvs_port *p = zvs_lag_member_port(ds->lag, s);
        if (p && strcmp(p->name, rdev) == 0)
            return p;
    }
    return NULL;
}

static bool opened_ahead(const struct pass *ps, struct zvs_rdev dev)
{
    for (unsigned i = 0; i < ps->nopen; i++)
        if (!ps->open[i].taken && ps->open[i].port && zvs_rdev_equal(ps->open[i].dev, dev))
            return true;
    return false;
}

static bool in_group(const struct zvs_cfg_group *g, const char *dev)
{
    for (unsigned k = 0; k < g->nport; k++) {
        char name[12];
        zvs_rdev_format(g->port[k], name, sizeof name);
        if (strcmp(name, dev) == 0)
            return true;
    }
    return false;
}

/* A command's pass checks the group it is going to create and every member it is going
 * to join (room in the group, the steps themselves) before it releases, leaves or joins
 * anything: a group released cannot be brought back as it was, and a member that joined
 * and left again would have sent LACPDUs, which no rollback takes back. `keep`: ds->lag
 * is this group and stays. */
static bool group_checked(struct zvsd *d, struct d_switch *ds, const struct zvs_cfg_group *g,
                          bool keep, struct pass *ps)
{
    int rc = keep ? 0 : zvsd_step_fault(d, ZVSD_STEP_GROUP);
    if (rc < 0) {
        problem(ps, true, NULL, g->name, ZVSD_STEP_GROUP, "VSWITCH %s: cannot create port group %s",
                ds->cfg.name, g->name);
        return false;
    }
    unsigned members = 0;
    for (unsigned s = 0; keep && s < ZVS_PG_MAX_MEMBERS; s++) {
        const struct zvs_port *p = zvs_lag_member_port(ds->lag, s);
        members += p && in_group(g, p->name);
    }
    for (unsigned k = 0; k < g->nport; k++) {
        if ((keep && member_by_rdev(ds, g->port[k])) || !opened_ahead(ps, g->port[k]))
            continue;
        rc = ++members > ZVS_PG_MAX_MEMBERS ? -ENOSPC : zvsd_step_fault(d, ZVSD_STEP_JOIN);
        if (rc < 0) {
            char rdev[12];
            zvs_rdev_format(g->port[k], rdev, sizeof rdev);
            problem(ps, true, NULL, rdev, ZVSD_STEP_JOIN, "port group %s: cannot JOIN %s: %s",
                    g->name, rdev, strerror(-rc));
            return false;
        }
    }
    return true;
}

/* TYPE IVL DOMAIN letter of the IVL switch ('A' when none is defined). */
static char ivl_domain_letter(const struct zvs_cfg *cfg)
{
    for (unsigned i = 0; i < cfg->nvswitch; i++)
        if (cfg->vswitch[i].scope == ZVS_VSW_IVL && cfg->vswitch[i].ivl_domain)
            return cfg->vswitch[i].ivl_domain;
    return 'A';
}

/* The lowest LACP key no running group has. All groups share one system id (the
 * MACPREFIX), so the key alone tells a partner which links may aggregate: two groups with
 * one key would be bundled into one port channel. An index into the configuration's
 * group array is not enough: deleting a group renumbers the others. */
static uint16_t free_lacp_key(const struct zvsd *d)
{
    for (uint16_t key = 1; ; key++) {
        bool used = false;
        for (unsigned i = 0; i < d->nsw && !used; i++)
            used = d->sw[i].sw && d->sw[i].lag && zvs_lag_params(d->sw[i].lag)->key == key;
        if (!used)
            return key;
    }
}

/* Who the group is to its partner: this system's (System ID the MACPREFIX with MACID
 * 000000, which no NIC gets: one LACP system per zvswitch, as a z/VM system is one
 * partner to its physical switch; the lowest free key), or, SHARED in the IVL domain, the
 * domain's for every system of it (802.1AX-2020 9.3.2: one emulated System ID and key)
 * whatever each one's MACPREFIX: a locally administered id 02-49-56-4C-00-<DOMAIN letter>
 * and key 1, which no group of one system alone can share; its ports numbered by the
 * domain (domain_index). */
static void group_identity(const struct zvsd *d, const struct zvs_cfg_group *g,
                           struct zvs_lag_params *lp)
{
    static const uint8_t domain_id[5] = { 0x02, 'I', 'V', 'L', 0x00 };
    lp->domain_index = (uint8_t)zvsd_ivl_group_index(d, g->name);
    memset(lp->system, 0, sizeof lp->system);
    if (lp->domain_index) {
        memcpy(lp->system, domain_id, sizeof domain_id);
        lp->system[5] = (uint8_t)ivl_domain_letter(d->run);
        lp->key = 1;
    } else {
        memcpy(lp->system, d->run->vmlan.macprefix, 3);
        lp->key = free_lacp_key(d);
    }
}

/* The identity a running group is to have: group_identity's, except that an EXCLUSIVE
 * group staying EXCLUSIVE keeps its key (the lowest free key is never its own). */
static void group_identity_wanted(const struct zvsd *d, const struct d_switch *ds,
                                  const struct zvs_cfg_group *g, struct zvs_lag_params *id)
{
    const struct zvs_lag_params *lp = zvs_lag_params(ds->lag);
    group_identity(d, g, id);
    if (!id->domain_index && !lp->domain_index)
        id->key = lp->key;
}

static bool same_identity(const struct zvs_lag_params *a, const struct zvs_lag_params *b)
{
    return a->domain_index == b->domain_index && a->key == b->key &&
           memcmp(a->system, b->system, sizeof a->system) == 0;
}

/* The balancing interval in effect: the group's INTERVAL, or vswitchd --test-interval
 * (ours) for a group whose INTERVAL is not OFF. */
static uint32_t pass_interval(const struct zvsd *d, const struct zvs_cfg_group *g)
{
    return g->interval_s != 0 && d->opt.test_interval_s != 0 ? d->opt.test_interval_s
                                                              : g->interval_s;
}

static void group_create(struct zvsd *d, struct d_switch *ds, const struct zvs_cfg_group *g,
                         uint64_t now, struct pass *ps)
{
    struct zvs_lag_params lp = {
        .pg = {
            .hash = g->distribution == ZVS_CFG_DIST_SOURCE ? ZVS_PG_HASH_SRC :
                    g->distribution == ZVS_CFG_DIST_BOTH ? ZVS_PG_HASH_SRC_DST :
                    g->distribution == ZVS_CFG_DIST_UDPPORT ? ZVS_PG_HASH_UDP_SPORT : ZVS_PG_HASH_DST,
            .policy = g->policy == ZVS_CFG_POLICY_LBT ? ZVS_PG_POLICY_LBT : ZVS_PG_POLICY_LOAD,
            .interval_s = pass_interval(d, g),
            .lacp = g->lacp,
            .lbt_percent = g->lbt_percent,
            .load = g->load == ZVS_CFG_LOAD_OUTBOUND ? ZVS_PG_LOAD_OUTBOUND : ZVS_PG_LOAD_TOTAL,
        },
        .long_timeout = g->lacp_long_timeout,
        .system_priority = 32768,
        .say = zvsd_say_lag,
        .say_arg = d,
    };
    snprintf(lp.pg.name, sizeof(lp.pg.name), "%s", g->name);
    group_identity(d, g, &lp);
    /* A command's pass asked the step's fault ahead (group_checked). */
    bool fail = !ps->txn && zvsd_step_fault(d, ZVSD_STEP_GROUP) < 0;
    ds->lag = fail ? NULL : zvs_lag_create(ds->sw, &lp, now);
    if (ds->lag && zvsd_ivl_group_held(d, g->name))
        zvs_lag_set_domain_hold(ds->lag, true, now);   /* before its members join */
    ds->lag_timer = ds->lag ? zvs_timer_create(d->loop, on_lag_timer, ds) : NULL;
    if (!ds->lag || !ds->lag_timer) {
        if (ds->lag)
            zvs_lag_destroy(ds->lag, now);
        ds->lag = NULL;
        problem(ps, true, NULL, g->name, ZVSD_STEP_GROUP, "VSWITCH %s: cannot create port group %s",
                ds->cfg.name, g->name);
    }
}

/* SET PORT GROUP ... POLICY on a running group: the next pass plans with it. */
static void policy_sync(struct d_switch *ds, struct zvs_pgroup *pg, const struct zvs_cfg_group *g)
{
    const struct zvs_pg_params *pp = zvs_pgroup_params(pg);
    enum zvs_pg_policy policy = g->policy == ZVS_CFG_POLICY_LBT ? ZVS_PG_POLICY_LBT
                                                                : ZVS_PG_POLICY_LOAD;
    enum zvs_pg_load load = g->load == ZVS_CFG_LOAD_OUTBOUND ? ZVS_PG_LOAD_OUTBOUND
                                                             : ZVS_PG_LOAD_TOTAL;
    if (pp->policy == policy && pp->load == load && pp->lbt_percent == g->lbt_percent)
        return;
    zvs_pgroup_set_policy(pg, policy);
    zvs_pgroup_set_load(pg, load);
    zvs_pgroup_set_lbt_percent(pg, g->lbt_percent);
    char text[24];
    zvs_info("VSWITCH %s port group %s: POLICY %s", ds->cfg.name, g->name,
             zvs_pg_policy_str(zvs_pgroup_params(pg), text, sizeof text));
}

/* The switch's port group follows the configuration: bound or released, members joined
 * or left, LACP, INTERVAL and POLICY set. */
static void group_sync(struct zvsd *d, struct d_switch *ds, const struct zvs_cfg_vswitch *vs,
                       uint64_t now, struct pass *ps)
{
    const struct zvs_cfg *cfg = d->run;
    int gi = uplinks_wanted(vs) && vs->group[0] ? zvs_cfg_find_group(cfg, vs->group) : -1;
    bool keep = gi >= 0 && ds->lag && strcmp(zvs_lag_params(ds->lag)->pg.name, vs->group) == 0;
    if (ps->txn && gi >= 0 && !group_checked(d, ds, &cfg->group[gi], keep, ps))
        return;
    ds->nclosed = 0;                    /* group_join_one notes this pass's failures */
    if (ds->lag && !keep)
        group_release(d, ds, now);
    if (gi < 0)
        return;
    const struct zvs_cfg_group *g = &cfg->group[gi];
    bool created = false;
    if (!ds->lag) {
        group_create(d, ds, g, now, ps);
        if (!ds->lag)
            return;
        created = true;
    }
    /* Members that left the group's definition go first (their buckets move). */
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        struct zvs_port *p = zvs_lag_member_port(ds->lag, s);
        if (!p)
            continue;
        if (in_group(g, p->name))
            continue;
        struct d_uplink *u = uplink_of(d, p);
        if (u)
            zvsd_monitor_uplink_gone(d, u, ZVS_MON_FAIL_LEAVE, now);
        zvs_info("VSWITCH %s port group %s: LEAVE %s", ds->cfg.name, g->name, p->name);
        zvsd_untrack_uplink(d, p);
        zvs_lag_leave(ds->lag, p, now);
    }
    for (unsigned k = 0; k < g->nport && !ps->failed; k++)
        if (!member_by_rdev(ds, g->port[k]))
            group_join_one(d, ds, g->port[k], now, ps);
    if (ps->failed)
        return;
    /* SHARED, EXCLUSIVE or another DOMAIN letter: not here (identities_follow) */
    const struct zvs_lag_params *lp = zvs_lag_params(ds->lag);
    if (lp->pg.lacp != g->lacp) {
        zvs_lag_set_lacp(ds->lag, g->lacp, now);
        zvs_info("VSWITCH %s port group %s: LACP %s", ds->cfg.name, g->name,
                 g->lacp ? "ACTIVE" : "INACTIVE");
    }
    struct zvs_pgroup *pg = zvs_lag_group(ds->lag);
    uint32_t ivl = pass_interval(d, g);
    if (zvs_pgroup_params(pg)->interval_s != ivl) {
        zvs_pgroup_set_interval(pg, ivl, now);
        zvs_info("VSWITCH %s port group %s: INTERVAL %u%s", ds->cfg.name, g->name, ivl,
                 ivl != g->interval_s ? " (--test-interval)" : "");
    }
    policy_sync(ds, pg, g);
    if (created)
        zvs_info("VSWITCH %s port group %s: LACP %s, INTERVAL %u, %u member(s)", ds->cfg.name,
                 g->name, g->lacp ? "ACTIVE" : "INACTIVE", ivl, zvs_pgroup_members(pg));
}

/* ---- devices opened ahead ------------------------------------------------------------ */

/* Opens `dev` ahead for this pass; a failure that is not a wait is reported now, in the
 * words of the step that will use it (an RDEV of `vswitch`, or a member of `group`). */
static void open_one(struct pass *ps, struct zvs_rdev dev, const char *vswitch,
                     const char *group)
{
    if (ps->nopen % 16 == 0) {
        struct opened *o = realloc(ps->open, (ps->nopen + 16) * sizeof *o);
        if (!o)
            return;                     /* the step opens it itself */
        ps->open = o;
    }
    struct opened *o = &ps->open[ps->nopen++];
    *o = (struct opened){ .dev = dev };
    o->port = zvsd_open_rdev(ps->d, dev, &o->ifname, o->mac, o->why, sizeof o->why, &o->err);
    if (o->port || device_waits(o->err))
        return;
    char name[12];
    zvs_rdev_format(dev, name, sizeof name);
    if (group)
        member_not_opened(ps, group, name, o->why, o->err);
    else
        rdev_not_opened(ps, vswitch, name, o->why, o->err);
    o->told = true;
}

/* A command's pass first opens every device it is going to open: the members and RDEVs
 * that switch_sync and group_sync will find missing, by their rules (a group that is new
 * or replaced: all its members; an RDEV list that changed: all of it, reopened in the
 * new order). A device that cannot be opened then fails the command before anything has
 * changed, so its rollback has nothing to undo. A device the pass closes and opens again
 * (a new RDEV order) is opened here while still open: AF_PACKET and pcap allow it. */
static void open_ahead(struct zvsd *d, struct pass *ps)
{
    const struct zvs_cfg *cfg = d->run;
    for (unsigned i = 0; i < cfg->nvswitch && !ps->failed; i++) {
        const struct zvs_cfg_vswitch *vs = &cfg->vswitch[i];
        if (!uplinks_wanted(vs))
            continue;
        struct d_switch *ds = zvsd_switch_by_name(d, vs->name);
        int gi = vs->group[0] ? zvs_cfg_find_group(cfg, vs->group) : -1;
        bool same = gi >= 0 && ds && ds->lag &&
                    strcmp(zvs_lag_params(ds->lag)->pg.name, vs->group) == 0;
        for (unsigned k = 0; gi >= 0 && k < cfg->group[gi].nport && !ps->failed; k++)
            if (!same || !member_by_rdev(ds, cfg->group[gi].port[k]))
                open_one(ps, cfg->group[gi].port[k], vs->name, cfg->group[gi].name);
        char built[64] = "", want[64];
        if (ds)
            rdevs_wanted_list(&ds->cfg, built, sizeof built);
        rdevs_wanted_list(vs, want, sizeof want);
        bool all = strcmp(built, want) != 0;
        for (unsigned k = 0; k < vs->nrdev && !ps->failed; k++) {
            char dev[12];
            zvs_rdev_format(vs->rdev[k], dev, sizeof dev);
            if (all || !rdev_is_open(ds, dev))
                open_one(ps, vs->rdev[k], vs->name, NULL);
        }
    }
}

/* What was opened ahead and no step took (the pass stopped, or its switch could not be
 * made) is closed: it never reached the data plane. */
static void close_unused(struct pass *ps)
{
    for (unsigned i = 0; i < ps->nopen; i++)
        if (!ps->open[i].taken && ps->open[i].port)
            ps->open[i].port->ops->destroy(ps->open[i].port);
    free(ps->open);
}

/* ---- switches ------------------------------------------------------------------------ */

static void switch_destroy(struct zvsd *d, struct d_switch *ds, uint64_t now)
{
    char name[ZVS_NAME_MAX + 1];
    snprintf(name, sizeof name, "%s", ds->cfg.name);
    group_release(d, ds, now);
    zvsd_ivl_port_switch_gone(d, ds, now);
    rdevs_close(d, ds, now);
    zvs_switch_destroy(ds->sw);
    *ds = (struct d_switch){ 0 };
    zvs_info("VSWITCH %s destroyed", name);
}

static struct d_switch *switch_create(struct zvsd *d, const struct zvs_cfg_vswitch *vs,
                                      struct pass *ps)
{
    struct d_switch *ds = NULL;
    for (unsigned i = 0; i < d->nsw && !ds; i++)
        if (!d->sw[i].sw)
            ds = &d->sw[i];
    if (!ds) {
        if (d->nsw == ZVS_CFG_MAX_VSWITCHES)
            return NULL;
        ds = &d->sw[d->nsw++];
    }
    struct zvs_switch_params p = {
        .vlan = { .aware = vs->vlan_aware, .native_vid = vs->native_vid },
        .isolation = vs->isolation,
    };
    snprintf(p.name, sizeof(p.name), "%s", vs->name);
    *ds = (struct d_switch){ .cfg = *vs };
    /* The uplinks are opened by the attribute step: a new switch has none yet. */
    ds->cfg.nrdev = 0;
    ds->cfg.group[0] = '\0';
    ds->sw = zvsd_step_fault(d, ZVSD_STEP_SWITCH) < 0 ? NULL : zvs_switch_create(&p);
    if (!ds->sw) {
        problem(ps, true, NULL, vs->name, ZVSD_STEP_SWITCH, "VSWITCH %s: out of memory", vs->name);
        return NULL;
    }
    zvs_info("VSWITCH %s defined: %s, QUEUESTORAGE %uM%s", vs->name,
             vs->vlan_aware ? "VLAN AWARE" : "VLAN UNAWARE", vs->queuestorage_mb,
             vs->nouplink ? ", NOUPLINK" : "");
    return ds;
}

/* A command's pass asks the attach step of every RDEV it opened ahead before the RDEVs
 * close (a new list closes them all): one that fails then finds them still open. The
 * switch's own refusal (no room) cannot come after a close, which frees the room. */
static bool uplinks_checked(struct zvsd *d, const struct zvs_cfg_vswitch *vs, struct pass *ps)
{
    for (unsigned k = 0; k < vs->nrdev; k++) {
        if (!opened_ahead(ps, vs->rdev[k]) || zvsd_step_fault(d, ZVSD_STEP_UPLINK_ADD) == 0)
            continue;
        char dev[12];
        zvs_rdev_format(vs->rdev[k], dev, sizeof dev);
        problem(ps, true, NULL, dev, ZVSD_STEP_UPLINK_ADD,
                "VSWITCH %s RDEV %s: no room for the uplink", vs->name, dev);
        return false;
    }
    return true;
}

static void switch_sync(struct zvsd *d, struct d_switch *ds, const struct zvs_cfg_vswitch *vs,
                        uint64_t now, struct pass *ps)
{
    if (ds->cfg.isolation != vs->isolation) {
        zvs_switch_set_isolation(ds->sw, vs->isolation);
        ds->cfg.isolation = vs->isolation;      /* a rollback compares with it */
        zvs_info("VSWITCH %s: ISOLATION %s", vs->name, vs->isolation ? "ON" : "OFF");
    }
    /* The group first: its fallback RDEVs are only the fallback. */
    group_sync(d, ds, vs, now, ps);
    if (ps->failed)                     /* the RDEVs still match ds->cfg's */
        return;
    /* Compared with what the data plane was built for, not with what is open: a device
     * that could not be opened must not make every pass bounce the ones that work. */
    char built[64], want[64];
    rdevs_wanted_list(&ds->cfg, built, sizeof built);
    rdevs_wanted_list(vs, want, sizeof want);
    if (ps->txn && uplinks_wanted(vs) && !uplinks_checked(d, vs, ps))
        return;
    if (strcmp(built, want) != 0) {
        /* Reopened in the new order: the first with carrier carries the traffic. */
        rdevs_close(d, ds, now);
        if (!uplinks_wanted(vs))
            zvs_info("VSWITCH %s: %s", vs->name, vs->nouplink ? "NOUPLINK" : "DISCONNECTED");
    }
    if (uplinks_wanted(vs))
        rdevs_open(d, ds, vs, ps);      /* after a change all; else the missing ones */
    if (uplinks_wanted(vs) && !ps->failed) {
        char why[128];
        int err;
        bool open = zvsd_vxlan_open(ds);
        if (zvsd_vxlan_sync(d, ds, vs, why, sizeof why, &err) < 0 && !open)
            problem(ps, !device_waits(err), NULL, vs->name, ZVSD_STEP_DEVICE_OPEN,
                    "VSWITCH %s VXLAN uplink cannot be opened: %s", vs->name, why);
        else if (err < 0)               /* its VTEP could not follow a command */
            problem(ps, true, NULL, vs->name, ZVSD_STEP_VXLAN,
                    "VSWITCH %s VXLAN: %s", vs->name, why);
    }
    ds->cfg = *vs;
}

/* Each running group's identity follows its definition once the pass stands: SHARED,
 * EXCLUSIVE again, or another DOMAIN letter makes its members send their last LACPDU and
 * negotiate anew (zvs_lag_set_identity), which no rollback could take back; inside the
 * transaction a later step failing would have the partner negotiate twice. */
static void identities_follow(struct zvsd *d, uint64_t now)
{
    for (unsigned i = 0; i < d->nsw; i++) {
        struct d_switch *ds = &d->sw[i];
        if (!ds->sw || !ds->lag)
            continue;
        const struct zvs_lag_params *lp = zvs_lag_params(ds->lag);
        int gi = zvs_cfg_find_group(d->run, lp->pg.name);
        if (gi < 0)
            continue;
        struct zvs_lag_params id = *lp;
        group_identity_wanted(d, ds, &d->run->group[gi], &id);
        if (same_identity(lp, &id))
            continue;
        zvs_lag_set_identity(ds->lag, id.domain_index, id.system, id.key, now);
        zvs_info("VSWITCH %s port group %s: %s", ds->cfg.name, lp->pg.name,
                 id.domain_index ? "SHARED in the IVL domain" : "EXCLUSIVE");
    }
}

int zvsd_reconcile(struct zvsd *d, struct zvs_cp_response *r, const char *viewer,
                   char *why, size_t whylen)
{
    const struct zvs_cfg *cfg = d->run;
    uint64_t now = zvs_evloop_now(d->loop);
    /* The previous pass's problems stay in d->problems until this one stands. */
    uint32_t *seen = d->problems == d->problem_buf[0] ? d->problem_buf[1] : d->problem_buf[0];
    struct pass pass = { .d = d, .r = r, .viewer = viewer, .seen = seen, .txn = why != NULL,
                         .why = why, .whylen = whylen }, *ps = &pass;

    if (ps->txn)
        open_ahead(d, ps);
    if (!ps->failed) {
        nics_release(d, now);
        for (unsigned i = 0; i < d->nsw; i++)
            if (d->sw[i].sw && zvs_cfg_find_vswitch(cfg, d->sw[i].cfg.name) < 0)
                switch_destroy(d, &d->sw[i], now);
    }
    for (unsigned i = 0; i < cfg->nvswitch && !ps->failed; i++) {
        const struct zvs_cfg_vswitch *vs = &cfg->vswitch[i];
        struct d_switch *ds = zvsd_switch_by_name(d, vs->name);
        if (!ds && !(ds = switch_create(d, vs, ps)))
            continue;
        switch_sync(d, ds, vs, now, ps);
    }
    if (!ps->failed)
        nics_apply(d, ps);
    close_unused(ps);
    if (ps->failed)                     /* the rollback's pass compares with the last */
        return -EIO;                    /* pass that stands */
    /* Watched names follow only a configuration that stands (they cannot fail a pass;
     * a rollback's pass brings back the names of the one before). */
    zvsd_names_reconcile(d);
    identities_follow(d, now);          /* likewise LACP under a new identity, before the */
    zvsd_ivl_reconcile(d);              /* IVL domain (its definition holds the identity) */
    d->problems = pass.seen;
    d->nproblems = pass.nseen;
    return pass.count;
}
