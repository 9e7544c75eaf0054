/* SYSTEM CONFIG statements.
 *
 * Owns the statement tables for the SYSTEM CONFIG file and what each statement stores in
 * struct zvs_cfg. The lexical rules (comments, continuation commas, case) are tokens.c's.
 *
 *   VMLAN MACPREFIX xxxxxx
 *         6 hex digits; the first byte must be a locally administered unicast address
 *         (bit X'02' set, bit X'01' clear). Default 020000 (z/VM's default prefix as we
 *         understand it; VMLAN statement, "z/VM CP Planning and Administration").
 *   VMLAN MACIDRANGE SYSTEM xxxxxx-xxxxxx USER xxxxxx-xxxxxx
 *         Our rule (z/VM's is UNCONFIRMED): both ranges are required, low <= high, and
 *         they may not overlap. CP assigns MACIDs to NICDEFs without MACID from SYSTEM,
 *         in order of appearance; a NICDEF MACID must lie in USER. Without the statement
 *         NICDEF MACIDs are unrestricted and assignment runs from 000001 up, skipping
 *         every MACID a NICDEF names. MACPREFIX and MACIDRANGE may share one VMLAN
 *         statement; each may be given once.
 *   DEFINE VSWITCH name [RDEV nnnn[.Pn] [..] (max 3) | RDEV NONE] [ETHERNET | IP]
 *         [VLAN UNAWARE | AWARE | defvid] [NATIVE natvid | NONE] [PORTTYPE ACCESS | TRUNK]
 *         [QUEUESTORAGE nM | n] [CONNECT | DISCONNECT] [NOUPLINK] [CONTROLLER * | userid]
 *         [GROUP grp | NOGROUP] [MACPROTECT ON | OFF | UNSPECIFIED] [ISOLATION ON | OFF]
 *         [TYPE QDIO | QDIO] [UPLINK] [IPTIMEOUT 1-240] [USERBASED | PORTBASED]
 *         [QUEUESTORAGE minM maxM] [LOCAL | GLOBAL] [TYPE IVL [DOMAIN A-H]]
 *         Name first, operands in any order, each once. Defaults: no RDEV, ETHERNET, VLAN
 *         UNAWARE, NATIVE 1, PORTTYPE ACCESS, QUEUESTORAGE 8M, CONNECT, CONTROLLER *,
 *         NOGROUP, MACPROTECT UNSPECIFIED, ISOLATION OFF, IPTIMEOUT 5, USERBASED.
 *         TYPE QDIO, a bare QDIO and UPLINK (before RDEV or GROUP) are z/VM 7.x spellings
 *         that change nothing here ("DEFINE VSWITCH Statement", z/VM 7.4 CP Planning and
 *         Administration); TYPE IQD is refused. IPTIMEOUT (minutes) is shown by QUERY
 *         VSWITCH and carried by the monitor; PORTBASED only changes QUERY's word (zvswitch
 *         has no port numbers to assign). QUEUESTORAGE minM maxM: see dv_queuestorage.
 *         Deviations from z/VM: our default is ETHERNET (z/VM's historical default is
 *         IP) and IP is rejected, because this switch is layer 2 only. MACPROTECT and
 *         ISOLATION are SET VSWITCH options in z/VM; we accept them here too. Our
 *         conflicts: NOUPLINK excludes RDEV and GROUP; NATIVE needs a VLAN aware switch.
 *         A second DEFINE for a name is an error and the first one stays.
 *         TYPE QDIO GLOBAL is a Global VSWITCH (shared by the systems of the IVL domain;
 *         its port group may be SHARED); TYPE IVL [DOMAIN A-H] the IVL switch, the
 *         network between the systems (z/VM 7.4 "DEFINE VSWITCH Statement": ETHERNET,
 *         PORTBASED and PORTTYPE ACCESS are its only options; here also no GROUP, no
 *         LOCAL or GLOBAL). DOMAIN belongs to TYPE IVL only. Each system names the IVL
 *         switch once (zvs_cfg_validate), and a GLOBAL switch needs it.
 *         GROUP with RDEV (zvswitch extension; z/VM takes one or the other): the group
 *         is the uplink, the RDEV devices are the fallback uplink used while no group
 *         member is distributing (the whole group down), in the same active/backup
 *         order as without a group.
 *   MODIFY VSWITCH name GRANT userid [PORTTYPE ACCESS | TRUNK] [VLAN vidset]
 *         The switch must be defined above. vidset: up to 32 tokens, each a VLAN id
 *         1-4094 or a range lo-hi. Our rules: VLAN needs a VLAN aware switch; an ACCESS
 *         port (given, or the switch's default) carries one VLAN id; one GRANT per user
 *         and switch.
 *   SET PORT GROUP grp [JOIN rdev [rdev ..]] [LACP ACTIVE | INACTIVE] [INTERVAL n | OFF]
 *         [EXCLUSIVE | SHARED] [TIMEOUT SHORT | LONG]
 *         [DISTRIBUTION DESTINATION | SOURCE | BOTH | UDPPORT]
 *         [POLICY LOAD [TOTAL | OUTBOUND] | LBT [n]]
 *         The text of the CP command ("z/VM CP Commands and Utilities Reference", SET
 *         PORT GROUP), so it can be pasted from a
 *         running system. Operands in any order, each once per statement, at least one.
 *         Every statement naming a group adds to it, as the commands do: the first
 *         creates the group with the defaults LACP ACTIVE, INTERVAL 300, EXCLUSIVE; a
 *         later LACP or INTERVAL replaces the value; JOIN adds devices (nnnn or nnnn.Pn),
 *         at most 8 per group in all, a device at most once. INTERVAL is 1-9990 seconds
 *         between rebalancing passes, OFF (stored as 0) for none. The statement may come
 *         before or after the DEFINE VSWITCH ... GROUP that uses it (z/VM reads SYSTEM
 *         CONFIG as a whole); validate checks the references.
 *         Not in SYSTEM CONFIG: DELETE and LEAVE (commands that undo a configuration;
 *         edit the file).
 *         zvswitch extensions (not z/VM operands):
 *           SHARED                the group is the IVL domain's (z/VM takes SHARED on the
 *                                 command only): vswitchd joins the domain at start as
 *                                 if the command had been typed. The command's rule
 *                                 (zvs_cfg_group_can_share), checked by validate: a TYPE
 *                                 IVL switch on this system, every switch using the group
 *                                 GLOBAL. A statement with LACP and without SHARED makes
 *                                 the group EXCLUSIVE again, as the command does.
 *           TIMEOUT SHORT | LONG  the LACP timeout we ask of the partner: SHORT (default,
 *                                 fast: LACPDUs every 1 s, 3 s expiry) or LONG (30 s, 90 s)
 *           DISTRIBUTION DESTINATION | DEST | SOURCE | SRC | BOTH | UDPPORT  which MAC's
 *                                 last byte picks a frame's port bucket (default
 *                                 DESTINATION; BOTH: the two bytes XORed), or UDPPORT: a
 *                                 UDP frame's source port (a VXLAN underlay, RFC 7348
 *                                 section 5), other frames by destination MAC
 *           POLICY LOAD [TOTAL | OUTBOUND] | LBT [n]  what an INTERVAL pass rebalances
 *                                 for: LOAD (default), even out measured load, a port's
 *                                 load being its inbound plus its outbound (TOTAL,
 *                                 default: outbound goes to the port the physical switch
 *                                 uses less for inbound, as in the IBM report's second
 *                                 FCX240) or its outbound alone (OUTBOUND); or LBT,
 *                                 load-based teaming: move buckets off a port above n% of
 *                                 its speed (1-100, default 75)
 *   RDEVICE nnnn[.Pn] INTERFACE ifname [BACKEND AFPACKET | PCAP | TAP]  (zvswitch extension)
 *         Names the Linux interface that plays real device nnnn (an OSA port) for an
 *         RDEV of DEFINE VSWITCH (a physical NIC, or a veth into the switch model).
 *         Interface names keep their case and follow Linux rules (1-15 characters, no
 *         '/', ':' or blanks). One mapping per device; validate requires one for every
 *         RDEV a switch names. BACKEND says how vswitchd reaches the interface: AFPACKET
 *         (default; AF_PACKET with virtio-net headers, offload metadata kept) or PCAP
 *         (libpcap: portable, no offload metadata, so the switch checksums and segments
 *         for it; see backends/uplink_pcap.c) or TAP (ifname is a persistent tap the
 *         system made and bridged; vswitchd attaches as its far end, and a VXLAN uplink
 *         over it hands the kernel whole UDP tunnel super-frames: backends/uplink_tap.h).
 *   SYSTEM_IDentifier LPAR lparname sysname | SYSTEM_IDentifier model cpuid sysname
 *   SYSTEM_IDentifier_DEFault sysname
 *         The system's name, as z/VM's statements give it ("SYSTEM_IDENTIFIER Statement",
 *         z/VM CP Planning and Administration): the entry matching the processor names
 *         the system, else the DEFAULT. Our rule: the LPAR zvswitch runs in is its host,
 *         so an LPAR entry matches when lparname is the host name (upper case, cut to 8);
 *         a model/cpuid entry is checked (model 4 characters, cpuid 1-6) and kept so a
 *         real system's file parses, but matches nothing (no processor id to compare).
 *         Neither matching nor a DEFAULT: the host name, upper case, 8 characters
 *         (zvs_cfg_system_name). sysname: a CP name; DEFAULT once per file.
 *   SYSTEM_USERIDS OPERATOR userid
 *         The system operator's userid (z/VM's SYSTEM_USERIDS statement): the userid
 *         root's console commands act as (default OPERATOR; a LINUXUSER naming root still
 *         replaces root's whole mapping). Once per file.
 *   VXLAN VSWITCH name VNI n LOCAL addr RDEV nnnn | GROUP grp [REMOTE host [host ..]]
 *         [UDPPORT n] [GATEWAY addr]
 *         zvswitch extension: the switch's uplink is a VXLAN segment (RFC 7348, overlay/):
 *         VNI 0-16777215, our VTEP address LOCAL, the underlay uplink RDEV (an RDEVICE)
 *         or GROUP, the switch's own port group (DEFINE VSWITCH ... GROUP grp), whose
 *         members then carry the encapsulated frames, each flow's member chosen by the
 *         outer UDP source port (RFC 7348 section 5) whatever its DISTRIBUTION;
 *         up to 8 remote VTEPs by address or host name (resolved through RESOLVER's
 *         c-ares resolver), UDPPORT (default 4789), GATEWAY the underlay's next hop
 *         when the remote VTEPs are not on-link. The switch must be defined above; one
 *         VXLAN statement per switch; LOCAL, REMOTE and GATEWAY of one family.
 *   VXLAN VSWITCH name VLAN v VNI n
 *         zvswitch extension, repeated: on a VLAN AWARE switch whose VXLAN statement is
 *         above, VLAN v (1-4094, not the switch's NATIVE VLAN, which travels as the
 *         statement's VNI) travels as VNI n; each VLAN and each VNI once per switch.
 *   VXLAN VSWITCH name NEIGHBOR addr MAC xx-xx-xx-xx-xx-xx
 *         zvswitch extension, repeated: a static neighbour on the underlay of the switch
 *         whose VXLAN statement is above: next hop addr (LOCAL's family; a remote VTEP or
 *         the GATEWAY) is at that unicast MAC, never asked by ARP or Neighbor Discovery
 *         and never aged; each address once per switch, at most 16. The switch's IPTIMEOUT
 *         is the age of the neighbours it learns.
 *   RESOLVER [WATCH name [name ..]] [SERVER addr [addr [addr]]] [ORDER IPV4 | IPV6 [IPV4 |
 *         IPV6]] [TIMEOUT ms] [MINTTL s]  (zvswitch extension: the name layer, names/)
 *         WATCH: host names vswitchd keeps resolved (RFC 1035/1123 syntax, at most 253
 *         characters, labels of 1-63; an address literal is taken as resolved), shown by
 *         QUERY RESOLVER; each name once in all, at most 256. SERVER: the DNS servers to
 *         ask, address or address:port ([v6]:port for IPv6 with a port; default port 53),
 *         at most 3; without it the host's resolver configuration (resolv.conf) is used.
 *         ORDER: which address families and in which order (default IPV4 IPV6).
 *         TIMEOUT: how long one try of a server waits for its answer, 100-30000 ms
 *         (default 2000; c-ares tries each server twice, doubling the wait). MINTTL: the
 *         floor of a TTL, 1-3600 s (default 5): a record is looked up again at most that
 *         often, whatever TTL it carries (0 from dnsmasq's local names). SERVER, ORDER,
 *         TIMEOUT and MINTTL may be given once in the file; WATCH accumulates.
 *         Names are kept in lower case without a trailing dot.
 *   IVL MEMBER sysname INDEX 1-3 ADDRESS addr | hostname  (zvswitch extension)
 *         One system of the IVL domain, this one included: its SYSTEM_IDENTIFIER sysname,
 *         its index (corosync's node id; the high byte of its 802.1AX port numbers) and
 *         its address on the IVL network, or a host name resolved through names/ when
 *         the corosync configuration is written. z/VM finds the members over the IVL
 *         itself; Corosync needs its nodelist. At most 3; sysname and INDEX each once.
 *         Needs a TYPE IVL switch (validate).
 *   IVL HEARTBEAT TIMEOUT seconds  (zvswitch extension)
 *         The IVL's heartbeat timeout, 1-300 s (our bound), which is corosync's token
 *         timeout; on a running system IBM's SET VSWITCH ivlsw IVLPORT HEARTBEAT TIMEOUT
 *         (CP Commands and Utilities Reference, "SET VSWITCH", IVLPort options). Not
 *         SET VSWITCH's text here: SYSTEM CONFIG has no SET VSWITCH statement. Once per
 *         file; without it corosync's default token (3 s).
 *
 * Every statement is built in a scratch copy and stored only when it raised no error, so
 * a bad statement never leaves half a switch (or half a JOIN) behind.
 *
 * Hazard: a statement that starts SET PORT but not SET PORT GROUP name is reported once
 * and its operands are not checked (they would only add noise): set_port_begin points
 * the sink at a scratch list that set_port_end frees. This relies on the operand engine
 * reporting through the sink it was given, which is &ctx->sink.
 */
