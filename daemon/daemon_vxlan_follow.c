/* daemon_vxlan_follow.c: a running VTEP made to follow its VXLAN VSWITCH statement, when
 * the VXLAN uplink opens and after every command that changed the statement (SET VSWITCH
 * ... VXLAN REMOTE ADD | DELETE, VNI, VLAN, NEIGHBOR; ours).
 *
 * A command is a transaction (README.md, "Commands are transactions"): the steps that can
 * fail come first, so that the reverse pass of a failed command undoes exactly what this
 * one did. Adding a remote can fail (the VTEP's or the names table's room; a step a test
 * can fail, ZVSD_STEP_VXLAN), so the remotes the statement has and the VTEP lacks are
 * added first; then the VNI map follows (pairs the statement no longer has unmapped, then
 * the new ones mapped, which cannot collide); then the remotes the statement dropped are
 * deleted, their learned MACs with them and their names unwatched. The map is the
 * untagged VLAN's VNI (the statement's) and, on a VLAN AWARE switch, VLAN v VNI n's.
 * What the reverse pass cannot give back: a later step of the same pass (another switch,
 * the NICs) may still fail the command after a remote was deleted; the reverse pass adds
 * the remote again, without the MACs it had learned (learned again from its traffic) and,
 * for a host name, with its address after the next lookup.
 *
 * The underlay's neighbour table follows too (SET VSWITCH ... VXLAN NEIGHBOR; ours): its
 * age is the switch's IPTIMEOUT; the statement's static neighbours are set with the
 * fallible steps (the table's room; ZVSD_STEP_VXLAN too), after the remotes are added,
 * and set again after the remotes are dropped (a dropped remote's address leaves the
 * table, static or not; no step: the delete freed the room); a static entry the
 * statement no longer has becomes a learned one, asked again at its next use, while it
 * is a next hop (the GATEWAY, else a remote's address), and leaves the table otherwise.
 * A reverse pass gives a neighbour the command made static back as a learned one, asked
 * again, not as it had been answered. A latent gap: a pass that made a learned entry
 * static with a new MAC and then failed would leave it STALE with the refused MAC (asked
 * again at once, so corrected by the answer). Nothing after the neighbour set fails in
 * this switch's steps; only a later step of the same pass (another switch, the NICs)
 * could reach it.
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "overlay/vtep_names.h"

/* The statement's pairs: the untagged VLAN's VNI first, then VLAN v VNI n's. */
static unsigned wanted_pairs(const struct zvs_cfg_vxlan *vx, const struct zvs_cfg_vswitch *vs,
                             uint16_t *vid, uint32_t *vni)
{
    unsigned n = 0;

    vid[n] = vs->vlan_aware ? vs->native_vid : ZVS_VID_NONE;
    vni[n++] = vx->vni;
    for (unsigned i = 0; vs->vlan_aware && i < vx->nvlan; i++) {
        vid[n] = vx->vlan_vid[i];
        vni[n++] = vx->vlan_vni[i];
    }
    return n;
}

/* The VNI the statement gives VLAN vid, or ZVS_VTEP_NO_VNI. */
static uint32_t wanted_vni(const struct zvs_cfg_vxlan *vx, const struct zvs_cfg_vswitch *vs,
                           uint16_t vid)
{
    uint16_t vids[ZVS_CFG_MAX_VXLAN_VLANS + 1];
    uint32_t vnis[ZVS_CFG_MAX_VXLAN_VLANS + 1];
    unsigned n = wanted_pairs(vx, vs, vids, vnis);

    for (unsigned i = 0; i < n; i++)
        if (vids[i] == vid)
            return vnis[i];
    return ZVS_VTEP_NO_VNI;
}

static bool wanted_remote(const struct zvs_cfg_vxlan *vx, const char *name)
{
    for (unsigned i = 0; i < vx->nremote; i++)
        if (strcmp(vx->remote[i], name) == 0)
            return true;
    return false;
}

/* The statement's static neighbours set in the VTEP's table (those already there as
 * configured left alone). Each set is a step a test can fail (ZVSD_STEP_VXLAN) when
 * `fault` is given: in the fallible part of the pass only. */
static int neighbors_set(struct zvsd *fault, struct zvs_vtep *v, const struct zvs_cfg_vxlan *vx,
                         const struct zvs_cfg_vswitch *vs, char *why, size_t whylen)
{
    struct zvs_uarp *u = zvs_vtep_uarp(v);

    for (unsigned i = 0; i < vx->nneighbor; i++) {
        const struct zvs_uarp_entry *e;
        struct zvs_ipaddr a;
        int rc;

        if (zvs_ipaddr_parse(vx->neighbor_addr[i], &a) < 0)
            continue;                   /* the parser checked it */
        e = zvs_uarp_find(u, &a);
        if (e && e->state == ZVS_UARP_STATIC && memcmp(e->mac, vx->neighbor_mac[i], 6) == 0)
            continue;
        rc = fault ? zvsd_step_fault(fault, ZVSD_STEP_VXLAN) : 0;
        if (rc == 0)
            rc = zvs_uarp_set_static(u, &a, vx->neighbor_mac[i]);
        if (rc < 0) {
            snprintf(why, whylen, "NEIGHBOR %s: %s", vx->neighbor_addr[i], strerror(-rc));
            return rc;
        }
        zvs_info("VSWITCH %s VXLAN: static neighbor %s", vs->name, vx->neighbor_addr[i]);
    }
    return 0;
}

