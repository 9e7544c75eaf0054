/* USER DIRECT statements.
 *
 * Owns the statement tables for the user directory file and the per-entry state: which
 * USER entry the following NICDEF and NICBIND statements belong to. Lexical rules are
 * tokens.c's (the same comments and continuation commas as SYSTEM CONFIG).
 *
 *   USER userid password storage maxstorage [privclasses]
 *   IDENTITY userid password storage maxstorage [privclasses]
 *         Starts an entry; statements up to the next USER/IDENTITY belong to it. userid:
 *         1-8 of A-Z 0-9 @ # $. password: 1-8 characters, checked but not kept (nothing
 *         logs on with it; messages never echo it). storage: 1-10 digits and K, M, G or
 *         T, storage <= maxstorage. privclasses: A-Z and 1-6, default G.
 *   NICDEF vdev TYPE QDIO [DEVICES n] [LAN SYSTEM switchname] [MACID xxxxxx]
 *          [PORTTYPE ACCESS | TRUNK] [VLAN vidset]
 *         vdev 1-4 hex digits; DEVICES 3-3072, default 3, and vdev + DEVICES - 1 <= FFFF;
 *         the device ranges of one user's NICs may not overlap. TYPE HIPERSOCKETS is
 *         grammar but refused (QDIO only); LAN ownerid lanname (guest LANs) is refused.
 *         A second NICDEF for a vdev within the entry modifies the first (z/VM 7.1):
 *         the operands it gives replace earlier values (VLAN replaces the whole set), and
 *         TYPE may be given once per NIC, on any of them.
 *   NICBIND vdev TAP ifname | QDIO | LCS devno                     (zvswitch extension)
 *         Binds the NIC defined above in the entry to the backend that plays the guest:
 *         TAP     a tap interface the daemon creates (move it into a network namespace
 *                 and the namespace is the guest; ifname keeps its case, Linux rules);
 *         QDIO    an external program attaches to the NIC's shared-memory QDIO queues;
 *         LCS     the LCS device (3088, read devno even, write devno + 1) of the entry's
 *                 Hercules machine (IPL): its tap becomes the NIC's backend when the
 *                 machine is XAUTOLOGged. The NICDEF stays as z/VM has it; one LCS NIC
 *                 per entry, and it needs GUESTIP (config.c checks the entry).
 *   IPL name | INS path                     (z/VM's IPL statement; what follows is ours)
 *         What XAUTOLOG starts the machine with, under Hercules: name (1-16 of A-Z 0-9 _ -)
 *         is a guest image the project builds (<images>/<name>.ins.template, e.g. IPL
 *         FRAMEPROG or IPL LINUX; guests/README.md); INS path (absolute, 1-200 characters,
 *         case kept) is the user's own .ins file, IPLed as it is. z/VM's vdev, LOADPARM
 *         and PARM operands are refused: there are no minidisks here. One per entry.
 *   GUESTIP a.b.c.d/n [GATEWAY a.b.c.d]                             (zvswitch extension)
 *         The machine's IPv4 address and prefix length (1-32) on its LCS NIC, given to
 *         the named image as its IP parameters and to Hercules' LCS address table. One
 *         per entry.
 *         Traffic generators are test equipment, not guests: they live in tests/lib.
 *         One NICBIND per NIC; a NIC without one exists but nothing drives it.
 *   LINUXUSER name | uid [name | uid ...]                         (zvswitch extension)
 *         The Linux users who act as this entry's userid, with its privilege classes,
 *         on vswitchd's operator console (vmcp): the console knows a peer by its
 *         kernel credentials (uid), and this is the map. name: 1-32 of A-Z a-z 0-9 . _ -,
 *         not starting with '-', case kept (Linux names are case-sensitive); all digits
 *         is a uid, 0-4294967294, kept in canonical decimal ("007" is "7"). At most
 *         ZVS_CFG_MAX_LINUXUSERS per entry, over any number of LINUXUSER statements. A
 *         Linux user may be mapped to one entry only in the whole directory (the same
 *         spelling twice is an error naming both entries; "root" in one entry and "0" in
 *         another are only found when the console resolves the names at start, see
 *         console_users.c). Without any LINUXUSER only root reaches the console (as
 *         OPERATOR, classes A-G); a LINUXUSER root (or 0) replaces that default.
 *         LINUXUSER takes more values than a statement table has positional slots
 *         (ZVS_POS_MAX), so it is parsed by linuxuser_stmt beside the table, with the same
 *         messages and the same rule: a statement with an error stores nothing.
 * Other directory statements (MDISK, LINK, ...) are refused (ZVSCFG1001E).
 *
 * After the last statement a pass over the file's NICs reports what only the whole entry
 * shows: a NIC that never got TYPE, a device range past FFFF, overlapping NICs.
 */
