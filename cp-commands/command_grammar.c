/* CP command grammar: the table of commands and its self-check.
 *
 * Owns: the table `zvs_cmd_table` (for each command of command.h the leading keywords
 * with their minimum abbreviations, the privilege classes, the title used in messages,
 * then the operand steps), the value keywords (zvs_kw_*), zvs_cmd_find_def and
 * zvs_cmd_grammar_check. The parser (command.c) and the canonical text (command_format.c)
 * read the table; nothing here parses a line.
 *
 * Grammar (upper case = the minimum abbreviation, lower case = letters that may follow).
 * Sources, z/VM 7.4 level where the page was found at it: [SV] "SET VSWITCH", z/VM 7.2 CP
 * Commands and Utilities Reference (ibm.com/docs/en/zvm/7.2?topic=commands-set-vswitch);
 * [DV] "DEFINE VSWITCH Statement", z/VM 7.4 CP Planning and Administration
 * (ibm.com/docs/en/zvm/7.4.0?topic=file-define-vswitch-statement); [PG] "SET PORT GROUP",
 * z/VM 7.3 CP Commands and Utilities Reference (its operand list: JOIn, the defaults "LACP
 * ACTIVE EXClusive INTERVAL 300", "SET PORT groupname DELETE"), with issue 15's reading
 * of that diagram for LEAve, INTerval, ACTive, INACTive; [CO] "COUPLE", z/VM 7.3. A
 * keyword marked (ours) has no diagram we could read: our abbreviation stays.
 *   DEFine VSWITCH name [operands]                 B   [DV] the SYSTEM CONFIG statement's
 *        operands, parsed by its own table (zvs_cfg_parse_vswitch_def, sysconfig.c)
 *   Set VSWITCH name GRAnt userid [PORTType ACCESS|TRUNK] [VLAN vidset]      B   [SV] the
 *        MODIFY VSWITCH statement's operands (zvs_cfg_parse_grant)
 *   Set VSWITCH name REVoke userid                 B   [SV]
 *   Set VSWITCH name [UPLINK] RDEV dev [dev [dev]] | RDEV NONE              B   [SV]
 *   Set VSWITCH name [UPLINK] GROup grp | NOGroup  B   [SV]
 *   Set VSWITCH name [UPLINK] CONnect | DISCONnect B   [SV]
 *   Set VSWITCH name QUEuestorage n | nM           B   [SV] 1-8 (the report's z/VM 5.3
 *                                                      range; 7.4 adds a min/max form)
 *   Set VSWITCH name ISOLation ON | OFF            B   [SV]
 *   Set VSWITCH name MACProtect ON | OFF | UNSPECified                      B   [SV]
 *   Set VSWITCH name COUNTERS CLEAR [UPLINK | BRIDGEport | ALL] [DATA | DISCARDed |
 *        ERRORs]                                   B   [SV]; default ALL, every kind
 *   Set VSWITCH name [UPLINK] SWITCHOVER [AVAILABLE | RDEV dev]             B   [SV]
 *   Set VSWITCH name IVLPort HEARTbeat TIMEout s   B   [SV] 1-300 seconds (our bound);
 *        the TYPE IVL switch only (cfg_apply_vswitch.c: ZVSIVL1262E). The other IVLPort
 *        options (VLAN, PINGMAC, RESET) are not taken
 *   Set VSWITCH name VXLAN REMOTE ADD | DELETE host  B   (ours, keywords in full: IBM's
 *        SET VSWITCH has no VXLAN) a remote VTEP of the VXLAN VSWITCH statement, host an
 *        address or a host name (names/name_syntax.h)
 *   Set VSWITCH name VXLAN VNI n                   B   (ours) 0-16777215
 *   Set VSWITCH name VXLAN VLAN v VNI n | DELETE   B   (ours) v 1-4094: a VLAN AWARE
 *        switch's VLAN v gets VNI n, or loses its VNI
 *   Set VSWITCH name VXLAN NEIGHBOR addr MAC mac | DELETE   B   (ours, keywords in full) a
 *        static underlay neighbour: addr an IPv4 or IPv6 address, mac xx-xx-xx-xx-xx-xx
 *   DETach VSWitch name                            B   (ours)
 *   Set PORT GROUP grp JOIn rdev [rdev ...]        B   [PG] 1-8 devices, nnnn or nnnn.Pn
 *   Set PORT GROUP grp LEAve rdev [rdev ...]       B   [PG]
 *   Set PORT GROUP grp LACP ACTive | INACTive [EXClusive | SHARED]          B   [PG];
 *        SHARED: the IVL domain's group (cfg_apply_group.c: ZVSIVL1260E, 1261E); also a
 *        SYSTEM CONFIG operand (ours: sysconfig.c, the same rule, ZVSCFG1078E, 1079E)
 *   Set PORT GROUP grp INTerval n | OFF            B   [PG] 1-9990, rounded up to 30s
 *   Set PORT GROUP grp DELETE, Set PORT grp DELETE B   [PG] (DELETE in full: ours)
 *   Set PORT GROUP grp POLICY LOAD [TOTAL | OUTBOUND] | LBT [n]             B   (ours,
 *        keywords in full) as SYSTEM CONFIG's POLICY (sysconfig.c); n 1-100, default 75
 *   DEFine NIC [USERID u] vdev [QDIO] [DEVices n]  G   vdev 1-4 hex digits; n 3-3072
 *   DETach NIC [USERID u] vdev                     G
 *   COUPle [USERID u] vdev [TO] SYSTEM name        G   [CO]; USERID is ours. Another
 *                                                      owner (a guest LAN) is refused:
 *                                                      HCPxxx002E naming it
 *   UNCOUPle [USERID u] vdev                       G
 *   Query NIC [USERID u] [vdev | ALL] [DETails]    G
 *   Query VMLAN                                    G
 *   Query PORT GROUP [grp | ALL] [ACTive] [DETails] B  ACTIVE: groups a switch uses;
 *                                                      DETAILS changes nothing (ours)
 *   Query LACP [grp | ALL] [DETails]               B   zvswitch extension
 *   Query VSWitch [name | ALL] [DETails | ACCesslist | ACTive | CONTRoller |
 *        PROMiscuous]                              B or G  CONTROLLER, PROMISCUOUS: what
 *                                                      s390-tools' dbginfo.sh issues; the
 *                                                      abbreviations are ours
 *   Set LACP rdev DROPRX | DROPTX ON | OFF         A   zvswitch extension (fault drills)
 *   Set LACP rdev DELAYTX ms                       A   0-10000
 *   RESOLVER WATCH | UNWATCH name                  B   (ours, keywords in full): name
 *        a host name (RFC 1035/1123, names/name_syntax.h) or an address literal
 *   Query RESOLVER                                 B   (ours, in full)
 * The machine commands (Hercules machines as z/VM guests), sources [SG] "SIGNAL", z/VM 7.1
 * CP Commands and Utilities Reference (ibm.com/support/knowledgecenter/en/SSB27U_7.1.0/
 * com.ibm.zvm.v710.hcpb7/signl.htm), [XA] "XAUTOLOG", z/VM 7.3 CP Commands and Utilities
 * Reference (ibm.com/docs/en/zvm/7.3.0?topic=commands-xautolog):
 *   XAUTOlog userid                                A, B  [XA] shows XAUTOLog; XAUTO, the
 *                                                      form accepted since issue 13, stays
 *   FORCE userid [IMMEdiate]                       A     (ours: diagram not read)
 *   SIGnal SHUTdown [USER] userid | ALL [WITHIN s] A, C  [SG] USER, ALL, WITHIN in full;
 *        s 1-32767, default 300 (ours); a token that is not SHUTDOWN is HCPxxx002E
 *   SEND userid [text]                             A, B, C  (ours); text: the rest of the
 *                                                      line as typed
 *   Query NAMes                                    G     (ours)
 *   Query USERs userid                             G     (ours)
 *   Query CONSLOG userid [n]                       A, B  zvswitch extension; n 1-500,
 *                                                      default 20
 * What z/VM automation issues (xCAT, s390-tools, networking-zvm, Feilong; cp-commands/
 * README.md names the pages): [DN] the DEFINE NIC diagram was not read; TYPE QDIO is the
 * form the clients type and DIRMAINT's NICDEF spells (`TYPE HIPERsockets | QDIO`); our
 * minimums (no diagram read) apply to these QUERY operands:
 *   DEFine NIC ... [QDIO | TYPE QDIO]              HIPERSOCKETS (bare or after TYPE) is
 *        refused as an invalid option (HCPCMD003E): zvswitch emulates QDIO adapters only
 *   Query USERID                                   G     `userid AT system`
 *   Query CPLEVel                                  G     the z/VM level emulated
 *   Query Virtual NIC [vdev | ALL] [DETails]       G     the issuer's own NICs
 *   Query LAN [name | ALL] [OWNER owner] [DETails | ACCesslist | ACTive]   G   VSWITCHes
 *        as CP lists them; a level shows what QUERY VSWITCH's does
 * The abbreviations of DEFINE NIC, DETACH, COUPLE, UNCOUPLE and QUERY's operands are ours
 * (no diagram read); Q and DEF/DET are CP's well-known minimums.
 * USERID u also needs class B (ZVSCMD1100E "<command> USERID requires privilege class B").
 * How a line is read against this table (the optional name position, blanks, the order
 * of checks) is the parser's, described at the top of command.c.
 *
 * Hazards: keyword alternatives at one position must not share an accepted abbreviation,
 * nor may an optional step's keywords be readable as the value the position after it
 * takes (zvs_cmd_grammar_check proves both for the table; a unit test runs it).
 */
