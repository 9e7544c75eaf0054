/* corosync_conf: corosync.conf written from the domain's configuration, and checked
 * against it (corosync_conf.h). */
#include "ivl/corosync_conf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOKEN_MS 3000u          /* corosync 3's totem.token when not given */

struct out {
    char  *buf;
    size_t size, len;
    bool   short_of_room;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
                      o->len < o->size ? o->size - o->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0 || o->len + (size_t)n >= o->size)
        o->short_of_room = true;
    if (n > 0)
        o->len += (size_t)n;
}

static int conf_valid(const struct zvs_cs_conf *c)
{
    if (c->nnodes == 0 || c->nnodes > ZVS_IVL_MAX_SYSTEMS || c->token_ms == 0 ||
        c->cluster_name[0] == '\0')
        return -EINVAL;
    for (unsigned i = 0; i < c->nnodes; i++) {
        if (c->node[i].nodeid == 0 || c->node[i].addr[0] == '\0' ||
            c->node[i].name[0] == '\0')
            return -EINVAL;
        for (unsigned j = 0; j < i; j++)
            if (c->node[j].nodeid == c->node[i].nodeid)
                return -EINVAL;
    }
    return 0;
}

int zvs_cs_conf_write(const struct zvs_cs_conf *c, char *buf, size_t size)
{
    if (conf_valid(c) < 0)
        return -EINVAL;
    struct out o = { .buf = buf, .size = size };
    put(&o, "# Written by vswitchd from SYSTEM CONFIG (the IVL domain of %s).\n"
            "# Edit SYSTEM CONFIG and write it again rather than edit this file.\n",
        c->cluster_name);
    put(&o, "totem {\n    version: 2\n    cluster_name: %s\n    transport: knet\n"
            "    token: %u\n", c->cluster_name, c->token_ms);
    /* HEARTBEAT TIMEOUT is the token timeout on any number of systems: corosync would add
     * token_coefficient (650 ms) per node beyond two (corosync.conf(5)) */
    put(&o, "    token_coefficient: 0\n");
    if (c->keyfile[0])
        put(&o, "    keyfile: %s\n", c->keyfile);
    put(&o, "    crypto_cipher: aes256\n    crypto_hash: sha256\n"
            "    interface {\n        linknumber: 0\n    }\n}\n");
    put(&o, "nodelist {\n");
    for (unsigned i = 0; i < c->nnodes; i++)
        put(&o, "    node {\n        name: %s\n        nodeid: %u\n        ring0_addr: %s\n"
                "    }\n", c->node[i].name, c->node[i].nodeid, c->node[i].addr);
    put(&o, "}\nquorum {\n    provider: corosync_votequorum\n");
    if (c->nnodes == 2)
        put(&o, "    auto_tie_breaker: 1\n    auto_tie_breaker_node: lowest\n");
    put(&o, "}\nsystem {\n    sched_rr: no\n");
    if (c->state_dir[0])
        put(&o, "    state_dir: %s\n", c->state_dir);
    put(&o, "}\nlogging {\n    to_syslog: yes\n    to_stderr: no\n}\n");
    if (o.short_of_room)
        return -ENOSPC;
    return (int)o.len;
}

/* ---- checking an existing file ------------------------------------------------------ */

#define MAX_DEPTH 4
#define VAL_LEN   ZVS_CS_PATH_LEN

/* What the check reads of a corosync.conf. */
struct seen {
    char               token[VAL_LEN];
    char               crypto_hash[VAL_LEN];
    char               provider[VAL_LEN];
    char               atb[VAL_LEN];
    char               sched_rr[VAL_LEN];
    struct zvs_cs_node node[ZVS_IVL_MAX_SYSTEMS + 1];
    unsigned           nnodes;          /* node sections seen (may exceed what is kept) */
};

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static void keep(char *dst, size_t size, const char *v)
{
    snprintf(dst, size, "%s", v);
}

/* One "key: value" inside the sections path[0..depth). */
static void assign(struct seen *s, char path[MAX_DEPTH][32], unsigned depth, const char *key,
                   const char *val)
{
    if (depth == 1 && strcmp(path[0], "totem") == 0) {
        if (strcmp(key, "token") == 0)
            keep(s->token, sizeof s->token, val);
        else if (strcmp(key, "crypto_hash") == 0)
            keep(s->crypto_hash, sizeof s->crypto_hash, val);
    } else if (depth == 1 && strcmp(path[0], "quorum") == 0) {
        if (strcmp(key, "provider") == 0)
            keep(s->provider, sizeof s->provider, val);
        else if (strcmp(key, "auto_tie_breaker") == 0)
            keep(s->atb, sizeof s->atb, val);
    } else if (depth == 1 && strcmp(path[0], "system") == 0) {
        if (strcmp(key, "sched_rr") == 0)
            keep(s->sched_rr, sizeof s->sched_rr, val);
    } else if (depth == 2 && strcmp(path[0], "nodelist") == 0 &&
               strcmp(path[1], "node") == 0 && s->nnodes >= 1 &&
               s->nnodes <= ZVS_IVL_MAX_SYSTEMS + 1) {
        struct zvs_cs_node *n = &s->node[s->nnodes - 1];
        if (strcmp(key, "nodeid") == 0)
            n->nodeid = (uint32_t)strtoul(val, NULL, 10);
        else if (strcmp(key, "ring0_addr") == 0)
            keep(n->addr, sizeof n->addr, val);
        else if (strcmp(key, "name") == 0)
            keep(n->name, sizeof n->name, val);
    }
}