#include "cp-commands/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/tokens.h"

#define RULE_NAME    "1-8 characters A-Z 0-9 @ # $"
#define RULE_VDEV    "1-4 hex digits"
#define RULE_VIDSET  "VLAN IDs 1-4094 or ranges lo-hi"
#define RULE_IFNAME  "Linux interface name: 1-15 characters, no / : or blanks"
#define RULE_STORAGE "1-10 digits and K, M, G or T"
#define RULE_LINUXUSER "1-32 of A-Z a-z 0-9 . _ - (- not first), or uid 0-4294967294"

struct ud_ctx {
    struct zvs_cfg     *cfg;
    struct zvs_msg_sink sink;
    unsigned            errors0;        /* cfg->msgs.errors when the statement began */
    bool                in_user;        /* a USER/IDENTITY statement was read */
    int                 cur_user;       /* its index in cfg->user, -1 if it failed */
    bool                vdev_ok;        /* NICDEF/NICBIND: vdev valid */
    uint64_t            given;          /* NICDEF: operands given */
    struct zvs_cfg_user user;           /* USER being built */
    struct zvs_cfg_nic  nic;            /* NICDEF / NICBIND being built */
};

#define ERR(c, line, id, ...) ZVS_REPORT(&(c)->sink, (line), (id), __VA_ARGS__)

static void bad_value(struct ud_ctx *c, const struct zvs_tok *t, const char *operand,
                      const char *rule)
{
    ERR(c, t->line, ZVS_MSG_VALUE_INVALID, operand, t->s, rule);
}

static bool stmt_clean(const struct ud_ctx *c)
{
    return c->cfg->msgs.errors == c->errors0;
}

static void num_str(char *buf, size_t size, unsigned v)
{
    snprintf(buf, size, "%u", v);
}

static void vdev_str(char *buf, size_t size, uint16_t vdev)
{
    snprintf(buf, size, "%04X", (unsigned)vdev);
}

/* ---- USER / IDENTITY ----------------------------------------------------------------- */

static int parse_storage(const char *s, uint64_t *out)
{
    size_t n = strnlen(s, 12);
    char num[11];
    unsigned shift;
    uint32_t v;

    if (n < 2 || n > 11)
        return -1;
    switch (s[n - 1]) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: return -1;
    }
    memcpy(num, s, n - 1);
    num[n - 1] = '\0';
    if (zvs_parse_dec(num, 1, UINT32_MAX, &v) < 0 || (uint64_t)v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int parse_classes(const char *s, uint32_t *out)
{
    size_t n = strnlen(s, 33);
    uint32_t bits = 0;

    if (n == 0 || n > 32)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 'a' + 'A') : s[i];
        uint32_t bit = ZVS_PRIVCLASS(ch);
        if (bit == 0)
            return -1;
        bits |= bit;
    }
    *out = bits;
    return 0;
}

static void user_entry(struct ud_ctx *c, const struct zvs_stmt *stmt,
                       const struct zvs_tok *pos, unsigned npos, bool identity)
{
    bool st_ok, max_ok;

    c->errors0 = c->cfg->msgs.errors;
    c->in_user = true;
    c->cur_user = -1;
    c->user = (struct zvs_cfg_user){
        .identity = identity,
        .line = stmt->tok[0].line,
        .privclass = ZVS_PRIVCLASS('G'),
    };
    if (zvs_parse_name(pos[0].s, c->user.userid) < 0)
        bad_value(c, &pos[0], "userid", RULE_NAME);
    if (strnlen(pos[1].s, 9) > 8)
        ERR(c, pos[1].line, ZVS_MSG_VALUE_INVALID, "password", "(not shown)", "1-8 characters");
    st_ok = parse_storage(pos[2].s, &c->user.storage) == 0;
    if (!st_ok)
        bad_value(c, &pos[2], "storage", RULE_STORAGE);
    max_ok = parse_storage(pos[3].s, &c->user.maxstorage) == 0;
    if (!max_ok)
        bad_value(c, &pos[3], "maxstorage", RULE_STORAGE);
    if (st_ok && max_ok && c->user.storage > c->user.maxstorage)
        ERR(c, pos[2].line, ZVS_MSG_VALUE_EXCEEDS, "storage", pos[2].s, "maxstorage", pos[3].s);
    if (npos > 4 && parse_classes(pos[4].s, &c->user.privclass) < 0)
        bad_value(c, &pos[4], "privclasses", "letters A-Z and digits 1-6");
}