#include "cp-commands/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cp-commands/tokens.h"

#define RULE_NAME    "1-8 characters A-Z 0-9 @ # $"
#define RULE_RDEV    "hex device nnnn or nnnn.Pn"
#define RULE_VID     "1-4094"
#define RULE_VIDSET  "VLAN IDs 1-4094 or ranges lo-hi"
#define RULE_IFNAME  "Linux interface name: 1-15 characters, no / : or blanks"
#define RULE_RANGE   "xxxxxx-xxxxxx, 6 hex digits each, low <= high"
#define RULE_SERVER  "address, address:port or [IPv6 address]:port"
#define RULE_ORDER   "IPV4 or IPV6, one or both in order"
#define RULE_ADDR    "an IPv4 or IPv6 address"
#define RULE_MAC     "xx-xx-xx-xx-xx-xx, a unicast MAC"

struct sc_ctx {
    struct zvs_cfg        *cfg;
    struct zvs_msg_sink    sink;
    unsigned               errors0;     /* cfg->msgs.errors when the statement began */
    const char            *name;        /* the statement's name operand, as written */
    uint32_t               native_line; /* DEFINE VSWITCH: NATIVE given on this line */
    char                   ivl_domain;  /* DEFINE VSWITCH: DOMAIN given (TYPE IVL) */
    struct zvs_cfg_ivl_member ivm;      /* IVL MEMBER being built */
    uint16_t               ivl_hb_s;    /* IVL HEARTBEAT TIMEOUT */
    struct zvs_cfg_vswitch sw;          /* DEFINE VSWITCH being built */
    int                    mod_sw;      /* MODIFY VSWITCH: index of the switch, or -1 */
    uint32_t               vlan_line;   /* MODIFY VSWITCH: VLAN given on this line */
    struct zvs_cfg_grant   grant;       /* MODIFY VSWITCH ... GRANT being built */
    bool                   rdev_ok;     /* RDEVICE: device number valid */
    struct zvs_cfg_rdevice rdevice;     /* RDEVICE being built */
    struct zvs_cfg_vmlan   vmlan;       /* VMLAN: scratch copy of cfg->vmlan */
    bool                   sys_ok;      /* VMLAN MACIDRANGE: SYSTEM range valid */
    bool                   user_ok;     /* VMLAN MACIDRANGE: USER range valid */
    int                    grp_index;   /* SET PORT GROUP: the group's index, -1 when new */
    uint32_t               grp_stmt_line; /* SET PORT GROUP: this statement's first line */
    bool                   grp_full;    /* SET PORT GROUP: "group full" already reported */
    struct zvs_cfg_group   grp;         /* SET PORT GROUP: scratch copy of the group */
    uint32_t               grp_join_line[ZVS_CFG_MAX_GROUP_PORTS];
    struct zvs_cfg_sysid   sysid;       /* SYSTEM_IDENTIFIER[_DEFAULT] being built */
    struct zvs_cfg_vxlan   vx;          /* VXLAN VSWITCH being built */
    const struct zvs_tok  *rs_watch;    /* RESOLVER: the WATCH names (valid to its end) */
    unsigned               rs_nwatch;
    unsigned               rs_nserver;  /* RESOLVER: SERVER, canonical */
    char                   rs_server[ZVS_CFG_MAX_DNS][ZVS_RES_SERVER_STR];
    bool                   rs_order_given;
    enum zvs_res_order     rs_order;
    uint32_t               rs_timeout_ms; /* RESOLVER: TIMEOUT, MINTTL */
    uint32_t               rs_minttl_s;
    struct zvs_msg_list   *muted;       /* the real list while the sink points at discard */
    struct zvs_msg_list    discard;     /* messages of a statement not worth checking */
};

#define ERR(c, line, id, ...) ZVS_REPORT(&(c)->sink, (line), (id), __VA_ARGS__)

static void bad_value(struct sc_ctx *c, const struct zvs_tok *t, const char *operand,
                      const char *rule)
{
    ERR(c, t->line, ZVS_MSG_VALUE_INVALID, operand, t->s, rule);
}

/* Errors so far: the file's list, or (no configuration: a CP command's operands, see
 * zvs_cfg_parse_vswitch_def) the sink's. */
static unsigned errors_now(const struct sc_ctx *c)
{
    return c->cfg != NULL ? c->cfg->msgs.errors : c->sink.list->errors;
}

static void stmt_begin(struct sc_ctx *c, const struct zvs_tok *name)
{
    c->errors0 = errors_now(c);
    c->name = name != NULL ? name->s : "";
}

static bool stmt_clean(const struct sc_ctx *c)
{
    return errors_now(c) == c->errors0;
}

static void num_str(char *buf, size_t size, uint32_t line)
{
    snprintf(buf, size, "%u", (unsigned)line);
}

static void check_room(struct sc_ctx *c, uint32_t line, unsigned used, unsigned limit,
                       const char *kind)
{
    if (used < limit)
        return;
    char lim[12];
    num_str(lim, sizeof lim, limit);
    ERR(c, line, ZVS_MSG_TOO_MANY, kind, lim);
}

static int parse_porttype(struct sc_ctx *c, const struct zvs_tok *t, enum zvs_porttype *out)
{
    if (zvs_tok_is(t, "ACCESS"))
        *out = ZVS_PORTTYPE_ACCESS;
    else if (zvs_tok_is(t, "TRUNK"))
        *out = ZVS_PORTTYPE_TRUNK;
    else {
        bad_value(c, t, "PORTTYPE", "ACCESS or TRUNK");
        return -1;
    }
    return 0;
}

static int parse_vid(const struct zvs_tok *t, uint16_t *out)
{
    uint32_t v;
    if (zvs_parse_dec(t->s, 1, 4094, &v) < 0)
        return -1;
    *out = (uint16_t)v;
    return 0;
}

/* ---- DEFINE VSWITCH ------------------------------------------------------------------ */

enum {
    DV_RDEV, DV_ETHERNET, DV_IP, DV_VLAN, DV_NATIVE, DV_PORTTYPE, DV_QUEUESTORAGE,
    DV_CONNECT, DV_DISCONNECT, DV_NOUPLINK, DV_CONTROLLER, DV_GROUP, DV_NOGROUP,
    DV_MACPROTECT, DV_ISOLATION, DV_TYPE, DV_QDIO, DV_UPLINK, DV_IPTIMEOUT, DV_USERBASED,
    DV_PORTBASED, DV_LOCAL, DV_GLOBAL, DV_DOMAIN, DV_COUNT
};

static void dv_rdev(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct sc_ctx *c = ctx;

    c->sw.nrdev = 0;
    if (nval == 1 && zvs_tok_is(&val[0], "NONE"))
        return;
    for (unsigned i = 0; i < nval; i++) {
        struct zvs_rdev r;
        bool dup = false;
        if (zvs_tok_is(&val[i], "NONE")) {
            bad_value(c, &val[i], "RDEV", "NONE stands alone");
            continue;
        }
        if (zvs_rdev_parse(val[i].s, &r) < 0) {
            bad_value(c, &val[i], "RDEV", RULE_RDEV);
            continue;
        }
        for (unsigned j = 0; j < c->sw.nrdev; j++)
            dup |= zvs_rdev_equal(c->sw.rdev[j], r);
        if (dup) {
            bad_value(c, &val[i], "RDEV", "device given twice");
            continue;
        }
        c->sw.rdev[c->sw.nrdev].devno = r.devno;   /* fields: r's padding is undefined */
        c->sw.rdev[c->sw.nrdev++].port = r.port;   /* the table allows at most 3 values */
    }
}

static void dv_ip(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                  unsigned nval)
{
    ERR((struct sc_ctx *)ctx, kw->line, ZVS_MSG_LAYER3_UNSUPPORTED, "IP");
}

static void dv_vlan(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (zvs_tok_is(val, "UNAWARE")) {
        c->sw.vlan_aware = false;
        c->sw.default_vid = 0;
    } else if (zvs_tok_is(val, "AWARE")) {
        c->sw.vlan_aware = true;
        c->sw.default_vid = 1;
    } else if (parse_vid(val, &c->sw.default_vid) == 0) {
        c->sw.vlan_aware = true;
    } else {
        bad_value(c, val, "VLAN", "UNAWARE, AWARE or 1-4094");
    }
}

static void dv_native(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                      unsigned nval)
{
    struct sc_ctx *c = ctx;

    c->native_line = kw->line;
    if (zvs_tok_is(val, "NONE"))
        c->sw.native_vid = 0;
    else if (parse_vid(val, &c->sw.native_vid) < 0)
        bad_value(c, val, "NATIVE", "NONE or 1-4094");
}

static void dv_porttype(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                        unsigned nval)
{
    struct sc_ctx *c = ctx;
    parse_porttype(c, val, &c->sw.porttype);
}

/* "nM" (or "n") megabytes, at most `digits` digits, 1-max, into *mb. */
static int parse_megabytes(const char *s, size_t digits, uint32_t max, uint32_t *mb)
{
    char num[6];
    size_t n = strnlen(s, sizeof num + 1);
    if (n > 1 && (s[n - 1] == 'M' || s[n - 1] == 'm'))
        n--;
    if (n > digits || n >= sizeof num)
        return -EINVAL;
    memcpy(num, s, n);
    num[n] = '\0';
    return zvs_parse_dec(num, 1, max, mb);
}

/* "nM" or "n", n 1-8 (megabytes of QDIO buffers for the uplink). */
int zvs_cfg_parse_queuestorage(const char *s, uint8_t *mb)
{
    uint32_t v;
    if (parse_megabytes(s, 3, 8, &v) < 0)
        return -EINVAL;
    *mb = (uint8_t)v;
    return 0;
}

