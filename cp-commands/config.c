/* The parsed configuration: lifecycle, file reading, cross-checks, dump, value helpers.
 *
 * Owns what needs both files: zvs_cfg_validate() checks SYSTEM CONFIG against USER
 * DIRECT and finishes the data the daemon needs:
 *   - every NICDEF LAN SYSTEM names a defined switch (nic->vswitch resolved);
 *   - a warning (not an error: z/VM refuses such a couple at logon, and a later SET
 *     VSWITCH GRANT may still come) for a NIC whose user has no GRANT on the switch and
 *     whose NICDEF carries no directory authorization (PORTTYPE or VLAN);
 *   - a NICDEF VLAN needs a VLAN aware switch, and an ACCESS port (given or the
 *     switch's default PORTTYPE) carries one VLAN id;
 *   - MACs: NICDEF MACIDs must lie in MACIDRANGE USER (when a MACIDRANGE was given);
 *     NICs without MACID get one from MACIDRANGE SYSTEM, in order of appearance,
 *     skipping MACIDs that a NICDEF names (deterministic: the same files always give
 *     the same MACs); MAC = MACPREFIX ++ MACID; a MAC used twice is an error naming both
 *     NICs (the later one is reported);
 *   - every RDEV a switch names has an RDEVICE ... INTERFACE mapping, no RDEV serves two
 *     switches, and no Linux interface is used twice (RDEVICE and NICBIND TAP);
 *   - port groups: every DEFINE VSWITCH GROUP names a group of some SET PORT GROUP (before
 *     or after it in the file), a group serves one switch (EXCLUSIVE), every device a
 *     group JOINs has an RDEVICE mapping and is neither in a second group nor an RDEV of
 *     any switch (a switch's own RDEVs are its fallback uplink, so they must be other
 *     devices); warnings (not errors: the file still works) for a group no switch uses
 *     and for a switch's group without devices. Device messages carry the line of the
 *     SET PORT GROUP that JOINed the device.
 * Messages of validate carry the file and line of the statement at fault.
 *
 * The configuration is usable only when zvs_cfg_errors() is 0: a statement with an error
 * stores nothing, but the checks after a file or in validate leave the objects in place.
 */
#include "cp-commands/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cp-commands/config_impl.h"
#include "cp-commands/tokens.h"

struct zvs_cfg *zvs_cfg_new(void)
{
    struct zvs_cfg *cfg = calloc(1, sizeof *cfg);

    if (cfg == NULL)
        return NULL;
    cfg->vmlan.macprefix[0] = 0x02;     /* 02-00-00: locally administered, unicast */
    cfg->vmlan.system_lo = 0x000001;
    cfg->vmlan.system_hi = 0xFFFFFF;
    cfg->vmlan.user_lo = 0x000000;
    cfg->vmlan.user_hi = 0xFFFFFF;
    return cfg;
}

#define COPY_USED(dst, src, field, count) \
    memcpy((dst)->field, (src)->field, (size_t)(src)->count * sizeof (src)->field[0])

void zvs_cfg_copy(struct zvs_cfg *dst, const struct zvs_cfg *src)
{
    memcpy(dst->sysconfig_file, src->sysconfig_file, sizeof dst->sysconfig_file);
    memcpy(dst->userdirect_file, src->userdirect_file, sizeof dst->userdirect_file);
    dst->vmlan = src->vmlan;
    dst->system = src->system;
    dst->nvswitch = src->nvswitch;
    COPY_USED(dst, src, vswitch, nvswitch);
    dst->ngrant = src->ngrant;
    COPY_USED(dst, src, grant, ngrant);
    dst->nrdevice = src->nrdevice;
    COPY_USED(dst, src, rdevice, nrdevice);
    dst->ngroup = src->ngroup;
    COPY_USED(dst, src, group, ngroup);
    COPY_USED(dst, src, group_join_line, ngroup);
    dst->nvxlan = src->nvxlan;
    COPY_USED(dst, src, vxlan, nvxlan);
    dst->resolver.nwatch = src->resolver.nwatch;
    COPY_USED(dst, src, resolver.watch, resolver.nwatch);
    COPY_USED(dst, src, resolver.watch_line, resolver.nwatch);
    dst->resolver.nserver = src->resolver.nserver;
    memcpy(dst->resolver.server, src->resolver.server, sizeof dst->resolver.server);
    dst->resolver.server_line = src->resolver.server_line;
    dst->resolver.order = src->resolver.order;
    dst->resolver.order_line = src->resolver.order_line;
    dst->resolver.timeout_ms = src->resolver.timeout_ms;
    dst->resolver.timeout_line = src->resolver.timeout_line;
    dst->resolver.minttl_s = src->resolver.minttl_s;
    dst->resolver.minttl_line = src->resolver.minttl_line;
    dst->ivl = src->ivl;
    dst->nuser = src->nuser;
    COPY_USED(dst, src, user, nuser);
    dst->nnic = src->nnic;
    COPY_USED(dst, src, nic, nnic);
}

static void upper8(const char *s, char out[ZVS_NAME_MAX + 1])
{
    size_t n = 0;
    for (; n < ZVS_NAME_MAX && s[n] != '\0'; n++)
        out[n] = s[n] >= 'a' && s[n] <= 'z' ? (char)(s[n] - 'a' + 'A') : s[n];
    out[n] = '\0';
}

void zvs_cfg_system_name(const struct zvs_cfg *cfg, const char *hostname,
                         char out[ZVS_NAME_MAX + 1])
{
    char host[ZVS_NAME_MAX + 1];
    upper8(hostname != NULL && hostname[0] != '\0' ? hostname : "ZVSWITCH", host);
    for (unsigned i = 0; i < cfg->system.nsysid; i++) {
        const struct zvs_cfg_sysid *e = &cfg->system.sysid[i];
        if (e->lpar && strcmp(e->match, host) == 0) {
            memcpy(out, e->sysname, sizeof e->sysname);
            return;
        }
    }
    if (cfg->system.default_name[0] != '\0')
        memcpy(out, cfg->system.default_name, sizeof cfg->system.default_name);
    else
        memcpy(out, host, sizeof host);
}

const char *zvs_cfg_operator(const struct zvs_cfg *cfg)
{
    return cfg->system.operator_id[0] != '\0' ? cfg->system.operator_id
                                               : ZVS_CFG_OPERATOR_DEFAULT;
}

