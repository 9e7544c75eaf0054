/* The frame pool: buffers for frames that arrive from kernel interfaces.
 *
 * All buffers are allocated when the pool is made; taking and returning one is a push or
 * pop on a LIFO stack of indices, so the most recently used (cache-warm) buffer is reused
 * first and nothing is allocated per frame. Each buffer has `headroom` bytes in front of
 * the frame so a backend can read a virtio-net header there without another copy.
 * Single-threaded: a pool belongs to the data-path thread.
 */
#ifndef ZVS_POOL_H
#define ZVS_POOL_H

#include <stdint.h>

struct zvs_pool;

struct zvs_pool_stats {
    uint32_t nbufs;                     /* buffers in the pool */
    uint32_t free;                      /* buffers on the free stack now */
    uint32_t low_water;                 /* fewest free ever seen */
    uint64_t exhausted;                 /* takes refused because none was free */
};

/* Make a pool of nbufs buffers of buf_size bytes each, plus headroom in front of each.
 * Returns NULL on allocation failure. */
struct zvs_pool *zvs_pool_create(uint32_t nbufs, uint32_t buf_size, uint32_t headroom);
void zvs_pool_destroy(struct zvs_pool *pool);

/* Take a buffer: returns its index, or -1 when the pool is empty (counted). */
int32_t zvs_pool_take(struct zvs_pool *pool);
/* Take up to n buffers into idx[]; returns how many were taken. */
uint32_t zvs_pool_take_n(struct zvs_pool *pool, int32_t *idx, uint32_t n);
void zvs_pool_put(struct zvs_pool *pool, int32_t idx);

/* The frame area of buffer idx (headroom bytes precede it). */
uint8_t *zvs_pool_data(const struct zvs_pool *pool, int32_t idx);
uint32_t zvs_pool_buf_size(const struct zvs_pool *pool);
uint32_t zvs_pool_headroom(const struct zvs_pool *pool);
void zvs_pool_stats(const struct zvs_pool *pool, struct zvs_pool_stats *out);

#endif
