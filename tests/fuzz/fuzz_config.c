/* libFuzzer target for the SYSTEM CONFIG and USER DIRECT parsers.
 *
 * Input: SYSTEM CONFIG text, a line "%%%%", USER DIRECT text. Without the separator the
 * whole input is fed to both parsers. Each run parses, validates and dumps, then checks
 * the invariants the daemon relies on: counts within limits, indexes in range, names
 * NUL-terminated and upper case, resolved MACs made of prefix and MACID, one error count
 * per error message.
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_config.c cp-commands/[a-z]*.c -o build/fuzz/fuzz_config
 *   build/fuzz/fuzz_config -max_total_time=60 work/ tests/fuzz/corpus/config
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) do { if (!(x)) { fprintf(stderr, "invariant: %s\n", #x); abort(); } } while (0)

static const char SEP[] = "\n%%%%\n";

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
    for (unsigned i = 0; i < cfg->nvswitch; i++) {
        const struct zvs_cfg_vswitch *sw = &cfg->vswitch[i];
        check_name(sw->name, sizeof sw->name);
        CHECK(sw->name[0] != '\0');
        CHECK(sw->nrdev <= ZVS_CFG_MAX_RDEV);
        CHECK(sw->queuestorage_mb >= 1 && sw->queuestorage_mb <= 8);
        CHECK(sw->default_vid <= 4094 && sw->native_vid <= 4094);
        CHECK(!(sw->nouplink && (sw->nrdev > 0 || sw->group[0] != '\0')));
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
        CHECK(strstr(m->text, "HCP10") != NULL);
        errors += m->severity == 'E' || m->severity == 'S';
    }
    CHECK(errors + cfg->msgs.dropped >= cfg->msgs.errors);
    CHECK(errors <= cfg->msgs.errors);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    const char *text = (const char *)data;
    const char *sep = memmem(text, size, SEP, sizeof SEP - 1);
    size_t sc_len = sep != NULL ? (size_t)(sep - text) : size;
    const char *ud = sep != NULL ? sep + sizeof SEP - 1 : text;
    size_t ud_len = sep != NULL ? size - sc_len - (sizeof SEP - 1) : size;
    struct zvs_cfg *cfg = zvs_cfg_new();

    if (sink == NULL)
        sink = fopen("/dev/null", "w");
    if (cfg == NULL || sink == NULL)
        abort();
    CHECK(zvs_cfg_parse_sysconfig_buf(cfg, "SYSTEM.CONFIG", text, sc_len) >= 0);
    CHECK(zvs_cfg_parse_userdirect_buf(cfg, "USER.DIRECT", ud, ud_len) >= 0);
    CHECK(zvs_cfg_validate(cfg) >= 0);
    CHECK(zvs_cfg_dump(cfg, sink) == 0);
    check_invariants(cfg);
    zvs_cfg_free(cfg);
    return 0;
}