#include "cp-commands/command_impl.h"

#include <errno.h>
#include <string.h>

/* ---- grammar table ------------------------------------------------------------------- */

const struct kw zvs_kw_all = { "ALL", 3 };
const struct kw zvs_kw_active = { "ACTIVE", 3 };
const struct kw zvs_kw_inactive = { "INACTIVE", 5 };
const struct kw zvs_kw_on = { "ON", 2 };
const struct kw zvs_kw_off = { "OFF", 3 };
const struct kw zvs_kw_unspecified = { "UNSPECIFIED", 6 };     /* [SV] UNSPECified */
const struct kw zvs_kw_none = { "NONE", 4 };
const struct kw zvs_kw_clear = { "CLEAR", 5 };
const struct kw zvs_kw_bridgeport = { "BRIDGEPORT", 6 };        /* [SV] BRIDGEport */
const struct kw zvs_kw_data = { "DATA", 4 };                    /* [SV] */
const struct kw zvs_kw_discarded = { "DISCARDED", 7 };          /* [SV] DISCARDed */
const struct kw zvs_kw_errors = { "ERRORS", 5 };                /* [SV] ERRORs */
const struct kw zvs_kw_exclusive = { "EXCLUSIVE", 3 };          /* [PG] EXClusive */
const struct kw zvs_kw_shared = { "SHARED", 6 };                /* (ours: diagram not read) */
const struct kw zvs_kw_heartbeat = { "HEARTBEAT", 5 };          /* [SV] HEARTbeat */
const struct kw zvs_kw_timeout = { "TIMEOUT", 4 };              /* [SV] TIMEout */
const struct kw zvs_kw_uplink = { "UPLINK", 6 };
const struct kw zvs_kw_available = { "AVAILABLE", 9 };         /* [SV] in full */
const struct kw zvs_kw_rdev = { "RDEV", 4 };
const struct kw zvs_kw_userid = { "USERID", 6 };
const struct kw zvs_kw_system = { "SYSTEM", 6 };
const struct kw zvs_kw_load = { "LOAD", 4 };                    /* POLICY's: ours, in full */
const struct kw zvs_kw_lbt = { "LBT", 3 };
const struct kw zvs_kw_total = { "TOTAL", 5 };
const struct kw zvs_kw_outbound = { "OUTBOUND", 8 };
const struct kw zvs_kw_user = { "USER", 4 };                    /* [SG] in full */
const struct kw zvs_kw_qdio = { "QDIO", 4 };                    /* [DN] */
const struct kw zvs_kw_remote = { "REMOTE", 6 };                /* VXLAN's: ours, in full */
const struct kw zvs_kw_add = { "ADD", 3 };
const struct kw zvs_kw_delete = { "DELETE", 6 };
const struct kw zvs_kw_vni = { "VNI", 3 };
const struct kw zvs_kw_vlan = { "VLAN", 4 };
const struct kw zvs_kw_neighbor = { "NEIGHBOR", 8 };            /* VXLAN's: ours, in full */
const struct kw zvs_kw_mac = { "MAC", 3 };