/* QUEUESTORAGE n (z/VM 5.3, 1-8) or z/VM 7.4's QUEUESTORAGE minM maxM (8M 256M by
 * default). Our rule for the 7.4 form: min <= max, each 1M-2048M; zvswitch's queues hold
 * at most 8M, so the switch keeps min, capped at 8M (max is checked, not kept). */
static void dv_queuestorage(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                            unsigned nval)
{
    struct sc_ctx *c = ctx;
    uint32_t lo, hi;

    if (nval == 1) {
        if (zvs_cfg_parse_queuestorage(val->s, &c->sw.queuestorage_mb) < 0)
            bad_value(c, val, "QUEUESTORAGE", "1M-8M");
        return;
    }
    if (parse_megabytes(val[0].s, 5, 2048, &lo) < 0)
        bad_value(c, &val[0], "QUEUESTORAGE", "minM maxM, 1M-2048M each");
    else if (parse_megabytes(val[1].s, 5, 2048, &hi) < 0 || hi < lo)
        bad_value(c, &val[1], "QUEUESTORAGE", "minM maxM, 1M-2048M each, min <= max");
    else
        c->sw.queuestorage_mb = (uint8_t)(lo < 8 ? lo : 8);
}

/* TYPE QDIO or TYPE IVL (IQD, a HiperSockets switch, is not emulated). */
static void dv_type(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct sc_ctx *c = ctx;
    if (zvs_tok_is(val, "IVL")) {
        c->sw.scope = ZVS_VSW_IVL;
        c->sw.ivl_domain = 'A';
        c->sw.portbased = true;         /* "the default and only allowed option" */
    } else if (!zvs_tok_is(val, "QDIO")) {
        bad_value(c, val, "TYPE", "QDIO or IVL (zvswitch emulates OSA switches only)");
    }
}

static void dv_global(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                      unsigned nval)
{
    struct sc_ctx *c = ctx;
    if (c->sw.scope != ZVS_VSW_IVL)
        c->sw.scope = ZVS_VSW_GLOBAL;
}

static void dv_domain(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                      unsigned nval)
{
    struct sc_ctx *c = ctx;
    int d = toupper((unsigned char)val->s[0]);
    if (strlen(val->s) != 1 || d < 'A' || d > 'H')
        bad_value(c, val, "DOMAIN", "A-H");
    else
        c->ivl_domain = (char)d;
}

static void dv_iptimeout(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                         unsigned nval)
{
    struct sc_ctx *c = ctx;
    uint32_t v;
    if (zvs_parse_dec(val->s, 1, ZVS_CFG_IPTIMEOUT_MAX, &v) < 0)
        bad_value(c, val, "IPTIMEOUT", "1-240 minutes");
    else
        c->sw.iptimeout_min = (uint8_t)v;
}

static void dv_portbased(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                         unsigned nval)
{
    ((struct sc_ctx *)ctx)->sw.portbased = true;
}

static void dv_connect(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    ((struct sc_ctx *)ctx)->sw.connect = true;
}

static void dv_disconnect(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                          unsigned nval)
{
    ((struct sc_ctx *)ctx)->sw.connect = false;
}

static void dv_nouplink(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                        unsigned nval)
{
    ((struct sc_ctx *)ctx)->sw.nouplink = true;
}

static void dv_controller(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                          unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (strcmp(val->s, "*") == 0)
        strcpy(c->sw.controller, "*");
    else if (zvs_parse_name(val->s, c->sw.controller) < 0)
        bad_value(c, val, "CONTROLLER", "* or a userid of " RULE_NAME);
}

static void dv_group(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                     unsigned nval)
{
    struct sc_ctx *c = ctx;
    if (zvs_parse_name(val->s, c->sw.group) < 0)
        bad_value(c, val, "GROUP", RULE_NAME);
}

static void dv_nogroup(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    ((struct sc_ctx *)ctx)->sw.group[0] = '\0';
}

static void dv_macprotect(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                          unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (zvs_tok_is(val, "ON"))
        c->sw.macprotect = ZVS_MACPROTECT_ON;
    else if (zvs_tok_is(val, "OFF"))
        c->sw.macprotect = ZVS_MACPROTECT_OFF;
    else if (zvs_tok_abbrev(val, "UNSPECified"))
        c->sw.macprotect = ZVS_MACPROTECT_UNSPECIFIED;
    else
        bad_value(c, val, "MACPROTECT", "ON, OFF or UNSPECIFIED");
}

static void dv_isolation(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                         unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (zvs_tok_is(val, "ON"))
        c->sw.isolation = true;
    else if (zvs_tok_is(val, "OFF"))
        c->sw.isolation = false;
    else
        bad_value(c, val, "ISOLATION", "ON or OFF");
}

static const struct zvs_opdef define_vswitch_ops[DV_COUNT] = {
    [DV_RDEV]         = { "RDEV", 1, ZVS_CFG_MAX_RDEV, true, ZVS_OPBIT(DV_NOUPLINK), dv_rdev },
    [DV_ETHERNET]     = { "ETHernet", 0, 0, false, ZVS_OPBIT(DV_IP), NULL },
    [DV_IP]           = { "IP", 0, 0, false, 0, dv_ip },
    [DV_VLAN]         = { "VLAN", 1, 1, false, 0, dv_vlan },
    [DV_NATIVE]       = { "NATive", 1, 1, false, 0, dv_native },
    [DV_PORTTYPE]     = { "PORTType", 1, 1, false, 0, dv_porttype },
    [DV_QUEUESTORAGE] = { "QUEuestorage", 1, 2, true, 0, dv_queuestorage },
    [DV_CONNECT]      = { "CONnect", 0, 0, false, ZVS_OPBIT(DV_DISCONNECT), dv_connect },
    [DV_DISCONNECT]   = { "DISCONnect", 0, 0, false, 0, dv_disconnect },
    [DV_NOUPLINK]     = { "NOUPLINK", 0, 0, false, ZVS_OPBIT(DV_GROUP), dv_nouplink },
    [DV_CONTROLLER]   = { "CONTRoller", 1, 1, false, 0, dv_controller },
    [DV_GROUP]        = { "GROup", 1, 1, false, ZVS_OPBIT(DV_NOGROUP), dv_group },
    [DV_NOGROUP]      = { "NOGroup", 0, 0, false, 0, dv_nogroup },
    /* Not in the 7.4 DEFINE VSWITCH diagram: SET VSWITCH's operands, its abbreviations. */
    [DV_MACPROTECT]   = { "MACProtect", 1, 1, false, 0, dv_macprotect },
    [DV_ISOLATION]    = { "ISOLation", 1, 1, false, 0, dv_isolation },
    /* As real SYSTEM CONFIG files write them (z/VM 7.x): TYPE QDIO, a bare QDIO, the
     * UPLINK keyword before RDEV or GROUP, IPTIMEOUT, USERBASED | PORTBASED. */
    [DV_TYPE]         = { "TYPe", 1, 1, false, ZVS_OPBIT(DV_QDIO), dv_type },
    [DV_QDIO]         = { "QDIO", 0, 0, false, 0, NULL },
    [DV_UPLINK]       = { "UPLINK", 0, 0, false, ZVS_OPBIT(DV_NOUPLINK), NULL },
    [DV_IPTIMEOUT]    = { "IPTimeout", 1, 1, false, 0, dv_iptimeout },
    [DV_USERBASED]    = { "USERBASED", 0, 0, false, ZVS_OPBIT(DV_PORTBASED), NULL },
    [DV_PORTBASED]    = { "PORTBASED", 0, 0, false, 0, dv_portbased },
    /* TYPE QDIO LOCAL | GLOBAL, TYPE IVL DOMAIN A-H (z/VM 7.4): what TYPE they go with is
     * checked once the statement is whole (dv_type_check) */
    [DV_LOCAL]        = { "LOCal", 0, 0, false, ZVS_OPBIT(DV_GLOBAL), NULL },
    [DV_GLOBAL]       = { "GLObal", 0, 0, false, 0, dv_global },
    [DV_DOMAIN]       = { "DOMain", 1, 1, false, 0, dv_domain },
};

/* The statement's defaults (see the top). memset first: the padding stays defined, since
 * a CP command's parsed copy is compared with memcmp. */
static void dv_reset(struct sc_ctx *c, uint32_t line)
{
    c->native_line = 0;
    c->ivl_domain = 0;
    memset(&c->sw, 0, sizeof c->sw);
    c->sw.line = line;
    c->sw.connect = true;
    c->sw.native_vid = 1;
    c->sw.porttype = ZVS_PORTTYPE_ACCESS;
    c->sw.queuestorage_mb = 8;
    strcpy(c->sw.controller, "*");
    c->sw.macprotect = ZVS_MACPROTECT_UNSPECIFIED;
}

/* The checks that need the whole statement. */
static void dv_check(struct sc_ctx *c)
{
    if (c->native_line != 0 && !c->sw.vlan_aware)
        ERR(c, c->native_line, ZVS_MSG_VLAN_UNAWARE, "NATIVE", c->name);
}

static void define_vswitch_begin(void *ctx, const struct zvs_stmt *stmt,
                                 const struct zvs_tok *pos, unsigned npos)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg *cfg = c->cfg;

    stmt_begin(c, &pos[0]);
    dv_reset(c, stmt->tok[0].line);
    if (zvs_parse_name(pos[0].s, c->sw.name) < 0) {
        bad_value(c, &pos[0], "switchname", RULE_NAME);
        return;
    }
    int k = zvs_cfg_find_vswitch(cfg, c->sw.name);
    if (k >= 0) {
        char line[12];
        num_str(line, sizeof line, cfg->vswitch[k].line);
        ERR(c, pos[0].line, ZVS_MSG_ALREADY_DEFINED, "VSWITCH", c->sw.name, line);
        return;
    }
    check_room(c, pos[0].line, cfg->nvswitch, ZVS_CFG_MAX_VSWITCHES, "VSWITCH");
}

/* What a TYPE IVL switch may not have ("DEFINE VSWITCH Statement", notes 4, 5 and 9:
 * ETHERNET, PORTBASED and PORTTYPE ACCESS are its only options; it carries no port
 * group, since it is the link between the systems), and what only one TYPE may have. */
static void dv_type_check(struct sc_ctx *c, uint64_t given)
{
    static const struct { unsigned op; const char *name; } not_ivl[] = {
        { DV_LOCAL, "LOCAL" }, { DV_GLOBAL, "GLOBAL" }, { DV_GROUP, "GROUP" },
        { DV_USERBASED, "USERBASED" },
    };
    uint32_t line = c->sw.line;
    if (c->sw.scope != ZVS_VSW_IVL) {
        if (given & ZVS_OPBIT(DV_DOMAIN))
            ERR(c, line, ZVS_MSG_OPERAND_CONFLICT, "DOMAIN", "TYPE QDIO");
        return;
    }
    for (unsigned i = 0; i < sizeof not_ivl / sizeof not_ivl[0]; i++)
        if (given & ZVS_OPBIT(not_ivl[i].op))
            ERR(c, line, ZVS_MSG_OPERAND_CONFLICT, not_ivl[i].name, "TYPE IVL");
    if (c->sw.porttype != ZVS_PORTTYPE_ACCESS)
        ERR(c, line, ZVS_MSG_OPERAND_CONFLICT, "PORTTYPE TRUNK", "TYPE IVL");
    if (c->ivl_domain)
        c->sw.ivl_domain = c->ivl_domain;
}

static void define_vswitch_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;

    dv_check(c);
    dv_type_check(c, given);
    if (stmt_clean(c))
        c->cfg->vswitch[c->cfg->nvswitch++] = c->sw;
}

/* ---- MODIFY VSWITCH name GRANT ------------------------------------------------------- */

enum { MV_GRANT, MV_PORTTYPE, MV_VLAN, MV_COUNT };

static void mv_grant(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                     unsigned nval)
{
    struct sc_ctx *c = ctx;
    if (zvs_parse_name(val->s, c->grant.userid) < 0)
        bad_value(c, val, "GRANT", RULE_NAME);
}