static void user_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                       unsigned npos)
{
    user_entry(ctx, stmt, pos, npos, false);
}

static void identity_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                           unsigned npos)
{
    user_entry(ctx, stmt, pos, npos, true);
}

static void user_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct ud_ctx *c = ctx;
    struct zvs_cfg *cfg = c->cfg;
    char num[12];

    if (c->user.userid[0] != '\0') {
        int k = zvs_cfg_find_user(cfg, c->user.userid);
        if (k >= 0) {
            num_str(num, sizeof num, cfg->user[k].line);
            ERR(c, c->user.line, ZVS_MSG_ALREADY_DEFINED, "USER", c->user.userid, num);
        } else if (cfg->nuser == ZVS_CFG_MAX_USERS) {
            num_str(num, sizeof num, ZVS_CFG_MAX_USERS);
            ERR(c, c->user.line, ZVS_MSG_TOO_MANY, "USER", num);
        }
    }
    if (!stmt_clean(c))
        return;
    c->user.first_nic = (uint16_t)cfg->nnic;
    c->cur_user = (int)cfg->nuser;
    cfg->user[cfg->nuser++] = c->user;
}

/* ---- NICDEF -------------------------------------------------------------------------- */

enum { ND_TYPE, ND_DEVICES, ND_LAN, ND_MACID, ND_PORTTYPE, ND_VLAN, ND_COUNT };

static void nd_type(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct ud_ctx *c = ctx;

    if (zvs_tok_is(val, "QDIO"))
        c->nic.type_line = kw->line;
    else if (zvs_tok_is(val, "HIPERSOCKETS"))
        ERR(c, val->line, ZVS_MSG_NIC_TYPE_UNSUPPORTED, "HIPERSOCKETS");
    else
        bad_value(c, val, "TYPE", "QDIO or HIPERSOCKETS");
}

static void nd_devices(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    struct ud_ctx *c = ctx;
    uint32_t n;

    if (zvs_parse_dec(val->s, 3, 3072, &n) < 0)
        bad_value(c, val, "DEVICES", "3-3072");
    else
        c->nic.devices = (uint16_t)n;
}

static void nd_lan(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                   unsigned nval)
{
    struct ud_ctx *c = ctx;

    if (!zvs_tok_is(&val[0], "SYSTEM"))
        ERR(c, val[0].line, ZVS_MSG_GUEST_LAN_UNSUPPORTED, val[0].s, val[1].s);
    else if (zvs_parse_name(val[1].s, c->nic.lan) < 0)
        bad_value(c, &val[1], "LAN SYSTEM", RULE_NAME);
}

static void nd_macid(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                     unsigned nval)
{
    struct ud_ctx *c = ctx;

    if (zvs_parse_hex(val->s, 6, 6, &c->nic.macid) < 0)
        bad_value(c, val, "MACID", "6 hex digits");
    else
        c->nic.macid_source = ZVS_MACID_USER;
}

static void nd_porttype(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                        unsigned nval)
{
    struct ud_ctx *c = ctx;

    if (zvs_tok_is(val, "ACCESS"))
        c->nic.porttype = ZVS_PORTTYPE_ACCESS;
    else if (zvs_tok_is(val, "TRUNK"))
        c->nic.porttype = ZVS_PORTTYPE_TRUNK;
    else
        bad_value(c, val, "PORTTYPE", "ACCESS or TRUNK");
}

static void nd_vlan(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    struct ud_ctx *c = ctx;

    c->nic.has_vlan = true;
    for (unsigned i = 0; i < nval; i++)
        if (zvs_vidset_add(&c->nic.vlan, val[i].s) < 0)
            bad_value(c, &val[i], "VLAN", RULE_VIDSET);
}

static const struct zvs_opdef nicdef_ops[ND_COUNT] = {
    [ND_TYPE]     = { "TYPE", 1, 1, false, 0, nd_type },
    [ND_DEVICES]  = { "DEVICES", 1, 1, false, 0, nd_devices },
    [ND_LAN]      = { "LAN", 2, 2, false, 0, nd_lan },
    [ND_MACID]    = { "MACID", 1, 1, false, 0, nd_macid },
    [ND_PORTTYPE] = { "PORTTYPE", 1, 1, false, 0, nd_porttype },
    [ND_VLAN]     = { "VLAN", 1, ZVS_VIDSET_MAX, true, 0, nd_vlan },
};