#define SET      { "SET", 1 }                /* [SV] "Set" */
#define QUERY    { "QUERY", 1 }
#define DEFINE   { "DEFINE", 3 }
#define DETACH   { "DETACH", 3 }
#define PORT     { "PORT", 4 }
#define GROUP    { "GROUP", 5 }
#define LACP     { "LACP", 4 }
#define VSWITCH  { "VSWITCH", 3 }            /* QUERY, DETACH: ours */
#define VSWITCHF { "VSWITCH", 7 }            /* [DV] [SV]: in full after DEFINE and SET */
#define NIC      { "NIC", 3 }
#define DETAILS  { "DETAILS", 3 }

/* An optional [DETAILS] that sets cmd.details. */
#define STEP_DETAILS { .kind = STEP_CHOICE, .optional = true, .field = OP_DETAILS, \
                       .nalts = 1, .alts = { { DETAILS, 1, VAL_NONE, false } } }

const struct cmddef zvs_cmd_table[] = {
    { ZVS_CMD_SET_PORT_GROUP, "B", "SET PORT GROUP", 3, { SET, PORT, GROUP }, 2, {
        { .kind = STEP_NAME },
        { .kind = STEP_CHOICE, .field = OP_PG, .nalts = 6, .alts = {
            { { "JOIN", 3 },     ZVS_CMD_PG_JOIN,     VAL_RDEVS, false },
            { { "LEAVE", 3 },    ZVS_CMD_PG_LEAVE,    VAL_RDEVS, false },
            { { "LACP", 4 },     ZVS_CMD_PG_LACP,     VAL_ACTIVE, false },
            { { "INTERVAL", 3 }, ZVS_CMD_PG_INTERVAL, VAL_INTERVAL, false },
            { { "DELETE", 6 },   ZVS_CMD_PG_DELETE,   VAL_NONE, false },
            { { "POLICY", 6 },   ZVS_CMD_PG_POLICY,   VAL_POLICY, false },  /* ours */
        } },
    } },
    { ZVS_CMD_QUERY_PORT_GROUP, "B", "QUERY PORT GROUP", 3, { QUERY, PORT, GROUP }, 3, {
        { .kind = STEP_NAME_OPT },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_LEVEL, .nalts = 1, .alts = {
            { { "ACTIVE", 3 }, ZVS_CMD_LEVEL_ACTIVE, VAL_NONE, false },
        } },
        STEP_DETAILS,
    } },
    { ZVS_CMD_QUERY_LACP, "B", "QUERY LACP", 2, { QUERY, LACP }, 2, {
        { .kind = STEP_NAME_OPT },
        STEP_DETAILS,
    } },
    { ZVS_CMD_QUERY_VSWITCH, "BG", "QUERY VSWITCH", 2, { QUERY, VSWITCH }, 2, {
        { .kind = STEP_NAME_OPT },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_LEVEL, .nalts = 5, .alts = {
            { DETAILS,              ZVS_CMD_LEVEL_DETAILS,    VAL_NONE, false },
            { { "ACCESSLIST", 3 },  ZVS_CMD_LEVEL_ACCESSLIST, VAL_NONE, false },
            { { "ACTIVE", 3 },      ZVS_CMD_LEVEL_ACTIVE,     VAL_NONE, false },
            { { "CONTROLLER", 5 },  ZVS_CMD_LEVEL_CONTROLLER, VAL_NONE, false },
            { { "PROMISCUOUS", 4 }, ZVS_CMD_LEVEL_PROMISCUOUS, VAL_NONE, false },
        } },
    } },
    { ZVS_CMD_SET_LACP_FAULT, "A", "SET LACP", 2, { SET, LACP }, 2, {
        { .kind = STEP_RDEV },
        { .kind = STEP_CHOICE, .field = OP_FAULT, .nalts = 3, .alts = {
            { { "DROPRX", 6 },  ZVS_CMD_FAULT_DROPRX,  VAL_FAULT_ONOFF, false },
            { { "DROPTX", 6 },  ZVS_CMD_FAULT_DROPTX,  VAL_FAULT_ONOFF, false },
            { { "DELAYTX", 7 }, ZVS_CMD_FAULT_DELAYTX, VAL_MS, false },
        } },
    } },
    { ZVS_CMD_DEFINE_VSWITCH, "B", "DEFINE VSWITCH", 2, { DEFINE, VSWITCHF }, 2, {
        { .kind = STEP_NAME },
        { .kind = STEP_VSWITCH_DEF },
    } },
    { ZVS_CMD_SET_VSWITCH, "B", "SET VSWITCH", 2, { SET, VSWITCHF }, 2, {
        { .kind = STEP_NAME },
        { .kind = STEP_CHOICE, .field = OP_VS, .nalts = 14, .alts = {
            { { "GRANT", 3 },        ZVS_CMD_VS_GRANT,          VAL_GRANT, false },
            { { "REVOKE", 3 },       ZVS_CMD_VS_REVOKE,         VAL_USERID, false },
            { { "RDEV", 4 },         ZVS_CMD_VS_RDEV,           VAL_UPLINK_RDEVS, true },
            { { "GROUP", 3 },        ZVS_CMD_VS_GROUP,          VAL_GROUP, true },
            { { "NOGROUP", 3 },      ZVS_CMD_VS_NOGROUP,        VAL_NONE, true },
            { { "CONNECT", 3 },      ZVS_CMD_VS_CONNECT,        VAL_NONE, true },
            { { "DISCONNECT", 6 },   ZVS_CMD_VS_DISCONNECT,     VAL_NONE, true },
            { { "QUEUESTORAGE", 3 }, ZVS_CMD_VS_QUEUESTORAGE,   VAL_QUEUESTORAGE, false },
            { { "ISOLATION", 4 },    ZVS_CMD_VS_ISOLATION,      VAL_ONOFF, false },
            { { "MACPROTECT", 4 },   ZVS_CMD_VS_MACPROTECT,     VAL_MACPROTECT, false },
            { { "COUNTERS", 8 },     ZVS_CMD_VS_COUNTERS_CLEAR, VAL_COUNTERS, false },
            { { "SWITCHOVER", 10 },  ZVS_CMD_VS_SWITCHOVER,     VAL_SWITCHOVER, true },
            { { "IVLPORT", 4 },      ZVS_CMD_VS_IVLPORT_HEARTBEAT, VAL_HEARTBEAT, false },
            { { "VXLAN", 5 },        ZVS_CMD_VS_VXLAN,          VAL_VXLAN, false },     /* ours */
        } },
    } },
    { ZVS_CMD_DETACH_VSWITCH, "B", "DETACH VSWITCH", 2, { DETACH, VSWITCH }, 1, {
        { .kind = STEP_NAME },
    } },
    { ZVS_CMD_DEFINE_NIC, "G", "DEFINE NIC", 2, { DEFINE, NIC }, 4, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_NONE, .nalts = 2, .alts = {
            { { "QDIO", 4 }, 0, VAL_NONE, false },
            { { "TYPE", 4 }, 0, VAL_NICTYPE, false },                   /* [DN] */
        } },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_NONE, .nalts = 1, .alts = {
            { { "DEVICES", 3 }, 0, VAL_DEVICES, false },
        } },
    } },
    { ZVS_CMD_DETACH_NIC, "G", "DETACH NIC", 2, { DETACH, NIC }, 2, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV },
    } },
    { ZVS_CMD_COUPLE, "G", "COUPLE", 1, { { "COUPLE", 4 } }, 4, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_NONE, .nalts = 1, .alts = {
            { { "TO", 2 }, 0, VAL_NONE, false },
        } },
        { .kind = STEP_SYSTEM },
    } },
    { ZVS_CMD_UNCOUPLE, "G", "UNCOUPLE", 1, { { "UNCOUPLE", 6 } }, 2, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV },
    } },
    { ZVS_CMD_QUERY_NIC, "G", "QUERY NIC", 2, { QUERY, NIC }, 3, {
        { .kind = STEP_TARGET_OPT },
        { .kind = STEP_VDEV_OPT },
        STEP_DETAILS,
    } },
    { .verb = ZVS_CMD_QUERY_VMLAN, .classes = "G", .title = "QUERY VMLAN", .npath = 2,
      .path = { QUERY, { "VMLAN", 5 } } },
    /* The machine commands. */
    { ZVS_CMD_XAUTOLOG, "AB", "XAUTOLOG", 1, { { "XAUTOLOG", 5 } }, 1, {
        { .kind = STEP_USERID },
    } },
    { ZVS_CMD_FORCE, "A", "FORCE", 1, { { "FORCE", 5 } }, 2, {
        { .kind = STEP_USERID },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_NONE, .nalts = 1, .alts = {
            { { "IMMEDIATE", 4 }, 0, VAL_NONE, false },
        } },
    } },
    { ZVS_CMD_SIGNAL_SHUTDOWN, "AC", "SIGNAL", 1, { { "SIGNAL", 3 } }, 3, {
        { .kind = STEP_CHOICE, .bad_operand = true, .field = OP_NONE, .nalts = 1, .alts = {
            { { "SHUTDOWN", 4 }, 0, VAL_NONE, false },
        } },
        { .kind = STEP_USERID_ALL },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_NONE, .nalts = 1, .alts = {
            { { "WITHIN", 6 }, 0, VAL_WITHIN, false },
        } },
    } },
    { ZVS_CMD_SEND, "ABC", "SEND", 1, { { "SEND", 4 } }, 2, {
        { .kind = STEP_USERID },
        { .kind = STEP_TEXT },
    } },
    { .verb = ZVS_CMD_QUERY_NAMES, .classes = "G", .title = "QUERY NAMES", .npath = 2,
      .path = { QUERY, { "NAMES", 3 } } },
    { ZVS_CMD_QUERY_USERS, "G", "QUERY USERS", 2, { QUERY, { "USERS", 4 } }, 1, {
        { .kind = STEP_USERID },
    } },
    { ZVS_CMD_QUERY_CONSLOG, "AB", "QUERY CONSLOG", 2, { QUERY, { "CONSLOG", 7 } }, 2, {
        { .kind = STEP_USERID },
        { .kind = STEP_VALUE_OPT, .val = VAL_LINES },
    } },
    /* What z/VM automation issues. */
    { .verb = ZVS_CMD_QUERY_USERID, .classes = "G", .title = "QUERY USERID", .npath = 2,
      .path = { QUERY, { "USERID", 6 } } },
    { .verb = ZVS_CMD_QUERY_CPLEVEL, .classes = "G", .title = "QUERY CPLEVEL", .npath = 2,
      .path = { QUERY, { "CPLEVEL", 5 } } },
    { ZVS_CMD_QUERY_VIRTUAL_NIC, "G", "QUERY VIRTUAL NIC", 3, { QUERY, { "VIRTUAL", 1 }, NIC },
      2, {
        { .kind = STEP_VDEV_OPT },
        STEP_DETAILS,
    } },
    { ZVS_CMD_QUERY_LAN, "G", "QUERY LAN", 2, { QUERY, { "LAN", 3 } }, 3, {
        { .kind = STEP_NAME_OPT },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_NONE, .nalts = 1, .alts = {
            { { "OWNER", 5 }, 0, VAL_USERID, false },
        } },
        { .kind = STEP_CHOICE, .optional = true, .field = OP_LEVEL, .nalts = 3, .alts = {
            { DETAILS,              ZVS_CMD_LEVEL_DETAILS,    VAL_NONE, false },
            { { "ACCESSLIST", 3 },  ZVS_CMD_LEVEL_ACCESSLIST, VAL_NONE, false },
            { { "ACTIVE", 3 },      ZVS_CMD_LEVEL_ACTIVE,     VAL_NONE, false },
        } },
    } },
    /* The name layer (ours). */
    { ZVS_CMD_RESOLVER, "B", "RESOLVER", 1, { { "RESOLVER", 8 } }, 1, {
        { .kind = STEP_CHOICE, .field = OP_RES, .nalts = 2, .alts = {
            { { "WATCH", 5 },   ZVS_CMD_RES_WATCH,   VAL_HOSTNAME, false },
            { { "UNWATCH", 7 }, ZVS_CMD_RES_UNWATCH, VAL_HOSTNAME, false },
        } },
    } },
    { .verb = ZVS_CMD_QUERY_RESOLVER, .classes = "B", .title = "QUERY RESOLVER", .npath = 2,
      .path = { QUERY, { "RESOLVER", 8 } } },
};

