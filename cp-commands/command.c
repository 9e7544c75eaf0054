/* CP command parser: one command line into a struct zvs_cmd, or one z/VM-style error.
 *
 * Owns: zvs_cmd_parse: matching the leading keywords against the grammar table
 * (command_grammar.c, where the commands and their abbreviations are listed), the
 * privilege check and the operand steps and values. The line is split by the tokenizer
 * the configuration files use (zvs_token_cut, tokens.c). The response buffer is
 * cp_response.c's, the canonical text command_format.c's.
 *
 * Names are zvs_parse_name names (1-8 of A-Z 0-9 @ # $); ALL is not a name. In the
 * optional name position a token that, with every token after it, reads as keywords (and
 * their values) of the optional steps after it, in order, is taken as that keyword, so
 * `Q LACP DET` shows every group, `Q VSW ACC` every switch's access list and `Q PORT
 * GROUP ACTIVE DETAILS` every group in use; a group called DET is `Q LACP DET DET`. In
 * the optional vdev position of QUERY NIC no such rule is needed: no abbreviation of ALL
 * or DETAILS is hex.
 * UPLINK, QDIO and TO are accepted and dropped (they change nothing), so the canonical
 * text leaves UPLINK and TO out.
 *
 * Rules: tokens are separated by blanks (zvs_is_blank: space, tab, CR, LF; any number),
 * compared without case. SEND's text is the rest of the line as typed, from its first
 * token, trailing blanks cut. The first problem found, left to right, is the one reported,
 * naming the token as typed (upper-cased, sanitised by cp_messages.c). Privilege is
 * checked as soon as the command is known, before its operands (USERID's class B when
 * USERID is met). The operands shared with SYSTEM CONFIG (DEFINE VSWITCH, GRANT) answer
 * with the first message of that parser (messages.c, "HCP10nnE", rc = the number), their
 * tokens upper-cased first and the line sanitised like ours. The parse fills a local,
 * zeroed struct and copies it out only on success, so *cmd is untouched by a failing parse
 * and a parsed struct may be compared with memcmp (padding included).
 * Hazards: the grammar table must stay unambiguous for these rules to hold (no two
 * alternatives at one position share an abbreviation, no optional step's keyword reads as
 * the value after it); zvs_cmd_grammar_check proves it (command_grammar.c).
 */
#include "cp-commands/command.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cp-commands/command_impl.h"
#include "cp-commands/tokens.h"

/* ---- parser -------------------------------------------------------------------------- */

struct parser {
    const char             *line;       /* as typed */
    const char             *buf;        /* its copy the tokens were cut from */
    char                  **tok;
    unsigned                n;
    unsigned                i;          /* next token */
    uint32_t                privclass;
    const struct cmddef    *def;
    struct zvs_cmd         *cmd;        /* the local struct being filled */
    struct zvs_cp_response *r;
};

/* The first letters are compared first: the leading keywords are tried against every
 * command of the table, and nearly all of them differ there. */
static bool kw_match(const struct kw *k, const char *t)
{
    char c = t[0] >= 'a' && t[0] <= 'z' ? (char)(t[0] - 'a' + 'A') : t[0];
    if (c != k->word[0])
        return false;
    size_t n = strlen(t);
    return n >= k->min && n <= strlen(k->word) && strncasecmp(t, k->word, n) == 0;
}

static const char *peek(const struct parser *p)
{
    return p->i < p->n ? p->tok[p->i] : NULL;
}

/* The next token, consumed; NULL (after reporting HCPCFC026E) when the line has ended. */
static const char *need(struct parser *p)
{
    const char *t = peek(p);
    if (t == NULL) {
        zvs_cp_error(p->r, ZVS_CPMSG_OPERAND_MISSING);
        return NULL;
    }
    p->i++;
    return t;
}

static int invalid_operand(struct parser *p, const char *t)
{
    zvs_cp_error(p->r, ZVS_CPMSG_INVALID_OPERAND, t);
    return -EINVAL;
}

static int invalid_option(struct parser *p, const char *t)
{
    zvs_cp_error(p->r, ZVS_CPMSG_INVALID_OPTION, t);
    return -EINVAL;
}

static int value_range(struct parser *p, const char *kwname, const char *t, const char *range)
{
    zvs_cp_error(p->r, ZVS_CPMSG_VALUE_RANGE, kwname, t, range);
    return -ERANGE;
}

