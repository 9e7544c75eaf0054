/* Switch model configuration parser (see sm_config.h, README.md for the syntax).
 *
 * Design note.
 * - Reads like IOS: one command per line, '!' starts a comment, indentation means
 *   nothing, keywords are case-insensitive (values such as hostname, attach and
 *   description keep their case). "interface X" opens an interface; its sub-commands
 *   follow until the next global command (as IOS does, no "exit" needed).
 * - Every error is one message "file:line: text" that names the offending token; the
 *   first error stops the parse. Checks that need the whole file (every interface has an
 *   attach, attach names unique, no group mixes "on" with LACP) run at the end and name
 *   the line of the interface command.
 * - Port-channel interfaces are accepted for the report's commands (switchport trunk
 *   encapsulation dot1q, switchport mode trunk, no shutdown) but configure nothing: a
 *   port-channel is always a trunk, native VLAN 1.
 */
#include "tests/switchmodel/sm_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TOKENS 8
#define LINE_MAX_LEN 512

struct parser {
    const char *file;
    unsigned line;
    struct sm_config *cfg;
    struct sm_if_cfg *cur;              /* interface being configured, or NULL */
    bool in_po;                         /* inside "interface Port-channelN" */
    char *err;
    size_t errlen;
};

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(struct parser *p, const char *fmt, ...)
{
    int n = snprintf(p->err, p->errlen, "%s:%u: ", p->file, p->line);
    if (n >= 0 && (size_t)n < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

static bool kw(const char *tok, const char *word)
{
    return tok && strcasecmp(tok, word) == 0;
}

/* Unsigned decimal in [lo, hi]. */
static bool parse_uint(const char *s, unsigned long long lo, unsigned long long hi,
                       unsigned long long *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* A rate: digits with an optional k/m/g suffix (decimal multiples), then the unit word
 * `unit` ("bps" optional for bits, "pps" required for frames). */
static bool parse_rate_unit(const char *s, uint64_t *out, const char *unit, bool unit_required)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned long long mul = 1;
    if (errno)
        return false;
    switch (tolower((unsigned char)*end)) {
    case 'k': mul = 1000ull; end++; break;
    case 'm': mul = 1000000ull; end++; break;
    case 'g': mul = 1000000000ull; end++; break;
    default: break;
    }
    if (*end ? strcasecmp(end, unit) != 0 : unit_required)
        return false;
    if (v == 0 || v > 100000000000ull / mul)     /* 1 .. 1e11 a second */
        return false;
    *out = v * mul;
    return true;
}

static bool parse_rate(const char *s, uint64_t *out)
{
    return parse_rate_unit(s, out, "bps", false);
}

int sm_ifname_parse(const char *text, uint8_t *slot, uint8_t *port)
{
    static const char full[] = "gigabitethernet";
    size_t n = 0;
    unsigned long long s, p;

    if (!text)
        return -EINVAL;
    while (isalpha((unsigned char)text[n]))
        n++;
    if (n < 2 || n > sizeof(full) - 1 || strncasecmp(text, full, n) != 0)
        return -EINVAL;
    const char *slash = strchr(text + n, '/');
    if (!slash || slash == text + n)
        return -EINVAL;
    char num[8];
    size_t sl = (size_t)(slash - (text + n));
    if (sl >= sizeof(num))
        return -EINVAL;
    memcpy(num, text + n, sl);
    num[sl] = '\0';
    if (!parse_uint(num, 1, 99, &s) || !parse_uint(slash + 1, 1, 99, &p))
        return -EINVAL;
    *slot = (uint8_t)s;
    *port = (uint8_t)p;
    return 0;
}

int sm_poname_parse(const char *text)
{
    static const char full[] = "port-channel";
    size_t n = 0;
    unsigned long long g;

    if (!text)
        return -EINVAL;
    while (isalpha((unsigned char)text[n]) || text[n] == '-')
        n++;
    if (n < 2 || n > sizeof(full) - 1 || strncasecmp(text, full, n) != 0)
        return -EINVAL;
    if (!parse_uint(text + n, 1, SM_MAX_GROUPS, &g))
        return -EINVAL;
    return (int)g;
}

const char *sm_lb_name(enum sm_lb lb)
{
    switch (lb) {
    case SM_LB_DST_MAC: return "dst-mac";
    case SM_LB_SRC_MAC: return "src-mac";
    case SM_LB_SRC_DST_MAC: return "src-dst-mac";
    case SM_LB_SRC_DST_IP: return "src-dst-ip";
    }
    return "?";
}

const char *sm_chan_mode_name(enum sm_chan_mode m)
{
    switch (m) {
    case SM_CHAN_NONE: return "none";
    case SM_CHAN_ACTIVE: return "active";
    case SM_CHAN_PASSIVE: return "passive";
    case SM_CHAN_ON: return "on";
    }
    return "?";
}

/* ---- commands ------------------------------------------------------------------------ */

/* Exactly `want` tokens (the rest would be "unexpected"), else an error. */
static int need(struct parser *p, char **t, int n, int want)
{
    if (n < want)
        return perr(p, "missing value after '%s'", t[n - 1]);
    if (n > want)
        return perr(p, "unexpected '%s'", t[want]);
    return 0;
}

/* rate-limit BPS [FPSpps] [queue N]: the OSA port model (README: "OSA port model"). */
static int cmd_rate_limit(struct parser *p, struct sm_if_cfg *ic, char **t, int n)
{
    if (n < 2)
        return perr(p, "missing value after '%s'", t[0]);
    if (!parse_rate(t[1], &ic->rate_bps))
        return perr(p, "invalid value '%s' for '%s'", t[1], t[0]);
    ic->rate_fps = 0;
    ic->queue_frames = 0;
    int i = 2;
    if (i < n && !kw(t[i], "queue")) {
        if (!parse_rate_unit(t[i], &ic->rate_fps, "pps", true) || ic->rate_fps > 100000000)
            return perr(p, "invalid value '%s' for '%s'", t[i], t[0]);
        i++;
    }
    if (i < n && kw(t[i], "queue")) {
        if (i + 1 >= n)
            return perr(p, "missing value after '%s'", t[i]);
        char *end;
        errno = 0;
        unsigned long q = strtoul(t[i + 1], &end, 10);
        if (errno || *end || !isdigit((unsigned char)t[i + 1][0]) || q == 0 || q > 65536)
            return perr(p, "invalid value '%s' for '%s'", t[i + 1], t[i]);
        ic->queue_frames = (uint32_t)q;
        i += 2;
    }
    if (i < n)
        return perr(p, "unexpected '%s'", t[i]);
    return 0;
}

static int cmd_interface(struct parser *p, char **t, int n)
{
    uint8_t slot, port;
    int rc;

    if ((rc = need(p, t, n, 2)) < 0)
        return rc;
    if (sm_poname_parse(t[1]) > 0) {
        p->cur = NULL;
        p->in_po = true;
        return 0;
    }
    if (sm_ifname_parse(t[1], &slot, &port) < 0)
        return perr(p, "invalid interface name '%s'", t[1]);
    p->in_po = false;
    for (unsigned i = 0; i < p->cfg->n_ifs; i++) {
        struct sm_if_cfg *ic = &p->cfg->ifs[i];
        if (ic->slot == slot && ic->port == port) {
            p->cur = ic;                /* IOS: re-entering adds to the interface */
            return 0;
        }
    }
    if (p->cfg->n_ifs >= SM_MAX_IFS)
        return perr(p, "too many interfaces at '%s' (at most %d)", t[1], SM_MAX_IFS);
    struct sm_if_cfg *ic = &p->cfg->ifs[p->cfg->n_ifs++];
    memset(ic, 0, sizeof(*ic));
    snprintf(ic->name, sizeof(ic->name), "GigabitEthernet%u/%u", slot, port);
    snprintf(ic->short_name, sizeof(ic->short_name), "Gi%u/%u", slot, port);
    ic->slot = slot;
    ic->port = port;
    ic->line = p->line;
    ic->port_priority = SM_DEFAULT_PRIORITY;
    ic->access_vlan = 1;
    p->cur = ic;
    return 0;
}

static int cmd_lacp_global(struct parser *p, char **t, int n)
{
    unsigned long long v;
    int rc;

    if (n < 2)
        return perr(p, "missing value after '%s'", t[0]);
    if (kw(t[1], "system-priority")) {
        if ((rc = need(p, t, n, 3)) < 0)
            return rc;
        if (!parse_uint(t[2], 1, 65535, &v))
            return perr(p, "invalid value '%s' for '%s'", t[2], t[1]);
        p->cfg->system_priority = (uint16_t)v;
        return 0;
    }
    if (kw(t[1], "quirk")) {
        if ((rc = need(p, t, n, 3)) < 0)
            return rc;
        if (kw(t[2], "suspend-individual"))
            p->cfg->quirks |= SM_QUIRK_SUSPEND_INDIVIDUAL;
        else if (kw(t[2], "reject-partner-port-zero"))
            p->cfg->quirks |= SM_QUIRK_REJECT_PORT_ZERO;
        else if (kw(t[2], "require-aggregation"))
            p->cfg->quirks |= SM_QUIRK_REQUIRE_AGGREGATION;
        else
            return perr(p, "invalid value '%s' for '%s'", t[2], t[1]);
        return 0;
    }
    return perr(p, "unknown command 'lacp %s'", t[1]);
}

static int cmd_global(struct parser *p, char **t, int n)
{
    int rc;
    unsigned long long v;

    if (kw(t[0], "hostname")) {
        if ((rc = need(p, t, n, 2)) < 0)
            return rc;
        if (strlen(t[1]) >= sizeof(p->cfg->hostname))
            return perr(p, "invalid value '%s' for '%s'", t[1], t[0]);
        snprintf(p->cfg->hostname, sizeof(p->cfg->hostname), "%s", t[1]);
        return 0;
    }
    if (kw(t[0], "lacp"))
        return cmd_lacp_global(p, t, n);
    if (kw(t[0], "port-channel")) {
        if (n < 2 || !kw(t[1], "load-balance"))
            return perr(p, "unknown command 'port-channel %s'", n < 2 ? "" : t[1]);
        if ((rc = need(p, t, n, 3)) < 0)
            return rc;
        for (enum sm_lb lb = SM_LB_DST_MAC; lb <= SM_LB_SRC_DST_IP; lb++) {
            if (kw(t[2], sm_lb_name(lb))) {
                p->cfg->lb = lb;
                return 0;
            }
        }
        return perr(p, "invalid value '%s' for '%s'", t[2], t[1]);
    }
    if (kw(t[0], "mac")) {
        if (n < 3 || !kw(t[1], "address-table") || !kw(t[2], "aging-time"))
            return perr(p, "unknown command 'mac %s'", n < 2 ? "" : t[1]);
        if ((rc = need(p, t, n, 4)) < 0)
            return rc;
        if (!parse_uint(t[3], 0, 1000000, &v))
            return perr(p, "invalid value '%s' for '%s'", t[3], t[2]);
        p->cfg->aging_s = (unsigned)v;
        return 0;
    }
    if (kw(t[0], "interface"))
        return cmd_interface(p, t, n);
    if (kw(t[0], "end") || kw(t[0], "exit")) {
        if ((rc = need(p, t, n, 1)) < 0)
            return rc;
        p->cur = NULL;
        p->in_po = false;
        return 0;
    }
    if (kw(t[0], "configure")) {
        if (n != 2 || !kw(t[1], "terminal"))
            return perr(p, "unexpected '%s'", n < 2 ? t[0] : t[1]);
        return 0;
    }
    return 1;                           /* not a global command */
}

static int cmd_switchport(struct parser *p, struct sm_if_cfg *ic, char **t, int n)
{
    unsigned long long v;
    int rc;

    if (n == 1)
        return 0;                       /* "switchport": layer 2, which every port is */
    if (kw(t[1], "access")) {
        if (n < 3 || !kw(t[2], "vlan"))
            return perr(p, "unexpected '%s'", n < 3 ? t[1] : t[2]);
        if ((rc = need(p, t, n, 4)) < 0)
            return rc;
        if (!parse_uint(t[3], 1, 4094, &v))
            return perr(p, "invalid value '%s' for '%s'", t[3], t[2]);
        if (ic)
            ic->access_vlan = (uint16_t)v;
        return 0;
    }
    if (kw(t[1], "mode")) {
        if ((rc = need(p, t, n, 3)) < 0)
            return rc;
        if (!kw(t[2], "access") && !kw(t[2], "trunk"))
            return perr(p, "invalid value '%s' for '%s'", t[2], t[1]);
        if (ic)
            ic->trunk = kw(t[2], "trunk");
        return 0;
    }
    if (kw(t[1], "trunk")) {
        /* switchport trunk encapsulation dot1q: the only encapsulation there is */
        if (n < 3 || !kw(t[2], "encapsulation"))
            return perr(p, "unexpected '%s'", n < 3 ? t[1] : t[2]);
        if ((rc = need(p, t, n, 4)) < 0)
            return rc;
        if (!kw(t[3], "dot1q"))
            return perr(p, "invalid value '%s' for '%s'", t[3], t[2]);
        return 0;
    }
    return perr(p, "unexpected '%s'", t[1]);
}

static int cmd_lacp_if(struct parser *p, struct sm_if_cfg *ic, char **t, int n)
{
    unsigned long long v;
    int rc;

    if (kw(t[1], "rate")) {
        if ((rc = need(p, t, n, 3)) < 0)
            return rc;
        if (kw(t[2], "fast"))
            ic->fast = true;
        else if (kw(t[2], "normal"))
            ic->fast = false;
        else
            return perr(p, "invalid value '%s' for '%s'", t[2], t[1]);
        return 0;
    }
    if (kw(t[1], "port-priority")) {
        if ((rc = need(p, t, n, 3)) < 0)
            return rc;
        if (!parse_uint(t[2], 1, 65535, &v))
            return perr(p, "invalid value '%s' for '%s'", t[2], t[1]);
        ic->port_priority = (uint16_t)v;
        return 0;
    }
    return 1;                           /* maybe a global lacp command */
}

static int cmd_channel_group(struct parser *p, struct sm_if_cfg *ic, char **t, int n)
{
    unsigned long long g;
    int rc;

    if (n < 2)
        return perr(p, "missing value after '%s'", t[0]);
    if (!parse_uint(t[1], 1, SM_MAX_GROUPS, &g))
        return perr(p, "invalid value '%s' for '%s'", t[1], t[0]);
    if (n < 3)
        return perr(p, "missing value after '%s'", t[1]);
    if (!kw(t[2], "mode"))
        return perr(p, "unexpected '%s'", t[2]);
    if ((rc = need(p, t, n, 4)) < 0)
        return rc;
    if (kw(t[3], "active"))
        ic->mode = SM_CHAN_ACTIVE;
    else if (kw(t[3], "passive"))
        ic->mode = SM_CHAN_PASSIVE;
    else if (kw(t[3], "on"))
        ic->mode = SM_CHAN_ON;
    else
        return perr(p, "invalid value '%s' for '%s'", t[3], t[2]);
    ic->group = (unsigned)g;
    return 0;
}

/* Sub-commands of a physical interface. Returns 1 if t[0] is not one. */
static int cmd_if(struct parser *p, struct sm_if_cfg *ic, char **t, int n, const char *rest)
{
    int rc;

    if (kw(t[0], "description")) {
        if (!rest || !*rest)
            return perr(p, "missing value after '%s'", t[0]);
        size_t dl = strlen(rest);
        if (dl >= sizeof(ic->description))
            return perr(p, "description longer than %zu characters", sizeof(ic->description) - 1);
        memcpy(ic->description, rest, dl + 1);
        return 0;
    }
    if (kw(t[0], "attach")) {
        if ((rc = need(p, t, n, 2)) < 0)
            return rc;
        if (strlen(t[1]) >= SM_ATTACH_LEN || strchr(t[1], '/'))
            return perr(p, "invalid value '%s' for '%s'", t[1], t[0]);
        snprintf(ic->attach, sizeof(ic->attach), "%s", t[1]);
        return 0;
    }
    if (kw(t[0], "channel-group"))
        return cmd_channel_group(p, ic, t, n);
    if (kw(t[0], "channel-protocol")) {
        if ((rc = need(p, t, n, 2)) < 0)
            return rc;
        if (!kw(t[1], "lacp"))
            return perr(p, "invalid value '%s' for '%s'", t[1], t[0]);
        return 0;
    }
    if (kw(t[0], "lacp") && n >= 2)
        return cmd_lacp_if(p, ic, t, n);
    if (kw(t[0], "rate-limit"))
        return cmd_rate_limit(p, ic, t, n);
    if (kw(t[0], "shutdown")) {
        if ((rc = need(p, t, n, 1)) < 0)
            return rc;
        ic->shutdown = true;
        return 0;
    }
    if (kw(t[0], "switchport"))
        return cmd_switchport(p, ic, t, n);
    if (kw(t[0], "no")) {
        if (n < 2)
            return perr(p, "missing value after '%s'", t[0]);
        if (kw(t[1], "shutdown")) {
            if ((rc = need(p, t, n, 2)) < 0)
                return rc;
            ic->shutdown = false;
            return 0;
        }
        if (kw(t[1], "ip") && n == 3 && kw(t[2], "address"))
            return 0;                   /* a layer-2 port has none anyway */
        if (kw(t[1], "rate-limit") && n == 2) {
            ic->rate_bps = 0;
            ic->rate_fps = 0;
            ic->queue_frames = 0;
            return 0;
        }
        return perr(p, "unexpected '%s'", t[1]);
    }
    return 1;
}

/* Sub-commands of a port-channel interface: the report's, configuring nothing. */
static int cmd_po(struct parser *p, char **t, int n, const char *rest)
{
    if (kw(t[0], "switchport"))
        return cmd_switchport(p, NULL, t, n);
    if (kw(t[0], "description"))
        return rest && *rest ? 0 : perr(p, "missing value after '%s'", t[0]);
    if (kw(t[0], "no") && n == 2 && kw(t[1], "shutdown"))
        return 0;
    return 1;
}

static bool if_only(const char *tok)
{
    static const char *const words[] = {
        "description", "attach", "channel-group", "channel-protocol", "rate-limit",
        "shutdown", "switchport", "no",
    };
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (kw(tok, words[i]))
            return true;
    return false;
}

static int parse_line(struct parser *p, char *line)
{
    char *t[MAX_TOKENS + 1];
    int n = 0;
    const char *rest = NULL;
    char restbuf[LINE_MAX_LEN];

    char *s = line;
    while (n <= MAX_TOKENS) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '!')
            break;
        t[n++] = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
        if (n == 1) {
            /* the raw text after the first word, for description */
            const char *r = s;
            while (isspace((unsigned char)*r))
                r++;
            size_t rl = strlen(r);
            while (rl && isspace((unsigned char)r[rl - 1]))
                rl--;
            memcpy(restbuf, r, rl);     /* before tokenising writes NULs into it */
            restbuf[rl] = '\0';
            rest = restbuf;
        }
        if (*s)
            *s++ = '\0';
    }
    if (n == 0)
        return 0;
    if (n > MAX_TOKENS && !kw(t[0], "description"))
        return perr(p, "unexpected '%s'", t[MAX_TOKENS]);
    if (n > MAX_TOKENS)
        n = MAX_TOKENS;

    int rc = 1;
    if (p->cur)
        rc = cmd_if(p, p->cur, t, n, rest);
    else if (p->in_po)
        rc = cmd_po(p, t, n, rest);
    if (rc <= 0)
        return rc;
    rc = cmd_global(p, t, n);
    if (rc <= 0)
        return rc;
    if (if_only(t[0]) || kw(t[0], "lacp"))
        return perr(p, "'%s' is valid only under an interface", t[0]);
    return perr(p, "unknown command '%s'", t[0]);
}