_Static_assert(sizeof zvs_cmd_table / sizeof zvs_cmd_table[0] == NCOMMANDS,
               "NCOMMANDS (command_impl.h) must count the table's entries");

/* ---- lookups ------------------------------------------------------------------------- */

const struct cmddef *zvs_cmd_find_def(enum zvs_cmd_verb verb)
{
    for (size_t k = 0; k < NCOMMANDS; k++)
        if (zvs_cmd_table[k].verb == verb)
            return &zvs_cmd_table[k];
    return NULL;
}

/* The CP module whose id IBM's messages without a fixed module carry when this command
 * answers them (HCPSWQ003E from QUERY VSWITCH). Sources: the module names IBM's control
 * block pages give for the command (SWQ QUERY VSWITCH, SWP QUERY PORT, VLQ QUERY LAN) and
 * ids a real system printed (HCPNDQ040E for QUERY VIRTUAL NIC, quoted by networking-zvm;
 * HCPNIC for DEFINE, DETACH and QUERY NIC: the NDCBK control block page;
 * HCPCQU045E and HCPCQV003E for QUERY userid, quoted by Feilong's zvmsdk/utils.py). A
 * command none of them names answers as CP's QUERY dispatcher (CQV) when it is a QUERY,
 * else as its command dispatcher (CMD): ours, listed in cp-commands/README.md. */