/* The next token, a decimal min-max, into *out (left alone on error); HCPCFC026E when the
 * line has ended, ZVSCMD1105E naming kwname and "min-max" when it is not one. */
static int need_dec(struct parser *p, const char *kwname, uint32_t min, uint32_t max,
                    uint32_t *out)
{
    const char *t = need(p);
    char range[24];

    if (t == NULL)
        return -EINVAL;
    if (zvs_parse_dec(t, min, max, out) == 0)
        return 0;
    snprintf(range, sizeof range, "%u-%u", (unsigned)min, (unsigned)max);
    return value_range(p, kwname, t, range);
}

/* A CP name that is not ALL into dst, or HCPxxx002E (the command's module). */
static int parse_name_into(struct parser *p, const char *t, char dst[ZVS_NAME_MAX + 1])
{
    if (kw_match(&zvs_kw_all, t) || zvs_parse_name(t, dst) < 0)
        return invalid_operand(p, t);
    return 0;
}

static int need_name(struct parser *p, char dst[ZVS_NAME_MAX + 1])
{
    const char *t = need(p);
    return t == NULL ? -EINVAL : parse_name_into(p, t, dst);
}

/* A CP name into dst (ALL too: a machine's userid may be ALL), or HCPxxx002E (the command's module). */
static int need_userid(struct parser *p, char dst[ZVS_NAME_MAX + 1])
{
    const char *t = need(p);
    if (t == NULL)
        return -EINVAL;
    return zvs_parse_name(t, dst) == 0 ? 0 : invalid_operand(p, t);
}

/* SEND's text: the line as typed from the next token on, trailing blanks cut. */
static void rest_as_typed(struct parser *p, char dst[ZVS_CMD_LINE_MAX + 1])
{
    const char *t = peek(p);
    if (t == NULL)
        return;                         /* "" */
    const char *rest = p->line + (t - p->buf);
    size_t n = strnlen(rest, ZVS_CMD_LINE_MAX);
    while (n > 0 && zvs_is_blank(rest[n - 1]))
        n--;
    memcpy(dst, rest, n);
    dst[n] = '\0';
    p->i = p->n;
}

/* 1-4 hex digits. */
static int vdev_parse(const char *t, uint16_t *vdev)
{
    uint32_t v;
    if (zvs_parse_hex(t, 1, 4, &v) < 0)
        return -EINVAL;
    *vdev = (uint16_t)v;
    return 0;
}

/* Devices to the end of the line, at most `max`, none twice. */
static int parse_rdevs(struct parser *p, unsigned max)
{
    struct zvs_cmd *cmd = p->cmd;

    if (peek(p) == NULL) {
        zvs_cp_error(p->r, ZVS_CPMSG_OPERAND_MISSING);
        return -EINVAL;
    }
    for (const char *t; (t = peek(p)) != NULL; p->i++) {
        struct zvs_rdev rdev;
        memset(&rdev, 0, sizeof rdev);  /* padding too: callers may memcmp commands */
        if (zvs_rdev_parse(t, &rdev) < 0)
            return invalid_operand(p, t);
        if (cmd->nrdev == max) {
            char limit[8];
            snprintf(limit, sizeof limit, "%u", max);
            zvs_cp_error(p->r, ZVS_CPMSG_TOO_MANY_DEVICES, t, limit);
            return -E2BIG;
        }
        for (unsigned k = 0; k < cmd->nrdev; k++)
            if (zvs_rdev_equal(cmd->rdev[k], rdev)) {
                zvs_cp_error(p->r, ZVS_CPMSG_DEVICE_REPEATED, t);
                return -EINVAL;
            }
        cmd->rdev[cmd->nrdev++] = rdev;
    }
    return 0;
}

/* One device -> rdev[0], nrdev 1. */
static int parse_one_rdev(struct parser *p)
{
    const char *t = need(p);
    if (t == NULL)
        return -EINVAL;
    memset(&p->cmd->rdev[0], 0, sizeof p->cmd->rdev[0]);
    if (zvs_rdev_parse(t, &p->cmd->rdev[0]) < 0)
        return invalid_operand(p, t);
    p->cmd->nrdev = 1;
    return 0;
}

/* One of n keywords: its index, or -EINVAL (reported). */
static int parse_keyword(struct parser *p, const struct kw *const *kws, unsigned n)
{
    const char *t = need(p);
    if (t == NULL)
        return -EINVAL;
    for (unsigned k = 0; k < n; k++)
        if (kw_match(kws[k], t))
            return (int)k;
    return invalid_option(p, t);
}