static void mv_porttype(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                        unsigned nval)
{
    struct sc_ctx *c = ctx;
    parse_porttype(c, val, &c->grant.porttype);
}

static void mv_vlan(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct sc_ctx *c = ctx;

    c->vlan_line = kw->line;
    c->grant.has_vlan = true;
    for (unsigned i = 0; i < nval; i++)
        if (zvs_vidset_add(&c->grant.vlan, val[i].s) < 0)
            bad_value(c, &val[i], "VLAN", RULE_VIDSET);
}

static const struct zvs_opdef modify_vswitch_ops[MV_COUNT] = {
    [MV_GRANT]    = { "GRAnt", 1, 1, false, 0, mv_grant },       /* SET VSWITCH's GRAnt */
    [MV_PORTTYPE] = { "PORTType", 1, 1, false, 0, mv_porttype },
    [MV_VLAN]     = { "VLAN", 1, ZVS_VIDSET_MAX, true, 0, mv_vlan },
};

static void modify_vswitch_begin(void *ctx, const struct zvs_stmt *stmt,
                                 const struct zvs_tok *pos, unsigned npos)
{
    struct sc_ctx *c = ctx;
    char name[ZVS_NAME_MAX + 1];

    stmt_begin(c, &pos[0]);
    c->mod_sw = -1;
    c->vlan_line = 0;
    c->grant = (struct zvs_cfg_grant){ .line = stmt->tok[0].line };
    if (zvs_parse_name(pos[0].s, name) < 0) {
        bad_value(c, &pos[0], "switchname", RULE_NAME);
        return;
    }
    c->mod_sw = zvs_cfg_find_vswitch(c->cfg, name);
    if (c->mod_sw < 0)
        ERR(c, pos[0].line, ZVS_MSG_VSWITCH_UNDEFINED, name);
    else
        c->grant.vswitch = (uint16_t)c->mod_sw;
}

/* Our rules for a grant against its switch (see the note at the top). */
static void check_grant(struct sc_ctx *c, const struct zvs_cfg_vswitch *sw)
{
    struct zvs_cfg *cfg = c->cfg;
    const struct zvs_cfg_grant *g = &c->grant;
    enum zvs_porttype pt = g->porttype != ZVS_PORTTYPE_UNSPEC ? g->porttype : sw->porttype;

    if (g->has_vlan && !sw->vlan_aware)
        ERR(c, c->vlan_line, ZVS_MSG_VLAN_UNAWARE, "VLAN", sw->name);
    else if (g->has_vlan && pt == ZVS_PORTTYPE_ACCESS && zvs_vidset_count(&g->vlan) > 1) {
        char set[160];
        zvs_vidset_format(&g->vlan, set, sizeof set);
        ERR(c, c->vlan_line, ZVS_MSG_ACCESS_ONE_VLAN, set);
    }
    if (g->userid[0] == '\0')
        return;
    for (unsigned i = 0; i < cfg->ngrant; i++) {
        const struct zvs_cfg_grant *o = &cfg->grant[i];
        if (o->vswitch == g->vswitch && strcmp(o->userid, g->userid) == 0) {
            char line[12];
            num_str(line, sizeof line, o->line);
            ERR(c, g->line, ZVS_MSG_GRANT_DUPLICATE, g->userid, sw->name, line);
            return;
        }
    }
    check_room(c, g->line, cfg->ngrant, ZVS_CFG_MAX_GRANTS, "GRANT");
}

static void modify_vswitch_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;

    if (!(given & ZVS_OPBIT(MV_GRANT)))
        ERR(c, stmt->tok[stmt->ntok - 1].line, ZVS_MSG_OPERAND_MISSING, "GRANT");
    if (c->mod_sw >= 0)
        check_grant(c, &c->cfg->vswitch[c->mod_sw]);
    if (stmt_clean(c))
        c->cfg->grant[c->cfg->ngrant++] = c->grant;
}

/* ---- SET PORT GROUP ------------------------------------------------------------------ */

enum {
    PG_JOIN, PG_LACP, PG_INTERVAL, PG_EXCLUSIVE, PG_SHARED, PG_TIMEOUT, PG_DISTRIBUTION,
    PG_POLICY, PG_DELETE, PG_LEAVE, PG_COUNT
};

#define PG_LBT_DEFAULT 75               /* POLICY LBT threshold, percent */

/* The group's name for messages: upper case when valid, else as written. */
static const char *grp_name(const struct sc_ctx *c)
{
    return c->grp.name[0] != '\0' ? c->grp.name : c->name;
}

static int grp_find_port(const struct zvs_cfg_group *g, struct zvs_rdev r)
{
    for (unsigned i = 0; i < g->nport; i++)
        if (zvs_rdev_equal(g->port[i], r))
            return (int)i;
    return -1;
}

static void pg_join(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct sc_ctx *c = ctx;

    for (unsigned i = 0; i < nval; i++) {
        struct zvs_rdev r;
        char dev[12], num[12];
        if (zvs_rdev_parse(val[i].s, &r) < 0) {
            bad_value(c, &val[i], "JOIN", RULE_RDEV);
            continue;
        }
        zvs_rdev_format(r, dev, sizeof dev);
        int j = grp_find_port(&c->grp, r);
        if (j >= 0) {
            num_str(num, sizeof num, c->grp_join_line[j]);
            ERR(c, val[i].line, ZVS_MSG_GROUP_JOINED, dev, grp_name(c), num);
            continue;
        }
        if (c->grp.nport == ZVS_CFG_MAX_GROUP_PORTS) {
            num_str(num, sizeof num, ZVS_CFG_MAX_GROUP_PORTS);
            if (!c->grp_full)
                ERR(c, val[i].line, ZVS_MSG_GROUP_FULL, grp_name(c), num, dev);
            c->grp_full = true;
            continue;
        }
        c->grp_join_line[c->grp.nport] = c->grp_stmt_line;
        c->grp.port[c->grp.nport].devno = r.devno;  /* fields: r's padding is undefined */
        c->grp.port[c->grp.nport++].port = r.port;
    }
}

static void pg_lacp(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (zvs_tok_abbrev(val, "ACTive"))
        c->grp.lacp = true;
    else if (zvs_tok_abbrev(val, "INACTive"))
        c->grp.lacp = false;
    else
        bad_value(c, val, "LACP", "ACTIVE or INACTIVE");
}

static void pg_interval(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                        unsigned nval)
{
    struct sc_ctx *c = ctx;
    uint32_t s;

    if (zvs_tok_is(val, "OFF"))
        c->grp.interval_s = 0;
    else if (zvs_parse_dec(val->s, 1, 9990, &s) == 0)
        c->grp.interval_s = zvs_cfg_interval_round(s);
    else
        bad_value(c, val, "INTERVAL", "1-9990 or OFF");
}

/* EXCLUSIVE or SHARED (z/VM Connectivity, "Multi-VSwitch Link Aggregation"); whether
 * this system may share the group is validate's to say (zvs_cfg_group_can_share), once
 * the switches that use it are read. */
static void pg_exclusive(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                         unsigned nval)
{
    ((struct sc_ctx *)ctx)->grp.shared = false;
}

static void pg_shared(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                      unsigned nval)
{
    ((struct sc_ctx *)ctx)->grp.shared = true;
}

static void pg_command_only(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                            unsigned nval)
{
    struct sc_ctx *c = ctx;
    ERR(c, kw->line, ZVS_MSG_COMMAND_ONLY, zvs_tok_is(kw, "DELETE") ? "DELETE" : "LEAVE");
}

static void pg_timeout(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (zvs_tok_is(val, "SHORT"))
        c->grp.lacp_long_timeout = false;
    else if (zvs_tok_is(val, "LONG"))
        c->grp.lacp_long_timeout = true;
    else
        bad_value(c, val, "TIMEOUT", "SHORT or LONG");
}

static void pg_distribution(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                            unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (zvs_tok_is(val, "DESTINATION") || zvs_tok_is(val, "DEST"))
        c->grp.distribution = ZVS_CFG_DIST_DESTINATION;
    else if (zvs_tok_is(val, "SOURCE") || zvs_tok_is(val, "SRC"))
        c->grp.distribution = ZVS_CFG_DIST_SOURCE;
    else if (zvs_tok_is(val, "BOTH"))
        c->grp.distribution = ZVS_CFG_DIST_BOTH;
    else if (zvs_tok_is(val, "UDPPORT"))
        c->grp.distribution = ZVS_CFG_DIST_UDPPORT;
    else    /* the text existing automation matches; UDPPORT is the VXLAN underlay's */
        bad_value(c, val, "DISTRIBUTION", "DESTINATION, SOURCE or BOTH");
}

/* LOAD [TOTAL | OUTBOUND], LBT or LBT n; what is not given goes back to its default (the
 * threshold 75, the load TOTAL), so a statement says the whole policy. */
static void pg_policy(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                      unsigned nval)
{
    struct sc_ctx *c = ctx;
    uint32_t pct = PG_LBT_DEFAULT;
    enum zvs_cfg_load load = ZVS_CFG_LOAD_TOTAL;

    if (zvs_tok_is(&val[0], "LOAD")) {
        if (nval == 2 && zvs_tok_is(&val[1], "OUTBOUND")) {
            load = ZVS_CFG_LOAD_OUTBOUND;
        } else if (nval == 2 && !zvs_tok_is(&val[1], "TOTAL")) {
            bad_value(c, &val[1], "POLICY LOAD", "TOTAL or OUTBOUND");
            return;
        }
        c->grp.policy = ZVS_CFG_POLICY_LOAD;
    } else if (zvs_tok_is(&val[0], "LBT")) {
        if (nval == 2 && zvs_parse_dec(val[1].s, 1, 100, &pct) < 0) {
            bad_value(c, &val[1], "POLICY LBT", "1-100");
            return;
        }
        c->grp.policy = ZVS_CFG_POLICY_LBT;
    } else {
        bad_value(c, &val[0], "POLICY", "LOAD [TOTAL or OUTBOUND] or LBT [1-100]");
        return;
    }
    c->grp.lbt_percent = (uint8_t)pct;
    c->grp.load = load;
}

static const struct zvs_opdef set_port_ops[PG_COUNT] = {
    [PG_JOIN]         = { "JOIn", 1, ZVS_TOK_MAX, true, 0, pg_join },
    [PG_LACP]         = { "LACP", 1, 1, false, 0, pg_lacp },
    [PG_INTERVAL]     = { "INTerval", 1, 1, false, 0, pg_interval },
    [PG_EXCLUSIVE]    = { "EXClusive", 0, 0, false, ZVS_OPBIT(PG_SHARED), pg_exclusive },
    [PG_SHARED]       = { "SHARED", 0, 0, false, 0, pg_shared },
    [PG_TIMEOUT]      = { "TIMEOUT", 1, 1, false, 0, pg_timeout },
    [PG_DISTRIBUTION] = { "DISTRIBUTION", 1, 1, false, 0, pg_distribution },
    [PG_POLICY]       = { "POLICY", 1, 2, true, 0, pg_policy },
    [PG_DELETE]       = { "DELETE", 0, 0, false, 0, pg_command_only },
    [PG_LEAVE]        = { "LEAve", 0, ZVS_TOK_MAX, true, 0, pg_command_only },
};

/* The rest of the statement goes to a scratch list (see the hazard at the top). */
static void mute(struct sc_ctx *c)
{
    c->muted = c->sink.list;
    c->sink.list = &c->discard;
}

static void unmute(struct sc_ctx *c)
{
    if (c->muted == NULL)
        return;
    c->sink.list = c->muted;
    c->muted = NULL;
    zvs_msg_list_free(&c->discard);
}

static bool is_set_port_keyword(const struct zvs_tok *t)
{
    for (unsigned i = 0; i < PG_COUNT; i++)
        if (zvs_tok_abbrev(t, set_port_ops[i].keyword))
            return true;
    return false;
}

