/* libFuzzer target for the running configuration (cp-commands/cfg_apply.c): CP commands
 * applied one after another to a configuration parsed from the lab's files.
 *
 * Input: command lines separated by newlines. Each line is parsed (command.c) as the
 * operator (classes A-G) or, for lines starting with '@', as guest LNXA (class G); every
 * accepted configuration command is applied. Before each apply the configuration is
 * dumped (zvs_cfg_dump); after it:
 *   - refused: the dump is byte-for-byte the same, the response one message line (an
 *     HCP or ZVS id) with a positive rc, and the whole struct is unchanged (memcmp);
 *   - accepted: rc 0 and the invariants hold (cfg_invariants.h: counts, indexes, names,
 *     MACs of prefix and MACID, the user's NIC runs) plus the running-configuration ones
 *     here: a NIC's switch index matches its LAN name, no two NICs share a MAC, a port
 *     group holds at most 8 devices and no device is in two groups.
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_cfg_apply.c cp-commands/[a-uw-z]*.c -o build/fuzz/fuzz_cfg_apply
 *   build/fuzz/fuzz_cfg_apply -max_total_time=60 work/ tests/fuzz/corpus/cfg_apply
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/cfg_apply.h"
#include "cp-commands/command.h"
#include "cp-commands/config.h"
#include "tests/fuzz/cfg_invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINES 64                    /* commands per input: more adds nothing */

static const char SYSCONFIG[] =
    "VMLAN MACPREFIX 02000C\n"
    "VMLAN MACIDRANGE SYSTEM 000001-00000F USER 000100-FFFFFF\n"
    "RDEVICE 28BA INTERFACE osa28ba\n"
    "RDEVICE 2902 INTERFACE osa2902\n"
    "RDEVICE 2A00 INTERFACE osa2a00\n"
    "RDEVICE 2B00 INTERFACE osa2b00\n"
    "SET PORT GROUP ETHGRP JOIN 2A00\n"
    "DEFINE VSWITCH VSWA RDEV 2B00 VLAN AWARE\n"
    "MODIFY VSWITCH VSWA GRANT LNXB PORTTYPE TRUNK VLAN 10-20\n";

static const char USERDIRECT[] =
    "USER OPERATOR X 64M 64M ABCDEFG\n"
    "USER LNXA X 1G 2G G\n"
    "  NICDEF F000 TYPE QDIO MACID 000101\n"
    "USER LNXB X 1G 2G G\n"
    "  NICDEF F000 TYPE QDIO LAN SYSTEM VSWA MACID 00010A\n"
    "  NICDEF 0600 TYPE QDIO\n"
    "USER LNXC X 1G 2G G\n"
    "  NICDEF F000 TYPE QDIO PORTTYPE ACCESS VLAN 30\n";

static struct zvs_cfg *base;

static struct zvs_cfg *base_config(void)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    CHECK(cfg != NULL);
    CHECK(zvs_cfg_parse_sysconfig_text(cfg, "SYSTEM.CONFIG", SYSCONFIG) == 0);
    CHECK(zvs_cfg_parse_userdirect_text(cfg, "USER.DIRECT", USERDIRECT) == 0);
    CHECK(zvs_cfg_validate(cfg) == 0);
    /* As vswitchd keeps it: the running copy has no messages of its own. */
    zvs_msg_list_free(&cfg->msgs);
    cfg->msgs = (struct zvs_msg_list){ 0 };
    return cfg;
}

static char *dump(const struct zvs_cfg *cfg, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    CHECK(f != NULL);
    CHECK(zvs_cfg_dump(cfg, f) == 0);
    CHECK(fclose(f) == 0);
    return text;
}