/* ON (true) or OFF into *out. */
static int parse_onoff(struct parser *p, bool *out)
{
    static const struct kw *const onoff[] = { &zvs_kw_on, &zvs_kw_off };
    int k = parse_keyword(p, onoff, 2);
    if (k < 0)
        return k;
    *out = k == 0;
    return 0;
}

/* Upper-cases tokens [from, n) in place: the shared parsers quote them in messages as
 * typed, ours quote them upper-cased, and no operand there is case-sensitive. */
static void upcase_rest(struct parser *p, unsigned from)
{
    for (unsigned k = from; k < p->n; k++)
        for (char *q = p->tok[k]; *q != '\0'; q++)
            if (*q >= 'a' && *q <= 'z')
                *q = (char)(*q - 'a' + 'A');
}

/* Answers with the first message of a shared SYSTEM CONFIG parser, as a response line
 * of printable ASCII, rc = its number. */
static int shared_error(struct parser *p, const struct zvs_msg_list *msgs)
{
    char line[ZVS_MSG_TEXT_MAX];

    if (msgs->n == 0) {                 /* the list could not keep it: out of memory */
        zvs_cp_error(p->r, ZVS_CPMSG_COMMAND_FAILED, p->def->title, "out of storage");
        return -ENOMEM;
    }
    size_t n = strnlen(msgs->msg[0].text, sizeof line - 1);
    for (size_t k = 0; k < n; k++) {
        unsigned char ch = (unsigned char)msgs->msg[0].text[k];
        line[k] = ch < 0x20 || ch > 0x7E ? '?' : (char)ch;
    }
    line[n] = '\0';
    zvs_cp_printf(p->r, "%s", line);
    p->r->rc = msgs->msg[0].number;
    return -EINVAL;
}

/* DEFINE VSWITCH name operands: the rest of the line, through sysconfig.c's table. */
static int parse_vswitch_def(struct parser *p)
{
    struct zvs_msg_list msgs = { 0 };
    unsigned from = p->i;

    upcase_rest(p, from);
    p->i = p->n;
    int err = zvs_cfg_parse_vswitch_def(p->cmd->name, (const char *const *)p->tok + from,
                                        p->n - from, &p->cmd->vsw, &msgs);
    if (err < 0)
        err = shared_error(p, &msgs);
    zvs_msg_list_free(&msgs);
    return err;
}

/* GRANT userid [PORTTYPE ..] [VLAN ..]: from the GRANT token (just consumed) to the end
 * of the line, through sysconfig.c's MODIFY VSWITCH table. */
static int parse_grant(struct parser *p)
{
    struct zvs_msg_list msgs = { 0 };
    struct zvs_cfg_grant g;
    struct zvs_cmd *cmd = p->cmd;
    unsigned from = p->i - 1;

    upcase_rest(p, from);
    p->i = p->n;
    int err = zvs_cfg_parse_grant(p->def->title, (const char *const *)p->tok + from,
                                  p->n - from, &g, &msgs);
    if (err < 0) {
        err = shared_error(p, &msgs);
    } else {
        memcpy(cmd->userid, g.userid, sizeof cmd->userid);
        cmd->porttype = g.porttype;
        cmd->has_vlan = g.has_vlan;
        /* Only the ranges in use: a merge may leave stale ones behind them. */
        memset(&cmd->vlan, 0, sizeof cmd->vlan);
        cmd->vlan.n = g.vlan.n;
        memcpy(cmd->vlan.r, g.vlan.r, g.vlan.n * sizeof g.vlan.r[0]);
    }
    zvs_msg_list_free(&msgs);
    return err;
}

/* VXLAN NEIGHBOR addr MAC mac | DELETE (ours). */
static int parse_neighbor(struct parser *p)
{
    static const struct kw *const macdel[] = { &zvs_kw_mac, &zvs_kw_delete };
    struct zvs_cmd *cmd = p->cmd;
    const char *t = need(p);
    int k;

    if (t == NULL)
        return -EINVAL;
    if (zvs_parse_addr_text(t, cmd->vx_addr, sizeof cmd->vx_addr) < 0)
        return value_range(p, "NEIGHBOR", t, "an IPv4 or IPv6 address");
    if ((k = parse_keyword(p, macdel, 2)) < 0)
        return k;
    cmd->vx_op = k == 0 ? ZVS_CMD_VX_NEIGHBOR_SET : ZVS_CMD_VX_NEIGHBOR_DELETE;
    if (k == 1)
        return 0;
    if ((t = need(p)) == NULL)
        return -EINVAL;
    if (zvs_parse_unicast_mac(t, cmd->vx_mac) < 0)
        return value_range(p, "MAC", t, "xx-xx-xx-xx-xx-xx, a unicast MAC");
    return 0;
}

