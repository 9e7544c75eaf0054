/* The in-memory resolver (resolver_mem.h): the hermetic tests' stand-in for c-ares. It
 * reads no clock: a query's answer is due at the `now` it was asked at plus a delay, and
 * run(now) delivers every answer due by then, in the order they are due. */
#include "names/resolver_mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct mem_name {
    char                name[256];
    enum zvs_res_status status;
    uint32_t            ttl_s;
    unsigned            naddr;
    struct zvs_res_addr addr[ZVS_RES_MAX_ADDRS * 2];
};

struct mem_query {
    bool                used;
    uint64_t            token;
    uint64_t            due;
    struct zvs_res_answer a;
};

struct mem_res {
    struct zvs_resolver base;
    unsigned            nname;
    struct mem_name     name[ZVS_RES_MEM_NAMES];
    struct mem_query    q[ZVS_RES_MEM_QUERIES];
    uint64_t            delay_ns;
    bool                down;
    uint64_t            timeout_ns;
    uint64_t            queries;
};

static const struct zvs_resolver_ops mem_ops;

bool zvs_resolver_is_mem(const struct zvs_resolver *r)
{
    return r && r->ops == &mem_ops;
}

static struct mem_name *find(struct mem_res *m, const char *name, bool add)
{
    for (unsigned i = 0; i < m->nname; i++)
        if (strcasecmp(m->name[i].name, name) == 0)
            return &m->name[i];
    if (!add || m->nname == ZVS_RES_MEM_NAMES || strlen(name) >= sizeof m->name[0].name)
        return NULL;
    struct mem_name *e = &m->name[m->nname++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    return e;
}

int zvs_resolver_mem_set(struct zvs_resolver *r, const char *name, const char *const *addrs,
                         unsigned n, uint32_t ttl_s)
{
    struct mem_res *m = (struct mem_res *)r;
    if (n > ZVS_RES_MAX_ADDRS * 2)
        return -EINVAL;
    struct zvs_res_addr a[ZVS_RES_MAX_ADDRS * 2];
    for (unsigned i = 0; i < n; i++)
        if (!zvs_res_addr_parse(addrs[i], &a[i]))
            return -EINVAL;
    struct mem_name *e = find(m, name, true);
    if (!e)
        return -ENOSPC;
    e->status = ZVS_RES_OK;
    e->ttl_s = ttl_s;
    e->naddr = n;
    memcpy(e->addr, a, n * sizeof a[0]);
    return 0;
}

int zvs_resolver_mem_fail(struct zvs_resolver *r, const char *name,
                          enum zvs_res_status status)
{
    struct mem_name *e = find((struct mem_res *)r, name, true);
    if (!e)
        return -ENOSPC;
    e->status = status;
    e->naddr = 0;
    return 0;
}

void zvs_resolver_mem_delay(struct zvs_resolver *r, uint64_t delay_ns)
{
    ((struct mem_res *)r)->delay_ns = delay_ns;
}

void zvs_resolver_mem_down(struct zvs_resolver *r, bool down, uint64_t timeout_ns)
{
    struct mem_res *m = (struct mem_res *)r;
    m->down = down;
    m->timeout_ns = timeout_ns;
}

uint64_t zvs_resolver_mem_queries(const struct zvs_resolver *r)
{
    return ((const struct mem_res *)r)->queries;
}

unsigned zvs_resolver_mem_in_flight(const struct zvs_resolver *r)
{
    const struct mem_res *m = (const struct mem_res *)r;
    unsigned n = 0;
    for (unsigned i = 0; i < ZVS_RES_MEM_QUERIES; i++)
        n += m->q[i].used;
    return n;
}

/* The answer the table gives now, as c-ares' would reach us: an oversized one refused. */
static void answer_of(struct mem_res *m, const char *name, enum zvs_res_order order,
                      struct zvs_res_answer *a)
{
    memset(a, 0, sizeof *a);
    struct zvs_res_addr lit;
    if (zvs_res_addr_parse(name, &lit)) {
        a->naddr = 1;
        a->addr[0] = lit;
        return;
    }
    struct mem_name *e = find(m, name, false);
    if (!e) {
        a->status = ZVS_RES_NXDOMAIN;
        return;
    }
    a->status = e->status;
    if (e->status != ZVS_RES_OK)
        return;
    if (e->naddr > ZVS_RES_MAX_ADDRS) {
        a->status = ZVS_RES_OVERSIZED;
        return;
    }
    a->ttl_s = e->ttl_s;
    a->naddr = e->naddr;
    memcpy(a->addr, e->addr, e->naddr * sizeof e->addr[0]);
    zvs_res_answer_order(a, order);
    if (a->naddr == 0)
        a->status = ZVS_RES_NODATA;
}

static int mem_query(struct zvs_resolver *r, const char *name, enum zvs_res_order order,
                     uint64_t token, uint64_t now)
{
    struct mem_res *m = (struct mem_res *)r;
    for (unsigned i = 0; i < ZVS_RES_MEM_QUERIES; i++) {
        struct mem_query *q = &m->q[i];
        if (q->used)
            continue;
        q->used = true;
        q->token = token;
        if (m->down) {
            memset(&q->a, 0, sizeof q->a);
            q->a.status = ZVS_RES_TIMEOUT;
            q->due = now + m->timeout_ns;
        } else {
            answer_of(m, name, order, &q->a);
            q->due = now + m->delay_ns;
        }
        m->queries++;
        return 0;
    }
    return -EAGAIN;
}

/* The query due first (by due, then slot), or NULL when none is due by now. */
static struct mem_query *next_due(struct mem_res *m, uint64_t now)
{
    struct mem_query *best = NULL;
    for (unsigned i = 0; i < ZVS_RES_MEM_QUERIES; i++) {
        struct mem_query *q = &m->q[i];
        if (q->used && q->due <= now && (!best || q->due < best->due))
            best = q;
    }
    return best;
}

static void mem_run(struct zvs_resolver *r, uint64_t now)
{
    struct mem_res *m = (struct mem_res *)r;
    struct mem_query *q;
    while ((q = next_due(m, now))) {
        struct zvs_res_answer a = q->a;
        uint64_t token = q->token;
        q->used = false;                /* free before done: done may query again */
        r->done(r->done_arg, token, &a, now);
    }
}

static uint64_t mem_next_wakeup(struct zvs_resolver *r, uint64_t now)
{
    struct mem_res *m = (struct mem_res *)r;
    uint64_t best = 0;
    for (unsigned i = 0; i < ZVS_RES_MEM_QUERIES; i++)
        if (m->q[i].used && (!best || m->q[i].due < best))
            best = m->q[i].due;
    return best;
}

static void mem_servers(struct zvs_resolver *r, char *buf, size_t len)
{
    snprintf(buf, len, "(in memory)");
}

static void mem_destroy(struct zvs_resolver *r)
{
    struct mem_res *m = (struct mem_res *)r;
    for (unsigned i = 0; i < ZVS_RES_MEM_QUERIES; i++) {
        if (!m->q[i].used)
            continue;
        m->q[i].used = false;
        struct zvs_res_answer a = { .status = ZVS_RES_CANCELLED };
        r->done(r->done_arg, m->q[i].token, &a, m->q[i].due);
    }
    free(m);
}

static const struct zvs_resolver_ops mem_ops = {
    .query = mem_query,
    .run = mem_run,
    .next_wakeup = mem_next_wakeup,
    .servers = mem_servers,
    .destroy = mem_destroy,
};

struct zvs_resolver *zvs_resolver_mem_create(zvs_res_done_fn done, void *arg)
{
    struct mem_res *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->base.ops = &mem_ops;
    m->base.done = done;
    m->base.done_arg = arg;
    m->delay_ns = 1000000;
    m->timeout_ns = 5000000000ull;
    return &m->base;
}
