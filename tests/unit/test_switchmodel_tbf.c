/* Switch model token bucket and shaper on virtual time: exact release times, burst,
 * queue limit drops, GSO wire bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tests/switchmodel/sm_tbf.h"

#define MS 1000000ull
#define SEC 1000000000ull

static void test_bucket(void **state)
{
    (void)state;
    struct sm_tb tb;
    /* 8 Mbit/s = 1 byte per microsecond; burst 3000 bytes */
    sm_tb_init(&tb, 8000000, 3000, 0);
    assert_true(sm_tb_take(&tb, 1500, 0));
    assert_true(sm_tb_take(&tb, 1500, 0));
    assert_false(sm_tb_take(&tb, 1500, 0));          /* burst spent */
    assert_int_equal(sm_tb_ready_at(&tb, 1500, 0), 1500 * 1000);   /* 1500 us */
    assert_false(sm_tb_take(&tb, 1500, 1500 * 1000 - 1));
    assert_true(sm_tb_take(&tb, 1500, 1500 * 1000));
    assert_int_equal(tb.tokens, 0);
    /* a long idle refills to the burst, not beyond */
    sm_tb_refill(&tb, 3600 * SEC);
    assert_int_equal(tb.tokens, tb.depth);
    assert_int_equal(tb.depth, 3000ll * 8000000000ll);
}

static void test_oversize_frame(void **state)
{
    (void)state;
    struct sm_tb tb;
    sm_tb_init(&tb, 8000000, 3000, 0);
    /* a 6000-byte super-frame needs only a full bucket, then owes the rest */
    assert_true(sm_tb_take(&tb, 6000, 0));
    assert_int_equal(tb.tokens, -3000ll * 8000000000ll);
    assert_int_equal(sm_tb_ready_at(&tb, 100, 0), 3100 * 1000);     /* debt + 100 bytes */
}

static void test_rate_over_a_second(void **state)
{
    (void)state;
    struct sm_tb tb;
    /* 200 Mbit/s, 128 KB burst: 1514-byte frames sent as soon as allowed for 1 s */
    sm_tb_init(&tb, 200000000, SM_TBF_BURST_BYTES, 0);
    uint64_t now = 0, bytes = 0;
    while (now < SEC) {
        if (sm_tb_take(&tb, 1514, now))
            bytes += 1514;
        else
            now = sm_tb_ready_at(&tb, 1514, now);
    }
    /* rate * 1 s + burst, within one frame */
    uint64_t want = 200000000 / 8 + SM_TBF_BURST_BYTES;
    assert_true(bytes <= want + 1514);
    assert_true(bytes + 1514 >= want);
}

static struct zvs_frame mkframe(uint8_t *buf, uint32_t len)
{
    memset(buf, 0xab, len);
    struct zvs_frame f = { .data = buf, .len = len };
    return f;
}