const char *zvs_cmd_module(enum zvs_cmd_verb verb)
{
    switch (verb) {
    case ZVS_CMD_QUERY_VSWITCH:    return "SWQ";
    case ZVS_CMD_QUERY_PORT_GROUP:
    case ZVS_CMD_QUERY_LACP:       return "SWP";
    case ZVS_CMD_QUERY_VIRTUAL_NIC: return "NDQ";
    case ZVS_CMD_DEFINE_NIC:
    case ZVS_CMD_DETACH_NIC:
    case ZVS_CMD_QUERY_NIC:        return "NIC";
    case ZVS_CMD_QUERY_VMLAN:
    case ZVS_CMD_QUERY_LAN:        return "VLQ";
    case ZVS_CMD_QUERY_NAMES:
    case ZVS_CMD_QUERY_USERS:      return "CQU";
    case ZVS_CMD_QUERY_CONSLOG:
    case ZVS_CMD_QUERY_RESOLVER:   return ZVS_CMD_MODULE_QUERY;
    default:                       return ZVS_CPMSG_MODULE_DEFAULT;
    }
}

bool zvs_cmd_step_has_uplink(const struct step *st)
{
    for (unsigned a = 0; a < st->nalts; a++)
        if (st->alts[a].uplink)
            return true;
    return false;
}