static int parse_value(struct parser *p, enum val_kind val, const char *kwname)
{
    static const struct kw *const active[] = { &zvs_kw_active, &zvs_kw_inactive };
    static const struct kw *const macprot[] = { &zvs_kw_on, &zvs_kw_off, &zvs_kw_unspecified };
    static const enum zvs_macprotect macprot_val[] = {
        ZVS_MACPROTECT_ON, ZVS_MACPROTECT_OFF, ZVS_MACPROTECT_UNSPECIFIED };
    static const struct kw *const clear[] = { &zvs_kw_clear };
    static const struct kw *const policy[] = { &zvs_kw_load, &zvs_kw_lbt };
    struct zvs_cmd *cmd = p->cmd;
    const char *t;
    uint32_t v;
    int k;

    switch (val) {
    case VAL_NONE:
        return 0;
    case VAL_RDEVS:
        return parse_rdevs(p, ZVS_CMD_MAX_RDEVS);
    case VAL_UPLINK_RDEVS:
        if ((t = peek(p)) != NULL && kw_match(&zvs_kw_none, t)) {
            p->i++;
            return 0;                   /* nrdev 0 */
        }
        return parse_rdevs(p, UPLINK_RDEVS_MAX);
    case VAL_ACTIVE:
        if ((k = parse_keyword(p, active, 2)) < 0)
            return k;
        cmd->lacp_active = k == 0;
        /* EXCLUSIVE is the documented default; SHARED gives the group to the IVL domain
         * (whether this system can share it is cfg_apply_group.c's to say) */
        cmd->lacp_shared = false;
        if ((t = peek(p)) != NULL && kw_match(&zvs_kw_exclusive, t)) {
            p->i++;
        } else if (t != NULL && kw_match(&zvs_kw_shared, t)) {
            p->i++;
            cmd->lacp_shared = true;
        }
        return 0;
    case VAL_FAULT_ONOFF:
        return parse_onoff(p, &cmd->fault_on);
    case VAL_ONOFF:
        return parse_onoff(p, &cmd->onoff);
    case VAL_HEARTBEAT: {
        static const struct kw *const hb[] = { &zvs_kw_heartbeat };
        static const struct kw *const to[] = { &zvs_kw_timeout };
        if ((k = parse_keyword(p, hb, 1)) < 0 || (k = parse_keyword(p, to, 1)) < 0)
            return k;
        return need_dec(p, "TIMEOUT", 1, ZVS_CFG_HEARTBEAT_MAX, &cmd->heartbeat_s);
    }
    case VAL_INTERVAL:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        if (kw_match(&zvs_kw_off, t)) {
            cmd->interval_s = 0;
            return 0;
        }
        if (zvs_parse_dec(t, 1, INTERVAL_MAX, &cmd->interval_s) == 0) {
            cmd->interval_s = zvs_cfg_interval_round(cmd->interval_s);  /* CP's rule */
            return 0;
        }
        return value_range(p, kwname, t, "1-9990, OFF");
    case VAL_MS:
        return need_dec(p, kwname, 0, DELAYTX_MAX, &cmd->delay_ms);
    case VAL_GRANT:
        return parse_grant(p);
    case VAL_USERID:
        return need_name(p, cmd->userid);
    case VAL_GROUP:
        return need_name(p, cmd->group);
    case VAL_QUEUESTORAGE:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        if (zvs_cfg_parse_queuestorage(t, &cmd->queuestorage_mb) == 0)
            return 0;
        return value_range(p, kwname, t, "1M-8M");
    case VAL_MACPROTECT:
        if ((k = parse_keyword(p, macprot, 3)) < 0)
            return k;
        cmd->macprotect = macprot_val[k];
        return 0;
    case VAL_COUNTERS:
        if ((k = parse_keyword(p, clear, 1)) < 0)
            return k;
        if ((t = peek(p)) != NULL && kw_match(&zvs_kw_uplink, t)) {
            p->i++;
            cmd->counters = ZVS_CMD_COUNTERS_UPLINK;
        } else if (t != NULL && kw_match(&zvs_kw_bridgeport, t)) {
            p->i++;
            cmd->counters = ZVS_CMD_COUNTERS_BRIDGEPORT;
        } else if (t != NULL && kw_match(&zvs_kw_all, t)) {
            p->i++;
            cmd->counters = ZVS_CMD_COUNTERS_ALL;
        }
        if ((t = peek(p)) != NULL && kw_match(&zvs_kw_data, t))
            cmd->counters_kind = ZVS_CMD_CTR_DATA;
        else if (t != NULL && kw_match(&zvs_kw_discarded, t))
            cmd->counters_kind = ZVS_CMD_CTR_DISCARDED;
        else if (t != NULL && kw_match(&zvs_kw_errors, t))
            cmd->counters_kind = ZVS_CMD_CTR_ERRORS;
        if (cmd->counters_kind != 0)
            p->i++;
        return 0;
    case VAL_SWITCHOVER:
        if ((t = peek(p)) != NULL && kw_match(&zvs_kw_available, t)) {
            p->i++;
        } else if (t != NULL && kw_match(&zvs_kw_rdev, t)) {
            p->i++;
            return parse_one_rdev(p);
        }
        return 0;                       /* nrdev 0: the next ready backup */
    case VAL_DEVICES:
        if ((k = need_dec(p, kwname, DEVICES_MIN, DEVICES_MAX, &v)) < 0)
            return k;
        cmd->devices = (uint16_t)v;
        return 0;
    case VAL_WITHIN:
        return need_dec(p, kwname, 1, WITHIN_MAX, &cmd->within_s);
    case VAL_LINES:
        return need_dec(p, kwname, 1, ZVS_CMD_CONSLOG_MAX, &cmd->lines);
    case VAL_NICTYPE:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        /* HIPERSOCKETS (a documented type zvswitch does not emulate) is refused as the
         * bare HIPERSOCKETS always was: CP's invalid option. */
        return kw_match(&zvs_kw_qdio, t) ? 0 : invalid_option(p, t);
    case VAL_HOSTNAME: {
        if ((t = need(p)) == NULL)
            return -EINVAL;
        enum zvs_hostname_err e = zvs_hostname_check(t, strlen(t), cmd->hostname);
        if (e == ZVS_HOSTNAME_OK)
            return 0;
        return value_range(p, kwname, t, zvs_hostname_err_text(e));
    }
    case VAL_VXLAN: {
        static const struct kw *const what[] = { &zvs_kw_remote, &zvs_kw_vni, &zvs_kw_vlan,
                                                 &zvs_kw_neighbor };
        static const struct kw *const addel[] = { &zvs_kw_add, &zvs_kw_delete };
        static const struct kw *const vnidel[] = { &zvs_kw_vni, &zvs_kw_delete };
        if ((k = parse_keyword(p, what, 4)) < 0)
            return k;
        if (k == 3)
            return parse_neighbor(p);
        if (k == 1) {
            cmd->vx_op = ZVS_CMD_VX_VNI;
            return need_dec(p, "VNI", 0, ZVS_CFG_VNI_MAX, &cmd->vni);
        }
        if (k == 2) {
            if ((k = need_dec(p, "VLAN", 1, 4094, &v)) < 0)
                return k;
            cmd->vx_vid = (uint16_t)v;
            if ((k = parse_keyword(p, vnidel, 2)) < 0)
                return k;
            cmd->vx_op = k == 0 ? ZVS_CMD_VX_VLAN_VNI : ZVS_CMD_VX_VLAN_DELETE;
            return k == 0 ? need_dec(p, "VNI", 0, ZVS_CFG_VNI_MAX, &cmd->vni) : 0;
        }
        if ((k = parse_keyword(p, addel, 2)) < 0)
            return k;
        cmd->vx_op = k == 0 ? ZVS_CMD_VX_REMOTE_ADD : ZVS_CMD_VX_REMOTE_DELETE;
        return parse_value(p, VAL_HOSTNAME, "REMOTE");
    }
    case VAL_POLICY:                    /* what is not given takes its default */
        if ((k = parse_keyword(p, policy, 2)) < 0)
            return k;
        cmd->policy = k == 0 ? ZVS_CFG_POLICY_LOAD : ZVS_CFG_POLICY_LBT;
        cmd->load = ZVS_CFG_LOAD_TOTAL;
        cmd->lbt_percent = LBT_PERCENT_DEFAULT;
        if ((t = peek(p)) == NULL)
            return 0;
        p->i++;
        if (k == 0 && kw_match(&zvs_kw_outbound, t))
            cmd->load = ZVS_CFG_LOAD_OUTBOUND;
        else if (k == 0 && !kw_match(&zvs_kw_total, t))
            return value_range(p, "POLICY LOAD", t, "TOTAL, OUTBOUND");
        else if (k == 1 && zvs_parse_dec(t, 1, 100, &v) < 0)
            return value_range(p, "POLICY LBT", t, "1-100");
        else if (k == 1)
            cmd->lbt_percent = (uint8_t)v;
        return 0;
    }
    assert(!"unknown value kind");
    return -EINVAL;
}

