/* state_msg: the SYSTEM STATE message's codec (state_msg.h has the layout and rules). */
#include "ivl/state_msg.h"

#include <errno.h>
#include <string.h>

#include "ivl/port_number.h"

static const char *const err_names[ZVS_IVL_SE_COUNT] = {
    [ZVS_IVL_SE_SHORT] = "short", [ZVS_IVL_SE_MAGIC] = "magic",
    [ZVS_IVL_SE_VERSION] = "version", [ZVS_IVL_SE_TYPE] = "type",
    [ZVS_IVL_SE_LENGTH] = "length", [ZVS_IVL_SE_RESERVED] = "reserved",
    [ZVS_IVL_SE_NAME] = "name", [ZVS_IVL_SE_INDEX] = "index", [ZVS_IVL_SE_PORT] = "port",
};

const char *zvs_ivl_state_err_name(int err)
{
    int e = -err;
    return e > 0 && e < ZVS_IVL_SE_COUNT ? err_names[e] : "invalid-code";
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }

/* CP's names: letters, digits and @#$_-. , at most 8, upper case as CP keeps them. */
static int name_byte_ok(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '@' || c == '#' ||
           c == '$' || c == '_' || c == '-' || c == '.';
}

/* A blank-padded field into a C string: 0, or -1 when empty or not a name. */
static int get_name(const uint8_t *p, char *out)
{
    unsigned n = 0;
    while (n < ZVS_IVL_NAME_LEN && p[n] != ' ')
        n++;
    if (n == 0)
        return -1;
    for (unsigned i = 0; i < ZVS_IVL_NAME_LEN; i++)
        if (i < n ? !name_byte_ok(p[i]) : p[i] != ' ')
            return -1;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

static int name_ok(const char *s)
{
    size_t n = strnlen(s, ZVS_IVL_NAME_LEN + 1);
    if (n == 0 || n > ZVS_IVL_NAME_LEN)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!name_byte_ok((uint8_t)s[i]))
            return 0;
    return 1;
}

static void put_name(uint8_t *p, const char *s)
{
    size_t n = strlen(s);
    memset(p, ' ', ZVS_IVL_NAME_LEN);
    memcpy(p, s, n);
}

/* Port numbers: non-zero, in the sender's index byte, none twice. */
static int ports_ok(const struct zvs_ivl_state *s)
{
    for (unsigned i = 0; i < s->nmembers; i++) {
        if (zvs_ivl_port_system(s->member[i].port) != s->index)
            return 0;
        for (unsigned j = 0; j < i; j++)
            if (s->member[j].port == s->member[i].port)
                return 0;
    }
    return 1;
}

static int valid(const struct zvs_ivl_state *s)
{
    if (!name_ok(s->system) || !name_ok(s->vswitch) || !name_ok(s->group))
        return -ZVS_IVL_SE_NAME;
    if (s->index < 1 || s->index > ZVS_IVL_MAX_SYSTEMS)
        return -ZVS_IVL_SE_INDEX;
    if (s->flags & ~(ZVS_IVL_SF_AGGREGATING | ZVS_IVL_SF_SHARED))
        return -ZVS_IVL_SE_RESERVED;
    if (s->nmembers > ZVS_IVL_MAX_MEMBERS)
        return -ZVS_IVL_SE_LENGTH;
    for (unsigned i = 0; i < s->nmembers; i++) {
        if (!name_ok(s->member[i].rdev))
            return -ZVS_IVL_SE_NAME;
        if (s->member[i].state & 0xF0)
            return -ZVS_IVL_SE_RESERVED;
    }
    return ports_ok(s) ? 0 : -ZVS_IVL_SE_PORT;
}