void zvs_cfg_free(struct zvs_cfg *cfg)
{
    if (cfg == NULL)
        return;
    zvs_msg_list_free(&cfg->msgs);
    free(cfg);
}

unsigned zvs_cfg_errors(const struct zvs_cfg *cfg)
{
    return cfg->msgs.errors;
}

/* ---- files --------------------------------------------------------------------------- */

static int read_file(const char *path, char **out, size_t *out_len)
{
    size_t cap = 4096, len = 0;
    char *buf = NULL;
    int rc = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -errno;
    for (;;) {
        if (buf == NULL || len == cap) {
            if (buf != NULL && cap > ZVS_CFG_FILE_MAX) {
                rc = -EFBIG;
                goto out;
            }
            cap = buf == NULL ? cap : cap * 2;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                rc = -ENOMEM;
                goto out;
            }
            buf = nb;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = -errno;
            goto out;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (len > ZVS_CFG_FILE_MAX)
        rc = -EFBIG;
out:
    close(fd);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *out = buf;
    *out_len = len;
    return 0;
}

typedef int (*parse_buf_fn)(struct zvs_cfg *, const char *, const char *, size_t);

static int parse_file(struct zvs_cfg *cfg, const char *path, char *name_slot, parse_buf_fn fn)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = read_file(path, &buf, &len);

    if (rc < 0) {
        snprintf(name_slot, ZVS_CFG_PATH_MAX, "%s", path);
        ZVS_MSG(&cfg->msgs, NULL, 0, ZVS_MSG_FILE_UNREADABLE, path, strerror(-rc));
        return rc;
    }
    rc = fn(cfg, path, buf, len);
    free(buf);
    return rc;
}

int zvs_cfg_parse_sysconfig(struct zvs_cfg *cfg, const char *path)
{
    return parse_file(cfg, path, cfg->sysconfig_file, zvs_cfg_parse_sysconfig_buf);
}

int zvs_cfg_parse_userdirect(struct zvs_cfg *cfg, const char *path)
{
    return parse_file(cfg, path, cfg->userdirect_file, zvs_cfg_parse_userdirect_buf);
}

int zvs_cfg_load(struct zvs_cfg *cfg, const char *sysconfig_path, const char *userdirect_path)
{
    int rc;

    if (sysconfig_path != NULL && (rc = zvs_cfg_parse_sysconfig(cfg, sysconfig_path)) == -ENOMEM)
        return rc;
    if (userdirect_path != NULL &&
        (rc = zvs_cfg_parse_userdirect(cfg, userdirect_path)) == -ENOMEM)
        return rc;
    zvs_cfg_validate(cfg);
    return (int)zvs_cfg_errors(cfg);
}

int zvs_config_syntax_check(const char *sysconfig_path, const char *userdirect_path,
                            FILE *out)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    char num[12], line[ZVS_MSG_TEXT_MAX];
    int rc;

    if (cfg == NULL)
        return -ENOMEM;
    rc = zvs_cfg_load(cfg, sysconfig_path, userdirect_path);
    if (rc < 0)
        goto out;
    for (unsigned i = 0; i < cfg->msgs.n; i++)
        fprintf(out, "%s\n", cfg->msgs.msg[i].text);
    snprintf(num, sizeof num, "%u", zvs_cfg_errors(cfg));
    zvs_msg_format(line, sizeof line, ZVS_MSG_CHECK_DONE, (const char *const[]){ num }, 1);
    fprintf(out, "%s\n", line);
    rc = (int)zvs_cfg_errors(cfg);
out:
    zvs_cfg_free(cfg);
    return rc;
}

/* ---- lookups ------------------------------------------------------------------------- */

int zvs_cfg_find_vswitch(const struct zvs_cfg *cfg, const char *name)
{
    for (unsigned i = 0; i < cfg->nvswitch; i++)
        if (strcasecmp(cfg->vswitch[i].name, name) == 0)
            return (int)i;
    return -1;
}

int zvs_cfg_find_watch(const struct zvs_cfg_resolver *r, const char *name)
{
    char canon[ZVS_HOSTNAME_MAX + 1];
    if (zvs_hostname_check(name, strlen(name), canon) != ZVS_HOSTNAME_OK)
        return -1;
    for (unsigned i = 0; i < r->nwatch; i++)
        if (strcmp(r->watch[i], canon) == 0)
            return (int)i;
    return -1;
}

int zvs_cfg_find_user(const struct zvs_cfg *cfg, const char *userid)
{
    for (unsigned i = 0; i < cfg->nuser; i++)
        if (strcasecmp(cfg->user[i].userid, userid) == 0)
            return (int)i;
    return -1;
}

int zvs_cfg_find_rdevice(const struct zvs_cfg *cfg, struct zvs_rdev rdev)
{
    for (unsigned i = 0; i < cfg->nrdevice; i++)
        if (zvs_rdev_equal(cfg->rdevice[i].rdev, rdev))
            return (int)i;
    return -1;
}