static void test_shaper_queue(void **state)
{
    (void)state;
    static uint8_t buf[2000];
    struct sm_shaper s;
    /* 8 Mbit/s, burst 1500, limit 4000 bytes: two frames pass, two wait, the fifth drops */
    assert_int_equal(sm_shaper_init(&s, 8000000, 1500, 4000, 0), 0);
    struct zvs_frame f = mkframe(buf, 1500);
    for (int i = 0; i < 2; i++)
        assert_true(sm_shaper_enqueue(&s, &f, 7, (uint16_t)i));
    f.len = 1000;
    assert_true(sm_shaper_enqueue(&s, &f, 7, 2));
    assert_false(sm_shaper_enqueue(&s, &f, 7, 3));     /* 4000 + 1000 > limit */
    assert_int_equal(s.stats.dropped, 1);
    assert_int_equal(s.stats.dropped_bytes, 1000);

    struct zvs_frame out;
    uint16_t vid, aux;
    uint64_t ready;
    assert_true(sm_shaper_head(&s, 0, &out, &vid, &aux, &ready));
    assert_int_equal(out.len, 1500);
    assert_int_equal(vid, 7);
    assert_int_equal(aux, 0);
    assert_int_equal(out.data[0], 0xab);
    sm_shaper_pop(&s, 0);
    assert_false(sm_shaper_head(&s, 0, &out, &vid, &aux, &ready));
    assert_int_equal(ready, 1500 * 1000);
    assert_true(sm_shaper_head(&s, ready, &out, &vid, &aux, &ready));
    assert_int_equal(aux, 1);
    sm_shaper_pop(&s, 1500 * 1000);
    assert_false(sm_shaper_head(&s, 1500 * 1000, &out, &vid, &aux, &ready));
    assert_int_equal(ready, 2500 * 1000);             /* the 1000-byte frame */
    assert_true(sm_shaper_head(&s, ready, &out, &vid, &aux, &ready));
    assert_int_equal(out.len, 1000);
    sm_shaper_pop(&s, 2500 * 1000);
    assert_false(sm_shaper_head(&s, 9 * SEC, &out, &vid, &aux, &ready));
    assert_int_equal(ready, UINT64_MAX);
    assert_int_equal(s.stats.sent, 3);
    assert_int_equal(s.stats.sent_bytes, 4000);
    assert_int_equal(s.bytes, 0);
    sm_shaper_fini(&s);
}

static void test_shaper_ring_wraps(void **state)
{
    (void)state;
    static uint8_t buf[1600];
    struct sm_shaper s;
    assert_int_equal(sm_shaper_init(&s, 1000000000, 1 << 20, 3000, 0), 0);
    struct zvs_frame f = mkframe(buf, 1400);
    struct zvs_frame out;
    uint16_t vid, aux;
    uint64_t ready;
    /* many more frames than the ring holds, two queued at a time: data stays intact */
    for (unsigned i = 0; i < 1000; i++) {
        buf[0] = (uint8_t)i;
        assert_true(sm_shaper_enqueue(&s, &f, 1, (uint16_t)i));
        if (i % 2) {
            for (unsigned k = 0; k < 2; k++) {
                assert_true(sm_shaper_head(&s, i * SEC, &out, &vid, &aux, &ready));
                assert_int_equal(aux, i - 1 + k);
                assert_int_equal(out.data[0], (uint8_t)(i - 1 + k));
                sm_shaper_pop(&s, i * SEC);
            }
        }
    }
    assert_int_equal(s.stats.dropped, 0);
    sm_shaper_fini(&s);
}

static void test_wire_bytes(void **state)
{
    (void)state;
    static uint8_t buf[20000];
    memset(buf, 0, sizeof(buf));
    struct zvs_frame f = { .data = buf, .len = 1514 };
    assert_int_equal(sm_wire_bytes(&f), 1514);
    /* TCP/IPv4 super-frame: 14 + 20 + 32 (doff 8) = 66 header bytes, 10 * 1448 payload */
    f.len = 66 + 10 * 1448;
    f.vnet.flags = ZVS_VNET_F_NEEDS_CSUM;
    f.vnet.gso_type = ZVS_VNET_GSO_TCPV4;
    f.vnet.gso_size = 1448;
    f.vnet.csum_start = 34;
    f.vnet.csum_offset = 16;
    f.vnet.hdr_len = 100;               /* what the kernel says is ignored when we can parse */
    buf[34 + 12] = 8 << 4;
    assert_int_equal(sm_wire_bytes(&f), 10 * (66 + 1448));
    /* last segment short */
    f.len = 66 + 2 * 1448 + 100;
    assert_int_equal(sm_wire_bytes(&f), 3 * 66 + 2 * 1448 + 100);
    /* no checksum offsets: the header length from the metadata */
    f.vnet.flags = 0;
    f.vnet.hdr_len = 66;
    assert_int_equal(sm_wire_bytes(&f), 3 * 66 + 2 * 1448 + 100);
}