static void set_port_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                           unsigned npos)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg *cfg = c->cfg;

    stmt_begin(c, &pos[1]);
    c->grp_index = -1;
    c->grp_full = false;
    c->grp_stmt_line = stmt->tok[0].line;
    /* memset and memcpy, not struct assignment: the padding bytes stay defined, so a
     * rejected statement leaves cfg identical byte for byte (the tests compare it). */
    memset(&c->grp, 0, sizeof c->grp);
    c->grp.line = c->grp_stmt_line;
    c->grp.lacp = true;
    c->grp.interval_s = 300;
    c->grp.distribution = ZVS_CFG_DIST_DESTINATION;
    c->grp.policy = ZVS_CFG_POLICY_LOAD;
    c->grp.lbt_percent = PG_LBT_DEFAULT;
    c->grp.load = ZVS_CFG_LOAD_TOTAL;
    memset(c->grp_join_line, 0, sizeof c->grp_join_line);
    if (!zvs_tok_is(&pos[0], "GROUP")) {
        ERR(c, pos[0].line, ZVS_MSG_PORT_NOT_GROUP, pos[0].s);
        mute(c);
        return;
    }
    if (is_set_port_keyword(&pos[1])) {     /* SET PORT GROUP JOIN ...: the name is missing */
        ERR(c, pos[1].line, ZVS_MSG_OPERAND_MISSING, "groupname");
        mute(c);
        return;
    }
    if (zvs_parse_name(pos[1].s, c->grp.name) < 0) {
        bad_value(c, &pos[1], "groupname", RULE_NAME);
        return;
    }
    int k = zvs_cfg_find_group(cfg, c->grp.name);
    if (k >= 0) {
        c->grp_index = k;
        memcpy(&c->grp, &cfg->group[k], sizeof c->grp);
        memcpy(c->grp_join_line, cfg->group_join_line[k], sizeof c->grp_join_line);
        return;
    }
    check_room(c, pos[1].line, cfg->ngroup, ZVS_CFG_MAX_GROUPS, "PORT GROUP");
}

/* Remember a group whose defining statement was refused (see zvs_cfg.refused_group). */
static void note_refused_group(struct zvs_cfg *cfg, const char *name)
{
    for (unsigned i = 0; i < cfg->nrefused_group; i++)
        if (strcmp(cfg->refused_group[i], name) == 0)
            return;
    if (cfg->nrefused_group < ZVS_CFG_MAX_GROUPS)
        snprintf(cfg->refused_group[cfg->nrefused_group++], ZVS_NAME_MAX + 1, "%s", name);
}

static void set_port_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg *cfg = c->cfg;
    bool muted = c->muted != NULL;

    unmute(c);
    if (given == 0 && !muted)
        ERR(c, stmt->tok[stmt->ntok - 1].line, ZVS_MSG_OPERAND_MISSING,
            "JOIN, LACP or INTERVAL");
    if (!stmt_clean(c)) {
        if (c->grp_index < 0 && c->grp.name[0] != '\0')
            note_refused_group(cfg, c->grp.name);
        return;
    }
    /* LACP without SHARED is EXCLUSIVE, as in the command (LACP ACTIVE [EXCLUSIVE | SHARED]) */
    if ((given & ZVS_OPBIT(PG_LACP)) && !(given & ZVS_OPBIT(PG_SHARED)))
        c->grp.shared = false;
    unsigned k = c->grp_index >= 0 ? (unsigned)c->grp_index : cfg->ngroup++;
    memcpy(&cfg->group[k], &c->grp, sizeof c->grp);
    memcpy(cfg->group_join_line[k], c->grp_join_line, sizeof cfg->group_join_line[k]);
}

/* ---- RDEVICE nnnn INTERFACE ifname [BACKEND AFPACKET | PCAP | TAP] ------------------- */

enum { RD_INTERFACE, RD_BACKEND, RD_COUNT };

static void rd_interface(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                         unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (!zvs_ifname_valid(val->s))
        bad_value(c, val, "INTERFACE", RULE_IFNAME);
    else
        snprintf(c->rdevice.ifname, sizeof c->rdevice.ifname, "%s", val->s);
}

static void rd_backend(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (zvs_tok_is(val, "AFPACKET"))
        c->rdevice.backend = ZVS_RDEV_BACKEND_AFPACKET;
    else if (zvs_tok_is(val, "PCAP"))
        c->rdevice.backend = ZVS_RDEV_BACKEND_PCAP;
    else if (zvs_tok_is(val, "TAP"))
        c->rdevice.backend = ZVS_RDEV_BACKEND_TAP;
    else
        bad_value(c, val, "BACKEND", "AFPACKET, PCAP or TAP");
}

static const struct zvs_opdef rdevice_ops[RD_COUNT] = {
    [RD_INTERFACE] = { "INTERFACE", 1, 1, false, 0, rd_interface },
    [RD_BACKEND]   = { "BACKEND", 1, 1, false, 0, rd_backend },
};

static void rdevice_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                          unsigned npos)
{
    struct sc_ctx *c = ctx;

    stmt_begin(c, &pos[0]);
    c->rdevice = (struct zvs_cfg_rdevice){ .line = stmt->tok[0].line };
    c->rdev_ok = zvs_rdev_parse(pos[0].s, &c->rdevice.rdev) == 0;
    if (!c->rdev_ok)
        bad_value(c, &pos[0], "RDEVICE", RULE_RDEV);
}

static void rdevice_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg *cfg = c->cfg;

    if (!(given & ZVS_OPBIT(RD_INTERFACE)))
        ERR(c, stmt->tok[stmt->ntok - 1].line, ZVS_MSG_OPERAND_MISSING, "INTERFACE");
    if (c->rdev_ok) {
        int k = zvs_cfg_find_rdevice(cfg, c->rdevice.rdev);
        if (k >= 0) {
            char dev[12], line[12];
            zvs_rdev_format(c->rdevice.rdev, dev, sizeof dev);
            num_str(line, sizeof line, cfg->rdevice[k].line);
            ERR(c, c->rdevice.line, ZVS_MSG_ALREADY_DEFINED, "RDEVICE", dev, line);
        } else {
            check_room(c, c->rdevice.line, cfg->nrdevice, ZVS_CFG_MAX_RDEVICES, "RDEVICE");
        }
    }
    if (stmt_clean(c))
        cfg->rdevice[cfg->nrdevice++] = c->rdevice;
}

/* ---- VMLAN --------------------------------------------------------------------------- */

enum { VM_MACPREFIX, VM_MACIDRANGE, VM_COUNT };
enum { MR_SYSTEM, MR_USER, MR_COUNT };

static void already_vmlan(struct sc_ctx *c, const struct zvs_tok *kw, const char *what,
                          uint32_t prev_line)
{
    char line[12];
    num_str(line, sizeof line, prev_line);
    ERR(c, kw->line, ZVS_MSG_ALREADY_DEFINED, "VMLAN", what, line);
}

static void vm_macprefix(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                         unsigned nval)
{
    struct sc_ctx *c = ctx;
    uint32_t v;

    if (c->cfg->vmlan.macprefix_line != 0)
        already_vmlan(c, kw, "MACPREFIX", c->cfg->vmlan.macprefix_line);
    if (zvs_parse_hex(val->s, 6, 6, &v) < 0) {
        bad_value(c, val, "MACPREFIX", "6 hex digits");
        return;
    }
    uint8_t first = (uint8_t)(v >> 16);
    if (!(first & 0x02) || (first & 0x01)) {
        ERR(c, val->line, ZVS_MSG_MACPREFIX_NOT_LOCAL, val->s);
        return;
    }
    c->vmlan.macprefix[0] = first;
    c->vmlan.macprefix[1] = (uint8_t)(v >> 8);
    c->vmlan.macprefix[2] = (uint8_t)v;
    c->vmlan.macprefix_line = kw->line;
}

/* "xxxxxx-xxxxxx" into lo/hi. */
static int parse_range(const char *s, uint32_t *lo, uint32_t *hi)
{
    char a[7], b[7];

    if (strnlen(s, 14) != 13 || s[6] != '-')
        return -1;
    memcpy(a, s, 6);
    a[6] = '\0';
    memcpy(b, s + 7, 6);
    b[6] = '\0';
    if (zvs_parse_hex(a, 6, 6, lo) < 0 || zvs_parse_hex(b, 6, 6, hi) < 0 || *lo > *hi)
        return -1;
    return 0;
}

static void mr_system(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                      unsigned nval)
{
    struct sc_ctx *c = ctx;
    c->sys_ok = parse_range(val->s, &c->vmlan.system_lo, &c->vmlan.system_hi) == 0;
    if (!c->sys_ok)
        bad_value(c, val, "SYSTEM", RULE_RANGE);
}

static void mr_user(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct sc_ctx *c = ctx;
    c->user_ok = parse_range(val->s, &c->vmlan.user_lo, &c->vmlan.user_hi) == 0;
    if (!c->user_ok)
        bad_value(c, val, "USER", RULE_RANGE);
}

static const struct zvs_opdef macidrange_ops[MR_COUNT] = {
    [MR_SYSTEM] = { "SYSTEM", 1, 1, false, 0, mr_system },
    [MR_USER]   = { "USER", 1, 1, false, 0, mr_user },
};

static void vm_macidrange(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                          unsigned nval)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg_vmlan *v = &c->vmlan;

    if (c->cfg->vmlan.macidrange_line != 0)
        already_vmlan(c, kw, "MACIDRANGE", c->cfg->vmlan.macidrange_line);
    c->sys_ok = c->user_ok = false;
    uint64_t given = zvs_operands_parse(macidrange_ops, MR_COUNT, val, nval, "MACIDRANGE",
                                        c, &c->sink);
    uint32_t last = nval > 0 ? val[nval - 1].line : kw->line;
    if (!(given & ZVS_OPBIT(MR_SYSTEM)))
        ERR(c, last, ZVS_MSG_OPERAND_MISSING, "SYSTEM");
    if (!(given & ZVS_OPBIT(MR_USER)))
        ERR(c, last, ZVS_MSG_OPERAND_MISSING, "USER");
    if (!c->sys_ok || !c->user_ok)
        return;
    if (v->system_lo <= v->user_hi && v->user_lo <= v->system_hi) {
        char s[16], u[16];
        snprintf(s, sizeof s, "%06X-%06X", (unsigned)v->system_lo, (unsigned)v->system_hi);
        snprintf(u, sizeof u, "%06X-%06X", (unsigned)v->user_lo, (unsigned)v->user_hi);
        ERR(c, kw->line, ZVS_MSG_MACIDRANGE_OVERLAP, s, u);
        return;
    }
    v->macidrange_line = kw->line;
}

static const struct zvs_opdef vmlan_ops[VM_COUNT] = {
    [VM_MACPREFIX]  = { "MACPREFIX", 1, 1, false, 0, vm_macprefix },
    [VM_MACIDRANGE] = { "MACIDRANGE", 1, 4, true, 0, vm_macidrange },
};

static void vmlan_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                        unsigned npos)
{
    struct sc_ctx *c = ctx;
    stmt_begin(c, NULL);
    c->vmlan = c->cfg->vmlan;
}

static void vmlan_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;

    if (given == 0)
        ERR(c, stmt->tok[0].line, ZVS_MSG_OPERAND_MISSING, "MACPREFIX or MACIDRANGE");
    if (stmt_clean(c))
        c->cfg->vmlan = c->vmlan;
}

/* ---- SYSTEM_IDENTIFIER, SYSTEM_IDENTIFIER_DEFAULT, SYSTEM_USERIDS -------------------- */

static bool sys_name(struct sc_ctx *c, const struct zvs_tok *t, const char *what,
                     char out[ZVS_NAME_MAX + 1])
{
    if (zvs_parse_name(t->s, out) == 0)
        return true;
    bad_value(c, t, what, RULE_NAME);
    return false;
}