/* NICDEF and NICBIND start alike: a vdev, inside a USER entry. */
static void nic_stmt_begin(struct ud_ctx *c, const struct zvs_stmt *stmt,
                           const struct zvs_tok *vdev, const char *name)
{
    uint32_t v = 0;

    c->errors0 = c->cfg->msgs.errors;
    c->given = 0;
    c->vdev_ok = zvs_parse_hex(vdev->s, 1, 4, &v) == 0;
    c->nic = (struct zvs_cfg_nic){ .vdev = (uint16_t)v, .line = stmt->tok[0].line,
                                   .vswitch = -1 };
    if (!c->vdev_ok)
        bad_value(c, vdev, "vdev", RULE_VDEV);
    if (!c->in_user)
        ERR(c, stmt->tok[0].line, ZVS_MSG_NOT_IN_USER, name);
}

/* The NIC with c->nic.vdev in the current entry, or NULL. */
static struct zvs_cfg_nic *entry_nic(struct ud_ctx *c)
{
    const struct zvs_cfg_user *u = &c->cfg->user[c->cur_user];

    for (unsigned i = u->first_nic; i < (unsigned)u->first_nic + u->nnic; i++)
        if (c->cfg->nic[i].vdev == c->nic.vdev)
            return &c->cfg->nic[i];
    return NULL;
}

static void nicdef_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                         unsigned npos)
{
    nic_stmt_begin(ctx, stmt, &pos[0], "NICDEF");
}

/* A repeated NICDEF: what it gives replaces what the NIC had. */
static void nicdef_modify(struct ud_ctx *c, struct zvs_cfg_nic *nic)
{
    const struct zvs_cfg_nic *d = &c->nic;

    if (c->given & ZVS_OPBIT(ND_TYPE)) {
        if (nic->type_line != 0) {
            char vdev[8], line[12];
            vdev_str(vdev, sizeof vdev, nic->vdev);
            num_str(line, sizeof line, nic->type_line);
            ERR(c, d->type_line, ZVS_MSG_NIC_ONCE, vdev, "TYPE", line);
            return;
        }
        nic->type_line = d->type_line;
    }
    if (c->given & ZVS_OPBIT(ND_DEVICES))
        nic->devices = d->devices;
    if (c->given & ZVS_OPBIT(ND_LAN))
        memcpy(nic->lan, d->lan, sizeof nic->lan);
    if (c->given & ZVS_OPBIT(ND_MACID)) {
        nic->macid = d->macid;
        nic->macid_source = d->macid_source;
    }
    if (c->given & ZVS_OPBIT(ND_PORTTYPE))
        nic->porttype = d->porttype;
    if (c->given & ZVS_OPBIT(ND_VLAN)) {
        nic->has_vlan = d->has_vlan;
        nic->vlan = d->vlan;
    }
}

static void nicdef_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct ud_ctx *c = ctx;
    struct zvs_cfg *cfg = c->cfg;

    c->given = given;
    if (!stmt_clean(c) || c->cur_user < 0 || !c->vdev_ok)
        return;
    struct zvs_cfg_nic *nic = entry_nic(c);
    if (nic != NULL) {
        nicdef_modify(c, nic);
        return;
    }
    if (cfg->nnic == ZVS_CFG_MAX_NICS) {
        char num[12];
        num_str(num, sizeof num, ZVS_CFG_MAX_NICS);
        ERR(c, c->nic.line, ZVS_MSG_TOO_MANY, "NICDEF", num);
        return;
    }
    c->nic.user = (uint16_t)c->cur_user;
    if (!(given & ZVS_OPBIT(ND_DEVICES)))
        c->nic.devices = 3;
    cfg->nic[cfg->nnic++] = c->nic;
    cfg->user[c->cur_user].nnic++;
}

/* ---- NICBIND ------------------------------------------------------------------------- */

enum { NB_TAP, NB_QDIO, NB_LCS, NB_COUNT };

static void nb_tap(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                   unsigned nval)
{
    struct ud_ctx *c = ctx;

    c->nic.backend = ZVS_NIC_BACKEND_TAP;
    if (!zvs_ifname_valid(val->s))
        bad_value(c, val, "TAP", RULE_IFNAME);
    else
        snprintf(c->nic.ifname, sizeof c->nic.ifname, "%s", val->s);
}

static void nb_qdio(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                    unsigned nval)
{
    ((struct ud_ctx *)ctx)->nic.backend = ZVS_NIC_BACKEND_QDIO;
}

