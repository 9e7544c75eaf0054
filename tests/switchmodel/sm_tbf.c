/* Token bucket and shaper of the switch model (see sm_tbf.h).
 *
 * Design note.
 * - Like tc tbf: a frame leaves when the bucket has its tokens, else it waits in a FIFO
 *   bounded in bytes (20 ms of the rate, at least 256 KB); a frame that does not fit is
 *   dropped and counted. The caller arms one timer for sm_shaper_head's ready_at: no
 *   polling, no busy loop.
 * - The FIFO is a byte ring plus a descriptor ring, both allocated at init. A frame is
 *   stored contiguously: if it does not fit before the end of the ring it goes to the
 *   start when there is room there, else it is dropped. The ring has two maximum frames
 *   of slack beyond the limit, so in practice the byte limit decides.
 * - OSA port model: a frame bucket shared by a port's ingress and egress shapers (one
 *   ceiling for both directions, as one OSA adapter serves both) and a drop-tail queue
 *   limit in wire frames. A head frame leaves when both buckets allow it; ready_at is the
 *   later of the two.
 * - Hazards: token counts are int64 in 1e-9 bit units: 128 KB of burst is 1.05e15, far
 *   from overflow; refill saturates before multiplying long idle times by the rate.
 */
#include "tests/switchmodel/sm_tbf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TOKENS_PER_BYTE 8000000000ll    /* 8 bits * 1e9 */
#define TOKENS_PER_FRAME 1000000000ll   /* frame bucket: 1e9 tokens a frame */

void sm_tb_init(struct sm_tb *tb, uint64_t rate_bps, uint32_t burst_bytes, uint64_t now)
{
    tb->rate_bps = rate_bps;
    tb->depth = (int64_t)burst_bytes * TOKENS_PER_BYTE;
    tb->tokens = tb->depth;
    tb->last = now;
}

void sm_tb_refill(struct sm_tb *tb, uint64_t now)
{
    if (now <= tb->last)
        return;
    uint64_t dt = now - tb->last;
    tb->last = now;
    if (tb->tokens >= tb->depth)
        return;
    uint64_t room = (uint64_t)(tb->depth - tb->tokens);
    if (tb->rate_bps == 0 || dt >= room / tb->rate_bps + 1) {
        tb->tokens = tb->depth;
        return;
    }
    uint64_t add = dt * tb->rate_bps;
    tb->tokens = add >= room ? tb->depth : tb->tokens + (int64_t)add;
}

uint64_t sm_shaper_tick_ns(uint64_t rate_bps, uint32_t burst_bytes, uint64_t rate_fps,
                           uint32_t burst_frames)
{
    uint64_t tick = SM_SH_TICK_NS;
    if (rate_bps) {
        uint64_t t = (uint64_t)burst_bytes * (uint64_t)TOKENS_PER_BYTE / rate_bps / 4;
        tick = t < tick ? t : tick;
    }
    if (rate_fps) {
        uint64_t t = (uint64_t)burst_frames * (uint64_t)TOKENS_PER_FRAME / rate_fps / 4;
        tick = t < tick ? t : tick;
    }
    return tick;
}

static int64_t need_cost(const struct sm_tb *tb, int64_t cost)
{
    return cost < tb->depth ? cost : tb->depth;
}

static int64_t need_of(const struct sm_tb *tb, uint32_t bytes)
{
    return need_cost(tb, (int64_t)bytes * TOKENS_PER_BYTE);
}

static bool take_cost(struct sm_tb *tb, int64_t cost, uint64_t now)
{
    sm_tb_refill(tb, now);
    if (tb->tokens < need_cost(tb, cost))
        return false;
    tb->tokens -= cost;
    return true;
}

bool sm_tb_take(struct sm_tb *tb, uint32_t bytes, uint64_t now)
{
    return take_cost(tb, (int64_t)bytes * TOKENS_PER_BYTE, now);
}

static uint64_t ready_cost(const struct sm_tb *tb, int64_t cost, uint64_t now)
{
    int64_t need = need_cost(tb, cost);
    if (tb->tokens >= need)
        return now > tb->last ? now : tb->last;
    if (tb->rate_bps == 0)
        return UINT64_MAX;
    uint64_t missing = (uint64_t)(need - tb->tokens);
    uint64_t t = tb->last + (missing + tb->rate_bps - 1) / tb->rate_bps;
    return t > now ? t : now;
}