/* ---- self-check ---------------------------------------------------------------------- */

/* Two keywords clash when some token is accepted by both. */
static bool kw_clash(const struct kw *a, const struct kw *b)
{
    size_t la = strlen(a->word), lb = strlen(b->word);
    size_t lo = a->min > b->min ? a->min : b->min;
    size_t hi = la < lb ? la : lb;
    return lo <= hi && strncmp(a->word, b->word, lo) == 0;
}

static bool kw_sane(const struct kw *k)
{
    size_t n = strlen(k->word);
    if (k->min < 1 || k->min > n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((k->word[i] >= 'A' && k->word[i] <= 'Z') || (k->word[i] >= '0' && k->word[i] <= '9')))
            return false;
    return true;
}

/* Some accepted abbreviation of k is 1-4 hex digits (a vdev or device number). */
static bool kw_hexlike(const struct kw *k)
{
    if (k->min > 4)
        return false;
    for (size_t i = 0; i < k->min; i++)
        if (!((k->word[i] >= 'A' && k->word[i] <= 'F') || (k->word[i] >= '0' && k->word[i] <= '9')))
            return false;
    return true;
}

/* Some accepted abbreviation of k is a CP name (keywords are A-Z 0-9: any of 1-8). */
static bool kw_namelike(const struct kw *k)
{
    return k->min <= ZVS_NAME_MAX;
}