/* LCS devno: the read subchannel, even (the write one is devno + 1, as a 3088 pair). */
static void nb_lcs(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                   unsigned nval)
{
    struct ud_ctx *c = ctx;
    uint32_t v;

    c->nic.backend = ZVS_NIC_BACKEND_LCS;
    if (zvs_parse_hex(val->s, 1, 4, &v) < 0 || (v & 1) != 0 || v == 0xFFFF)
        bad_value(c, val, "LCS", "1-4 hex digits, even (the read device; write is +1)");
    else
        c->nic.lcs_devno = (uint16_t)v;
}

static const struct zvs_opdef nicbind_ops[NB_COUNT] = {
    [NB_TAP]  = { "TAP", 1, 1, false, ZVS_OPBIT(NB_QDIO) | ZVS_OPBIT(NB_LCS), nb_tap },
    [NB_QDIO] = { "QDIO", 0, 0, false, ZVS_OPBIT(NB_LCS), nb_qdio },
    [NB_LCS]  = { "LCS", 1, 1, false, 0, nb_lcs },
};

static void nicbind_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                          unsigned npos)
{
    nic_stmt_begin(ctx, stmt, &pos[0], "NICBIND");
}

static void nicbind_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct ud_ctx *c = ctx;
    char vdev[8], num[12];

    if (given == 0)
        ERR(c, stmt->tok[stmt->ntok - 1].line, ZVS_MSG_OPERAND_MISSING, "TAP, QDIO or LCS");
    if (!stmt_clean(c) || c->cur_user < 0 || !c->vdev_ok)
        return;
    vdev_str(vdev, sizeof vdev, c->nic.vdev);
    struct zvs_cfg_nic *nic = entry_nic(c);
    if (nic == NULL) {
        ERR(c, c->nic.line, ZVS_MSG_NICBIND_NO_NIC, vdev, c->cfg->user[c->cur_user].userid);
        return;
    }
    if (nic->bind_line != 0) {
        num_str(num, sizeof num, nic->bind_line);
        ERR(c, c->nic.line, ZVS_MSG_ALREADY_DEFINED, "NICBIND", vdev, num);
        return;
    }
    nic->backend = c->nic.backend;
    memcpy(nic->ifname, c->nic.ifname, sizeof nic->ifname);
    nic->lcs_devno = c->nic.lcs_devno;
    nic->bind_line = c->nic.line;
}

/* ---- IPL and GUESTIP (the Hercules machine) -------------------------------------------- */

/* The entry a machine statement belongs to, or NULL (reported when outside any). */
static struct zvs_cfg_user *machine_stmt_begin(struct ud_ctx *c, const struct zvs_stmt *stmt,
                                               const char *name)
{
    c->errors0 = c->cfg->msgs.errors;
    if (!c->in_user) {
        ERR(c, stmt->tok[0].line, ZVS_MSG_NOT_IN_USER, name);
        return NULL;
    }
    return c->cur_user >= 0 ? &c->cfg->user[c->cur_user] : NULL;
}

static bool once_per_entry(struct ud_ctx *c, const struct zvs_cfg_user *u, uint32_t first,
                           const char *name, uint32_t line)
{
    char num[12];

    if (first == 0)
        return true;
    num_str(num, sizeof num, first);
    ERR(c, line, ZVS_MSG_STMT_REPEATED, name, u->userid, num);
    return false;
}

static bool ipl_name_ok(const char *s)
{
    size_t n = strnlen(s, ZVS_IPL_NAME_MAX + 1);

    if (n == 0 || n > ZVS_IPL_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!(ch >= 'A' && ch <= 'Z') && !(ch >= 'a' && ch <= 'z') && !(ch >= '0' && ch <= '9') &&
            ch != '_' && ch != '-')
            return false;
    }
    return true;
}