/* The frame bucket: 84,000 frames/s, burst 64: the 65th frame at t=0 waits 1/84000 s. */
static void test_frame_bucket(void **state)
{
    (void)state;
    struct sm_tb fb;
    sm_fb_init(&fb, 84000, 64, 0);
    for (int i = 0; i < 64; i++)
        assert_true(sm_fb_take(&fb, 1, 0));
    assert_false(sm_fb_take(&fb, 1, 0));
    assert_int_equal(sm_fb_ready_at(&fb, 1, 0), 11905);   /* ceil(1e9 / 84000) ns */
    assert_false(sm_fb_take(&fb, 1, 11904));
    assert_true(sm_fb_take(&fb, 1, 11905));
    /* one second later: full again, never more than the burst */
    sm_tb_refill(&fb, SEC);
    assert_int_equal(fb.tokens, 64ll * 1000000000ll);
}

/* One frame ceiling for both directions of a port, served in turn; queue limit in frames. */
static void test_osa_port_shared(void **state)
{
    (void)state;
    static uint8_t buf[2000];
    struct sm_shaper in, out;
    struct sm_tb fb;
    /* bits never limit here (10 Gbit/s, 1 MB burst): 1000 frames/s, burst 2, queue 3 */
    assert_int_equal(sm_shaper_init(&in, 10000000000ull, 1 << 20, 1 << 20, 0), 0);
    assert_int_equal(sm_shaper_init(&out, 10000000000ull, 1 << 20, 1 << 20, 0), 0);
    sm_fb_init(&fb, 1000, 2, 0);
    sm_shaper_set_frames(&in, &fb, 3);
    sm_shaper_set_frames(&out, &fb, 3);
    struct zvs_frame f = mkframe(buf, 100);
    for (int i = 0; i < 3; i++)
        assert_true(sm_shaper_enqueue(&in, &f, 1, (uint16_t)i));
    assert_false(sm_shaper_enqueue(&in, &f, 1, 3));   /* drop-tail at 3 frames */
    assert_int_equal(in.stats.dropped, 1);
    for (int i = 0; i < 3; i++)
        assert_true(sm_shaper_enqueue(&out, &f, 1, (uint16_t)(10 + i)));

    struct zvs_frame o;
    uint16_t vid, aux;
    uint64_t r_in, r_out;
    /* t=0: the burst of 2 frames: one each way */
    assert_true(sm_shaper_head(&in, 0, &o, &vid, &aux, &r_in));
    sm_shaper_pop(&in, 0);
    assert_true(sm_shaper_head(&out, 0, &o, &vid, &aux, &r_out));
    sm_shaper_pop(&out, 0);
    assert_false(sm_shaper_head(&in, 0, &o, &vid, &aux, &r_in));
    assert_false(sm_shaper_head(&out, 0, &o, &vid, &aux, &r_out));
    assert_int_equal(r_in, 1000000);                  /* 1 ms: the next frame token */
    assert_int_equal(r_out, 1000000);
    /* served in turn every ms: in at 1 ms, out at 2 ms, in at 3 ms, out at 4 ms */
    uint64_t t = 1000000;
    for (int k = 0; k < 4; k++, t += 1000000) {
        struct sm_shaper *s = k % 2 ? &out : &in, *other = k % 2 ? &in : &out;
        assert_true(sm_shaper_head(s, t, &o, &vid, &aux, &r_in));
        sm_shaper_pop(s, t);
        if (other->q_len)
            assert_false(sm_shaper_head(other, t, &o, &vid, &aux, &r_out));
    }
    assert_int_equal(in.stats.sent_frames, 3);
    assert_int_equal(out.stats.sent_frames, 3);
    assert_int_equal(in.frames + out.frames, 0);
    sm_shaper_fini(&in);
    sm_shaper_fini(&out);
}

/* A super-frame costs the frames it becomes; an empty queue takes one beyond the limit. */
/* The shaper timer's tick: 200 us, or a quarter of the shorter burst when that is less,
 * so the tokens a tick leaves unspent fit in the buckets. */