/* What a token at a step's position may be: keywords, and the class of other tokens. */
enum tok_class { CLS_NONE, CLS_HEX, CLS_NAME, CLS_ANY };

struct first {
    unsigned        nkw;
    const struct kw *kw[MAX_ALTS + 1];
    enum tok_class  cls;
};

static void step_first(const struct step *st, struct first *f)
{
    f->nkw = 0;
    f->cls = CLS_NONE;
    switch (st->kind) {
    case STEP_NAME:
        f->cls = CLS_NAME;
        break;
    case STEP_NAME_OPT:
        f->kw[f->nkw++] = &zvs_kw_all;
        f->cls = CLS_NAME;
        break;
    case STEP_RDEV:
    case STEP_VDEV:
        f->cls = CLS_HEX;
        break;
    case STEP_VDEV_OPT:
        f->kw[f->nkw++] = &zvs_kw_all;
        f->cls = CLS_HEX;
        break;
    case STEP_TARGET_OPT:
        f->kw[f->nkw++] = &zvs_kw_userid;
        break;
    case STEP_CHOICE:
        for (unsigned a = 0; a < st->nalts; a++)
            f->kw[f->nkw++] = &st->alts[a].kw;
        if (zvs_cmd_step_has_uplink(st))
            f->kw[f->nkw++] = &zvs_kw_uplink;
        break;
    case STEP_SYSTEM:
        /* Any other token is an owner's guest LAN, refused whatever it says, so it
         * cannot be misread: no value class. */
        f->kw[f->nkw++] = &zvs_kw_system;
        break;
    case STEP_VSWITCH_DEF:
    case STEP_VALUE_OPT:
    case STEP_TEXT:
        f->cls = CLS_ANY;
        break;
    case STEP_USERID:
        f->cls = CLS_NAME;
        break;
    case STEP_USERID_ALL:
        f->kw[f->nkw++] = &zvs_kw_user;
        f->kw[f->nkw++] = &zvs_kw_all;
        f->cls = CLS_NAME;
        break;
    }
}

static bool step_optional(const struct step *st)
{
    return st->kind == STEP_NAME_OPT || st->kind == STEP_VDEV_OPT ||
           st->kind == STEP_TARGET_OPT || (st->kind == STEP_CHOICE && st->optional) ||
           st->kind == STEP_VSWITCH_DEF || st->kind == STEP_VALUE_OPT ||
           st->kind == STEP_TEXT;
}

static bool kw_in_class(const struct kw *k, enum tok_class cls)
{
    return cls == CLS_ANY || (cls == CLS_HEX && kw_hexlike(k)) ||
           (cls == CLS_NAME && kw_namelike(k));
}

/* Tokens of two first-sets that both could take. */
static bool first_clash(const struct first *a, const struct first *b)
{
    if (a->cls != CLS_NONE && b->cls != CLS_NONE)
        return true;                    /* two value classes: each holds 1-4 hex digits */
    for (unsigned i = 0; i < a->nkw; i++) {
        if (kw_in_class(a->kw[i], b->cls))
            return true;
        for (unsigned j = 0; j < b->nkw; j++)
            if (kw_clash(a->kw[i], b->kw[j]))
                return true;
    }
    for (unsigned j = 0; j < b->nkw; j++)
        if (kw_in_class(b->kw[j], a->cls))
            return true;
    return false;
}

/* The optional name position may be followed only by optional choices of bare keywords
 * or of keywords taking one userid (QUERY LAN ... OWNER owner): the parser reads the name
 * position's token as a keyword when it and every token after it are those steps'
 * keywords (and values) in order (command.c, keyword_of_next). */
static bool name_rule_applies(const struct cmddef *d, unsigned s)
{
    if (d->steps[s].kind != STEP_NAME_OPT || s + 1 >= d->nsteps)
        return false;
    for (unsigned t = s + 1; t < d->nsteps; t++) {
        const struct step *next = &d->steps[t];
        if (next->kind != STEP_CHOICE || !next->optional)
            return false;
        for (unsigned a = 0; a < next->nalts; a++)
            if ((next->alts[a].val != VAL_NONE && next->alts[a].val != VAL_USERID) ||
                next->alts[a].uplink)
                return false;
    }
    return true;
}

/* Values that run to the end of the line or end in an optional keyword: only in the last
 * step, or they could swallow or be confused with the next step's tokens. */
static bool val_open_ended(enum val_kind v)
{
    return v == VAL_RDEVS || v == VAL_UPLINK_RDEVS || v == VAL_GRANT || v == VAL_COUNTERS ||
           v == VAL_SWITCHOVER || v == VAL_ACTIVE || v == VAL_POLICY;
}