static void ipl_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                      unsigned npos)
{
    struct ud_ctx *c = ctx;
    struct zvs_cfg_user *u = machine_stmt_begin(c, stmt, "IPL");
    enum zvs_ipl_kind kind = ZVS_IPL_NAMED;
    char name[ZVS_IPL_NAME_MAX + 1] = "";
    char path[ZVS_IPL_PATH_MAX + 1] = "";

    if (zvs_tok_is(&pos[0], "INS")) {
        kind = ZVS_IPL_INS;
        if (npos < 2)
            ERR(c, pos[0].line, ZVS_MSG_OPERAND_MISSING, "INS path");
        else if (pos[1].s[0] != '/' || strnlen(pos[1].s, ZVS_IPL_PATH_MAX + 1) > ZVS_IPL_PATH_MAX)
            bad_value(c, &pos[1], "INS", "an absolute path of 1-200 characters");
        else
            snprintf(path, sizeof path, "%s", pos[1].s);
    } else if (npos > 1) {
        /* z/VM's LOADPARM / PARM: no minidisks or saved systems to pass them to. */
        ERR(c, pos[1].line, ZVS_MSG_OPERAND_UNKNOWN, pos[1].s, "IPL");
    } else if (!ipl_name_ok(pos[0].s)) {
        bad_value(c, &pos[0], "IPL", "a guest image name (1-16 of A-Z 0-9 _ -) or INS path");
    } else {
        for (size_t i = 0; pos[0].s[i] != '\0'; i++) {
            char ch = pos[0].s[i];
            name[i] = ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
        }
    }
    if (u == NULL || !once_per_entry(c, u, u->ipl_line, "IPL", stmt->tok[0].line) ||
        !stmt_clean(c))
        return;
    u->ipl = kind;
    memcpy(u->ipl_name, name, sizeof name);
    memcpy(u->ipl_path, path, sizeof path);
    u->ipl_line = stmt->tok[0].line;
}

/* "a.b.c.d" in host byte order: 0, or -1. */
static int parse_ipv4(const char *s, uint32_t *out)
{
    uint32_t ip = 0;
    unsigned parts = 0;

    while (parts < 4) {
        uint32_t v = 0;
        unsigned digits = 0;
        while (*s >= '0' && *s <= '9' && digits < 4) {
            v = v * 10 + (uint32_t)(*s++ - '0');
            digits++;
        }
        if (digits == 0 || digits > 3 || v > 255)
            return -1;
        ip = ip << 8 | v;
        parts++;
        if (parts < 4 && *s++ != '.')
            return -1;
    }
    if (*s != '\0')
        return -1;
    *out = ip;
    return 0;
}

enum { GI_GATEWAY, GI_COUNT };

static void gi_gateway(void *ctx, const struct zvs_tok *kw, const struct zvs_tok *val,
                       unsigned nval)
{
    struct ud_ctx *c = ctx;
    uint32_t ip;

    if (parse_ipv4(val->s, &ip) < 0 || ip == 0)
        bad_value(c, val, "GATEWAY", "an IPv4 address a.b.c.d");
    else
        c->user.guest_gw = ip;          /* c->user is free after USER's end: scratch */
}

static const struct zvs_opdef guestip_ops[GI_COUNT] = {
    [GI_GATEWAY] = { "GATEWAY", 1, 1, false, 0, gi_gateway },
};

static void guestip_begin(void *ctx, const struct zvs_stmt *stmt, const struct zvs_tok *pos,
                          unsigned npos)
{
    struct ud_ctx *c = ctx;
    char addr[20];
    const char *slash = strchr(pos[0].s, '/');
    uint32_t ip = 0, prefix = 0;

    (void)machine_stmt_begin(c, stmt, "GUESTIP");
    c->user.guest_gw = 0;
    c->user.guest_ip = 0;
    size_t n = slash != NULL ? (size_t)(slash - pos[0].s) : sizeof addr;
    if (slash == NULL || n >= sizeof addr) {
        bad_value(c, &pos[0], "GUESTIP", "a.b.c.d/n (n 1-32)");
        return;
    }
    memcpy(addr, pos[0].s, n);
    addr[n] = '\0';
    if (parse_ipv4(addr, &ip) < 0 || ip == 0 || zvs_parse_dec(slash + 1, 1, 32, &prefix) < 0)
        bad_value(c, &pos[0], "GUESTIP", "a.b.c.d/n (n 1-32)");
    c->user.guest_ip = ip;
    c->user.guest_prefix = (uint8_t)prefix;
}

static void guestip_end(void *ctx, const struct zvs_stmt *stmt, uint64_t given)
{
    struct ud_ctx *c = ctx;
    struct zvs_cfg_user *u = c->in_user && c->cur_user >= 0 ? &c->cfg->user[c->cur_user] : NULL;

    if (u == NULL || !once_per_entry(c, u, u->guestip_line, "GUESTIP", stmt->tok[0].line) ||
        !stmt_clean(c))
        return;
    u->guest_ip = c->user.guest_ip;
    u->guest_prefix = c->user.guest_prefix;
    u->guest_gw = c->user.guest_gw;
    u->guestip_line = stmt->tok[0].line;
}

/* ---- LINUXUSER ----------------------------------------------------------------------- */