static void test_shaper_tick(void **state)
{
    (void)state;
    /* The OSA port model at 1 Gbit/s, 92,000 frames/s: 128 KB is 1.05 ms, 64 frames
     * 695,652 ns, whose quarter decides. At 100 Mbit/s and 9,200 frames/s, 200 us. */
    assert_int_equal(sm_shaper_tick_ns(1000000000, SM_TBF_BURST_BYTES, 92000, SM_FB_BURST_FRAMES),
                     173913);
    assert_int_equal(sm_shaper_tick_ns(100000000, SM_TBF_BURST_BYTES, 9200, SM_FB_BURST_FRAMES),
                     200000);
    /* 10 Gbit/s: 128 KB is 104,857 ns, a quarter 26,214 ns. */
    assert_int_equal(sm_shaper_tick_ns(10000000000ull, SM_TBF_BURST_BYTES, 0, 0), 26214);
    /* 400,000 frames/s: 64 frames are 160 us, a quarter 40 us. */
    assert_int_equal(sm_shaper_tick_ns(1000000000, SM_TBF_BURST_BYTES, 400000, SM_FB_BURST_FRAMES),
                     40000);
}

static void test_osa_super_frame(void **state)
{
    (void)state;
    static uint8_t buf[20000];
    memset(buf, 0, sizeof(buf));
    struct zvs_frame f = { .data = buf, .len = 66 + 10 * 1448 };
    f.vnet.flags = ZVS_VNET_F_NEEDS_CSUM;
    f.vnet.gso_type = ZVS_VNET_GSO_TCPV4;
    f.vnet.gso_size = 1448;
    f.vnet.csum_start = 34;
    f.vnet.csum_offset = 16;
    buf[34 + 12] = 8 << 4;
    assert_int_equal(sm_wire_frames(&f), 10);
    struct sm_shaper s;
    struct sm_tb fb;
    assert_int_equal(sm_shaper_init(&s, 10000000000ull, 1 << 20, 1 << 20, 0), 0);
    sm_fb_init(&fb, 1000, 4, 0);
    sm_shaper_set_frames(&s, &fb, 8);
    assert_true(sm_shaper_enqueue(&s, &f, 1, 0));     /* 10 frames into an empty queue */
    assert_false(sm_shaper_enqueue(&s, &f, 1, 1));
    struct zvs_frame o;
    uint16_t vid, aux;
    uint64_t r;
    /* the burst is 4 frames: the bucket may go to -6, like the bit bucket with big frames */
    assert_true(sm_shaper_head(&s, 0, &o, &vid, &aux, &r));
    sm_shaper_pop(&s, 0);
    assert_int_equal(fb.tokens, -6ll * 1000000000ll);
    assert_true(sm_shaper_enqueue(&s, &f, 1, 2));
    assert_false(sm_shaper_head(&s, 0, &o, &vid, &aux, &r));
    assert_int_equal(r, 10000000);                    /* 6 + 4 frames at 1000/s: 10 ms */
    assert_int_equal(s.stats.sent_frames, 10);
    assert_int_equal(s.stats.dropped, 1);
    sm_shaper_fini(&s);
}

static void test_limits(void **state)
{
    (void)state;
    assert_int_equal(sm_tbf_limit_for(1000000000), 2500000);       /* 20 ms of 1 Gbit/s */
    assert_int_equal(sm_tbf_limit_for(8000000), SM_TBF_MIN_LIMIT);
    struct sm_shaper s;
    assert_int_equal(sm_shaper_init(&s, 0, 1000, 1000, 0), -22);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket),
        cmocka_unit_test(test_oversize_frame),
        cmocka_unit_test(test_rate_over_a_second),
        cmocka_unit_test(test_shaper_queue),
        cmocka_unit_test(test_shaper_ring_wraps),
        cmocka_unit_test(test_wire_bytes),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_frame_bucket),
        cmocka_unit_test(test_osa_port_shared),
        cmocka_unit_test(test_osa_super_frame),
        cmocka_unit_test(test_shaper_tick),
    };
    return cmocka_run_group_tests_name("switchmodel_tbf", tests, NULL, NULL);
}
