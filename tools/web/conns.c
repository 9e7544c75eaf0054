/* Connections per client address (conns.h). A linear table: it holds at most the
 * connections open at once (WEB_MAX_CONNS), so a search is a few dozen compares. */
#include "tools/web/conns.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct slot {
    uint8_t  addr[16];                  /* IPv4 as ::ffff:a.b.c.d */
    unsigned n;                         /* connections open; 0: the slot is free */
};

struct conns {
    pthread_mutex_t lock;
    unsigned max_total, max_per_addr, total;
    struct slot *s;
};

static void key(const struct sockaddr *sa, uint8_t out[16])
{
    memset(out, 0, 16);
    if (sa && sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    } else if (sa && sa->sa_family == AF_INET) {
        out[10] = out[11] = 0xFF;
        memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    }
}

struct conns *conns_new(unsigned max_total, unsigned max_per_addr)
{
    struct conns *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->s = calloc(max_total ? max_total : 1, sizeof(*c->s));
    if (!c->s || pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c->s);
        free(c);
        return NULL;
    }
    c->max_total = max_total;
    c->max_per_addr = max_per_addr;
    return c;
}

void conns_free(struct conns *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->lock);
    free(c->s);
    free(c);
}

/* The slot of k, or NULL; lock held. */
static struct slot *find(struct conns *c, const uint8_t k[16])
{
    for (unsigned i = 0; i < c->max_total; i++)
        if (c->s[i].n && memcmp(c->s[i].addr, k, 16) == 0)
            return &c->s[i];
    return NULL;
}

bool conns_may_open(struct conns *c, const struct sockaddr *addr)
{
    uint8_t k[16];
    key(addr, k);
    pthread_mutex_lock(&c->lock);
    struct slot *s = find(c, k);
    bool ok = c->total < c->max_total && (!s || s->n < c->max_per_addr);
    pthread_mutex_unlock(&c->lock);
    return ok;
}

void conns_open(struct conns *c, const struct sockaddr *addr)
{
    uint8_t k[16];
    key(addr, k);
    pthread_mutex_lock(&c->lock);
    struct slot *s = find(c, k);
    for (unsigned i = 0; !s && i < c->max_total; i++)
        if (c->s[i].n == 0) {
            s = &c->s[i];
            memcpy(s->addr, k, 16);
        }
    if (s)                              /* no free slot: only past the limits, refused */
        s->n++;
    c->total++;
    pthread_mutex_unlock(&c->lock);
}

void conns_close(struct conns *c, const struct sockaddr *addr)
{
    uint8_t k[16];
    key(addr, k);
    pthread_mutex_lock(&c->lock);
    struct slot *s = find(c, k);
    if (s)
        s->n--;
    if (c->total)
        c->total--;
    pthread_mutex_unlock(&c->lock);
}

unsigned conns_total(struct conns *c)
{
    pthread_mutex_lock(&c->lock);
    unsigned n = c->total;
    pthread_mutex_unlock(&c->lock);
    return n;
}