static void sysid_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                        unsigned npos)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg_sysid *e = &c->sysid;

    stmt_begin(c, NULL);
    *e = (struct zvs_cfg_sysid){ .line = stmt->tok[0].line };
    e->lpar = zvs_tok_is(&pos[0], "LPAR");
    if (e->lpar) {
        sys_name(c, &pos[1], "LPAR", e->match);
    } else {
        uint32_t v;
        if (strlen(pos[0].s) != 4)
            bad_value(c, &pos[0], "model", "4 characters (the machine type)");
        if (zvs_parse_hex(pos[1].s, 1, 6, &v) < 0)
            bad_value(c, &pos[1], "cpuid", "1-6 hex digits");
    }
    sys_name(c, &pos[2], "sysname", e->sysname);
    check_room(c, e->line, c->cfg->system.nsysid, ZVS_CFG_MAX_SYSIDS, "SYSTEM_IDENTIFIER");
}

static void sysid_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg_system *sy = &c->cfg->system;
    if (stmt_clean(c))
        sy->sysid[sy->nsysid++] = c->sysid;
}

static void sysid_default_begin(void *ctx, const struct zvs_stmt *stmt,
                                const struct zvs_tok *pos, unsigned npos)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg_system *sy = &c->cfg->system;

    stmt_begin(c, NULL);
    c->sysid = (struct zvs_cfg_sysid){ .line = stmt->tok[0].line };
    if (sy->default_line != 0) {
        char line[12];
        num_str(line, sizeof line, sy->default_line);
        ERR(c, stmt->tok[0].line, ZVS_MSG_ALREADY_DEFINED, "SYSTEM_IDENTIFIER_DEFAULT",
            sy->default_name, line);
    }
    sys_name(c, &pos[0], "sysname", c->sysid.sysname);
}

static void sysid_default_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg_system *sy = &c->cfg->system;
    if (stmt_clean(c)) {
        memcpy(sy->default_name, c->sysid.sysname, sizeof sy->default_name);
        sy->default_line = c->sysid.line;
    }
}

enum { SU_OPERATOR, SU_COUNT };

static void su_operator(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                        unsigned nval)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg_system *sy = &c->cfg->system;
    char name[ZVS_NAME_MAX + 1];

    if (sy->operator_line != 0) {
        char line[12];
        num_str(line, sizeof line, sy->operator_line);
        ERR(c, kw->line, ZVS_MSG_ALREADY_DEFINED, "SYSTEM_USERIDS OPERATOR",
            sy->operator_id, line);
        return;
    }
    if (sys_name(c, val, "OPERATOR", name)) {
        memcpy(sy->operator_id, name, sizeof name);
        sy->operator_line = kw->line;
    }
}

static const struct zvs_opdef system_userids_ops[SU_COUNT] = {
    [SU_OPERATOR] = { "OPERATOR", 1, 1, false, 0, su_operator },
};

static void system_userids_begin(void *ctx, const struct zvs_stmt *stmt,
                                 const struct zvs_tok *pos, unsigned npos)
{
    stmt_begin(ctx, NULL);
}

static void system_userids_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;
    if (given == 0)
        ERR(c, stmt->tok[0].line, ZVS_MSG_OPERAND_MISSING, "OPERATOR");
}

/* ---- RESOLVER [WATCH name ..] [SERVER addr ..] [ORDER IPV4 | IPV6 ..] ---------------- */

enum { RS_WATCH, RS_SERVER, RS_ORDER, RS_TIMEOUT, RS_MINTTL, RS_COUNT };

static void rs_watch(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                     unsigned nval)
{
    struct sc_ctx *c = ctx;
    const struct zvs_cfg_resolver *r = &c->cfg->resolver;
    char canon[ZVS_HOSTNAME_MAX + 1], prev[ZVS_HOSTNAME_MAX + 1], line[12];

    for (unsigned i = 0; i < nval; i++) {
        enum zvs_hostname_err e = zvs_hostname_check(val[i].s, strlen(val[i].s), canon);
        if (e != ZVS_HOSTNAME_OK) {
            bad_value(c, &val[i], "WATCH", zvs_hostname_err_text(e));
            continue;
        }
        int k = zvs_cfg_find_watch(r, canon);
        for (unsigned j = 0; j < i && k < 0; j++)
            if (zvs_hostname_check(val[j].s, strlen(val[j].s), prev) == ZVS_HOSTNAME_OK &&
                strcmp(prev, canon) == 0) {
                num_str(line, sizeof line, val[j].line);
                ERR(c, val[i].line, ZVS_MSG_ALREADY_DEFINED, "RESOLVER WATCH", canon, line);
                k = -2;
            }
        if (k >= 0) {
            num_str(line, sizeof line, r->watch_line[k]);
            ERR(c, val[i].line, ZVS_MSG_ALREADY_DEFINED, "RESOLVER WATCH", canon, line);
        }
    }
    check_room(c, kw->line, r->nwatch + nval - 1, ZVS_CFG_MAX_WATCH, "RESOLVER WATCH");
    c->rs_watch = val;
    c->rs_nwatch = nval;
}

static void rs_server(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                      unsigned nval)
{
    struct sc_ctx *c = ctx;
    char line[12];

    if (c->cfg->resolver.server_line != 0) {
        num_str(line, sizeof line, c->cfg->resolver.server_line);
        ERR(c, kw->line, ZVS_MSG_ALREADY_DEFINED, "RESOLVER", "SERVER", line);
    }
    for (unsigned i = 0; i < nval && i < ZVS_CFG_MAX_DNS; i++)
        if (!zvs_res_server_parse(val[i].s, c->rs_server[i], sizeof c->rs_server[i]))
            bad_value(c, &val[i], "SERVER", RULE_SERVER);
    c->rs_nserver = nval;
}

static void rs_order(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                     unsigned nval)
{
    struct sc_ctx *c = ctx;
    char line[12];
    bool v4 = zvs_tok_is(&val[0], "IPV4"), v6 = zvs_tok_is(&val[0], "IPV6");

    if (c->cfg->resolver.order_line != 0) {
        num_str(line, sizeof line, c->cfg->resolver.order_line);
        ERR(c, kw->line, ZVS_MSG_ALREADY_DEFINED, "RESOLVER", "ORDER", line);
    }
    if (!v4 && !v6) {
        bad_value(c, &val[0], "ORDER", RULE_ORDER);
        return;
    }
    if (nval == 2 && !zvs_tok_is(&val[1], v4 ? "IPV6" : "IPV4")) {
        bad_value(c, &val[1], "ORDER", RULE_ORDER);
        return;
    }
    c->rs_order = nval == 2 ? (v4 ? ZVS_RES_ORDER_V4_V6 : ZVS_RES_ORDER_V6_V4)
                            : (v4 ? ZVS_RES_ORDER_V4 : ZVS_RES_ORDER_V6);
    c->rs_order_given = true;
}

/* TIMEOUT ms and MINTTL s: a number in range, once per file. */
static void rs_number(struct sc_ctx *c, const struct zvs_tok *kw, const struct zvs_tok *val,
                      const char *what, uint32_t lo, uint32_t hi, uint32_t prev_line,
                      uint32_t *out)
{
    char line[12], rule[32];
    if (prev_line != 0) {
        num_str(line, sizeof line, prev_line);
        ERR(c, kw->line, ZVS_MSG_ALREADY_DEFINED, "RESOLVER", what, line);
    }
    snprintf(rule, sizeof rule, "%u-%u", (unsigned)lo, (unsigned)hi);
    if (zvs_parse_dec(val->s, lo, hi, out) < 0)
        bad_value(c, val, what, rule);
}

static void rs_timeout(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    struct sc_ctx *c = ctx;
    rs_number(c, kw, val, "TIMEOUT", 100, 30000, c->cfg->resolver.timeout_line,
              &c->rs_timeout_ms);
}

static void rs_minttl(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                      unsigned nval)
{
    struct sc_ctx *c = ctx;
    rs_number(c, kw, val, "MINTTL", 1, 3600, c->cfg->resolver.minttl_line, &c->rs_minttl_s);
}

static const struct zvs_opdef resolver_ops[RS_COUNT] = {
    [RS_WATCH]   = { "WATCH", 1, ZVS_TOK_MAX, true, 0, rs_watch },
    [RS_SERVER]  = { "SERVER", 1, ZVS_CFG_MAX_DNS, true, 0, rs_server },
    [RS_ORDER]   = { "ORDER", 1, 2, true, 0, rs_order },
    [RS_TIMEOUT] = { "TIMEOUT", 1, 1, false, 0, rs_timeout },
    [RS_MINTTL]  = { "MINTTL", 1, 1, false, 0, rs_minttl },
};

static void resolver_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                           unsigned npos)
{
    struct sc_ctx *c = ctx;
    stmt_begin(c, NULL);
    c->rs_watch = NULL;
    c->rs_nwatch = 0;
    c->rs_nserver = 0;
    c->rs_order_given = false;
}

static void resolver_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg_resolver *r = &c->cfg->resolver;

    if (given == 0)
        ERR(c, stmt->tok[0].line, ZVS_MSG_OPERAND_MISSING,
            "WATCH, SERVER, ORDER, TIMEOUT or MINTTL");
    if (!stmt_clean(c))
        return;
    for (unsigned i = 0; i < c->rs_nwatch; i++) {
        zvs_hostname_check(c->rs_watch[i].s, strlen(c->rs_watch[i].s), r->watch[r->nwatch]);
        r->watch_line[r->nwatch++] = c->rs_watch[i].line;
    }
    if (given & ZVS_OPBIT(RS_SERVER)) {
        memcpy(r->server, c->rs_server, sizeof r->server);
        r->nserver = c->rs_nserver;
        r->server_line = stmt->tok[0].line;
    }
    if (c->rs_order_given) {
        r->order = c->rs_order;
        r->order_line = stmt->tok[0].line;
    }
    if (given & ZVS_OPBIT(RS_TIMEOUT)) {
        r->timeout_ms = c->rs_timeout_ms;
        r->timeout_line = stmt->tok[0].line;
    }
    if (given & ZVS_OPBIT(RS_MINTTL)) {
        r->minttl_s = c->rs_minttl_s;
        r->minttl_line = stmt->tok[0].line;
    }
}

/* ---- VXLAN VSWITCH name VNI n LOCAL addr RDEV nnnn | GROUP grp [REMOTE ..] [UDPPORT n]
 *      [GATEWAY a] ---- */

enum { VX_VNI, VX_LOCAL, VX_RDEV, VX_GROUP, VX_REMOTE, VX_UDPPORT, VX_GATEWAY, VX_VLAN,
       VX_NEIGHBOR, VX_MAC, VX_COUNT };

/* An address literal into out (canonical text); its family (4 or 6), 0 when bad. */
static int vx_addr(struct sc_ctx *c, const struct zvs_tok *t, const char *what,
                   char out[ZVS_CFG_ADDR_STR])
{
    int fam = zvs_parse_addr_text(t->s, out, ZVS_CFG_ADDR_STR);

    if (fam < 0) {
        bad_value(c, t, what, RULE_ADDR);
        return 0;
    }
    return fam;
}

static void vx_vni(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                   unsigned nval)
{
    struct sc_ctx *c = ctx;
    if (zvs_parse_dec(val->s, 0, ZVS_CFG_VNI_MAX, &c->vx.vni) < 0)
        bad_value(c, val, "VNI", "0-16777215");
}

static void vx_local(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                     unsigned nval)
{
    struct sc_ctx *c = ctx;
    vx_addr(c, val, "LOCAL", c->vx.local);
}

static void vx_gateway(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    struct sc_ctx *c = ctx;
    vx_addr(c, val, "GATEWAY", c->vx.gateway);
}

static void vx_rdev(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct sc_ctx *c = ctx;
    struct zvs_rdev r;

    if (zvs_rdev_parse(val->s, &r) < 0)
        bad_value(c, val, "RDEV", RULE_RDEV);
    else
        c->vx.rdev.devno = r.devno;     /* fields: r's padding is undefined */
}

static void vx_group(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                     unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (zvs_parse_name(val->s, c->vx.group) < 0)
        bad_value(c, val, "GROUP", RULE_NAME);
}

/* VLAN v: the statement adds a VLAN's VNI (kept in vlan_vid[0] until vxlan_end). */
static void vx_vlan(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct sc_ctx *c = ctx;
    uint32_t vid;

    if (zvs_parse_dec(val->s, 1, 4094, &vid) < 0)
        bad_value(c, val, "VLAN", "1-4094");
    else
        c->vx.vlan_vid[0] = (uint16_t)vid;
}