/* Whether the VTEP sends to a as its next hop: the GATEWAY (the running VTEP's, made from
 * the statement's, which no command changes), else a remote's address. */
static bool next_hop(struct zvs_vtep *v, const struct zvs_ipaddr *a)
{
    const struct zvs_ipaddr *gw = &zvs_vtep_config_of(v)->gateway;

    if (gw->family)
        return zvs_ipaddr_equal(gw, a);
    for (unsigned i = 0; i < ZVS_VTEP_MAX_REMOTES; i++) {
        const struct zvs_vtep_remote *r = zvs_vtep_remote(v, i);

        if (r->state == ZVS_VTEP_REMOTE_ACTIVE && zvs_ipaddr_equal(&r->addr, a))
            return true;
    }
    return false;
}

/* The static entries the statement no longer has: learned again, or gone. */
static void neighbors_unset(struct zvs_vtep *v, const struct zvs_cfg_vxlan *vx,
                            const struct zvs_cfg_vswitch *vs)
{
    struct zvs_uarp *u = zvs_vtep_uarp(v);

    for (unsigned i = 0; i < ZVS_UARP_MAX; i++) {
        struct zvs_ipaddr a = u->e[i].ip, n;
        bool wanted = false;
        char text[64];

        if (u->e[i].state != ZVS_UARP_STATIC)
            continue;
        for (unsigned k = 0; k < vx->nneighbor; k++)
            wanted |= zvs_ipaddr_parse(vx->neighbor_addr[k], &n) == 0 && zvs_ipaddr_equal(&n, &a);
        if (wanted)
            continue;
        zvs_ipaddr_str(&a, text, sizeof text);
        if (next_hop(v, &a))
            zvs_uarp_unset_static(u, &a);
        else
            zvs_uarp_forget(u, &a);
        zvs_info("VSWITCH %s VXLAN: static neighbor %s deleted", vs->name, text);
    }
}

static int remote_add(struct zvsd *d, struct zvs_vtep *v, const char *name)
{
    struct zvs_names *names = zvsd_names_table(d);
    struct zvs_ipaddr lit;
    int rc = zvsd_step_fault(d, ZVSD_STEP_VXLAN);

    if (rc < 0)
        return rc;
    if (zvs_ipaddr_parse(name, &lit) == 0)
        return zvs_vtep_add_remote(v, name, &lit);
    if (!names)
        return -ENOTSUP;
    return zvs_vtep_add_remote_name(v, names, name, zvs_evloop_clock(d->loop));
}

static void remote_delete(struct zvsd *d, struct zvs_vtep *v, unsigned idx)
{
    struct zvs_names *names = zvsd_names_table(d);

    if (names)
        zvs_vtep_del_remote_name(v, names, idx);
    else
        zvs_vtep_del_remote(v, idx);
}

int zvsd_vtep_follow(struct zvsd *d, struct zvs_vtep *v, const struct zvs_cfg_vxlan *vx,
                     const struct zvs_cfg_vswitch *vs, char *why, size_t whylen)
{
    int rc;

    zvs_uarp_set_age(zvs_vtep_uarp(v), (uint64_t)zvs_cfg_iptimeout(vs) * 60 * 1000000000u);
    for (unsigned i = 0; i < vx->nremote; i++) {
        if (zvs_vtep_find_remote(v, vx->remote[i]) >= 0)
            continue;
        if ((rc = remote_add(d, v, vx->remote[i])) < 0) {
            snprintf(why, whylen, "REMOTE %s: %s", vx->remote[i], strerror(-rc));
            return rc;
        }
        zvs_info("VSWITCH %s VXLAN: remote VTEP %s added", vs->name, vx->remote[i]);
    }
    if ((rc = neighbors_set(d, v, vx, vs, why, whylen)) < 0)
        return rc;
    for (unsigned i = zvs_vtep_nvnis(v); i-- > 0;) {
        uint16_t vid;
        uint32_t vni = zvs_vtep_vni_at(v, i, &vid);

        if (wanted_vni(vx, vs, vid) != vni)
            zvs_vtep_unmap_vid(v, vid);
    }
    uint16_t vids[ZVS_CFG_MAX_VXLAN_VLANS + 1];
    uint32_t vnis[ZVS_CFG_MAX_VXLAN_VLANS + 1];
    unsigned n = wanted_pairs(vx, vs, vids, vnis);
    for (unsigned i = 0; i < n; i++) {
        if (zvs_vtep_vni_of(v, vids[i]) != ZVS_VTEP_NO_VNI)
            continue;
        if ((rc = zvs_vtep_map_vni(v, vids[i], vnis[i])) < 0) {
            snprintf(why, whylen, "VLAN %u VNI %u: %s", (unsigned)vids[i], (unsigned)vnis[i],
                     strerror(-rc));
            return rc;
        }
        zvs_info("VSWITCH %s VXLAN: VLAN %u VNI %u", vs->name, (unsigned)vids[i],
                 (unsigned)vnis[i]);
    }
    for (unsigned i = 0; i < ZVS_VTEP_MAX_REMOTES; i++) {
        const struct zvs_vtep_remote *r = zvs_vtep_remote(v, i);

        if (r->state == ZVS_VTEP_REMOTE_FREE || wanted_remote(vx, r->name))
            continue;
        zvs_info("VSWITCH %s VXLAN: remote VTEP %s deleted", vs->name, r->name);
        remote_delete(d, v, i);
    }
    neighbors_unset(v, vx, vs);
    return neighbors_set(NULL, v, vx, vs, why, whylen); /* room: a remote's delete freed it */
}