static const struct alt *find_alt(const struct step *st, const char *t, bool uplink_only)
{
    for (unsigned a = 0; a < st->nalts; a++)
        if ((!uplink_only || st->alts[a].uplink) && kw_match(&st->alts[a].kw, t))
            return &st->alts[a];
    return NULL;
}

static int parse_choice(struct parser *p, const struct step *st)
{
    struct zvs_cmd *cmd = p->cmd;
    const char *t = peek(p);
    bool uplink = false;

    if (t == NULL && st->optional)
        return 0;
    if (t != NULL && zvs_cmd_step_has_uplink(st) && kw_match(&zvs_kw_uplink, t)) {
        p->i++;                         /* UPLINK: says which port, changes nothing */
        uplink = true;
        t = peek(p);
    }
    if (t == NULL) {
        zvs_cp_error(p->r, ZVS_CPMSG_OPERAND_MISSING);
        return -EINVAL;
    }
    const struct alt *alt = find_alt(st, t, uplink);
    if (alt == NULL && st->bad_operand)
        return invalid_operand(p, t);
    if (alt == NULL)
        return st->optional && !uplink ? 0 : invalid_option(p, t);
    p->i++;
    switch (st->field) {
    case OP_NONE:    break;
    case OP_PG:      cmd->pg_op = (enum zvs_cmd_pg_op)alt->op; break;
    case OP_FAULT:   cmd->fault = (enum zvs_cmd_fault)alt->op; break;
    case OP_VS:      cmd->vs_op = (enum zvs_cmd_vs_op)alt->op; break;
    case OP_LEVEL:   cmd->level = (enum zvs_cmd_level)alt->op; break;
    case OP_DETAILS: cmd->details = true; break;
    case OP_RES:     cmd->res_op = (enum zvs_cmd_res_op)alt->op; break;
    }
    return parse_value(p, alt->val, alt->kw.word);
}