uint64_t sm_tb_ready_at(const struct sm_tb *tb, uint32_t bytes, uint64_t now)
{
    return ready_cost(tb, (int64_t)bytes * TOKENS_PER_BYTE, now);
}

/* The frame bucket: the same struct, rate_bps read as frames/s (tokens per ns). */
void sm_fb_init(struct sm_tb *fb, uint64_t rate_fps, uint32_t burst_frames, uint64_t now)
{
    fb->rate_bps = rate_fps;
    fb->depth = (int64_t)burst_frames * TOKENS_PER_FRAME;
    fb->tokens = fb->depth;
    fb->last = now;
}

bool sm_fb_take(struct sm_tb *fb, uint32_t frames, uint64_t now)
{
    return take_cost(fb, (int64_t)frames * TOKENS_PER_FRAME, now);
}

uint64_t sm_fb_ready_at(const struct sm_tb *fb, uint32_t frames, uint64_t now)
{
    return ready_cost(fb, (int64_t)frames * TOKENS_PER_FRAME, now);
}


/* Segments a GSO super-frame becomes and the header each repeats; nseg 1 when not GSO. */
static uint32_t gso_split(const struct zvs_frame *f, uint32_t *hdr_out)
{
    uint8_t gso = f->vnet.gso_type & (uint8_t)~ZVS_VNET_GSO_ECN;
    *hdr_out = 0;
    if (gso == ZVS_VNET_GSO_NONE || f->vnet.gso_size == 0)
        return 1;
    uint32_t hdr = f->vnet.hdr_len;
    if ((f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM) && f->nfrags == 0) {
        uint32_t l4 = f->vnet.csum_start;
        if ((gso == ZVS_VNET_GSO_TCPV4 || gso == ZVS_VNET_GSO_TCPV6) && l4 + 13 <= f->len)
            hdr = l4 + (uint32_t)(f->data[l4 + 12] >> 4) * 4u;
        else if (gso == ZVS_VNET_GSO_UDP_L4 || gso == ZVS_VNET_GSO_UDP)
            hdr = l4 + 8;
    }
    if (hdr == 0 || hdr >= f->len)
        return 1;
    *hdr_out = hdr;
    return (f->len - hdr + f->vnet.gso_size - 1) / f->vnet.gso_size;
}

uint32_t sm_wire_bytes(const struct zvs_frame *f)
{
    uint32_t hdr, nseg = gso_split(f, &hdr);
    return f->len + (nseg - 1) * hdr;
}

uint32_t sm_wire_frames(const struct zvs_frame *f)
{
    uint32_t hdr;
    return gso_split(f, &hdr);
}

uint32_t sm_tbf_limit_for(uint64_t rate_bps)
{
    uint64_t l = rate_bps / 8 * SM_TBF_LATENCY_NS / 1000000000ull;
    if (l < SM_TBF_MIN_LIMIT)
        l = SM_TBF_MIN_LIMIT;
    if (l > (64u << 20))
        l = 64u << 20;
    return (uint32_t)l;
}

int sm_shaper_init(struct sm_shaper *s, uint64_t rate_bps, uint32_t burst_bytes,
                   uint32_t limit_bytes, uint64_t now)
{
    memset(s, 0, sizeof(*s));
    if (rate_bps == 0 || limit_bytes == 0)
        return -EINVAL;
    s->ring_size = limit_bytes + 2 * SM_TBF_MAX_FRAME;
    s->q_cap = limit_bytes / 60 + 8;
    s->ring = malloc(s->ring_size);
    s->q = calloc(s->q_cap, sizeof(*s->q));
    if (!s->ring || !s->q) {
        sm_shaper_fini(s);
        return -ENOMEM;
    }
    s->limit = limit_bytes;
    sm_tb_init(&s->tb, rate_bps, burst_bytes, now);
    return 0;
}

void sm_shaper_set_frames(struct sm_shaper *s, struct sm_tb *fb, uint32_t frame_limit)
{
    s->fb = fb;
    s->frame_limit = frame_limit;
}

