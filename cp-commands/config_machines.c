/* USER DIRECT's Hercules machines: the cross-checks of IPL, GUESTIP and NICBIND LCS, their
 * dump, and the LCS tap MAC rule (zvswitch extensions; grammar at the top of
 * userdirect.c).
 *
 * Rules (ours):
 *   - One LCS NIC per entry, and it needs GUESTIP: Hercules' LCS address table lets the
 *     machine's IPv4 and ARP in by that address (an entry without IPL is not refused
 *     here: XAUTOLOG says so, as CP says a directory entry cannot be IPLed at LOGON).
 *   - An LCS NIC cannot be a TRUNK port, whatever makes it one (NICDEF PORTTYPE, its GRANT,
 *     the switch's PORTTYPE): Hercules' LCS passes no VLAN-tagged frame to the guest.
 *   - The tap behind an LCS NIC has the NIC's MAC minus one in the last byte (Hercules
 *     gives the guest the tap's MAC plus one there, and an OAT HWADD sets the tap's MAC,
 *     not the guest's: measured with Hercules 3.13). No NIC may have that MAC:
 *     assign_macids (config.c) skips it, and a user MACID on it is refused here.
 */
#include "cp-commands/config.h"
#include "cp-commands/config_impl.h"

#include <stdio.h>
#include <string.h>

void zvs_lcs_tap_mac(const uint8_t nic_mac[6], uint8_t tap_mac[6])
{
    memcpy(tap_mac, nic_mac, 6);
    tap_mac[5] = (uint8_t)(nic_mac[5] - 1u);
}

void zvs_ipv4_format(uint32_t ip, char *buf, size_t size)
{
    snprintf(buf, size, "%u.%u.%u.%u", (unsigned)(ip >> 24), (unsigned)(ip >> 16) & 255u,
             (unsigned)(ip >> 8) & 255u, (unsigned)ip & 255u);
}

static const char *file_of(const struct zvs_cfg *cfg)
{
    return cfg->userdirect_file[0] != '\0' ? cfg->userdirect_file : NULL;
}

/* Where a TRUNK port type for the LCS NIC comes from, or NULL when it is not one. */
static const char *trunk_source(const struct zvs_cfg *cfg, const struct zvs_cfg_nic *n,
                                char *buf, size_t size)
{
    if (n->vswitch < 0)
        return n->porttype == ZVS_PORTTYPE_TRUNK ? "NICDEF PORTTYPE TRUNK" : NULL;
    const struct zvs_cfg_vswitch *vs = &cfg->vswitch[n->vswitch];
    if (n->porttype == ZVS_PORTTYPE_TRUNK)
        return "NICDEF PORTTYPE TRUNK";
    if (n->porttype == ZVS_PORTTYPE_UNSPEC && !n->has_vlan) {
        const char *userid = cfg->user[n->user].userid;
        for (unsigned i = 0; i < cfg->ngrant; i++) {
            const struct zvs_cfg_grant *g = &cfg->grant[i];
            if (g->vswitch != (uint16_t)n->vswitch || strcmp(g->userid, userid) != 0)
                continue;
            if (g->porttype == ZVS_PORTTYPE_TRUNK) {
                snprintf(buf, size, "GRANT on VSWITCH %s", vs->name);
                return buf;
            }
            if (g->porttype != ZVS_PORTTYPE_UNSPEC)
                return NULL;
        }
    }
    if (vs->porttype == ZVS_PORTTYPE_TRUNK) {
        snprintf(buf, size, "VSWITCH %s PORTTYPE TRUNK", vs->name);
        return buf;
    }
    return NULL;
}

const struct zvs_cfg_nic *zvs_cfg_machine_nic(const struct zvs_cfg *cfg, unsigned user)
{
    const struct zvs_cfg_user *usr = &cfg->user[user];
    for (unsigned k = usr->first_nic; k < (unsigned)usr->first_nic + usr->nnic; k++)
        if (cfg->nic[k].backend == ZVS_NIC_BACKEND_LCS)
            return &cfg->nic[k];
    return NULL;
}

void zvs_cfg_check_machines(struct zvs_cfg *cfg)
{
    const char *file = file_of(cfg);

    for (unsigned u = 0; u < cfg->nuser; u++) {
        const struct zvs_cfg_user *usr = &cfg->user[u];
        int first_lcs = -1;
        for (unsigned k = usr->first_nic; k < (unsigned)usr->first_nic + usr->nnic; k++) {
            const struct zvs_cfg_nic *n = &cfg->nic[k];
            char vdev[8], other[8], why[64];
            if (n->backend != ZVS_NIC_BACKEND_LCS)
                continue;
            snprintf(vdev, sizeof vdev, "%04X", (unsigned)n->vdev);
            if (first_lcs >= 0) {
                snprintf(other, sizeof other, "%04X", (unsigned)cfg->nic[first_lcs].vdev);
                ZVS_MSG(&cfg->msgs, file, n->bind_line, ZVS_MSG_LCS_ONE, usr->userid, vdev,
                        other);
                continue;
            }
            first_lcs = (int)k;
            if (usr->guestip_line == 0)
                ZVS_MSG(&cfg->msgs, file, n->bind_line, ZVS_MSG_LCS_NEEDS, usr->userid, vdev,
                        "GUESTIP");
            const char *src = trunk_source(cfg, n, why, sizeof why);
            if (src != NULL)
                ZVS_MSG(&cfg->msgs, file, n->line, ZVS_MSG_LCS_TRUNK, vdev, usr->userid, src);
        }
    }
}

void zvs_cfg_check_lcs_taps(struct zvs_cfg *cfg)
{
    const char *file = file_of(cfg);

    for (unsigned i = 0; i < cfg->nnic; i++) {
        const struct zvs_cfg_nic *n = &cfg->nic[i];
        uint8_t tap[6];
        if (n->backend != ZVS_NIC_BACKEND_LCS || n->macid_source == ZVS_MACID_NONE)
            continue;
        zvs_lcs_tap_mac(n->mac, tap);
        for (unsigned j = 0; j < cfg->nnic; j++) {
            const struct zvs_cfg_nic *o = &cfg->nic[j];
            if (o->macid_source == ZVS_MACID_NONE || memcmp(o->mac, tap, 6) != 0)
                continue;
            char mac[18], vdev[8], ovdev[8];
            zvs_mac_format(tap, mac, sizeof mac);
            snprintf(vdev, sizeof vdev, "%04X", (unsigned)n->vdev);
            snprintf(ovdev, sizeof ovdev, "%04X", (unsigned)o->vdev);
            ZVS_MSG(&cfg->msgs, file, o->line, ZVS_MSG_LCS_TAP_MAC, mac,
                    cfg->user[n->user].userid, vdev, cfg->user[o->user].userid, ovdev);
            break;
        }
    }
}

void zvs_cfg_dump_machine(const struct zvs_cfg_user *u, FILE *out)
{
    char ip[16];

    if (u->ipl == ZVS_IPL_NAMED)
        fprintf(out, " IPL %s", u->ipl_name);
    else if (u->ipl == ZVS_IPL_INS)
        fprintf(out, " IPL INS %s", u->ipl_path);
    if (u->guestip_line != 0) {
        zvs_ipv4_format(u->guest_ip, ip, sizeof ip);
        fprintf(out, " GUESTIP %s/%u", ip, (unsigned)u->guest_prefix);
        if (u->guest_gw != 0) {
            zvs_ipv4_format(u->guest_gw, ip, sizeof ip);
            fprintf(out, " GATEWAY %s", ip);
        }
    }
}