/* NEIGHBOR addr and MAC m: the statement adds a static neighbour (kept in
 * neighbor_addr[0] and neighbor_mac[0] until vxlan_end). */
static void vx_neighbor(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                        unsigned nval)
{
    struct sc_ctx *c = ctx;
    vx_addr(c, val, "NEIGHBOR", c->vx.neighbor_addr[0]);
}

static void vx_mac(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                   unsigned nval)
{
    struct sc_ctx *c = ctx;

    if (zvs_parse_unicast_mac(val->s, c->vx.neighbor_mac[0]) < 0)
        bad_value(c, val, "MAC", RULE_MAC);
}

static void vx_udpport(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    struct sc_ctx *c = ctx;
    uint32_t port;

    if (zvs_parse_dec(val->s, 1, 65535, &port) < 0)
        bad_value(c, val, "UDPPORT", "1-65535");
    else
        c->vx.udp_port = (uint16_t)port;
}

static void vx_remote(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                      unsigned nval)
{
    struct sc_ctx *c = ctx;

    check_room(c, kw->line, nval - 1, ZVS_CFG_MAX_VXLAN_REMOTES, "VXLAN REMOTE");
    for (unsigned i = 0; i < nval && c->vx.nremote < ZVS_CFG_MAX_VXLAN_REMOTES; i++) {
        char *canon = c->vx.remote[c->vx.nremote];
        enum zvs_hostname_err e = zvs_hostname_check(val[i].s, strlen(val[i].s), canon);
        bool dup = false;

        if (e != ZVS_HOSTNAME_OK) {
            bad_value(c, &val[i], "REMOTE", zvs_hostname_err_text(e));
            continue;
        }
        for (unsigned j = 0; j < c->vx.nremote; j++)
            dup |= strcmp(c->vx.remote[j], canon) == 0;
        if (dup)
            bad_value(c, &val[i], "REMOTE", "remote given twice");
        else
            c->vx.nremote++;
    }
}

static const struct zvs_opdef vxlan_ops[VX_COUNT] = {
    [VX_VNI]     = { "VNI", 1, 1, false, 0, vx_vni },
    [VX_LOCAL]   = { "LOCAL", 1, 1, false, 0, vx_local },
    [VX_RDEV]    = { "RDEV", 1, 1, false, 0, vx_rdev },
    [VX_GROUP]   = { "GROUP", 1, 1, false, 0, vx_group },
    [VX_REMOTE]  = { "REMOTE", 1, ZVS_TOK_MAX, true, 0, vx_remote },
    [VX_UDPPORT] = { "UDPPORT", 1, 1, false, 0, vx_udpport },
    [VX_GATEWAY] = { "GATEWAY", 1, 1, false, 0, vx_gateway },
    [VX_VLAN]    = { "VLAN", 1, 1, false, 0, vx_vlan },
    [VX_NEIGHBOR] = { "NEIGHBOR", 1, 1, false, 0, vx_neighbor },
    [VX_MAC]     = { "MAC", 1, 1, false, 0, vx_mac },
};

static void vxlan_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                        unsigned npos)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg *cfg = c->cfg;

    stmt_begin(c, &pos[0]);
    memset(&c->vx, 0, sizeof c->vx);
    c->vx.line = stmt->tok[0].line;
    c->vx.udp_port = 4789;
    if (zvs_parse_name(pos[0].s, c->vx.vswitch) < 0) {
        bad_value(c, &pos[0], "switchname", RULE_NAME);
        return;
    }
    if (zvs_cfg_find_vswitch(cfg, c->vx.vswitch) < 0)
        ERR(c, pos[0].line, ZVS_MSG_VSWITCH_UNDEFINED, c->vx.vswitch);
}

static struct zvs_cfg_vxlan *vxlan_find(struct zvs_cfg *cfg, const char *vswitch)
{
    for (unsigned i = 0; i < cfg->nvxlan; i++)
        if (strcmp(cfg->vxlan[i].vswitch, vswitch) == 0)
            return &cfg->vxlan[i];
    return NULL;
}

/* The start of a line that adds to the switch's VXLAN statement (VLAN v VNI n, NEIGHBOR
 * a MAC m): an operand of another form conflicts with `form`, each operand of `only` must
 * be given, and the switch's statement must be above. The statement, or NULL when the
 * line is refused; *k the switch. */
static struct zvs_cfg_vxlan *vxlan_line_begin(struct sc_ctx *c, const struct zvs_stmt *stmt,
                                              uint64_t given, uint64_t only, const char *form,
                                              int *k)
{
    struct zvs_cfg_vxlan *vx = vxlan_find(c->cfg, c->vx.vswitch);
    uint32_t line = stmt->tok[0].line;

    *k = zvs_cfg_find_vswitch(c->cfg, c->vx.vswitch);
    for (unsigned op = 0; op < VX_COUNT; op++)     /* the first operand of the other form */
        if ((given & ~only) & ZVS_OPBIT(op)) {
            ERR(c, line, ZVS_MSG_OPERAND_CONFLICT, form, vxlan_ops[op].keyword);
            break;
        }
    for (unsigned op = 0; op < VX_COUNT; op++)
        if ((only & ~given) & ZVS_OPBIT(op))
            ERR(c, line, ZVS_MSG_OPERAND_MISSING, vxlan_ops[op].keyword);
    if (!vx && *k >= 0)
        ERR(c, line, ZVS_MSG_VALUE_INVALID, "VSWITCH", c->vx.vswitch,
            "a switch with its VXLAN VSWITCH statement above");
    return vx && *k >= 0 && stmt_clean(c) ? vx : NULL;
}

/* VXLAN VSWITCH name NEIGHBOR a MAC m: the switch's VXLAN statement gets a static
 * neighbour. */
static void vxlan_neighbor_end(struct sc_ctx *c, const struct zvs_stmt *stmt, uint64_t given)
{
    const uint64_t only = ZVS_OPBIT(VX_NEIGHBOR) | ZVS_OPBIT(VX_MAC);
    uint32_t line = stmt->tok[0].line;
    const char *addr = c->vx.neighbor_addr[0];
    int k;
    struct zvs_cfg_vxlan *vx = vxlan_line_begin(c, stmt, given, only, "NEIGHBOR", &k);

    if (!vx)
        return;
    if (zvs_addr_family(addr) != zvs_addr_family(vx->local))
        ERR(c, line, ZVS_MSG_VALUE_INVALID, "NEIGHBOR", addr, "the family of LOCAL");
    else if (!zvs_addr_is_unicast(addr) || strcmp(addr, vx->local) == 0)
        ERR(c, line, ZVS_MSG_VALUE_INVALID, "NEIGHBOR", addr,
            "a unicast address of another host");
    for (unsigned i = 0; i < vx->nneighbor; i++)
        if (strcmp(vx->neighbor_addr[i], addr) == 0)
            ERR(c, line, ZVS_MSG_VALUE_INVALID, "NEIGHBOR", addr,
                "an address without a static neighbor");
    check_room(c, line, vx->nneighbor, ZVS_CFG_MAX_VXLAN_NEIGHBORS, "VXLAN NEIGHBOR");
    if (stmt_clean(c)) {
        memcpy(vx->neighbor_addr[vx->nneighbor], addr, sizeof vx->neighbor_addr[0]);
        memcpy(vx->neighbor_mac[vx->nneighbor++], c->vx.neighbor_mac[0], 6);
    }
}

/* VXLAN VSWITCH name VLAN v VNI n: the switch's VXLAN statement gets VLAN v's VNI. */
static void vxlan_vlan_end(struct sc_ctx *c, const struct zvs_stmt *stmt, uint64_t given)
{
    const uint64_t only = ZVS_OPBIT(VX_VLAN) | ZVS_OPBIT(VX_VNI);
    uint32_t line = stmt->tok[0].line;
    uint16_t vid = c->vx.vlan_vid[0];
    bool dup = false;
    char num[12];
    int k;
    struct zvs_cfg_vxlan *vx = vxlan_line_begin(c, stmt, given, only, "VLAN", &k);

    if (!vx)
        return;
    const struct zvs_cfg_vswitch *sw = &c->cfg->vswitch[k];
    num_str(num, sizeof num, vid);
    if (!sw->vlan_aware)
        ERR(c, line, ZVS_MSG_VALUE_INVALID, "VLAN", num, "a VLAN AWARE switch");
    else if (vid == sw->native_vid)
        ERR(c, line, ZVS_MSG_VALUE_INVALID, "VLAN", num, "not the NATIVE VLAN, whose VNI "
            "is the statement's");
    dup = c->vx.vni == vx->vni;
    for (unsigned i = 0; i < vx->nvlan; i++) {
        if (vx->vlan_vid[i] == vid)
            ERR(c, line, ZVS_MSG_VALUE_INVALID, "VLAN", num, "a VLAN without a VNI");
        dup |= vx->vlan_vni[i] == c->vx.vni;
    }
    num_str(num, sizeof num, c->vx.vni);
    if (dup)
        ERR(c, line, ZVS_MSG_VALUE_INVALID, "VNI", num, "a VNI no other VLAN has");
    check_room(c, line, vx->nvlan, ZVS_CFG_MAX_VXLAN_VLANS, "VXLAN VLAN");
    if (stmt_clean(c)) {
        vx->vlan_vid[vx->nvlan] = vid;
        vx->vlan_vni[vx->nvlan++] = c->vx.vni;
    }
}


static void vxlan_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;
    const struct zvs_cfg_vxlan *had = vxlan_find(c->cfg, c->vx.vswitch);

    if (given & ZVS_OPBIT(VX_VLAN)) {
        vxlan_vlan_end(c, stmt, given);
        return;
    }
    if (given & (ZVS_OPBIT(VX_NEIGHBOR) | ZVS_OPBIT(VX_MAC))) {
        vxlan_neighbor_end(c, stmt, given);
        return;
    }
    if (had) {
        char line[12];
        num_str(line, sizeof line, had->line);
        ERR(c, stmt->tok[0].line, ZVS_MSG_ALREADY_DEFINED, "VXLAN VSWITCH", c->vx.vswitch, line);
    }
    check_room(c, stmt->tok[0].line, c->cfg->nvxlan, ZVS_CFG_MAX_VXLAN, "VXLAN VSWITCH");
    const uint64_t need = ZVS_OPBIT(VX_VNI) | ZVS_OPBIT(VX_LOCAL);
    const uint64_t under = ZVS_OPBIT(VX_RDEV) | ZVS_OPBIT(VX_GROUP);
    int vs = zvs_cfg_find_vswitch(c->cfg, c->vx.vswitch);

    if ((given & need) != need || !(given & under))
        ERR(c, stmt->tok[0].line, ZVS_MSG_OPERAND_MISSING, "VNI, LOCAL and RDEV or GROUP");
    if ((given & under) == under)
        ERR(c, stmt->tok[0].line, ZVS_MSG_OPERAND_CONFLICT, "RDEV", "GROUP");
    /* The group is the switch's: the switch joins its members and runs its LACP. */
    if (c->vx.group[0] && vs >= 0 && strcmp(c->cfg->vswitch[vs].group, c->vx.group) != 0)
        ERR(c, stmt->tok[0].line, ZVS_MSG_VALUE_INVALID, "GROUP", c->vx.group,
            "the switch's own GROUP");
    if (c->vx.local[0] && c->vx.gateway[0] &&
        zvs_addr_family(c->vx.local) != zvs_addr_family(c->vx.gateway))
        ERR(c, stmt->tok[0].line, ZVS_MSG_VALUE_INVALID, "GATEWAY", c->vx.gateway,
            "the family of LOCAL");
    for (unsigned i = 0; i < c->vx.nremote && c->vx.local[0]; i++) {
        int fam = zvs_addr_family(c->vx.remote[i]);

        if (fam && fam != zvs_addr_family(c->vx.local))
            ERR(c, stmt->tok[0].line, ZVS_MSG_VALUE_INVALID, "REMOTE", c->vx.remote[i],
                "the family of LOCAL");
    }
    if (stmt_clean(c))
        c->cfg->vxlan[c->cfg->nvxlan++] = c->vx;
}

