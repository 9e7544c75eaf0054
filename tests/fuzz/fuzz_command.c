/* libFuzzer target for the CP command parser (cp-commands/command.c).
 *
 * Input: one command line, as is (a NUL ends it early, as it would a C string; the
 * console refuses such lines before they get here). It is parsed from an exactly sized
 * heap copy, so ASan sees any read past its end, once with classes A-G and once with
 * class G only.
 *
 * Invariants:
 *   - accepted: the response is empty with rc 0; every name (switch, group, userid,
 *     target, the DEFINE VSWITCH definition's) is "" or a valid upper-case CP name;
 *     counts and values are within the grammar's limits; the canonical text
 *     (zvs_cmd_format) parses again, to the identical struct, and formats identically;
 *     parsing into a differently filled struct gives the same bytes (padding included);
 *   - refused: *cmd is byte-for-byte untouched; the response is exactly one line
 *     "HCPmmmnnnS ..." or "ZVScccnnnnS ..." of printable ASCII ending in "\n" and the
 *     rc is positive (also for the DEFINE VSWITCH / GRANT operands answered by the
 *     SYSTEM CONFIG parser);
 *   - class G alone is accepted only the class G commands (the NIC commands, QUERY
 *     VMLAN, QUERY VSWITCH, QUERY NAMES, QUERY USERS), never with USERID.
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_command.c cp-commands/[a-uw-z]*.c -o build/fuzz/fuzz_command
 *   build/fuzz/fuzz_command -max_total_time=60 work/ tests/fuzz/corpus/command
 * Without libFuzzer (replay a corpus with any compiler): add -DZVS_FUZZ_MAIN and pass the
 * files (or directories of files) as arguments.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/command.h"
#include "cp-commands/tokens.h"
#include "fuzz_common.h"

static uint32_t classes(const char *letters)
{
    uint32_t m = 0;
    for (; *letters != '\0'; letters++)
        m |= ZVS_PRIVCLASS(*letters);
    return m;
}

static void check_name(const char *name)
{
    size_t n = strnlen(name, ZVS_NAME_MAX + 1);
    CHECK(n <= ZVS_NAME_MAX);
    for (size_t i = 0; i < n; i++)
        CHECK((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9') ||
              name[i] == '@' || name[i] == '#' || name[i] == '$');
}

static void check_refusal(const struct zvs_cp_response *r)
{
    CHECK(r->rc > 0);
    CHECK(r->len > 8 && r->len < ZVS_CPMSG_TEXT_MAX);
    CHECK(strlen(r->text) == r->len);
    CHECK(memcmp(r->text, "HCP", 3) == 0 || memcmp(r->text, "ZVS", 3) == 0);
    CHECK(r->text[r->len - 1] == '\n');
    for (size_t i = 0; i + 1 < r->len; i++)
        CHECK(r->text[i] >= 0x20 && r->text[i] <= 0x7E);
}

static bool class_g_verb(enum zvs_cmd_verb v)
{
    return v == ZVS_CMD_QUERY_VSWITCH || v == ZVS_CMD_DEFINE_NIC || v == ZVS_CMD_DETACH_NIC ||
           v == ZVS_CMD_COUPLE || v == ZVS_CMD_UNCOUPLE || v == ZVS_CMD_QUERY_NIC ||
           v == ZVS_CMD_QUERY_VMLAN || v == ZVS_CMD_QUERY_NAMES || v == ZVS_CMD_QUERY_USERS ||
           v == ZVS_CMD_QUERY_USERID || v == ZVS_CMD_QUERY_CPLEVEL ||
           v == ZVS_CMD_QUERY_VIRTUAL_NIC || v == ZVS_CMD_QUERY_LAN;
}

static void check_vswitch_def(const struct zvs_cmd *cmd)
{
    const struct zvs_cfg_vswitch *v = &cmd->vsw;

    CHECK(cmd->name[0] != '\0' && strcmp(v->name, cmd->name) == 0);
    CHECK(v->line == 0);
    CHECK(v->nrdev <= ZVS_CFG_MAX_RDEV);
    CHECK(!(v->nouplink && (v->nrdev > 0 || v->group[0] != '\0')));
    CHECK(v->queuestorage_mb >= 1 && v->queuestorage_mb <= 8);
    CHECK(v->default_vid <= 4094 && v->native_vid <= 4094);
    CHECK(v->vlan_aware ? v->default_vid >= 1 : v->default_vid == 0 && v->native_vid == 1);
    CHECK(v->porttype == ZVS_PORTTYPE_ACCESS || v->porttype == ZVS_PORTTYPE_TRUNK);
    if (strcmp(v->controller, "*") != 0)
        check_name(v->controller);
    check_name(v->group);
}

static void check_accepted(const struct zvs_cmd *cmd, uint32_t privclass)
{
    char text[ZVS_CMD_LINE_MAX + 1], again[ZVS_CMD_LINE_MAX + 1];
    struct zvs_cmd re;
    struct zvs_cp_response r;

    check_name(cmd->name);
    check_name(cmd->userid);
    check_name(cmd->group);
    check_name(cmd->target);
    CHECK(cmd->nrdev <= ZVS_CMD_MAX_RDEVS);
    CHECK(cmd->interval_s <= 9990);
    CHECK(cmd->delay_ms <= 10000);
    CHECK(cmd->verb == ZVS_CMD_SIGNAL_SHUTDOWN ? cmd->within_s >= 1 && cmd->within_s <= 32767
                                               : cmd->within_s == 0);
    CHECK(cmd->verb == ZVS_CMD_QUERY_CONSLOG ? cmd->lines >= 1 && cmd->lines <= 500
                                             : cmd->lines == 0);
    if (cmd->verb != ZVS_CMD_SEND)
        CHECK(cmd->text[0] == '\0');
    for (unsigned i = 0; i < cmd->nrdev; i++)
        CHECK(cmd->rdev[i].port <= 0xF);
    if (cmd->verb == ZVS_CMD_SET_PORT_GROUP) {
        CHECK(cmd->name[0] != '\0');
        if (cmd->pg_op == ZVS_CMD_PG_JOIN || cmd->pg_op == ZVS_CMD_PG_LEAVE)
            CHECK(cmd->nrdev >= 1);
        if (cmd->pg_op == ZVS_CMD_PG_DELETE)
            CHECK(cmd->nrdev == 0);
    }
    if (cmd->verb == ZVS_CMD_SET_LACP_FAULT)
        CHECK(cmd->nrdev == 1);
    if (cmd->verb == ZVS_CMD_DEFINE_VSWITCH)
        check_vswitch_def(cmd);
    if (cmd->verb == ZVS_CMD_SET_VSWITCH) {
        CHECK(cmd->name[0] != '\0');
        if (cmd->vs_op == ZVS_CMD_VS_RDEV)
            CHECK(cmd->nrdev <= 3);
        if (cmd->vs_op == ZVS_CMD_VS_SWITCHOVER)
            CHECK(cmd->nrdev <= 1);
        if (cmd->vs_op == ZVS_CMD_VS_GRANT || cmd->vs_op == ZVS_CMD_VS_REVOKE)
            CHECK(cmd->userid[0] != '\0');
        if (cmd->vs_op == ZVS_CMD_VS_GRANT)
            CHECK(cmd->has_vlan == (cmd->vlan.n > 0) && cmd->vlan.n <= ZVS_VIDSET_MAX);
        if (cmd->vs_op == ZVS_CMD_VS_QUEUESTORAGE)
            CHECK(cmd->queuestorage_mb >= 1 && cmd->queuestorage_mb <= 8);
    }
    if (cmd->verb == ZVS_CMD_DEFINE_NIC)
        CHECK(cmd->devices >= 3 && cmd->devices <= 3072);
    else
        CHECK(cmd->devices == 0);
    if (cmd->verb == ZVS_CMD_COUPLE)
        CHECK(cmd->name[0] != '\0');
    if (cmd->has_vdev)          /* QUERY NIC vdev, QUERY VIRTUAL NIC vdev */
        CHECK(cmd->verb == ZVS_CMD_QUERY_NIC || cmd->verb == ZVS_CMD_QUERY_VIRTUAL_NIC);
    /* RESOLVER, SET VSWITCH ... VXLAN REMOTE: a host name the syntax check accepts, in its
     * canonical form; else none. VXLAN [VLAN v] VNI: 24 bits; VLAN v: 1-4094. */
    bool vxlan = cmd->verb == ZVS_CMD_SET_VSWITCH && cmd->vs_op == ZVS_CMD_VS_VXLAN;
    bool remote = vxlan && (cmd->vx_op == ZVS_CMD_VX_REMOTE_ADD ||
                            cmd->vx_op == ZVS_CMD_VX_REMOTE_DELETE);
    bool vlan = vxlan && (cmd->vx_op == ZVS_CMD_VX_VLAN_VNI ||
                          cmd->vx_op == ZVS_CMD_VX_VLAN_DELETE);
    if (vxlan && (cmd->vx_op == ZVS_CMD_VX_VNI || cmd->vx_op == ZVS_CMD_VX_VLAN_VNI))
        CHECK(cmd->vni <= ZVS_CFG_VNI_MAX);
    else
        CHECK(cmd->vni == 0);
    CHECK(vlan ? cmd->vx_vid >= 1 && cmd->vx_vid <= 4094 : cmd->vx_vid == 0);
    if (cmd->verb == ZVS_CMD_RESOLVER || remote) {
        char canon[ZVS_HOSTNAME_MAX + 1];
        size_t hl = strnlen(cmd->hostname, sizeof cmd->hostname);
        CHECK(hl > 0 && hl <= ZVS_HOSTNAME_MAX);
        CHECK(zvs_hostname_check(cmd->hostname, hl, canon) == ZVS_HOSTNAME_OK);
        CHECK(strcmp(canon, cmd->hostname) == 0);
    } else {
        CHECK(cmd->hostname[0] == '\0');
    }
    /* VXLAN NEIGHBOR: an address in its canonical text, and with MAC a unicast MAC that
     * is not zero; else neither. */
    bool neighbor = vxlan && (cmd->vx_op == ZVS_CMD_VX_NEIGHBOR_SET ||
                              cmd->vx_op == ZVS_CMD_VX_NEIGHBOR_DELETE);
    static const uint8_t zero_mac[6];
    if (neighbor) {
        char canon[ZVS_CFG_ADDR_STR];
        CHECK(zvs_parse_addr_text(cmd->vx_addr, canon, sizeof canon) > 0);
        CHECK(strcmp(canon, cmd->vx_addr) == 0);
    } else {
        CHECK(cmd->vx_addr[0] == '\0');
    }
    if (neighbor && cmd->vx_op == ZVS_CMD_VX_NEIGHBOR_SET)
        CHECK(!(cmd->vx_mac[0] & 1) && memcmp(cmd->vx_mac, zero_mac, 6) != 0);
    else
        CHECK(memcmp(cmd->vx_mac, zero_mac, 6) == 0);
    if (cmd->target[0] != '\0')
        CHECK(privclass & ZVS_PRIVCLASS('B'));
    if (!(privclass & ZVS_PRIVCLASS('B')))
        CHECK(class_g_verb(cmd->verb) && cmd->target[0] == '\0');
    size_t n = zvs_cmd_format(cmd, text, sizeof text);
    CHECK(n > 0 && n < sizeof text);
    zvs_cp_response_init(&r);
    memset(&re, 0x77, sizeof re);
    CHECK(zvs_cmd_parse(text, privclass, &re, &r) == 0);
    CHECK(r.len == 0);
    zvs_cp_response_fini(&r);
    TRACE("canonical: %s\n", text);
    CHECK(memcmp(&re, cmd, sizeof re) == 0);
    CHECK(zvs_cmd_format(&re, again, sizeof again) == n);
    CHECK(strcmp(text, again) == 0);
    /* The same bytes whatever the struct held before: padding is zeroed. */
    memset(&re, 0x00, sizeof re);
    zvs_cp_response_init(&r);
    CHECK(zvs_cmd_parse(text, privclass, &re, &r) == 0);
    zvs_cp_response_fini(&r);
    CHECK(memcmp(&re, cmd, sizeof re) == 0);
}

static int run(const char *line, uint32_t privclass)
{
    struct zvs_cmd cmd, before;
    struct zvs_cp_response r;

    memset(&cmd, 0xA5, sizeof cmd);
    memcpy(&before, &cmd, sizeof cmd);
    zvs_cp_response_init(&r);
    int rc = zvs_cmd_parse(line, privclass, &cmd, &r);
    if (rc == 0) {
        CHECK(r.len == 0 && r.rc == 0);
        check_accepted(&cmd, privclass);
    } else {
        CHECK(rc < 0);
        CHECK(memcmp(&cmd, &before, sizeof cmd) == 0);
        check_refusal(&r);
        TRACE("refused: %s", r.text);
    }
    zvs_cp_response_fini(&r);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);
    if (line == NULL)
        abort();
    memcpy(line, data, size);
    line[size] = '\0';
    run(line, classes("ABCDEFG"));
    run(line, classes("G"));
    free(line);
    return 0;
}

#include "fuzz_replay.h"