/* True when t, at the optional name position s, is instead a keyword: it and every token
 * after it are keywords (with their values) of the optional steps after s, in order (the
 * rule for the optional name position, see the top). */
static bool keyword_of_next(const struct parser *p, unsigned s, const char *t)
{
    const struct cmddef *def = p->def;
    unsigned i = p->i;
    (void)t;
    for (unsigned k = s + 1; k < def->nsteps && i < p->n; k++) {
        const struct step *st = &def->steps[k];
        if (st->kind != STEP_CHOICE || !st->optional)
            return false;
        const struct alt *alt = find_alt(st, p->tok[i], false);
        if (alt == NULL)
            continue;                   /* this optional step left out */
        i += alt->val == VAL_NONE ? 1 : 2;  /* a keyword taking a value takes one token */
    }
    return i == p->n;
}

static int parse_target(struct parser *p)
{
    const char *t = peek(p);

    if (t == NULL || !kw_match(&zvs_kw_userid, t))
        return 0;
    if ((p->privclass & ZVS_PRIVCLASS('B')) == 0) {
        char what[40];
        snprintf(what, sizeof what, "%s USERID", p->def->title);
        zvs_cp_error(p->r, ZVS_CPMSG_NOT_AUTHORIZED, what, "B");
        return -EPERM;
    }
    p->i++;
    return need_name(p, p->cmd->target);
}