/* Whole-file checks; errors name the interface command's line. */
static int check(struct parser *p)
{
    struct sm_config *c = p->cfg;
    for (unsigned i = 0; i < c->n_ifs; i++) {
        struct sm_if_cfg *ic = &c->ifs[i];
        p->line = ic->line;
        if (!ic->attach[0])
            return perr(p, "interface %s has no 'attach'", ic->name);
        for (unsigned j = 0; j < i; j++) {
            const struct sm_if_cfg *o = &c->ifs[j];
            if (strcmp(o->attach, ic->attach) == 0)
                return perr(p, "attach '%s' already used by %s", ic->attach, o->name);
            if (ic->group && o->group == ic->group &&
                (ic->mode == SM_CHAN_ON) != (o->mode == SM_CHAN_ON))
                return perr(p, "channel-group %u: mode '%s' of %s conflicts with mode '%s' of %s",
                            ic->group, sm_chan_mode_name(ic->mode), ic->name,
                            sm_chan_mode_name(o->mode), o->name);
        }
    }
    return 0;
}

int sm_config_parse(const char *text, const char *file, struct sm_config *out, char *err,
                    size_t errlen)
{
    struct parser p = { .file = file ? file : "-", .cfg = out, .err = err, .errlen = errlen };
    char line[LINE_MAX_LEN];

    if (!text || !out || !err || errlen == 0)
        return -EINVAL;
    memset(out, 0, sizeof(*out));
    snprintf(out->hostname, sizeof(out->hostname), "Switch");
    out->system_priority = SM_DEFAULT_PRIORITY;
    out->lb = SM_LB_SRC_DST_MAC;        /* IOS default on a 6500 with a PFC */
    out->aging_s = SM_DEFAULT_AGING_S;
    err[0] = '\0';

    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        p.line++;
        if (len >= sizeof(line))
            return perr(&p, "line longer than %d characters", LINE_MAX_LEN - 1);
        memcpy(line, s, len);
        line[len] = '\0';
        if (len && line[len - 1] == '\r')
            line[len - 1] = '\0';
        int rc = parse_line(&p, line);
        if (rc < 0)
            return rc;
        s += len + (nl ? 1 : 0);
    }
    return check(&p);
}

int sm_config_load(const char *path, struct sm_config *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    int rc;

    if (!f) {
        rc = -errno;
        snprintf(err, errlen, "%s: %s", path, strerror(-rc));
        return rc;
    }
    size_t cap = 64 * 1024, len = 0;
    rc = -ENOMEM;
    buf = malloc(cap + 1);
    if (!buf)
        goto out;
    len = fread(buf, 1, cap, f);
    if (ferror(f)) {
        rc = -EIO;
        snprintf(err, errlen, "%s: read error", path);
        goto out;
    }
    if (len == cap) {
        rc = -EFBIG;
        snprintf(err, errlen, "%s: larger than %zu bytes", path, cap);
        goto out;
    }
    buf[len] = '\0';
    if (memchr(buf, '\0', len)) {
        rc = -EINVAL;
        snprintf(err, errlen, "%s: contains a NUL byte", path);
        goto out;
    }
    rc = sm_config_parse(buf, path, out, err, errlen);
out:
    free(buf);
    fclose(f);
    return rc;
}