int zvs_cfg_find_group(const struct zvs_cfg *cfg, const char *name)
{
    for (unsigned i = 0; i < cfg->ngroup; i++)
        if (strcasecmp(cfg->group[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- validate ------------------------------------------------------------------------ */

static const char *file_or_null(const char *name)
{
    return name[0] != '\0' ? name : NULL;
}

static void check_rdevs(struct zvs_cfg *cfg)
{
    const char *file = file_or_null(cfg->sysconfig_file);

    for (unsigned s = 0; s < cfg->nvswitch; s++) {
        const struct zvs_cfg_vswitch *sw = &cfg->vswitch[s];
        for (unsigned r = 0; r < sw->nrdev; r++) {
            char dev[12];
            zvs_rdev_format(sw->rdev[r], dev, sizeof dev);
            if (zvs_cfg_find_rdevice(cfg, sw->rdev[r]) < 0)
                ZVS_MSG(&cfg->msgs, file, sw->line, ZVS_MSG_RDEV_UNMAPPED, dev, sw->name);
            for (unsigned t = 0; t < s; t++) {
                const struct zvs_cfg_vswitch *o = &cfg->vswitch[t];
                for (unsigned q = 0; q < o->nrdev; q++)
                    if (zvs_rdev_equal(o->rdev[q], sw->rdev[r]))
                        ZVS_MSG(&cfg->msgs, file, sw->line, ZVS_MSG_RDEV_SHARED, dev,
                                o->name, sw->name);
            }
        }
    }
}

static bool group_refused(const struct zvs_cfg *cfg, const char *name)
{
    for (unsigned i = 0; i < cfg->nrefused_group; i++)
        if (strcmp(cfg->refused_group[i], name) == 0)
            return true;
    return false;
}

/* DEFINE VSWITCH ... GROUP against the SET PORT GROUP statements. */
static void check_switch_groups(struct zvs_cfg *cfg)
{
    const char *file = file_or_null(cfg->sysconfig_file);

    for (unsigned s = 0; s < cfg->nvswitch; s++) {
        const struct zvs_cfg_vswitch *sw = &cfg->vswitch[s];
        if (sw->group[0] == '\0')
            continue;
        if (zvs_cfg_find_group(cfg, sw->group) < 0) {
            if (!group_refused(cfg, sw->group))     /* else its refusal said it already */
                ZVS_MSG(&cfg->msgs, file, sw->line, ZVS_MSG_GROUP_UNDEFINED, sw->name,
                        sw->group);
            continue;
        }
        for (unsigned t = 0; t < s; t++) {
            const struct zvs_cfg_vswitch *o = &cfg->vswitch[t];
            if (strcmp(o->group, sw->group) == 0) {
                ZVS_MSG(&cfg->msgs, file, sw->line, ZVS_MSG_GROUP_TWO_SWITCHES, sw->group,
                        o->name, sw->name);
                break;
            }
        }
    }
}

/* The IVL domain's switches: one TYPE IVL switch per system (the link to the others),
 * and a GLOBAL switch only where there is one. */
static void check_ivl_switches(struct zvs_cfg *cfg)
{
    const char *file = file_or_null(cfg->sysconfig_file);
    int ivl = -1;

    for (unsigned s = 0; s < cfg->nvswitch; s++) {
        const struct zvs_cfg_vswitch *sw = &cfg->vswitch[s];
        if (sw->scope != ZVS_VSW_IVL)
            continue;
        if (ivl >= 0)
            ZVS_MSG(&cfg->msgs, file, sw->line, ZVS_MSG_IVL_TWICE, sw->name,
                    cfg->vswitch[ivl].name);
        else
            ivl = (int)s;
    }
    for (unsigned s = 0; s < cfg->nvswitch && ivl < 0; s++)
        if (cfg->vswitch[s].scope == ZVS_VSW_GLOBAL)
            ZVS_MSG(&cfg->msgs, file, cfg->vswitch[s].line, ZVS_MSG_GLOBAL_NO_IVL,
                    cfg->vswitch[s].name);
    const struct zvs_cfg_ivl *d = &cfg->ivl;
    if (d->nmember > 0 && ivl < 0)
        ZVS_MSG(&cfg->msgs, file, d->member[0].line, ZVS_MSG_IVL_MEMBER_NO_IVL,
                d->member[0].sysname);
}

enum zvs_cfg_share zvs_cfg_group_can_share(const struct zvs_cfg *cfg, const char *group,
                                           int *sw)
{
    bool ivl = false;
    for (unsigned s = 0; s < cfg->nvswitch; s++)
        ivl |= cfg->vswitch[s].scope == ZVS_VSW_IVL;
    if (!ivl)
        return ZVS_SHARE_NO_IVL;
    for (unsigned s = 0; s < cfg->nvswitch; s++) {
        const struct zvs_cfg_vswitch *v = &cfg->vswitch[s];
        if (strcmp(v->group, group) == 0 && v->scope != ZVS_VSW_GLOBAL) {
            *sw = (int)s;
            return ZVS_SHARE_NOT_GLOBAL;
        }
    }
    return ZVS_SHARE_OK;
}

/* SET PORT GROUP ... SHARED in the file: the command's rule, checked once the whole file
 * is read (the group may come before the switches). */
static void check_shared_groups(struct zvs_cfg *cfg)
{
    const char *file = file_or_null(cfg->sysconfig_file);

    for (unsigned g = 0; g < cfg->ngroup; g++) {
        const struct zvs_cfg_group *grp = &cfg->group[g];
        int s = -1;
        if (!grp->shared)
            continue;
        switch (zvs_cfg_group_can_share(cfg, grp->name, &s)) {
        case ZVS_SHARE_OK:
            break;
        case ZVS_SHARE_NO_IVL:
            ZVS_MSG(&cfg->msgs, file, grp->line, ZVS_MSG_SHARED_NO_IVL, grp->name);
            break;
        case ZVS_SHARE_NOT_GLOBAL:
            ZVS_MSG(&cfg->msgs, file, grp->line, ZVS_MSG_SHARED_NOT_GLOBAL, grp->name,
                    cfg->vswitch[s].name);
            break;
        }
    }
}

/* The first switch whose GROUP is group g, or -1. */
static int group_user(const struct zvs_cfg *cfg, unsigned g)
{
    for (unsigned s = 0; s < cfg->nvswitch; s++)
        if (strcmp(cfg->vswitch[s].group, cfg->group[g].name) == 0)
            return (int)s;
    return -1;
}

/* One JOINed device: mapped, in no earlier group, no switch's RDEV. */
static void check_group_port(struct zvs_cfg *cfg, unsigned g, unsigned p)
{
    const char *file = file_or_null(cfg->sysconfig_file);
    const struct zvs_cfg_group *grp = &cfg->group[g];
    struct zvs_rdev r = grp->port[p];
    uint32_t line = cfg->group_join_line[g][p];
    char dev[12];

    zvs_rdev_format(r, dev, sizeof dev);
    if (zvs_cfg_find_rdevice(cfg, r) < 0)
        ZVS_MSG(&cfg->msgs, file, line, ZVS_MSG_GROUP_DEV_UNMAPPED, dev, grp->name);
    for (unsigned s = 0; s < cfg->nvswitch; s++) {
        const struct zvs_cfg_vswitch *sw = &cfg->vswitch[s];
        for (unsigned q = 0; q < sw->nrdev; q++)
            if (zvs_rdev_equal(sw->rdev[q], r))
                ZVS_MSG(&cfg->msgs, file, line, ZVS_MSG_GROUP_DEV_IS_RDEV, dev, grp->name,
                        sw->name);
    }
    for (unsigned h = 0; h < g; h++) {
        const struct zvs_cfg_group *o = &cfg->group[h];
        for (unsigned q = 0; q < o->nport; q++) {
            if (zvs_rdev_equal(o->port[q], r)) {
                ZVS_MSG(&cfg->msgs, file, line, ZVS_MSG_GROUP_DEV_TWO_GROUPS, dev, o->name,
                        grp->name);
                return;
            }
        }
    }
}

static void check_groups(struct zvs_cfg *cfg)
{
    const char *file = file_or_null(cfg->sysconfig_file);

    check_switch_groups(cfg);
    for (unsigned g = 0; g < cfg->ngroup; g++) {
        const struct zvs_cfg_group *grp = &cfg->group[g];
        for (unsigned p = 0; p < grp->nport; p++)
            check_group_port(cfg, g, p);
        int s = group_user(cfg, g);
        if (s < 0)
            ZVS_MSG(&cfg->msgs, file, grp->line, ZVS_MSG_GROUP_UNUSED, grp->name);
        else if (grp->nport == 0)
            ZVS_MSG(&cfg->msgs, file, grp->line, ZVS_MSG_GROUP_EMPTY, grp->name,
                    cfg->vswitch[s].name);
    }
}

const char *zvs_cfg_order_text(enum zvs_res_order o)
{
    switch (o) {
    case ZVS_RES_ORDER_V4_V6: return "IPV4 IPV6";
    case ZVS_RES_ORDER_V6_V4: return "IPV6 IPV4";
    case ZVS_RES_ORDER_V4:    return "IPV4";
    case ZVS_RES_ORDER_V6:    return "IPV6";
    }
    return "?";
}

const char *zvs_nic_backend_kind(enum zvs_nic_backend b)
{
    switch (b) {
    case ZVS_NIC_BACKEND_TAP:  return "tap";
    case ZVS_NIC_BACKEND_QDIO: return "qdio";
    case ZVS_NIC_BACKEND_LCS:  return "lcs";
    case ZVS_NIC_BACKEND_NONE: break;
    }
    return "none";
}

/* Interface number i of the list RDEVICEs-then-NICs, or NULL if that entry has none. */
static const char *ifname_of(const struct zvs_cfg *cfg, unsigned i)
{
    if (i < cfg->nrdevice)
        return cfg->rdevice[i].ifname;
    const struct zvs_cfg_nic *n = &cfg->nic[i - cfg->nrdevice];
    return n->backend == ZVS_NIC_BACKEND_TAP ? n->ifname : NULL;
}

/* Who uses interface number i, for a message. */
static void ifname_user(const struct zvs_cfg *cfg, unsigned i, char *who, size_t size)
{
    if (i < cfg->nrdevice) {
        char dev[12];
        zvs_rdev_format(cfg->rdevice[i].rdev, dev, sizeof dev);
        snprintf(who, size, "RDEVICE %s", dev);
    } else {
        const struct zvs_cfg_nic *n = &cfg->nic[i - cfg->nrdevice];
        snprintf(who, size, "USER %s NICBIND %04X", cfg->user[n->user].userid,
                 (unsigned)n->vdev);
    }
}

static void check_ifnames(struct zvs_cfg *cfg)
{
    unsigned total = cfg->nrdevice + cfg->nnic;

    for (unsigned i = 0; i < total; i++) {
        const char *name = ifname_of(cfg, i);
        if (name == NULL)
            continue;
        for (unsigned j = 0; j < i; j++) {
            const char *oname = ifname_of(cfg, j);
            if (oname == NULL || strcmp(name, oname) != 0)
                continue;
            char who[40], other[40];
            bool rdevice = i < cfg->nrdevice;
            ifname_user(cfg, i, who, sizeof who);
            ifname_user(cfg, j, other, sizeof other);
            ZVS_MSG(&cfg->msgs, file_or_null(rdevice ? cfg->sysconfig_file : cfg->userdirect_file),
                    rdevice ? cfg->rdevice[i].line : cfg->nic[i - cfg->nrdevice].bind_line,
                    ZVS_MSG_IFNAME_SHARED, name, who, other);
            break;
        }
    }
}

static bool granted(const struct zvs_cfg *cfg, int sw, const char *userid)
{
    for (unsigned i = 0; i < cfg->ngrant; i++)
        if (cfg->grant[i].vswitch == sw && strcmp(cfg->grant[i].userid, userid) == 0)
            return true;
    return false;
}

static void check_nic_switches(struct zvs_cfg *cfg)
{
    const char *file = file_or_null(cfg->userdirect_file);

    for (unsigned i = 0; i < cfg->nnic; i++) {
        struct zvs_cfg_nic *n = &cfg->nic[i];
        const char *user = cfg->user[n->user].userid;
        char vdev[8];
        snprintf(vdev, sizeof vdev, "%04X", (unsigned)n->vdev);
        n->vswitch = -1;
        if (n->lan[0] == '\0')
            continue;
        int k = zvs_cfg_find_vswitch(cfg, n->lan);
        if (k < 0) {
            ZVS_MSG(&cfg->msgs, file, n->line, ZVS_MSG_NIC_VSWITCH_UNDEFINED, vdev, user, n->lan);
            continue;
        }
        n->vswitch = (int16_t)k;
        const struct zvs_cfg_vswitch *sw = &cfg->vswitch[k];
        if (!n->has_vlan && n->porttype == ZVS_PORTTYPE_UNSPEC && !granted(cfg, k, user))
            ZVS_MSG(&cfg->msgs, file, n->line, ZVS_MSG_NIC_NOT_AUTHORIZED, vdev, user, sw->name);
        enum zvs_porttype pt = n->porttype != ZVS_PORTTYPE_UNSPEC ? n->porttype : sw->porttype;
        if (n->has_vlan && !sw->vlan_aware) {
            ZVS_MSG(&cfg->msgs, file, n->line, ZVS_MSG_VLAN_UNAWARE, "VLAN", sw->name);
        } else if (n->has_vlan && pt == ZVS_PORTTYPE_ACCESS && zvs_vidset_count(&n->vlan) > 1) {
            char set[160];
            zvs_vidset_format(&n->vlan, set, sizeof set);
            ZVS_MSG(&cfg->msgs, file, n->line, ZVS_MSG_ACCESS_ONE_VLAN, set);
        }
    }
}

static void vdev_str(const struct zvs_cfg_nic *n, char vdev[8])
{
    snprintf(vdev, 8, "%04X", (unsigned)n->vdev);
}

/* The MACID of an LCS NIC's tap: its own with the last byte one less (mod 256), since
 * Hercules gives the guest the tap's MAC plus one there (zvs_lcs_tap_mac). */
static uint32_t lcs_tap_macid(uint32_t macid)
{
    return (macid & 0xFFFF00u) | ((macid - 1u) & 0xFFu);
}

/* A small open-addressing set of MACIDs (24 bits; empty slots hold UINT32_MAX). */
struct macid_set {
    uint32_t *slot;
    uint32_t  mask;
};

static int macid_set_init(struct macid_set *m, unsigned n)
{
    uint32_t size = 16;

    while (size < 4u * n + 16u)
        size <<= 1;
    m->slot = malloc(size * sizeof *m->slot);
    if (m->slot == NULL)
        return -ENOMEM;
    memset(m->slot, 0xFF, size * sizeof *m->slot);
    m->mask = size - 1;
    return 0;
}

static bool macid_set_has(const struct macid_set *m, uint32_t v)
{
    for (uint32_t i = (v * 2654435761u) & m->mask;; i = (i + 1) & m->mask) {
        if (m->slot[i] == v)
            return true;
        if (m->slot[i] == UINT32_MAX)
            return false;
    }
}

static void macid_set_add(struct macid_set *m, uint32_t v)
{
    uint32_t i = (v * 2654435761u) & m->mask;

    while (m->slot[i] != UINT32_MAX && m->slot[i] != v)
        i = (i + 1) & m->mask;
    m->slot[i] = v;
}

/* User MACIDs against MACIDRANGE USER, then system MACIDs in order of appearance. An LCS
 * NIC (NICBIND LCS) holds two MACIDs: its own and its tap's (one less in the last byte),
 * so a system-assigned one skips ahead until both are free and no NIC ever gets an LCS
 * tap's MAC, even with sequential MACIDs (a user MACID that collides is check_macs'
 * error). At most 2 * nnic MACIDs are taken. */
static int assign_macids(struct zvs_cfg *cfg)
{
    const struct zvs_cfg_vmlan *v = &cfg->vmlan;
    const char *file = file_or_null(cfg->userdirect_file);
    struct macid_set used;
    char vdev[8], id[8], range[16];

    if (macid_set_init(&used, 2 * cfg->nnic + 1) < 0)
        return -ENOMEM;
    macid_set_add(&used, 0);            /* the switch's own MAC (MACPREFIX ++ 000000) */
    for (unsigned i = 0; i < cfg->nnic; i++) {
        struct zvs_cfg_nic *n = &cfg->nic[i];
        if (n->macid_source == ZVS_MACID_SYSTEM)
            n->macid_source = ZVS_MACID_NONE;   /* validate may run again */
        if (n->macid_source != ZVS_MACID_USER)
            continue;
        macid_set_add(&used, n->macid);
        if (n->backend == ZVS_NIC_BACKEND_LCS)
            macid_set_add(&used, lcs_tap_macid(n->macid));
        if (v->macidrange_line != 0 && (n->macid < v->user_lo || n->macid > v->user_hi)) {
            vdev_str(n, vdev);
            snprintf(id, sizeof id, "%06X", (unsigned)n->macid);
            snprintf(range, sizeof range, "%06X-%06X", (unsigned)v->user_lo,
                     (unsigned)v->user_hi);
            ZVS_MSG(&cfg->msgs, file, n->line, ZVS_MSG_MACID_OUTSIDE_USER, id,
                    cfg->user[n->user].userid, vdev, range);
        }
    }

    uint32_t next = v->system_lo;
    for (unsigned i = 0; i < cfg->nnic; i++) {
        struct zvs_cfg_nic *n = &cfg->nic[i];
        if (n->macid_source != ZVS_MACID_NONE)
            continue;
        bool lcs = n->backend == ZVS_NIC_BACKEND_LCS;
        while (next <= v->system_hi &&
               (macid_set_has(&used, next) ||
                (lcs && macid_set_has(&used, lcs_tap_macid(next)))))
            next++;
        if (next > v->system_hi) {
            vdev_str(n, vdev);
            snprintf(range, sizeof range, "%06X-%06X", (unsigned)v->system_lo,
                     (unsigned)v->system_hi);
            ZVS_MSG(&cfg->msgs, file, n->line, ZVS_MSG_MACID_EXHAUSTED, range,
                    cfg->user[n->user].userid, vdev);
            break;
        }
        n->macid = next;
        n->macid_source = ZVS_MACID_SYSTEM;
        macid_set_add(&used, next);
        if (lcs)
            macid_set_add(&used, lcs_tap_macid(next));
        next++;
    }
    free(used.slot);
    return 0;
}

static void check_macs(struct zvs_cfg *cfg)
{
    const char *file = file_or_null(cfg->userdirect_file);

    for (unsigned i = 0; i < cfg->nnic; i++) {
        struct zvs_cfg_nic *n = &cfg->nic[i];
        memset(n->mac, 0, sizeof n->mac);
        if (n->macid_source == ZVS_MACID_NONE)
            continue;
        memcpy(n->mac, cfg->vmlan.macprefix, 3);
        n->mac[3] = (uint8_t)(n->macid >> 16);
        n->mac[4] = (uint8_t)(n->macid >> 8);
        n->mac[5] = (uint8_t)n->macid;
        for (unsigned j = 0; j < i; j++) {
            const struct zvs_cfg_nic *o = &cfg->nic[j];
            if (o->macid_source == ZVS_MACID_NONE || memcmp(o->mac, n->mac, 6) != 0)
                continue;
            char mac[18], vdev[8], ovdev[8];
            zvs_mac_format(n->mac, mac, sizeof mac);
            vdev_str(n, vdev);
            vdev_str(o, ovdev);
            ZVS_MSG(&cfg->msgs, file, n->line, ZVS_MSG_MAC_DUPLICATE, mac,
                    cfg->user[n->user].userid, vdev, cfg->user[o->user].userid, ovdev);
            break;
        }
    }
    zvs_cfg_check_lcs_taps(cfg);
}

int zvs_cfg_validate(struct zvs_cfg *cfg)
{
    unsigned before = cfg->msgs.errors;

    check_rdevs(cfg);
    check_groups(cfg);
    check_ifnames(cfg);
    check_nic_switches(cfg);
    check_ivl_switches(cfg);
    check_shared_groups(cfg);
    if (assign_macids(cfg) < 0)
        return -ENOMEM;
    check_macs(cfg);
    zvs_cfg_check_machines(cfg);
    return (int)(cfg->msgs.errors - before);
}

/* ---- dump ---------------------------------------------------------------------------- */

static const char *porttype_name(enum zvs_porttype pt)
{
    return pt == ZVS_PORTTYPE_TRUNK ? "TRUNK" : "ACCESS";
}

static void storage_str(uint64_t bytes, char *buf, size_t size)
{
    static const char unit[] = "TGMK";
    for (unsigned i = 0; i < 4; i++) {
        unsigned shift = 40 - 10 * i;
        if (bytes != 0 && bytes % ((uint64_t)1 << shift) == 0) {
            snprintf(buf, size, "%llu%c", (unsigned long long)(bytes >> shift), unit[i]);
            return;
        }
    }
    snprintf(buf, size, "%lluB", (unsigned long long)bytes);
}

static void classes_str(uint32_t bits, char *buf, size_t size)
{
    static const char order[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ123456";
    size_t n = 0;
    for (unsigned i = 0; order[i] != '\0' && n + 1 < size; i++)
        if (bits & ZVS_PRIVCLASS(order[i]))
            buf[n++] = order[i];
    buf[n] = '\0';
}

static void dump_vswitch(const struct zvs_cfg *cfg, unsigned i, FILE *out)
{
    const struct zvs_cfg_vswitch *sw = &cfg->vswitch[i];
    char dev[12];

    fprintf(out, "VSWITCH %s ETHERNET", sw->name);
    if (sw->nouplink)
        fprintf(out, " NOUPLINK");
    else if (sw->nrdev == 0)
        fprintf(out, " RDEV NONE");
    else {
        fprintf(out, " RDEV");
        for (unsigned r = 0; r < sw->nrdev; r++) {
            zvs_rdev_format(sw->rdev[r], dev, sizeof dev);
            fprintf(out, " %s", dev);
        }
    }
    fprintf(out, " %s", sw->connect ? "CONNECT" : "DISCONNECT");
    if (sw->vlan_aware)
        fprintf(out, " VLAN %u", (unsigned)sw->default_vid);
    else
        fprintf(out, " VLAN UNAWARE");
    if (sw->native_vid == 0)
        fprintf(out, " NATIVE NONE");
    else
        fprintf(out, " NATIVE %u", (unsigned)sw->native_vid);
    fprintf(out, " PORTTYPE %s QUEUESTORAGE %uM CONTROLLER %s", porttype_name(sw->porttype),
            (unsigned)sw->queuestorage_mb, sw->controller);
    if (sw->group[0] != '\0')
        fprintf(out, " GROUP %s", sw->group);
    else
        fprintf(out, " NOGROUP");
    fprintf(out, " MACPROTECT %s ISOLATION %s",
            sw->macprotect == ZVS_MACPROTECT_ON ? "ON" :
            sw->macprotect == ZVS_MACPROTECT_OFF ? "OFF" : "UNSPECIFIED",
            sw->isolation ? "ON" : "OFF");
    /* Shown when not the default, so dumps of files without them read as before. */
    if (zvs_cfg_iptimeout(sw) != ZVS_CFG_IPTIMEOUT_DEFAULT)
        fprintf(out, " IPTIMEOUT %u", zvs_cfg_iptimeout(sw));
    if (sw->portbased)
        fprintf(out, " PORTBASED");
    if (sw->scope == ZVS_VSW_GLOBAL)
        fprintf(out, " TYPE QDIO GLOBAL");
    else if (sw->scope == ZVS_VSW_IVL)
        fprintf(out, " TYPE IVL DOMAIN %c", sw->ivl_domain);
    fprintf(out, "\n");

    for (unsigned g = 0; g < cfg->ngrant; g++) {
        const struct zvs_cfg_grant *gr = &cfg->grant[g];
        if (gr->vswitch != i)
            continue;
        fprintf(out, "  GRANT %s", gr->userid);
        if (gr->porttype != ZVS_PORTTYPE_UNSPEC)
            fprintf(out, " PORTTYPE %s", porttype_name(gr->porttype));
        if (gr->has_vlan) {
            char set[160];
            zvs_vidset_format(&gr->vlan, set, sizeof set);
            fprintf(out, " VLAN %s", set);
        }
        fputc('\n', out);
    }
}

/* "GROUP name JOIN dev.. LACP x TIMEOUT x INTERVAL n DISTRIBUTION x POLICY x y". */
static void dump_group(const struct zvs_cfg_group *g, FILE *out)
{
    static const char *const dist[] = {
        [ZVS_CFG_DIST_DESTINATION] = "DESTINATION",
        [ZVS_CFG_DIST_SOURCE] = "SOURCE",
        [ZVS_CFG_DIST_BOTH] = "BOTH",
        [ZVS_CFG_DIST_UDPPORT] = "UDPPORT",
    };
    char dev[12];

    fprintf(out, "GROUP %s JOIN", g->name);
    if (g->nport == 0)
        fprintf(out, " NONE");
    for (unsigned p = 0; p < g->nport; p++) {
        zvs_rdev_format(g->port[p], dev, sizeof dev);
        fprintf(out, " %s", dev);
    }
    fprintf(out, " LACP %s TIMEOUT %s", g->lacp ? "ACTIVE" : "INACTIVE",
            g->lacp_long_timeout ? "LONG" : "SHORT");
    if (g->shared)
        fprintf(out, " SHARED");
    if (g->interval_s == 0)
        fprintf(out, " INTERVAL OFF");
    else
        fprintf(out, " INTERVAL %u", (unsigned)g->interval_s);
    fprintf(out, " DISTRIBUTION %s",
            (unsigned)g->distribution < sizeof dist / sizeof dist[0] ? dist[g->distribution] : "?");
    if (g->policy == ZVS_CFG_POLICY_LBT)
        fprintf(out, " POLICY LBT %u\n", (unsigned)g->lbt_percent);
    else
        fprintf(out, " POLICY LOAD %s\n",
                g->load == ZVS_CFG_LOAD_OUTBOUND ? "OUTBOUND" : "TOTAL");
}

static void dump_nic(const struct zvs_cfg_nic *n, FILE *out)
{
    /* A NIC without a statement (line 0) was made by DEFINE NIC, which makes QDIO NICs
     * only; a NICDEF without TYPE is an error the dump still shows as NONE. */
    fprintf(out, "  NICDEF %04X TYPE %s DEVICES %u", (unsigned)n->vdev,
            n->type_line != 0 || n->line == 0 ? "QDIO" : "NONE", (unsigned)n->devices);
    if (n->lan[0] != '\0')
        fprintf(out, " LAN SYSTEM %s", n->lan);
    else
        fprintf(out, " LAN NONE");
    if (n->porttype != ZVS_PORTTYPE_UNSPEC)
        fprintf(out, " PORTTYPE %s", porttype_name(n->porttype));
    if (n->has_vlan) {
        char set[160];
        zvs_vidset_format(&n->vlan, set, sizeof set);
        fprintf(out, " VLAN %s", set);
    }
    if (n->macid_source == ZVS_MACID_NONE) {
        fprintf(out, " MACID NONE");
    } else {
        char mac[18];
        zvs_mac_format(n->mac, mac, sizeof mac);
        fprintf(out, " MACID %06X %s MAC %s", (unsigned)n->macid,
                n->macid_source == ZVS_MACID_USER ? "USER" : "SYSTEM", mac);
    }
    switch (n->backend) {
    case ZVS_NIC_BACKEND_NONE:     fprintf(out, " NICBIND NONE\n"); break;
    case ZVS_NIC_BACKEND_TAP:      fprintf(out, " NICBIND TAP %s\n", n->ifname); break;
    case ZVS_NIC_BACKEND_QDIO:     fprintf(out, " NICBIND QDIO\n"); break;
    case ZVS_NIC_BACKEND_LCS:      fprintf(out, " NICBIND LCS %04X\n", n->lcs_devno); break;
    }
}

/* RESOLVER statements, only when one was given (older dumps stay as they were). */
static void dump_vxlan(const struct zvs_cfg_vxlan *v, FILE *out)
{
    char dev[12];

    zvs_rdev_format(v->rdev, dev, sizeof dev);
    fprintf(out, "VXLAN VSWITCH %s VNI %u LOCAL %s %s %s UDPPORT %u", v->vswitch,
            (unsigned)v->vni, v->local, v->group[0] ? "GROUP" : "RDEV",
            v->group[0] ? v->group : dev, (unsigned)v->udp_port);
    if (v->gateway[0])
        fprintf(out, " GATEWAY %s", v->gateway);
    if (v->nremote)
        fprintf(out, " REMOTE");
    for (unsigned i = 0; i < v->nremote; i++)
        fprintf(out, " %s", v->remote[i]);
    fprintf(out, "\n");
    for (unsigned i = 0; i < v->nvlan; i++)
        fprintf(out, "VXLAN VSWITCH %s VLAN %u VNI %u\n", v->vswitch,
                (unsigned)v->vlan_vid[i], (unsigned)v->vlan_vni[i]);
    for (unsigned i = 0; i < v->nneighbor; i++) {
        char mac[18];

        zvs_mac_format(v->neighbor_mac[i], mac, sizeof mac);
        fprintf(out, "VXLAN VSWITCH %s NEIGHBOR %s MAC %s\n", v->vswitch, v->neighbor_addr[i],
                mac);
    }
}

static void dump_resolver(const struct zvs_cfg_resolver *r, FILE *out)
{
    if (r->nserver) {
        fprintf(out, "RESOLVER SERVER");
        for (unsigned i = 0; i < r->nserver; i++)
            fprintf(out, " %s", r->server[i]);
        fprintf(out, "\n");
    }
    if (r->order_line)
        fprintf(out, "RESOLVER ORDER %s\n", zvs_cfg_order_text(r->order));
    if (r->timeout_line)
        fprintf(out, "RESOLVER TIMEOUT %u\n", (unsigned)r->timeout_ms);
    if (r->minttl_line)
        fprintf(out, "RESOLVER MINTTL %u\n", (unsigned)r->minttl_s);
    for (unsigned i = 0; i < r->nwatch; i++)
        fprintf(out, "RESOLVER WATCH %s\n", r->watch[i]);
}

/* IVL MEMBER and IVL HEARTBEAT statements, only when given. */
static void dump_ivl(const struct zvs_cfg_ivl *d, FILE *out)
{
    for (unsigned i = 0; i < d->nmember; i++)
        fprintf(out, "IVL MEMBER %s INDEX %u ADDRESS %s\n", d->member[i].sysname,
                (unsigned)d->member[i].index, d->member[i].address);
    if (d->heartbeat_s)
        fprintf(out, "IVL HEARTBEAT TIMEOUT %u\n", (unsigned)d->heartbeat_s);
}

int zvs_cfg_dump(const struct zvs_cfg *cfg, FILE *out)
{
    const struct zvs_cfg_vmlan *v = &cfg->vmlan;

    fprintf(out, "VMLAN MACPREFIX %02X%02X%02X", v->macprefix[0], v->macprefix[1],
            v->macprefix[2]);
    if (v->macidrange_line != 0)
        fprintf(out, " MACIDRANGE SYSTEM %06X-%06X USER %06X-%06X\n", (unsigned)v->system_lo,
                (unsigned)v->system_hi, (unsigned)v->user_lo, (unsigned)v->user_hi);
    else
        fprintf(out, " MACIDRANGE NONE\n");
    for (unsigned i = 0; i < cfg->nvswitch; i++)
        dump_vswitch(cfg, i, out);
    for (unsigned i = 0; i < cfg->ngroup; i++)
        dump_group(&cfg->group[i], out);
    for (unsigned i = 0; i < cfg->nrdevice; i++) {
        char dev[12];
        zvs_rdev_format(cfg->rdevice[i].rdev, dev, sizeof dev);
        fprintf(out, "RDEVICE %s INTERFACE %s%s\n", dev, cfg->rdevice[i].ifname,
                cfg->rdevice[i].backend == ZVS_RDEV_BACKEND_PCAP ? " BACKEND PCAP"
                : cfg->rdevice[i].backend == ZVS_RDEV_BACKEND_TAP ? " BACKEND TAP" : "");
    }
    dump_resolver(&cfg->resolver, out);
    for (unsigned i = 0; i < cfg->nvxlan; i++)
        dump_vxlan(&cfg->vxlan[i], out);
    dump_ivl(&cfg->ivl, out);
    for (unsigned i = 0; i < cfg->nuser; i++) {
        const struct zvs_cfg_user *u = &cfg->user[i];
        char st[24], mx[24], cl[40];
        storage_str(u->storage, st, sizeof st);
        storage_str(u->maxstorage, mx, sizeof mx);
        classes_str(u->privclass, cl, sizeof cl);
        fprintf(out, "%s %s STORAGE %s MAXSTORAGE %s CLASSES %s",
                u->identity ? "IDENTITY" : "USER", u->userid, st, mx, cl);
        if (u->nlinuxuser > 0)
            fprintf(out, " LINUXUSER");
        for (unsigned k = 0; k < u->nlinuxuser; k++)
            fprintf(out, " %s", u->linuxuser[k]);
        zvs_cfg_dump_machine(u, out);
        fputc('\n', out);
        for (unsigned k = u->first_nic; k < (unsigned)u->first_nic + u->nnic; k++)
            dump_nic(&cfg->nic[k], out);
    }
    return ferror(out) ? -EIO : 0;
}

/* ---- value helpers ------------------------------------------------------------------- */

int zvs_rdev_parse(const char *s, struct zvs_rdev *out)
{
    const char *dot = strchr(s, '.');
    size_t n = dot != NULL ? (size_t)(dot - s) : strnlen(s, 5);
    char dev[5];
    uint32_t devno, port = 0;

    if (n == 0 || n > 4)
        return -EINVAL;
    memcpy(dev, s, n);
    dev[n] = '\0';
    if (zvs_parse_hex(dev, 1, 4, &devno) < 0)
        return -EINVAL;
    if (dot != NULL) {
        if ((dot[1] != 'P' && dot[1] != 'p') || zvs_parse_hex(dot + 2, 1, 2, &port) < 0 ||
            port > 0xF)
            return -EINVAL;
    }
    out->devno = (uint16_t)devno;
    out->port = (uint8_t)port;
    return 0;
}

void zvs_rdev_format(struct zvs_rdev rdev, char *buf, size_t size)
{
    if (rdev.port != 0)
        snprintf(buf, size, "%04X.P%X", (unsigned)rdev.devno, (unsigned)rdev.port);
    else
        snprintf(buf, size, "%04X", (unsigned)rdev.devno);
}

bool zvs_rdev_equal(struct zvs_rdev a, struct zvs_rdev b)
{
    return a.devno == b.devno && a.port == b.port;
}

int zvs_vidset_add(struct zvs_vidset *set, const char *s)
{
    const char *dash = strchr(s, '-');
    char lo_s[8];
    uint32_t lo, hi;

    if (dash == NULL) {
        if (zvs_parse_dec(s, 1, 4094, &lo) < 0)
            return -EINVAL;
        hi = lo;
    } else {
        size_t n = (size_t)(dash - s);
        if (n == 0 || n >= sizeof lo_s)
            return -EINVAL;
        memcpy(lo_s, s, n);
        lo_s[n] = '\0';
        if (zvs_parse_dec(lo_s, 1, 4094, &lo) < 0 || zvs_parse_dec(dash + 1, 1, 4094, &hi) < 0 ||
            lo > hi)
            return -EINVAL;
    }

    /* Insert in order of lo, then merge overlapping or adjacent ranges. */
    struct zvs_vid_range tmp[ZVS_VIDSET_MAX + 1];
    unsigned n = 0, m = 0;
    for (unsigned i = 0; i < set->n && set->r[i].lo <= lo; i++)
        tmp[n++] = set->r[i];
    tmp[n++] = (struct zvs_vid_range){ .lo = (uint16_t)lo, .hi = (uint16_t)hi };
    for (unsigned i = n - 1; i < set->n; i++)
        tmp[n++] = set->r[i];
    for (unsigned i = 0; i < n; i++) {
        if (m > 0 && tmp[i].lo <= tmp[m - 1].hi + 1) {
            if (tmp[i].hi > tmp[m - 1].hi)
                tmp[m - 1].hi = tmp[i].hi;
        } else {
            tmp[m++] = tmp[i];
        }
    }
    if (m > ZVS_VIDSET_MAX)
        return -ENOSPC;
    memcpy(set->r, tmp, m * sizeof tmp[0]);
    set->n = (uint16_t)m;
    return 0;
}

unsigned zvs_vidset_count(const struct zvs_vidset *set)
{
    unsigned n = 0;
    for (unsigned i = 0; i < set->n; i++)
        n += (unsigned)(set->r[i].hi - set->r[i].lo + 1);
    return n;
}

bool zvs_vidset_contains(const struct zvs_vidset *set, uint16_t vid)
{
    for (unsigned i = 0; i < set->n; i++)
        if (vid >= set->r[i].lo && vid <= set->r[i].hi)
            return true;
    return false;
}

void zvs_vidset_format(const struct zvs_vidset *set, char *buf, size_t size)
{
    size_t len = 0;

    if (size > 0)
        buf[0] = '\0';
    for (unsigned i = 0; i < set->n && len < size; i++) {
        const struct zvs_vid_range *r = &set->r[i];
        int w = r->lo == r->hi
            ? snprintf(buf + len, size - len, "%s%u", i ? " " : "", (unsigned)r->lo)
            : snprintf(buf + len, size - len, "%s%u-%u", i ? " " : "", (unsigned)r->lo,
                       (unsigned)r->hi);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

bool zvs_ifname_valid(const char *s)
{
    size_t n = strnlen(s, ZVS_IFNAME_MAX + 1);

    if (n == 0 || n > ZVS_IFNAME_MAX || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/' || s[i] == ':' || s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))
            return false;
    return true;
}

void zvs_mac_format(const uint8_t mac[6], char *buf, size_t size)
{
    snprintf(buf, size, "%02X-%02X-%02X-%02X-%02X-%02X", mac[0], mac[1], mac[2], mac[3],
             mac[4], mac[5]);
}