static int parse_step(struct parser *p, unsigned s)
{
    const struct step *st = &p->def->steps[s];
    struct zvs_cmd *cmd = p->cmd;
    const char *t = peek(p);

    switch (st->kind) {
    case STEP_NAME:
        return need_name(p, cmd->name);
    case STEP_NAME_OPT:
        if (t == NULL)
            return 0;
        if (kw_match(&zvs_kw_all, t)) {
            p->i++;
            return 0;
        }
        if (keyword_of_next(p, s, t))
            return 0;
        p->i++;
        return parse_name_into(p, t, cmd->name);
    case STEP_RDEV:
        return parse_one_rdev(p);
    case STEP_VDEV:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        return vdev_parse(t, &cmd->vdev) == 0 ? 0 : invalid_operand(p, t);
    case STEP_VDEV_OPT:
        if (t == NULL)
            return 0;
        if (kw_match(&zvs_kw_all, t)) {
            p->i++;
            return 0;
        }
        if (s + 1 < p->def->nsteps && p->def->steps[s + 1].kind == STEP_CHOICE &&
            find_alt(&p->def->steps[s + 1], t, false) != NULL)
            return 0;                   /* no vdev: the next step's keyword */
        p->i++;
        if (vdev_parse(t, &cmd->vdev) < 0)
            return invalid_operand(p, t);
        cmd->has_vdev = true;
        return 0;
    case STEP_TARGET_OPT:
        return parse_target(p);
    case STEP_CHOICE:
        return parse_choice(p, st);
    case STEP_SYSTEM:
        if ((t = need(p)) == NULL)
            return -EINVAL;
        if (!kw_match(&zvs_kw_system, t))
            return invalid_operand(p, t);   /* an owner's guest LAN: not emulated */
        return need_name(p, cmd->name);
    case STEP_VSWITCH_DEF:
        return parse_vswitch_def(p);
    case STEP_USERID:
        return need_userid(p, cmd->userid);
    case STEP_USERID_ALL:
        if (t != NULL && kw_match(&zvs_kw_user, t)) {
            p->i++;                     /* USER: the userid after it may be ALL */
        } else if (t != NULL && kw_match(&zvs_kw_all, t)) {
            p->i++;
            return 0;                   /* userid "" */
        }
        return need_userid(p, cmd->userid);
    case STEP_VALUE_OPT:
        if (t == NULL)
            return 0;
        return parse_value(p, st->val, p->def->path[p->def->npath - 1].word);
    case STEP_TEXT:
        rest_as_typed(p, cmd->text);
        return 0;
    }
    assert(!"unknown step kind");
    return -EINVAL;
}

/* Finds the command named by the leading tokens. Returns it, or NULL after reporting. */
static const struct cmddef *match_command(struct parser *p)
{
    static const struct kw query_kw = { "QUERY", 1 };
    bool cand[NCOMMANDS];

    for (size_t k = 0; k < NCOMMANDS; k++)
        cand[k] = true;
    for (unsigned depth = 0; depth < MAX_PATH; depth++) {
        const char *t = peek(p);
        bool any = false;
        /* A candidate whose path ends here is the command (no path is a prefix of
         * another: zvs_cmd_grammar_check). */
        for (size_t k = 0; k < NCOMMANDS; k++)
            if (cand[k] && zvs_cmd_table[k].npath == depth)
                return &zvs_cmd_table[k];
        if (t == NULL) {
            zvs_cp_error(p->r, ZVS_CPMSG_OPERAND_MISSING);
            return NULL;
        }
        for (size_t k = 0; k < NCOMMANDS; k++) {
            cand[k] = cand[k] && kw_match(&zvs_cmd_table[k].path[depth], t);
            any |= cand[k];
        }
        if (depth == 0 && kw_match(&query_kw, t))
            snprintf(p->r->module, sizeof p->r->module, "%s", ZVS_CMD_MODULE_QUERY);
        if (!any) {
            if (depth == 0)
                zvs_cp_error(p->r, ZVS_CPMSG_UNKNOWN_COMMAND, t);
            else
                zvs_cp_error(p->r, ZVS_CPMSG_INVALID_OPTION, t);
            return NULL;
        }
        p->i++;
    }
    for (size_t k = 0; k < NCOMMANDS; k++)
        if (cand[k] && zvs_cmd_table[k].npath == MAX_PATH)
            return &zvs_cmd_table[k];
    assert(!"grammar path longer than MAX_PATH");
    return NULL;
}

static bool authorized(const struct cmddef *def, uint32_t privclass)
{
    for (const char *c = def->classes; *c != '\0'; c++)
        if (privclass & ZVS_PRIVCLASS(*c))
            return true;
    return false;
}