int zvs_ivl_state_encode(const struct zvs_ivl_state *s, uint8_t *out, size_t cap)
{
    if (valid(s) < 0)
        return -EINVAL;
    size_t len = ZVS_IVL_STATE_HDR + (size_t)s->nmembers * ZVS_IVL_STATE_MEMBER;
    if (cap < len)
        return -ENOSPC;
    memset(out, 0, len);
    out[0] = 'Z';
    out[1] = 'I';
    out[2] = ZVS_IVL_STATE_VERSION;
    out[3] = ZVS_IVL_MSG_SYSTEM_STATE;
    put16(out + 4, (uint16_t)len);
    put32(out + 6, s->seq);
    put_name(out + 10, s->system);
    out[18] = s->index;
    out[19] = s->flags;
    put_name(out + 20, s->vswitch);
    put_name(out + 28, s->group);
    out[36] = s->def.lacp;
    out[37] = s->def.timeout;
    out[38] = s->def.distribution;
    put16(out + 40, s->def.key);
    put16(out + 42, s->def.system_priority);
    memcpy(out + 44, s->def.system, 6);
    out[52] = s->nmembers;
    for (unsigned i = 0; i < s->nmembers; i++) {
        uint8_t *m = out + ZVS_IVL_STATE_HDR + i * ZVS_IVL_STATE_MEMBER;
        put_name(m, s->member[i].rdev);
        put16(m + 8, s->member[i].port);
        m[10] = s->member[i].state;
        put32(m + 12, s->member[i].speed_mbps);
    }
    return (int)len;
}

int zvs_ivl_state_decode(const uint8_t *msg, size_t len, struct zvs_ivl_state *out)
{
    if (len < ZVS_IVL_STATE_HDR)
        return -ZVS_IVL_SE_SHORT;
    if (msg[0] != 'Z' || msg[1] != 'I')
        return -ZVS_IVL_SE_MAGIC;
    if (msg[2] != ZVS_IVL_STATE_VERSION)
        return -ZVS_IVL_SE_VERSION;
    if (msg[3] != ZVS_IVL_MSG_SYSTEM_STATE)
        return -ZVS_IVL_SE_TYPE;
    unsigned nm = msg[52];
    if (nm > ZVS_IVL_MAX_MEMBERS || get16(msg + 4) != len ||
        len != ZVS_IVL_STATE_HDR + (size_t)nm * ZVS_IVL_STATE_MEMBER)
        return -ZVS_IVL_SE_LENGTH;
    if (msg[39] || msg[50] || msg[51] || msg[53])
        return -ZVS_IVL_SE_RESERVED;

    struct zvs_ivl_state s;
    memset(&s, 0, sizeof s);
    s.seq = get32(msg + 6);
    if (get_name(msg + 10, s.system) < 0 || get_name(msg + 20, s.vswitch) < 0 ||
        get_name(msg + 28, s.group) < 0)
        return -ZVS_IVL_SE_NAME;
    s.index = msg[18];
    s.flags = msg[19];
    s.def.lacp = msg[36];
    s.def.timeout = msg[37];
    s.def.distribution = msg[38];
    s.def.key = get16(msg + 40);
    s.def.system_priority = get16(msg + 42);
    memcpy(s.def.system, msg + 44, 6);
    s.nmembers = (uint8_t)nm;
    for (unsigned i = 0; i < nm; i++) {
        const uint8_t *m = msg + ZVS_IVL_STATE_HDR + i * ZVS_IVL_STATE_MEMBER;
        if (get_name(m, s.member[i].rdev) < 0)
            return -ZVS_IVL_SE_NAME;
        if (m[11])
            return -ZVS_IVL_SE_RESERVED;
        s.member[i].port = get16(m + 8);
        s.member[i].state = m[10];
        s.member[i].speed_mbps = get32(m + 12);
    }
    int rc = valid(&s);
    if (rc < 0)
        return rc;
    *out = s;
    return 0;
}

int zvs_ivl_group_def_equal(const struct zvs_ivl_group_def *a,
                            const struct zvs_ivl_group_def *b)
{
    return a->lacp == b->lacp && a->timeout == b->timeout &&
           a->distribution == b->distribution && a->key == b->key &&
           a->system_priority == b->system_priority &&
           memcmp(a->system, b->system, sizeof a->system) == 0;
}