static void parse(const char *text, size_t len, struct seen *s)
{
    char path[MAX_DEPTH][32];
    unsigned depth = 0, skipped = 0;    /* sections deeper than MAX_DEPTH */
    size_t i = 0;
    memset(s, 0, sizeof *s);
    while (i < len) {
        char line[512];
        size_t n = 0;
        while (i < len && text[i] != '\n') {
            if (n < sizeof line - 1)
                line[n++] = text[i];
            i++;
        }
        i++;
        line[n] = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *l = trim(line);
        size_t ll = strlen(l);
        if (ll == 0)
            continue;
        if (strcmp(l, "}") == 0) {
            if (skipped)
                skipped--;
            else if (depth)
                depth--;
            continue;
        }
        if (l[ll - 1] == '{') {
            l[ll - 1] = '\0';
            l = trim(l);
            if (depth >= MAX_DEPTH || skipped) {
                skipped++;
                continue;
            }
            snprintf(path[depth], sizeof path[depth], "%s", l);
            depth++;
            if (depth == 2 && strcmp(path[0], "nodelist") == 0 && strcmp(l, "node") == 0)
                s->nnodes++;
            continue;
        }
        char *colon = strchr(l, ':');
        if (!colon || skipped)
            continue;
        *colon = '\0';
        assign(s, path, depth, trim(l), trim(colon + 1));
    }
}

struct why {
    char    *buf;
    size_t   size, len;
    unsigned count;
};

__attribute__((format(printf, 2, 3)))
static void differs(struct why *w, const char *fmt, ...)
{
    w->count++;
    if (!w->buf || w->len + 1 >= w->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(w->buf + w->len, w->size - w->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    w->len += (size_t)n;
    if (w->len >= w->size)
        w->len = w->size - 1;
    else if (w->len + 1 < w->size) {
        w->buf[w->len++] = '\n';
        w->buf[w->len] = '\0';
    }
}

static const struct zvs_cs_node *node_by_id(const struct seen *s, uint32_t id)
{
    unsigned n = s->nnodes < ZVS_IVL_MAX_SYSTEMS + 1 ? s->nnodes : ZVS_IVL_MAX_SYSTEMS + 1;
    for (unsigned i = 0; i < n; i++)
        if (s->node[i].nodeid == id)
            return &s->node[i];
    return NULL;
}

unsigned zvs_cs_conf_check(const char *text, size_t len, const struct zvs_cs_conf *want,
                           char *why, size_t why_size)
{
    struct seen *s = malloc(sizeof *s);
    struct why w = { .buf = why, .size = why_size };
    if (why && why_size)
        why[0] = '\0';
    if (!s) {
        differs(&w, "out of memory reading corosync.conf");
        return w.count;
    }
    parse(text, len, s);
    unsigned long token = s->token[0] ? strtoul(s->token, NULL, 10) : DEFAULT_TOKEN_MS;
    if (token != want->token_ms)
        differs(&w, "totem.token is %lu ms, HEARTBEAT TIMEOUT is %u ms", token,
                want->token_ms);
    if (!s->crypto_hash[0] || strcmp(s->crypto_hash, "none") == 0)
        differs(&w, "totem.crypto_hash is %s: state messages would not be authenticated",
                s->crypto_hash[0] ? s->crypto_hash : "not set");
    if (strcmp(s->provider, "corosync_votequorum") != 0)
        differs(&w, "quorum.provider is %s, not corosync_votequorum",
                s->provider[0] ? s->provider : "not set");
    if (want->nnodes == 2 && strcmp(s->atb, "1") != 0)
        differs(&w, "quorum.auto_tie_breaker is %s: two systems need it (the lowest node id"
                " keeps the LAG)", s->atb[0] ? s->atb : "not set");
    if (strcmp(s->sched_rr, "no") != 0)
        differs(&w, "system.sched_rr is %s, not no", s->sched_rr[0] ? s->sched_rr : "not set");
    if (s->nnodes != want->nnodes)
        differs(&w, "nodelist has %u node(s), the domain %u system(s)", s->nnodes,
                want->nnodes);
    for (unsigned i = 0; i < want->nnodes; i++) {
        const struct zvs_cs_node *wn = &want->node[i];
        const struct zvs_cs_node *n = node_by_id(s, wn->nodeid);
        if (!n)
            differs(&w, "nodelist has no nodeid %u (%s)", wn->nodeid, wn->name);
        else if (strcmp(n->addr, wn->addr) != 0)
            differs(&w, "nodeid %u (%s) has ring0_addr %s, the IVL address is %s",
                    wn->nodeid, wn->name, n->addr[0] ? n->addr : "not set", wn->addr);
    }
    free(s);
    return w.count;
}
