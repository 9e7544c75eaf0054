/* Rate limiting for the switch model: a token bucket and a shaper (token bucket plus a
 * bounded FIFO), like Linux tc tbf: rate, burst, queue limit.
 *
 * Pure logic: no clock (now in nanoseconds is passed in); the shaper allocates its queue
 * once at init and copies each queued frame into it (the one copy a shaped frame gets),
 * nothing per frame after that.
 *
 * Token arithmetic is exact integers: one token is 1/1e9 bit, so `rate_bps` tokens
 * arrive per nanosecond and a frame of B bytes costs B * 8e9 tokens. A frame may leave
 * when the bucket holds min(cost, depth) tokens; the bucket may then go negative, which
 * lets a super-frame larger than the burst pass at the average rate.
 *
 * An OSA port model (the report's OSA-Express2 ports are bounded by frames per second as
 * well as by bits): a frame bucket (sm_fb_*, the same arithmetic with one token = 1e-9
 * frame) may be shared by a port's two shapers, so both directions draw on one frame
 * ceiling; a shaper may also bound its queue in frames (drop-tail).
 */
#ifndef SM_TBF_H
#define SM_TBF_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"

#define SM_TBF_BURST_BYTES  (128u * 1024u)      /* tbf burst: 128 KB (two super-frames) */
#define SM_TBF_LATENCY_NS   20000000ull         /* queue limit: 20 ms at the rate ... */
#define SM_TBF_MIN_LIMIT    (256u * 1024u)      /* ... but at least 256 KB */
#define SM_TBF_MAX_FRAME    (65536u + 256u)     /* largest frame the queue takes */

struct sm_tb {
    uint64_t rate_bps;                  /* tokens per nanosecond */
    int64_t  depth;                     /* bucket size in tokens (burst bytes * 8e9) */
    int64_t  tokens;                    /* current, <= depth, may be negative */
    uint64_t last;                      /* time of the last refill */
};

void sm_tb_init(struct sm_tb *tb, uint64_t rate_bps, uint32_t burst_bytes, uint64_t now);
void sm_tb_refill(struct sm_tb *tb, uint64_t now);
/* Take a frame of `bytes` if the bucket allows it now; true if taken. */
bool sm_tb_take(struct sm_tb *tb, uint32_t bytes, uint64_t now);
/* Earliest time >= now at which sm_tb_take(bytes) will succeed. */
uint64_t sm_tb_ready_at(const struct sm_tb *tb, uint32_t bytes, uint64_t now);

/* The frame bucket: rate in frames/s, depth in frames. A GSO super-frame costs the frames
 * it becomes on the wire (sm_wire_frames). */
#define SM_FB_BURST_FRAMES  64u                 /* about 0.7 ms at the OSA model's 92,000/s */
void sm_fb_init(struct sm_tb *fb, uint64_t rate_fps, uint32_t burst_frames, uint64_t now);
bool sm_fb_take(struct sm_tb *fb, uint32_t frames, uint64_t now);
uint64_t sm_fb_ready_at(const struct sm_tb *fb, uint32_t frames, uint64_t now);

/* The shortest time between two releases of a shaper's timer: SM_SH_TICK_NS, or a
 * quarter of the shorter bucket's burst time if that is less, so the tokens a tick leaves
 * unspent stay in the buckets and the rates hold. rate_fps 0: no frame bucket. */
#define SM_SH_TICK_NS       200000ull           /* 200 us; 174 us at 92,000 frames/s */
uint64_t sm_shaper_tick_ns(uint64_t rate_bps, uint32_t burst_bytes, uint64_t rate_fps,
                           uint32_t burst_frames);

/* Frames a frame becomes on the wire: 1, or the segment count of a GSO super-frame. */
uint32_t sm_wire_frames(const struct zvs_frame *f);

/* Bytes a frame occupies on the wire: its length, or for a GSO super-frame the sum of the
 * segments it becomes (headers repeated per segment). */
uint32_t sm_wire_bytes(const struct zvs_frame *f);

/* A queued frame: descriptor into the shaper's ring. */
struct sm_qent {
    uint32_t off;                       /* in the ring */
    uint32_t len;                       /* bytes stored */
    uint32_t wire;                      /* wire bytes (token cost) */
    uint32_t frames;                    /* wire frames (frame bucket cost) */
    uint16_t vid;                       /* classified VLAN */
    uint16_t aux;                       /* caller's tag (e.g. ingress logical port) */
    uint8_t  flags;                     /* ZVS_FF_* of the original */
    struct zvs_vnet vnet;               /* offload metadata */
};

struct sm_shaper_stats {
    uint64_t enqueued;                  /* frames queued */
    uint64_t sent;                      /* frames released */
    uint64_t sent_bytes;                /* wire bytes released */
    uint64_t dropped;                   /* frames refused: queue full */
    uint64_t dropped_bytes;
    uint64_t sent_frames;               /* wire frames released (segments of super-frames) */
};

struct sm_shaper {
    struct sm_tb tb;
    uint8_t *ring;                      /* frame bytes */
    uint32_t ring_size;
    uint32_t wr;                        /* next write offset */
    struct sm_qent *q;                  /* FIFO of descriptors */
    uint32_t q_cap;
    uint32_t q_head;                    /* oldest */
    uint32_t q_len;
    uint32_t limit;                     /* queue limit in stored bytes */
    uint32_t bytes;                     /* stored bytes queued */
    struct sm_tb *fb;                   /* frame bucket, may be shared; NULL: none */
    uint32_t frame_limit;               /* queue limit in wire frames; 0: bytes only */
    uint32_t frames;                    /* wire frames queued */
    struct sm_shaper_stats stats;
};

/* Queue limit for a rate: SM_TBF_LATENCY_NS worth of bytes, at least SM_TBF_MIN_LIMIT. */
uint32_t sm_tbf_limit_for(uint64_t rate_bps);

/* Allocates the queue. Returns 0 or -ENOMEM/-EINVAL (rate 0). */
int sm_shaper_init(struct sm_shaper *s, uint64_t rate_bps, uint32_t burst_bytes,
                   uint32_t limit_bytes, uint64_t now);
void sm_shaper_fini(struct sm_shaper *s);
/* The OSA port model's extras: a frame bucket the caller owns (may be shared by the
 * port's two shapers; NULL: none) and a queue limit in wire frames (0: bytes only). */
void sm_shaper_set_frames(struct sm_shaper *s, struct sm_tb *fb, uint32_t frame_limit);
/* Copy f (with the tag operation already applied by the caller's choice KEEP) into the
 * queue. Returns false (counted as dropped) when it does not fit. */
bool sm_shaper_enqueue(struct sm_shaper *s, const struct zvs_frame *f, uint16_t vid,
                       uint16_t aux);
/* The head frame if the bucket lets it go at now (fills *f, *vid, *aux; the bytes stay
 * valid until sm_shaper_pop), else false with *ready_at the time to try again
 * (UINT64_MAX: queue empty). */
bool sm_shaper_head(struct sm_shaper *s, uint64_t now, struct zvs_frame *f, uint16_t *vid,
                    uint16_t *aux, uint64_t *ready_at);
/* Remove the head frame returned by sm_shaper_head, taking its tokens. */
void sm_shaper_pop(struct sm_shaper *s, uint64_t now);

#endif