/* A Linux user name or uid (rules at the top). out gets the name as written or the uid in
 * canonical decimal. 0 or -1. */
static int parse_linuxuser(const char *s, char out[ZVS_LINUXUSER_MAX + 1])
{
    size_t n = strnlen(s, ZVS_LINUXUSER_MAX + 1);
    bool digits = true;
    uint32_t uid;

    if (n == 0 || n > ZVS_LINUXUSER_MAX || s[0] == '-')
        return -1;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool digit = ch >= '0' && ch <= '9';
        if (!digit && !(ch >= 'a' && ch <= 'z') && !(ch >= 'A' && ch <= 'Z') && ch != '.' &&
            ch != '_' && ch != '-')
            return -1;
        digits = digits && digit;
    }
    if (!digits) {
        memcpy(out, s, n + 1);
        return 0;
    }
    /* 4294967295 is (uid_t)-1, "no uid" to the kernel. Leading zeros: drop them first, as
     * zvs_parse_dec takes at most 10 digits. */
    while (n > 1 && s[0] == '0') {
        s++;
        n--;
    }
    if (zvs_parse_dec(s, 0, UINT32_MAX - 1, &uid) < 0)
        return -1;
    snprintf(out, ZVS_LINUXUSER_MAX + 1, "%u", (unsigned)uid);
    return 0;
}

/* The entry (cfg->user index) that maps `name` already, with its line, or -1. */
static int linuxuser_owner(const struct zvs_cfg *cfg, const char *name, uint32_t *line)
{
    for (unsigned i = 0; i < cfg->nuser; i++) {
        const struct zvs_cfg_user *u = &cfg->user[i];
        for (unsigned k = 0; k < u->nlinuxuser; k++)
            if (strcmp(u->linuxuser[k], name) == 0) {
                *line = u->linuxuser_line[k];
                return (int)i;
            }
    }
    return -1;
}

static void linuxuser_stmt(struct ud_ctx *c, const struct zvs_stmt *st)
{
    char name[ZVS_CFG_MAX_LINUXUSERS][ZVS_LINUXUSER_MAX + 1];
    uint32_t line[ZVS_CFG_MAX_LINUXUSERS];
    struct zvs_cfg_user *u = NULL;
    bool full = false;
    unsigned n = 0;

    c->errors0 = c->cfg->msgs.errors;
    if (!c->in_user)
        ERR(c, st->tok[0].line, ZVS_MSG_NOT_IN_USER, "LINUXUSER");
    else if (c->cur_user >= 0)
        u = &c->cfg->user[c->cur_user];
    if (st->ntok < 2)
        ERR(c, st->tok[0].line, ZVS_MSG_OPERAND_MISSING, "user");
    for (unsigned i = 1; i < st->ntok; i++) {
        const struct zvs_tok *t = &st->tok[i];
        char one[ZVS_LINUXUSER_MAX + 1], num[12];
        uint32_t other_line = 0;
        if (parse_linuxuser(t->s, one) < 0) {
            bad_value(c, t, "LINUXUSER", RULE_LINUXUSER);
            continue;
        }
        if (u == NULL)
            continue;                   /* no entry to add to: the syntax is all we check */
        int owner = linuxuser_owner(c->cfg, one, &other_line);
        for (unsigned k = 0; owner < 0 && k < n; k++)
            if (strcmp(name[k], one) == 0) {
                owner = c->cur_user;
                other_line = line[k];
            }
        if (owner >= 0) {
            num_str(num, sizeof num, other_line);
            ERR(c, t->line, ZVS_MSG_LINUXUSER_MAPPED, one, u->userid,
                c->cfg->user[owner].userid, num);
        } else if (u->nlinuxuser + n == ZVS_CFG_MAX_LINUXUSERS) {
            if (!full) {
                num_str(num, sizeof num, ZVS_CFG_MAX_LINUXUSERS);
                ERR(c, t->line, ZVS_MSG_LINUXUSER_TOO_MANY, u->userid, num, one);
            }
            full = true;
        } else {
            memcpy(name[n], one, sizeof one);
            line[n++] = t->line;
        }
    }
    if (!stmt_clean(c) || u == NULL)
        return;
    for (unsigned k = 0; k < n; k++) {
        memcpy(u->linuxuser[u->nlinuxuser], name[k], sizeof name[k]);
        u->linuxuser_line[u->nlinuxuser++] = line[k];
    }
}

/* ---- after the last statement -------------------------------------------------------- */