/* ---- IVL MEMBER sysname INDEX n ADDRESS addr|hostname --------------------------------- */

enum { IM_INDEX, IM_ADDRESS, IM_COUNT };

static void im_index(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                     unsigned nval)
{
    struct sc_ctx *c = ctx;
    uint32_t v;
    if (zvs_parse_dec(val->s, 1, ZVS_CFG_MAX_IVL_MEMBERS, &v) < 0)
        bad_value(c, val, "INDEX", "1-3");
    else
        c->ivm.index = (uint8_t)v;
}

static void im_address(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    struct sc_ctx *c = ctx;
    enum zvs_hostname_err e = zvs_hostname_check(val->s, strlen(val->s), c->ivm.address);
    if (e != ZVS_HOSTNAME_OK)
        bad_value(c, val, "ADDRESS", zvs_hostname_err_text(e));
}

static const struct zvs_opdef ivl_member_ops[IM_COUNT] = {
    [IM_INDEX]   = { "INDEX", 1, 1, false, 0, im_index },
    [IM_ADDRESS] = { "ADDRESS", 1, 1, false, 0, im_address },
};

static void ivl_member_begin(void *ctx, const struct zvs_stmt *stmt,
                             const struct zvs_tok *pos, unsigned npos)
{
    struct sc_ctx *c = ctx;
    const struct zvs_cfg_ivl *d = &c->cfg->ivl;
    char line[12];

    stmt_begin(c, &pos[0]);
    memset(&c->ivm, 0, sizeof c->ivm);
    c->ivm.line = stmt->tok[0].line;
    if (zvs_parse_name(pos[0].s, c->ivm.sysname) < 0) {
        bad_value(c, &pos[0], "sysname", RULE_NAME);
        return;
    }
    for (unsigned i = 0; i < d->nmember; i++)
        if (strcmp(d->member[i].sysname, c->ivm.sysname) == 0) {
            num_str(line, sizeof line, d->member[i].line);
            ERR(c, pos[0].line, ZVS_MSG_ALREADY_DEFINED, "IVL MEMBER", c->ivm.sysname, line);
            return;
        }
    check_room(c, pos[0].line, d->nmember, ZVS_CFG_MAX_IVL_MEMBERS, "IVL MEMBER");
}

static void ivl_member_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg_ivl *d = &c->cfg->ivl;
    char line[12], idx[4];

    if (!(given & ZVS_OPBIT(IM_INDEX)))
        ERR(c, c->ivm.line, ZVS_MSG_OPERAND_MISSING, "INDEX");
    if (!(given & ZVS_OPBIT(IM_ADDRESS)))
        ERR(c, c->ivm.line, ZVS_MSG_OPERAND_MISSING, "ADDRESS");
    for (unsigned i = 0; i < d->nmember && c->ivm.index != 0; i++)
        if (d->member[i].index == c->ivm.index) {
            num_str(line, sizeof line, d->member[i].line);
            num_str(idx, sizeof idx, c->ivm.index);
            ERR(c, c->ivm.line, ZVS_MSG_ALREADY_DEFINED, "IVL MEMBER INDEX", idx, line);
        }
    if (stmt_clean(c))
        memcpy(&d->member[d->nmember++], &c->ivm, sizeof c->ivm);
}

/* ---- IVL HEARTBEAT TIMEOUT seconds ---------------------------------------------------- */

enum { IH_TIMEOUT, IH_COUNT };

static void ih_timeout(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    struct sc_ctx *c = ctx;
    uint32_t v;
    if (zvs_parse_dec(val->s, 1, ZVS_CFG_HEARTBEAT_MAX, &v) < 0)
        bad_value(c, val, "TIMEOUT", "1-300 seconds");
    else
        c->ivl_hb_s = (uint16_t)v;
}

static const struct zvs_opdef ivl_heartbeat_ops[IH_COUNT] = {
    [IH_TIMEOUT] = { "TIMEout", 1, 1, false, 0, ih_timeout },
};

static void ivl_heartbeat_begin(void *ctx, const struct zvs_stmt *stmt,
                                const struct zvs_tok *pos, unsigned npos)
{
    struct sc_ctx *c = ctx;
    const struct zvs_cfg_ivl *d = &c->cfg->ivl;
    char line[12];

    stmt_begin(c, NULL);
    c->ivl_hb_s = 0;
    if (d->heartbeat_line != 0) {
        num_str(line, sizeof line, d->heartbeat_line);
        ERR(c, stmt->tok[0].line, ZVS_MSG_ALREADY_DEFINED, "IVL", "HEARTBEAT", line);
    }
}

static void ivl_heartbeat_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct sc_ctx *c = ctx;
    struct zvs_cfg_ivl *d = &c->cfg->ivl;

    if (!(given & ZVS_OPBIT(IH_TIMEOUT)))
        ERR(c, stmt->tok[0].line, ZVS_MSG_OPERAND_MISSING, "TIMEOUT");
    if (!stmt_clean(c))
        return;
    d->heartbeat_s = c->ivl_hb_s;
    d->heartbeat_line = stmt->tok[0].line;
}

/* ---- operands shared with the CP commands --------------------------------------------- */

#define COMMAND_LINE 1u

/* The command's tokens as statement tokens, all on "line 1": the operand callbacks take
 * line 0 for "not given" (native_line), and messages show no line anyway (no file name
 * in the sink). False after reporting when there are more than a statement may hold
 * (`lead` tokens, e.g. DEFINE VSWITCH name, precede them in the statement). */
static bool command_toks(struct sc_ctx *c, const char *stmt_word, unsigned lead,
                         const char *const *tok, unsigned ntok, struct zvs_tok *out)
{
    if (ntok > ZVS_TOK_MAX - lead) {
        char lim[12];
        num_str(lim, sizeof lim, ZVS_TOK_MAX);
        ERR(c, COMMAND_LINE, ZVS_MSG_STMT_TOO_LONG, stmt_word, lim);
        return false;
    }
    for (unsigned i = 0; i < ntok; i++)
        out[i] = (struct zvs_tok){ .s = tok[i], .line = COMMAND_LINE };
    return true;
}

int zvs_cfg_parse_vswitch_def(const char *name, const char *const *tok, unsigned ntok,
                              struct zvs_cfg_vswitch *out, struct zvs_msg_list *msgs)
{
    struct zvs_tok t[ZVS_TOK_MAX];
    struct zvs_tok name_tok = { .s = name, .line = COMMAND_LINE };
    struct sc_ctx c;

    memset(&c, 0, sizeof c);
    c.sink.list = msgs;
    stmt_begin(&c, &name_tok);
    dv_reset(&c, 0);
    if (zvs_parse_name(name, c.sw.name) < 0)
        bad_value(&c, &name_tok, "switchname", RULE_NAME);
    if (command_toks(&c, "DEFINE", 3, tok, ntok, t)) {
        uint64_t given = zvs_operands_parse(define_vswitch_ops, DV_COUNT, t, ntok,
                                            "DEFINE VSWITCH", &c, &c.sink);
        dv_check(&c);
        dv_type_check(&c, given);
    }
    if (!stmt_clean(&c))
        return -EINVAL;
    memcpy(out, &c.sw, sizeof *out);
    return 0;
}

int zvs_cfg_parse_grant(const char *stmt, const char *const *tok, unsigned ntok,
                        struct zvs_cfg_grant *out, struct zvs_msg_list *msgs)
{
    struct zvs_tok t[ZVS_TOK_MAX];
    struct sc_ctx c;

    memset(&c, 0, sizeof c);
    c.sink.list = msgs;
    stmt_begin(&c, NULL);
    memset(&c.grant, 0, sizeof c.grant);
    if (command_toks(&c, "MODIFY", 3, tok, ntok, t)) {
        uint64_t given = zvs_operands_parse(modify_vswitch_ops, MV_COUNT, t, ntok, stmt, &c,
                                            &c.sink);
        if (!(given & ZVS_OPBIT(MV_GRANT)))
            ERR(&c, COMMAND_LINE, ZVS_MSG_OPERAND_MISSING, "GRANT");
    }
    if (!stmt_clean(&c))
        return -EINVAL;
    memcpy(out, &c.grant, sizeof *out);
    return 0;
}

/* ---- the statement table ------------------------------------------------------------- */

static const struct zvs_stmtdef sysconfig_stmts[] = {
    { { "VMLAN", NULL }, "VMLAN", 0, 0, { NULL },
      vmlan_ops, VM_COUNT, vmlan_begin, vmlan_end },
    { { "DEFine", "VSWITCH" }, "DEFINE VSWITCH", 1, 1, { "switchname" },
      define_vswitch_ops, DV_COUNT, define_vswitch_begin, define_vswitch_end },
    { { "MODIFY", "VSWITCH" }, "MODIFY VSWITCH", 1, 1, { "switchname" },
      modify_vswitch_ops, MV_COUNT, modify_vswitch_begin, modify_vswitch_end },
    { { "RDEVICE", NULL }, "RDEVICE", 1, 1, { "rdev" },
      rdevice_ops, RD_COUNT, rdevice_begin, rdevice_end },
    { { "SET", "PORT" }, "SET PORT GROUP", 2, 2, { "GROUP", "groupname" },
      set_port_ops, PG_COUNT, set_port_begin, set_port_end },
    /* SYSTEM_IDentifier before its _DEFault: "SYSTEM_ID" abbreviates both, and the
     * first table that matches a statement takes it. */
    { { "SYSTEM_IDentifier", NULL }, "SYSTEM_IDENTIFIER", 3, 3,
      { "LPAR or model", "lparname or cpuid", "sysname" }, NULL, 0, sysid_begin, sysid_end },
    { { "SYSTEM_IDentifier_DEFault", NULL }, "SYSTEM_IDENTIFIER_DEFAULT", 1, 1,
      { "sysname" }, NULL, 0, sysid_default_begin, sysid_default_end },
    { { "SYSTEM_USERIDS", NULL }, "SYSTEM_USERIDS", 0, 0, { NULL },
      system_userids_ops, SU_COUNT, system_userids_begin, system_userids_end },
    { { "RESOLVER", NULL }, "RESOLVER", 0, 0, { NULL },
      resolver_ops, RS_COUNT, resolver_begin, resolver_end },
    { { "VXLAN", "VSWITCH" }, "VXLAN VSWITCH", 1, 1, { "switchname" },
      vxlan_ops, VX_COUNT, vxlan_begin, vxlan_end },
    { { "IVL", "MEMBER" }, "IVL MEMBER", 1, 1, { "sysname" },
      ivl_member_ops, IM_COUNT, ivl_member_begin, ivl_member_end },
    { { "IVL", "HEARTBEAT" }, "IVL HEARTBEAT", 0, 0, { NULL },
      ivl_heartbeat_ops, IH_COUNT, ivl_heartbeat_begin, ivl_heartbeat_end },
};

int zvs_cfg_parse_sysconfig_buf(struct zvs_cfg *cfg, const char *name, const char *buf,
                                size_t len)
{
    snprintf(cfg->sysconfig_file, sizeof cfg->sysconfig_file, "%s",
             name != NULL ? name : "SYSTEM CONFIG");
    struct sc_ctx c = {
        .cfg = cfg,
        .sink = { .list = &cfg->msgs, .file = cfg->sysconfig_file },
    };
    unsigned before = cfg->msgs.errors;
    int rc = zvs_parse_text(buf, len, sysconfig_stmts,
                            sizeof sysconfig_stmts / sizeof sysconfig_stmts[0], &c, &c.sink);
    return rc < 0 ? rc : (int)(cfg->msgs.errors - before);
}

int zvs_cfg_parse_sysconfig_text(struct zvs_cfg *cfg, const char *name, const char *text)
{
    return zvs_cfg_parse_sysconfig_buf(cfg, name, text, strlen(text));
}