void sm_shaper_fini(struct sm_shaper *s)
{
    free(s->ring);
    free(s->q);
    s->ring = NULL;
    s->q = NULL;
}

/* Where a frame of len bytes goes in the ring, or -1 if there is no room. */
static int64_t ring_place(const struct sm_shaper *s, uint32_t len)
{
    if (s->q_len == 0)
        return 0;
    uint32_t rd = s->q[s->q_head].off;
    if (s->wr > rd) {
        if (s->ring_size - s->wr >= len)
            return (int64_t)s->wr;
        return rd >= len ? 0 : -1;
    }
    return rd - s->wr >= len ? (int64_t)s->wr : -1;
}

bool sm_shaper_enqueue(struct sm_shaper *s, const struct zvs_frame *f, uint16_t vid,
                       uint16_t aux)
{
    int64_t off = -1;
    uint32_t frames = sm_wire_frames(f);
    /* Frame limit: drop-tail on wire frames, but an empty queue always takes one entry
     * (a super-frame larger than the limit would otherwise never pass). */
    bool room = s->frame_limit == 0 || s->q_len == 0 || s->frames + frames <= s->frame_limit;
    if (room && f->len <= SM_TBF_MAX_FRAME && s->bytes + f->len <= s->limit &&
        s->q_len < s->q_cap)
        off = ring_place(s, f->len);
    if (off < 0) {
        s->stats.dropped++;
        s->stats.dropped_bytes += f->len;
        return false;
    }
    struct sm_qent *e = &s->q[(s->q_head + s->q_len) % s->q_cap];
    e->off = (uint32_t)off;
    e->len = zvs_frame_emit(f, ZVS_TAG_KEEP, 0, s->ring + off, NULL);
    e->wire = sm_wire_bytes(f);
    e->frames = frames;
    e->vid = vid;
    e->aux = aux;
    e->flags = f->flags;
    e->vnet = f->vnet;
    s->wr = (uint32_t)off + e->len;
    s->q_len++;
    s->bytes += e->len;
    s->frames += frames;
    s->stats.enqueued++;
    return true;
}

bool sm_shaper_head(struct sm_shaper *s, uint64_t now, struct zvs_frame *f, uint16_t *vid,
                    uint16_t *aux, uint64_t *ready_at)
{
    if (s->q_len == 0) {
        *ready_at = UINT64_MAX;
        return false;
    }
    const struct sm_qent *e = &s->q[s->q_head];
    sm_tb_refill(&s->tb, now);
    bool bits_ok = s->tb.tokens >= need_of(&s->tb, e->wire), frames_ok = true;
    if (s->fb) {
        sm_tb_refill(s->fb, now);
        frames_ok = s->fb->tokens >= need_cost(s->fb, (int64_t)e->frames * TOKENS_PER_FRAME);
    }
    if (!bits_ok || !frames_ok) {
        uint64_t rb = sm_tb_ready_at(&s->tb, e->wire, now);
        uint64_t rf = s->fb ? sm_fb_ready_at(s->fb, e->frames, now) : now;
        *ready_at = rb > rf ? rb : rf;
        return false;
    }
    memset(f, 0, sizeof(*f));
    f->data = s->ring + e->off;
    f->len = e->len;
    f->vid = e->vid;
    f->flags = e->flags;
    f->vnet = e->vnet;
    *vid = e->vid;
    *aux = e->aux;
    return true;
}

void sm_shaper_pop(struct sm_shaper *s, uint64_t now)
{
    if (s->q_len == 0)
        return;
    const struct sm_qent *e = &s->q[s->q_head];
    sm_tb_refill(&s->tb, now);
    s->tb.tokens -= (int64_t)e->wire * TOKENS_PER_BYTE;
    if (s->fb) {
        sm_tb_refill(s->fb, now);
        s->fb->tokens -= (int64_t)e->frames * TOKENS_PER_FRAME;
    }
    s->stats.sent++;
    s->stats.sent_bytes += e->wire;
    s->stats.sent_frames += e->frames;
    s->bytes -= e->len;
    s->frames -= e->frames;
    s->q_head = (s->q_head + 1) % s->q_cap;
    s->q_len--;
    if (s->q_len == 0)
        s->wr = 0;
}