static void range_str(char *buf, size_t size, const struct zvs_cfg_nic *n)
{
    snprintf(buf, size, "%04X-%04X", (unsigned)n->vdev,
             (unsigned)(n->vdev + n->devices - 1) & 0xFFFFu);
}

static void check_nics(struct ud_ctx *c, unsigned first)
{
    struct zvs_cfg *cfg = c->cfg;

    for (unsigned i = first; i < cfg->nnic; i++) {
        const struct zvs_cfg_nic *n = &cfg->nic[i];
        char vdev[8], num[12], r1[16], r2[16];
        vdev_str(vdev, sizeof vdev, n->vdev);
        if (n->type_line == 0)
            ERR(c, n->line, ZVS_MSG_NIC_NEEDS, vdev, "TYPE");
        if ((uint32_t)n->vdev + n->devices - 1 > 0xFFFF) {
            num_str(num, sizeof num, n->devices);
            ERR(c, n->line, ZVS_MSG_VALUE_INVALID, "DEVICES", num,
                "vdev + DEVICES - 1 must not exceed FFFF");
            continue;
        }
        const struct zvs_cfg_user *u = &cfg->user[n->user];
        for (unsigned j = u->first_nic; j < i; j++) {
            const struct zvs_cfg_nic *o = &cfg->nic[j];
            if (n->vdev <= o->vdev + o->devices - 1 && o->vdev <= n->vdev + n->devices - 1) {
                char other[8];
                vdev_str(other, sizeof other, o->vdev);
                range_str(r1, sizeof r1, n);
                range_str(r2, sizeof r2, o);
                ERR(c, n->line, ZVS_MSG_NIC_OVERLAP, vdev, r1, other, r2);
                break;
            }
        }
    }
}

/* ---- the statement table ------------------------------------------------------------- */

static const struct zvs_stmtdef userdirect_stmts[] = {
    { { "USER", NULL }, "USER", 4, 5,
      { "userid", "password", "storage", "maxstorage", "privclasses" },
      NULL, 0, user_begin, user_end },
    { { "IDENTITY", NULL }, "IDENTITY", 4, 5,
      { "userid", "password", "storage", "maxstorage", "privclasses" },
      NULL, 0, identity_begin, user_end },
    { { "NICDEF", NULL }, "NICDEF", 1, 1, { "vdev" },
      nicdef_ops, ND_COUNT, nicdef_begin, nicdef_end },
    { { "NICBIND", NULL }, "NICBIND", 1, 1, { "vdev" },
      nicbind_ops, NB_COUNT, nicbind_begin, nicbind_end },
    { { "IPL", NULL }, "IPL", 1, 2, { "name", "path" }, NULL, 0, ipl_begin, NULL },
    { { "GUESTIP", NULL }, "GUESTIP", 1, 1, { "address" },
      guestip_ops, GI_COUNT, guestip_begin, guestip_end },
};

int zvs_cfg_parse_userdirect_buf(struct zvs_cfg *cfg, const char *name, const char *buf,
                                 size_t len)
{
    snprintf(cfg->userdirect_file, sizeof cfg->userdirect_file, "%s",
             name != NULL ? name : "USER DIRECT");
    struct ud_ctx c = {
        .cfg = cfg,
        .sink = { .list = &cfg->msgs, .file = cfg->userdirect_file },
        .cur_user = -1,
    };
    unsigned before = cfg->msgs.errors;
    unsigned first_nic = cfg->nnic;
    /* zvs_parse_text's loop, with LINUXUSER beside the table (see the top). */
    struct zvs_lexer *lx = malloc(sizeof *lx);  /* ~2 KiB of tokens: keep it off the stack */
    struct zvs_stmt st;
    int rc;

    if (lx == NULL)
        return -ENOMEM;
    if ((rc = zvs_lexer_init(lx, buf, len, &c.sink)) < 0) {
        free(lx);
        return rc;
    }
    while (zvs_lexer_next(lx, &st) == 1) {
        if (zvs_tok_is(&st.tok[0], "LINUXUSER"))
            linuxuser_stmt(&c, &st);
        else
            zvs_stmt_dispatch(userdirect_stmts,
                              sizeof userdirect_stmts / sizeof userdirect_stmts[0], &st, &c,
                              &c.sink);
    }
    zvs_lexer_fini(lx);
    free(lx);
    check_nics(&c, first_nic);
    return (int)(cfg->msgs.errors - before);
}

int zvs_cfg_parse_userdirect_text(struct zvs_cfg *cfg, const char *name, const char *text)
{
    return zvs_cfg_parse_userdirect_buf(cfg, name, text, strlen(text));
}
