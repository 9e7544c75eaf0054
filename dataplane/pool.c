/* Frame pool: one allocation up front, a LIFO stack of free indices. */
#include "dataplane/pool.h"

#include <assert.h>
#include <stdlib.h>
#include <sys/mman.h>

struct zvs_pool {
    uint8_t  *mem;                      /* nbufs * stride bytes, page aligned */
    size_t    mem_len;
    uint32_t  stride;                   /* headroom + buf_size, rounded to 64 */
    uint32_t  buf_size;
    uint32_t  headroom;
    uint32_t  nbufs;
    uint32_t  nfree;
    uint32_t  low_water;
    uint64_t  exhausted;
    int32_t  *stack;                    /* free indices; top at stack[nfree-1] */
};

struct zvs_pool *zvs_pool_create(uint32_t nbufs, uint32_t buf_size, uint32_t headroom)
{
    struct zvs_pool *p = calloc(1, sizeof(*p));
    if (!p || nbufs == 0)
        goto fail;
    p->stride = (headroom + buf_size + 63u) & ~63u;
    p->buf_size = buf_size;
    p->headroom = headroom;
    p->nbufs = nbufs;
    p->mem_len = (size_t)p->stride * nbufs;
    /* mmap rather than malloc: untouched buffers cost no memory until first use. */
    p->mem = mmap(NULL, p->mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p->mem == MAP_FAILED) {
        p->mem = NULL;
        goto fail;
    }
    p->stack = malloc(sizeof(*p->stack) * nbufs);
    if (!p->stack)
        goto fail;
    /* Lowest index on top, so a lightly loaded switch touches few buffers. */
    for (uint32_t i = 0; i < nbufs; i++)
        p->stack[i] = (int32_t)(nbufs - 1 - i);
    p->nfree = nbufs;
    p->low_water = nbufs;
    return p;
fail:
    zvs_pool_destroy(p);
    return NULL;
}

void zvs_pool_destroy(struct zvs_pool *p)
{
    if (!p)
        return;
    if (p->mem)
        munmap(p->mem, p->mem_len);
    free(p->stack);
    free(p);
}

int32_t zvs_pool_take(struct zvs_pool *p)
{
    if (p->nfree == 0) {
        p->exhausted++;
        return -1;
    }
    int32_t idx = p->stack[--p->nfree];
    if (p->nfree < p->low_water)
        p->low_water = p->nfree;
    return idx;
}

uint32_t zvs_pool_take_n(struct zvs_pool *p, int32_t *idx, uint32_t n)
{
    uint32_t got = n <= p->nfree ? n : p->nfree;
    if (got < n)
        p->exhausted++;
    for (uint32_t i = 0; i < got; i++)
        idx[i] = p->stack[--p->nfree];
    if (p->nfree < p->low_water)
        p->low_water = p->nfree;
    return got;
}

void zvs_pool_put(struct zvs_pool *p, int32_t idx)
{
    assert(idx >= 0 && (uint32_t)idx < p->nbufs);
    assert(p->nfree < p->nbufs);
    p->stack[p->nfree++] = idx;
}

uint8_t *zvs_pool_data(const struct zvs_pool *p, int32_t idx)
{
    return p->mem + (size_t)idx * p->stride + p->headroom;
}

uint32_t zvs_pool_buf_size(const struct zvs_pool *p) { return p->buf_size; }
uint32_t zvs_pool_headroom(const struct zvs_pool *p) { return p->headroom; }

void zvs_pool_stats(const struct zvs_pool *p, struct zvs_pool_stats *out)
{
    out->nbufs = p->nbufs;
    out->free = p->nfree;
    out->low_water = p->low_water;
    out->exhausted = p->exhausted;
}
