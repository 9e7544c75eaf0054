/* Invariants of a parsed configuration (struct zvs_cfg) that the daemon relies on, shared
 * by the fuzz targets that build one: fuzz_config (from files) and fuzz_cfg_apply (files,
 * then CP commands). Test code only: the functions are static and the header is included
 * by one .c file per program. */
#ifndef ZVS_FUZZ_CFG_INVARIANTS_H
#define ZVS_FUZZ_CFG_INVARIANTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/config.h"
#include "cp-commands/tokens.h"

#define CHECK(x) do { if (!(x)) { fprintf(stderr, "invariant: %s\n", #x); abort(); } } while (0)

static void check_name(const char *s, size_t size)
{
    CHECK(memchr(s, '\0', size) != NULL);
    for (; *s != '\0'; s++)
        CHECK(!(*s >= 'a' && *s <= 'z'));
}

static void check_invariants(const struct zvs_cfg *cfg)
{
    unsigned errors = 0;

    CHECK(cfg->nvswitch <= ZVS_CFG_MAX_VSWITCHES);
    CHECK(cfg->ngrant <= ZVS_CFG_MAX_GRANTS);
    CHECK(cfg->nrdevice <= ZVS_CFG_MAX_RDEVICES);
    CHECK(cfg->nuser <= ZVS_CFG_MAX_USERS);
    CHECK(cfg->nnic <= ZVS_CFG_MAX_NICS);
    CHECK(cfg->vmlan.macprefix[0] & 0x02 && !(cfg->vmlan.macprefix[0] & 0x01));
    /* RESOLVER: canonical names, each once; servers in c-ares' form. */
    CHECK(cfg->resolver.nwatch <= ZVS_CFG_MAX_WATCH);
    CHECK(cfg->resolver.nserver <= ZVS_CFG_MAX_DNS);
    for (unsigned i = 0; i < cfg->resolver.nwatch; i++) {
        const char *w = cfg->resolver.watch[i];
        char canon[ZVS_HOSTNAME_MAX + 1];
        CHECK(memchr(w, '\0', sizeof cfg->resolver.watch[i]) != NULL);
        CHECK(zvs_hostname_check(w, strlen(w), canon) == ZVS_HOSTNAME_OK);
        CHECK(strcmp(canon, w) == 0);
        CHECK(zvs_cfg_find_watch(&cfg->resolver, w) == (int)i);
    }
    for (unsigned i = 0; i < cfg->resolver.nserver; i++) {
        char canon[ZVS_RES_SERVER_STR];
        CHECK(zvs_res_server_parse(cfg->resolver.server[i], canon, sizeof canon));
        CHECK(strcmp(canon, cfg->resolver.server[i]) == 0);
    }
    for (unsigned i = 0; i < cfg->nvswitch; i++) {
        const struct zvs_cfg_vswitch *sw = &cfg->vswitch[i];
        check_name(sw->name, sizeof sw->name);
        CHECK(sw->name[0] != '\0');
        CHECK(sw->nrdev <= ZVS_CFG_MAX_RDEV);
        CHECK(sw->queuestorage_mb >= 1 && sw->queuestorage_mb <= 8);
        CHECK(sw->default_vid <= 4094 && sw->native_vid <= 4094);
        CHECK(!(sw->nouplink && (sw->nrdev > 0 || sw->group[0] != '\0')));
    }
    /* A VXLAN statement's static neighbours (what the daemon sets in the underlay's
     * table): at most 16, each address canonical, of LOCAL's family, unicast, not LOCAL's
     * and once, each MAC unicast and not zero. */
    CHECK(cfg->nvxlan <= ZVS_CFG_MAX_VXLAN);
    for (unsigned i = 0; i < cfg->nvxlan; i++) {
        const struct zvs_cfg_vxlan *vx = &cfg->vxlan[i];
        int local = strchr(vx->local, ':') ? 6 : 4;

        CHECK(vx->nneighbor <= ZVS_CFG_MAX_VXLAN_NEIGHBORS);
        for (unsigned k = 0; k < vx->nneighbor; k++) {
            char canon[ZVS_CFG_ADDR_STR];
            static const uint8_t zero[6];

            CHECK(zvs_parse_addr_text(vx->neighbor_addr[k], canon, sizeof canon) == local);
            CHECK(strcmp(canon, vx->neighbor_addr[k]) == 0);
            CHECK(zvs_addr_is_unicast(canon) && strcmp(canon, vx->local) != 0);
            CHECK(!(vx->neighbor_mac[k][0] & 1) && memcmp(vx->neighbor_mac[k], zero, 6) != 0);
            for (unsigned j = 0; j < k; j++)
                CHECK(strcmp(vx->neighbor_addr[j], vx->neighbor_addr[k]) != 0);
        }
    }
    for (unsigned i = 0; i < cfg->ngrant; i++) {
        CHECK(cfg->grant[i].vswitch < cfg->nvswitch);
        check_name(cfg->grant[i].userid, sizeof cfg->grant[i].userid);
    }
    unsigned nics = 0;
    for (unsigned i = 0; i < cfg->nuser; i++) {
        const struct zvs_cfg_user *u = &cfg->user[i];
        check_name(u->userid, sizeof u->userid);
        CHECK(u->storage <= u->maxstorage);
        CHECK((unsigned)u->first_nic + u->nnic <= cfg->nnic);
        nics += u->nnic;
    }
    CHECK(nics == cfg->nnic);
    for (unsigned i = 0; i < cfg->nnic; i++) {
        const struct zvs_cfg_nic *n = &cfg->nic[i];
        const struct zvs_cfg_user *u = &cfg->user[n->user];
        CHECK(n->user < cfg->nuser);
        CHECK(i >= u->first_nic && i < (unsigned)u->first_nic + u->nnic);
        CHECK(n->devices >= 3 && n->devices <= 3072);
        CHECK(n->vswitch < (int)cfg->nvswitch);
        CHECK(n->vlan.n <= ZVS_VIDSET_MAX);
        for (unsigned r = 0; r < n->vlan.n; r++) {
            CHECK(n->vlan.r[r].lo >= 1 && n->vlan.r[r].lo <= n->vlan.r[r].hi);
            CHECK(n->vlan.r[r].hi <= 4094);
            CHECK(r == 0 || n->vlan.r[r].lo > n->vlan.r[r - 1].hi + 1);
        }
        CHECK(memchr(n->ifname, '\0', sizeof n->ifname) != NULL);
        if (n->macid_source != ZVS_MACID_NONE) {
            CHECK(n->macid <= 0xFFFFFF);
            CHECK(memcmp(n->mac, cfg->vmlan.macprefix, 3) == 0);
            CHECK(n->mac[5] == (uint8_t)n->macid);
        }
    }
    for (unsigned i = 0; i < cfg->msgs.n; i++) {
        const struct zvs_msg *m = &cfg->msgs.msg[i];
        CHECK(memchr(m->text, '\0', sizeof m->text) != NULL);
        CHECK(strstr(m->text, "ZVSCFG10") != NULL);
        errors += m->severity == 'E' || m->severity == 'S';
    }
    CHECK(errors + cfg->msgs.dropped >= cfg->msgs.errors);
    CHECK(errors <= cfg->msgs.errors);
}

#endif