static int check_steps(const struct cmddef *d)
{
    for (unsigned s = 0; s < d->nsteps; s++) {
        const struct step *st = &d->steps[s];
        struct first fs, fn;
        if (st->nalts > MAX_ALTS || (st->kind == STEP_CHOICE) != (st->nalts > 0))
            return -EINVAL;
        if ((st->kind == STEP_VSWITCH_DEF || st->kind == STEP_TEXT) && s + 1 != d->nsteps)
            return -EINVAL;             /* they take the rest of the line */
        if (st->bad_operand && (st->kind != STEP_CHOICE || st->optional))
            return -EINVAL;             /* only a required choice reports a token */
        for (unsigned a = 0; a < st->nalts; a++) {
            if (!kw_sane(&st->alts[a].kw))
                return -EINVAL;
            if (val_open_ended(st->alts[a].val) && s + 1 != d->nsteps)
                return -EINVAL;
        }
        step_first(st, &fs);
        /* Within the step: no two keywords (UPLINK included) clash. */
        for (unsigned i = 0; i < fs.nkw; i++)
            for (unsigned j = i + 1; j < fs.nkw; j++)
                if (kw_clash(fs.kw[i], fs.kw[j]))
                    return -EINVAL;
        /* A keyword must not read as the step's own hex value (ALL, though a possible
         * name, is refused as one). */
        for (unsigned i = 0; i < fs.nkw; i++)
            if (fs.cls == CLS_HEX && kw_hexlike(fs.kw[i]))
                return -EINVAL;
        /* An optional step shares its position with every step up to the next required
         * one. */
        for (unsigned t = s + 1; step_optional(&d->steps[t - 1]) && t < d->nsteps; t++) {
            step_first(&d->steps[t], &fn);
            if (first_clash(&fs, &fn) && !name_rule_applies(d, s))
                return -EINVAL;
        }
    }
    return 0;
}

static bool classes_sane(const char *classes)
{
    size_t n = strlen(classes);
    if (n < 1 || n > 3)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (ZVS_PRIVCLASS(classes[i]) == 0 || strchr(classes + i + 1, classes[i]) != NULL)
            return false;
    }
    return true;
}

int zvs_cmd_grammar_check(void)
{
    /* The keyword sets of the values (parse_value, command.c), each one position. */
    const struct kw *const sets[][3] = {
        { &zvs_kw_active, &zvs_kw_inactive, NULL },
        { &zvs_kw_on, &zvs_kw_off, NULL },
        { &zvs_kw_on, &zvs_kw_off, &zvs_kw_unspecified },
        { &zvs_kw_uplink, &zvs_kw_bridgeport, &zvs_kw_all },
        { &zvs_kw_data, &zvs_kw_discarded, &zvs_kw_errors },
        { &zvs_kw_exclusive, &zvs_kw_shared, NULL },
        { &zvs_kw_available, &zvs_kw_rdev, NULL },
        { &zvs_kw_clear, NULL, NULL },
        { &zvs_kw_userid, NULL, NULL },
        { &zvs_kw_system, NULL, NULL },
        { &zvs_kw_load, &zvs_kw_lbt, NULL },
        { &zvs_kw_total, &zvs_kw_outbound, NULL },
        { &zvs_kw_user, &zvs_kw_all, NULL },
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        for (size_t a = 0; a < 3 && sets[i][a] != NULL; a++) {
            if (!kw_sane(sets[i][a]))
                return -EINVAL;
            for (size_t b = a + 1; b < 3 && sets[i][b] != NULL; b++)
                if (kw_clash(sets[i][a], sets[i][b]))
                    return -EINVAL;
        }
    /* RDEV NONE: NONE must not read as a device. */
    if (!kw_sane(&zvs_kw_none) || kw_hexlike(&zvs_kw_none) || !kw_sane(&zvs_kw_all))
        return -EINVAL;
    for (size_t k = 0; k < NCOMMANDS; k++) {
        const struct cmddef *d = &zvs_cmd_table[k];
        if (d->npath < 1 || d->npath > MAX_PATH || d->nsteps > MAX_STEPS)
            return -EINVAL;
        if (!classes_sane(d->classes) || zvs_cmd_find_def(d->verb) != d)
            return -EINVAL;
        for (unsigned p = 0; p < d->npath; p++)
            if (!kw_sane(&d->path[p]))
                return -EINVAL;
        if (check_steps(d) < 0)
            return -EINVAL;
        /* No two commands may share a path prefix up to the shorter one's end, and at
         * each depth where they diverge their keywords must not clash. */
        for (size_t j = k + 1; j < NCOMMANDS; j++) {
            const struct cmddef *e = &zvs_cmd_table[j];
            unsigned p = 0;
            while (p < d->npath && p < e->npath && kw_clash(&d->path[p], &e->path[p]) &&
                   strcmp(d->path[p].word, e->path[p].word) == 0 &&
                   d->path[p].min == e->path[p].min)
                p++;
            if (p == d->npath || p == e->npath)
                return -EINVAL;         /* one path is a prefix of the other */
            if (kw_clash(&d->path[p], &e->path[p]))
                return -EINVAL;         /* diverge on keywords one token can match */
        }
    }
    return 0;
}