/* "class B", "class B or G", "class A, B or C". */
static void not_authorized(const struct cmddef *def, struct zvs_cp_response *r)
{
    size_t n = strlen(def->classes);
    char first[8], last[2] = { def->classes[n - 1], '\0' };

    if (n == 1) {
        zvs_cp_error(r, ZVS_CPMSG_NOT_AUTHORIZED, def->title, last);
        return;
    }
    if (n == 2)
        snprintf(first, sizeof first, "%c", def->classes[0]);
    else
        snprintf(first, sizeof first, "%c, %c", def->classes[0], def->classes[1]);
    zvs_cp_error(r, ZVS_CPMSG_NOT_AUTHORIZED_EITHER, def->title, first, last);
}

/* IBM's SET PORT groupname DELETE (the SET PORT GROUP page names it so): four tokens,
 * SET PORT x DELETE, are read as SET PORT GROUP x DELETE. Four tokens cannot be the
 * GROUP form (that needs a name and DELETE after GROUP), so a group called GROUP is
 * SET PORT GROUP DELETE either way. */
static void set_port_delete(char **tok, unsigned *n, unsigned max)
{
    static char group[] = "GROUP";
    static const struct kw set = { "SET", 1 }, port = { "PORT", 4 }, del = { "DELETE", 6 };

    if (*n != 4 || max < 5 || !kw_match(&set, tok[0]) || !kw_match(&port, tok[1]) ||
        !kw_match(&del, tok[3]))
        return;
    tok[4] = tok[3];
    tok[3] = tok[2];
    tok[2] = group;
    *n = 5;
}

/* Splits buf (len bytes and a NUL, edited in place) into tokens; returns how many. */
static unsigned tokenize(char *buf, size_t len, char **tok, unsigned max)
{
    unsigned n = 0;
    char *t;

    for (char *q = buf; n < max && (t = zvs_token_cut(&q, buf + len)) != NULL;)
        tok[n++] = t;
    return n;
}

/* What an operand left out means. */
static void defaults(struct zvs_cmd *cmd)
{
    if (cmd->verb == ZVS_CMD_DEFINE_NIC)
        cmd->devices = DEVICES_DEFAULT;
    if (cmd->verb == ZVS_CMD_SIGNAL_SHUTDOWN)
        cmd->within_s = ZVS_CMD_WITHIN_DEFAULT;
    if (cmd->verb == ZVS_CMD_QUERY_CONSLOG)
        cmd->lines = ZVS_CMD_CONSLOG_DEFAULT;
}

int zvs_cmd_parse(const char *line, uint32_t privclass, struct zvs_cmd *cmd,
                  struct zvs_cp_response *r)
{
    char buf[ZVS_CMD_LINE_MAX + 1];
    char *tok[ZVS_CMD_LINE_MAX / 2 + 1];
    struct zvs_cmd out;
    struct parser p = { .line = line, .buf = buf, .tok = tok, .privclass = privclass,
                        .cmd = &out, .r = r };
    size_t len = strnlen(line, ZVS_CMD_LINE_MAX + 1);
    int err;

    if (len > ZVS_CMD_LINE_MAX) {
        char limit[12];
        snprintf(limit, sizeof limit, "%u", (unsigned)ZVS_CMD_LINE_MAX);
        zvs_cp_error(r, ZVS_CPMSG_LINE_TOO_LONG, limit);
        return -E2BIG;
    }
    memcpy(buf, line, len + 1);
    p.n = tokenize(buf, len, tok, sizeof tok / sizeof tok[0]);
    memset(&out, 0, sizeof out);
    set_port_delete(tok, &p.n, sizeof tok / sizeof tok[0]);

    r->module[0] = '\0';
    p.def = match_command(&p);
    if (p.def == NULL)
        return -EINVAL;
    snprintf(r->module, sizeof r->module, "%s", zvs_cmd_module(p.def->verb));
    if (!authorized(p.def, privclass)) {
        not_authorized(p.def, r);
        return -EPERM;
    }
    out.verb = p.def->verb;
    defaults(&out);
    for (unsigned s = 0; s < p.def->nsteps; s++)
        if ((err = parse_step(&p, s)) < 0)
            return err;
    if (peek(&p) != NULL) {
        zvs_cp_error(r, ZVS_CPMSG_INVALID_OPTION, peek(&p));
        return -EINVAL;
    }
    memcpy(cmd, &out, sizeof out);
    return 0;
}