static void check_running(const struct zvs_cfg *cfg)
{
    check_invariants(cfg);
    for (unsigned i = 0; i < cfg->nnic; i++) {
        const struct zvs_cfg_nic *n = &cfg->nic[i];
        if (n->vswitch >= 0)
            CHECK(strcmp(n->lan, cfg->vswitch[n->vswitch].name) == 0);
        else
            CHECK(n->lan[0] == '\0');
        for (unsigned j = 0; j < i; j++)
            CHECK(n->macid_source == ZVS_MACID_NONE || cfg->nic[j].macid_source == ZVS_MACID_NONE ||
                  memcmp(n->mac, cfg->nic[j].mac, 6) != 0);
    }
    for (unsigned g = 0; g < cfg->ngroup; g++) {
        const struct zvs_cfg_group *gr = &cfg->group[g];
        CHECK(gr->nport <= ZVS_CFG_MAX_GROUP_PORTS);
        for (unsigned p = 0; p < gr->nport; p++)
            for (unsigned h = 0; h <= g; h++)
                for (unsigned q = 0; q < (h == g ? p : cfg->group[h].nport); q++)
                    CHECK(!zvs_rdev_equal(gr->port[p], cfg->group[h].port[q]));
    }
    for (unsigned s = 0; s < cfg->nvswitch; s++)
        if (cfg->vswitch[s].group[0] != '\0')
            CHECK(zvs_cfg_find_group(cfg, cfg->vswitch[s].group) >= 0);
}

/* `copy` equals `cfg` before every apply: refused, cfg must still equal it (memcmp of the
 * whole struct); accepted, it is brought up to date and the configuration is marked
 * changed. An input whose lines were all refused (or not configuration commands: most
 * fuzzed ones) leaves cfg equal to base, proven by those memcmps, so the next input
 * starts without copying the 1.6 MB struct twice again (that copying was a fifth of this
 * target's time). */
static bool changed = true;

static void run_line(struct zvs_cfg *cfg, struct zvs_cfg *copy, const char *line)
{
    struct zvs_issuer who = { .userid = "OPERATOR",
                              .privclass = ZVS_PRIVCLASS('A') | ZVS_PRIVCLASS('B') |
                                           ZVS_PRIVCLASS('G') };
    struct zvs_cp_response r;
    struct zvs_cmd cmd;

    if (line[0] == '@') {
        snprintf(who.userid, sizeof who.userid, "LNXA");
        who.privclass = ZVS_PRIVCLASS('G');
        line++;
    }
    zvs_cp_response_init(&r);
    if (zvs_cmd_parse(line, who.privclass, &cmd, &r) < 0 || !zvs_cfg_cmd_is_config(&cmd)) {
        zvs_cp_response_fini(&r);
        return;
    }
    size_t len0, len1;
    char *before = dump(cfg, &len0);
    int rc = zvs_cfg_apply(cfg, &cmd, &who, &r);
    if (rc < 0) {
        char *after = dump(cfg, &len1);
        CHECK(len0 == len1 && memcmp(before, after, len0) == 0);
        CHECK(memcmp(copy, cfg, sizeof *cfg) == 0);
        CHECK(r.rc > 0 && (strncmp(r.text, "HCP", 3) == 0 || strncmp(r.text, "ZVS", 3) == 0));
        CHECK(strchr(r.text, '\n') == r.text + r.len - 1);
        free(after);
    } else {
        CHECK(r.rc == 0);
        check_running(cfg);
        memcpy(copy, cfg, sizeof *cfg);
        changed = true;
    }
    free(before);
    zvs_cp_response_fini(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct zvs_cfg *cfg, *copy;
    char line[ZVS_CMD_LINE_MAX + 1];

    if (base == NULL) {
        base = base_config();
        cfg = zvs_cfg_new();
        copy = zvs_cfg_new();
        CHECK(cfg != NULL && copy != NULL);
    }
    if (changed) {
        memcpy(cfg, base, sizeof *cfg);
        memcpy(copy, base, sizeof *copy);
        changed = false;
    }
    size_t pos = 0;
    for (unsigned n = 0; n < MAX_LINES && pos < size; n++) {
        const uint8_t *nl = memchr(data + pos, '\n', size - pos);
        size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;
        size_t keep = len < ZVS_CMD_LINE_MAX ? len : ZVS_CMD_LINE_MAX;
        memcpy(line, data + pos, keep);
        line[keep] = '\0';
        run_line(cfg, copy, line);
        pos += len + 1;
    }
    return 0;
}
