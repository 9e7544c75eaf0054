/* memlink: exact bytes and vnet metadata through tx and rx, tag edits, ring-full and
 * oversize refusals with their counters, slots held by the switch never overwritten,
 * carrier off, and two ports wired back to back. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <poll.h>

#include "backends/memlink.h"

/* An untagged test frame of len bytes: dst 02:..:01, src 02:..:02, ethertype 0x88B5
 * (IEEE local experimental), payload bytes seeded by `seed`. */
static void make_frame(uint8_t *buf, uint32_t len, uint8_t seed)
{
    static const uint8_t hdr[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x88, 0xB5 };
    memcpy(buf, hdr, sizeof(hdr));
    for (uint32_t i = 14; i < len; i++)
        buf[i] = (uint8_t)(seed + i);
}

static struct zvs_memlink_stats stats_of(const struct zvs_port *p)
{
    struct zvs_memlink_stats s;
    zvs_memlink_stats(p, &s);
    return s;
}

static int tx1(struct zvs_port *p, const struct zvs_frame *f, enum zvs_tag_op op, uint16_t vid,
               enum zvs_drop *why)
{
    struct zvs_tx tx = { .f = f, .tag_op = (uint8_t)op, .vid = vid };
    return p->ops->tx(p, &tx, 1, why);
}

static void test_tx_exact_bytes_and_vnet(void **state)
{
    struct zvs_port *p = zvs_memlink_create("ml0", 8, 0);
    uint8_t buf[100], got[2048];
    struct zvs_vnet v = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 16 };
    struct zvs_vnet gv;
    enum zvs_drop why = ZVS_DROP__COUNT;

    assert_non_null(p);
    assert_string_equal(p->ops->kind, "memlink");
    assert_string_equal(p->name, "ml0");
    assert_true(p->carrier);
    assert_int_equal(p->caps, ZVS_CAP_CSUM | ZVS_CAP_GSO);
    make_frame(buf, sizeof(buf), 7);
    struct zvs_frame f = { .data = buf, .len = sizeof(buf), .vnet = v };
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(why, ZVS_DROP__COUNT);
    assert_int_equal(zvs_memlink_pending(p), 1);
    assert_int_equal(zvs_memlink_read(p, got, sizeof(got), &gv), 100);
    assert_memory_equal(got, buf, 100);
    assert_memory_equal(&gv, &v, sizeof(v));
    assert_int_equal(zvs_memlink_read(p, got, sizeof(got), &gv), -EAGAIN);
    assert_int_equal(zvs_memlink_pending(p), 0);
    struct zvs_memlink_stats s = stats_of(p);
    assert_int_equal(s.tx_frames, 1);
    assert_int_equal(s.tx_bytes, 100);
    p->ops->destroy(p);
}

static void test_tx_scattered_frame_is_gathered(void **state)
{
    struct zvs_port *p = zvs_memlink_create("ml0", 4, 256);
    uint8_t buf[90], got[256];
    enum zvs_drop why;

    make_frame(buf, sizeof(buf), 1);
    struct iovec frags[3] = {
        { buf, 20 }, { buf + 20, 1 }, { buf + 21, 69 },
    };
    struct zvs_frame f = { .data = buf, .len = 90, .nfrags = 3, .frags = frags };
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(zvs_memlink_read(p, got, sizeof(got), NULL), 90);
    assert_memory_equal(got, buf, 90);
    p->ops->destroy(p);
}

static void test_tag_push_strip_rewrite(void **state)
{
    struct zvs_port *p = zvs_memlink_create("ml0", 8, 0);
    uint8_t buf[64], tagged[68], got[2048];
    struct zvs_vnet gv;
    enum zvs_drop why;

    make_frame(buf, sizeof(buf), 3);
    struct zvs_frame f = {
        .data = buf, .len = 64, .pcp = 5,
        .vnet = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 16 },
    };
    /* PUSH VID 100 with PCP 5: TCI = 5 << 13 | 100 = 0xA064. */
    assert_int_equal(tx1(p, &f, ZVS_TAG_PUSH, 100, &why), 1);
    assert_int_equal(zvs_memlink_read(p, got, sizeof(got), &gv), 68);
    memcpy(tagged, buf, 12);
    memcpy(tagged + 12, "\x81\x00\xA0\x64", 4);
    memcpy(tagged + 16, buf + 12, 52);
    assert_memory_equal(got, tagged, 68);
    assert_int_equal(gv.csum_start, 38);
    assert_int_equal(gv.csum_offset, 16);

    /* STRIP the tag again: the original bytes, csum_start back at 34. */
    struct zvs_frame t = { .data = tagged, .len = 68, .flags = ZVS_FF_TAGGED, .vnet = gv };
    assert_int_equal(tx1(p, &t, ZVS_TAG_STRIP, 0, &why), 1);
    assert_int_equal(zvs_memlink_read(p, got, sizeof(got), &gv), 64);
    assert_memory_equal(got, buf, 64);
    assert_int_equal(gv.csum_start, 34);

    /* REWRITE to VID 4094, PCP 0: TCI 0x0FFE, length unchanged. */
    t.pcp = 0;
    assert_int_equal(tx1(p, &t, ZVS_TAG_REWRITE, 4094, &why), 1);
    assert_int_equal(zvs_memlink_read(p, got, sizeof(got), &gv), 68);
    assert_memory_equal(got, tagged, 14);
    assert_memory_equal(got + 14, "\x0F\xFE", 2);
    assert_memory_equal(got + 16, tagged + 16, 52);
    assert_int_equal(gv.csum_start, 38);
    p->ops->destroy(p);
}

static void test_tx_ring_full_and_oversize(void **state)
{
    struct zvs_port *p = zvs_memlink_create("ml0", 4, 128);
    uint8_t small[60], big[129], got[128];
    struct zvs_tx txs[6];
    enum zvs_drop why = ZVS_DROP__COUNT;

    make_frame(small, sizeof(small), 0);
    make_frame(big, sizeof(big), 0);
    struct zvs_frame fs = { .data = small, .len = 60 };
    struct zvs_frame fb = { .data = big, .len = 129 };
    for (int i = 0; i < 6; i++)
        txs[i] = (struct zvs_tx){ .f = &fs, .tag_op = ZVS_TAG_KEEP };
    assert_int_equal(p->ops->tx(p, txs, 6, &why), 4);
    assert_int_equal(why, ZVS_DROP_NO_BUFFER);
    struct zvs_memlink_stats s = stats_of(p);
    assert_int_equal(s.tx_frames, 4);
    assert_int_equal(s.tx_ring_full, 2);

    /* One read frees one slot for exactly one more frame. */
    assert_int_equal(zvs_memlink_read(p, got, sizeof(got), NULL), 60);
    why = ZVS_DROP__COUNT;
    assert_int_equal(p->ops->tx(p, txs, 2, &why), 1);
    assert_int_equal(why, ZVS_DROP_NO_BUFFER);
    assert_int_equal(zvs_memlink_drain(p), 4);
    assert_int_equal(zvs_memlink_pending(p), 0);

    /* A frame larger than a slot is refused as TX_FAIL; the others still go. */
    txs[1].f = &fb;
    why = ZVS_DROP__COUNT;
    assert_int_equal(p->ops->tx(p, txs, 3, &why), 2);
    assert_int_equal(why, ZVS_DROP_TX_FAIL);
    /* PUSH makes 125 bytes 129: too big as well. */
    struct zvs_frame f125 = { .data = big, .len = 125 };
    assert_int_equal(tx1(p, &f125, ZVS_TAG_PUSH, 1, &why), 0);
    s = stats_of(p);
    assert_int_equal(s.tx_oversize, 2);
    assert_int_equal(s.tx_frames, 7);
    assert_int_equal(s.tx_ring_full, 3);

    /* A read buffer too small leaves the frame queued. */
    assert_int_equal(zvs_memlink_read(p, got, 59, NULL), -EMSGSIZE);
    assert_int_equal(zvs_memlink_pending(p), 2);
    p->ops->destroy(p);
}

static void test_rx_exact_and_held_slots_not_overwritten(void **state)
{
    struct zvs_port *p = zvs_memlink_create("ml0", 4, 128);
    uint8_t buf[4][70];
    struct zvs_frame fr[ZVS_BATCH];
    struct zvs_vnet v = { .gso_type = ZVS_VNET_GSO_TCPV4, .gso_size = 1448, .hdr_len = 66 };

    p->index = 3;
    for (int i = 0; i < 4; i++) {
        make_frame(buf[i], 70, (uint8_t)(i * 16));
        assert_int_equal(zvs_memlink_inject(p, buf[i], 70, i == 1 ? &v : NULL), 0);
    }
    assert_int_equal(zvs_memlink_inject(p, buf[0], 70, NULL), -ENOBUFS);
    assert_int_equal(zvs_memlink_inject(p, buf[0], 129, NULL), -EMSGSIZE);

    assert_int_equal(p->ops->rx(p, fr, 2), 2);
    assert_int_equal(fr[0].len, 70);
    assert_memory_equal(fr[0].data, buf[0], 70);
    assert_int_equal(fr[0].in_port, 3);
    assert_int_equal(fr[0].vnet.gso_type, ZVS_VNET_GSO_NONE);
    assert_memory_equal(fr[1].data, buf[1], 70);
    assert_memory_equal(&fr[1].vnet, &v, sizeof(v));

    /* Frames the switch holds keep their slots: still full. */
    assert_int_equal(zvs_memlink_inject(p, buf[0], 70, NULL), -ENOBUFS);
    /* Releasing the younger one first frees nothing: the oldest still pins the tail. */
    p->ops->rx_release(p, &fr[1], 1);
    assert_int_equal(zvs_memlink_inject(p, buf[0], 70, NULL), -ENOBUFS);
    assert_memory_equal(fr[0].data, buf[0], 70);
    p->ops->rx_release(p, &fr[0], 1);
    assert_int_equal(zvs_memlink_inject(p, buf[3], 70, NULL), 0);
    assert_int_equal(zvs_memlink_inject(p, buf[2], 70, NULL), 0);
    assert_int_equal(zvs_memlink_inject(p, buf[2], 70, NULL), -ENOBUFS);

    /* The rest come out in order, wrapping the ring. */
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 4);
    assert_memory_equal(fr[0].data, buf[2], 70);
    assert_memory_equal(fr[1].data, buf[3], 70);
    assert_memory_equal(fr[2].data, buf[3], 70);
    assert_memory_equal(fr[3].data, buf[2], 70);
    p->ops->rx_release(p, fr, 4);
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);
    struct zvs_memlink_stats s = stats_of(p);
    assert_int_equal(s.rx_frames, 6);
    assert_int_equal(s.inject_refused, 5);
    p->ops->destroy(p);
}

static void test_carrier_off_refuses(void **state)
{
    struct zvs_port *p = zvs_memlink_create("ml0", 4, 0);
    uint8_t buf[60];
    struct zvs_tx txs[3];
    enum zvs_drop why = ZVS_DROP__COUNT;

    make_frame(buf, 60, 0);
    struct zvs_frame f = { .data = buf, .len = 60 };
    for (int i = 0; i < 3; i++)
        txs[i] = (struct zvs_tx){ .f = &f };
    zvs_memlink_set_carrier(p, false);
    assert_false(p->carrier);
    assert_int_equal(p->ops->tx(p, txs, 3, &why), 0);
    assert_int_equal(why, ZVS_DROP_LINK_DOWN);
    assert_int_equal(zvs_memlink_inject(p, buf, 60, NULL), -ENETDOWN);
    assert_int_equal(stats_of(p).tx_link_down, 3);
    zvs_memlink_set_carrier(p, true);
    assert_int_equal(p->ops->tx(p, txs, 3, &why), 3);
    assert_int_equal(zvs_memlink_pending(p), 3);
    p->ops->destroy(p);
}

static void test_pair_back_to_back(void **state)
{
    struct zvs_port *a, *b;
    uint8_t buf[80];
    struct zvs_frame fr[ZVS_BATCH];
    enum zvs_drop why;

    assert_int_equal(zvs_memlink_pair("A", "B", 2, 0, &a, &b), 0);
    make_frame(buf, 80, 9);
    struct zvs_frame f = { .data = buf, .len = 80 };
    assert_int_equal(tx1(a, &f, ZVS_TAG_PUSH, 10, &why), 1);
    assert_int_equal(b->ops->rx(b, fr, ZVS_BATCH), 1);
    assert_int_equal(fr[0].len, 84);
    assert_memory_equal(fr[0].data + 12, "\x81\x00\x00\x0A", 4);
    /* b still holds the frame: a's sent ring has one slot left. */
    struct zvs_tx txs[2] = { { .f = &f }, { .f = &f } };
    assert_int_equal(a->ops->tx(a, txs, 2, &why), 1);
    assert_int_equal(why, ZVS_DROP_NO_BUFFER);
    b->ops->rx_release(b, fr, 1);
    assert_int_equal(tx1(b, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(a->ops->rx(a, fr, ZVS_BATCH), 1);
    assert_memory_equal(fr[0].data, buf, 80);
    a->ops->rx_release(a, fr, 1);
    /* Cutting the cable takes both ends down. */
    zvs_memlink_set_carrier(b, false);
    assert_false(a->carrier);
    assert_false(b->carrier);
    a->ops->destroy(a);
    assert_int_equal(b->ops->rx(b, fr, ZVS_BATCH), 1);
    b->ops->rx_release(b, fr, 1);
    b->ops->destroy(b);
}

/* Cutting a pair's cable at one end: both ends lose carrier, the other end gets one link
 * event (link_poll) and its doorbell rings; the end that cut gets none. Restoring: the
 * same with carrier up. Two changes before a poll are one event saying the last. */
static bool readable(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, 0) == 1;
}

static void test_pair_carrier_event(void **state)
{
    struct zvs_port *a, *b;
    struct zvs_port_link_event ev;
    assert_int_equal(zvs_memlink_pair("near", "far", 4, 0, &a, &b), 0);
    int bell = zvs_memlink_doorbell(a);
    assert_true(bell >= 0);
    assert_int_equal(a->ops->fd(a), bell);
    assert_false(readable(bell));
    assert_int_equal(a->ops->link_poll(a, &ev), 0);

    zvs_memlink_set_carrier(b, false);
    assert_false(a->carrier);
    assert_false(b->carrier);
    assert_true(readable(bell));
    assert_int_equal(b->ops->link_poll(b, &ev), 0);
    assert_int_equal(a->ops->link_poll(a, &ev), 1);
    assert_int_equal(ev.ifindex, 0);
    assert_false(ev.carrier);
    assert_true(ev.exists);
    assert_int_equal(a->ops->link_poll(a, &ev), 0);        /* handed out once */
    assert_int_equal(a->ops->link_event(a, ev.ifindex, ev.carrier, ev.exists), 0);
    assert_false(a->carrier);
    struct zvs_frame fr[1];
    assert_int_equal(a->ops->rx(a, fr, 1), 0);              /* quiets the doorbell */
    assert_false(readable(bell));

    zvs_memlink_set_carrier(b, true);
    zvs_memlink_set_carrier(b, false);
    zvs_memlink_set_carrier(b, true);
    assert_true(a->carrier);
    assert_int_equal(a->ops->link_poll(a, &ev), 1);
    assert_true(ev.carrier);
    assert_int_equal(a->ops->link_poll(a, &ev), 0);
    a->ops->destroy(a);
    b->ops->destroy(b);
}

/* A port advertises the super-frames its slots can hold, so the switch cuts larger ones
 * instead of failing them at tx: default slots 2048, a small ring 256, a huge one capped
 * at the 64 KB a virtio-net super-frame can be. */
static void test_max_gso_fits_a_slot(void **state)
{
    struct zvs_port *p = zvs_memlink_create("ml0", 4, 0);
    assert_int_equal(p->max_gso, ZVS_MEMLINK_SLOT_DEFAULT);
    p->ops->destroy(p);
    p = zvs_memlink_create("ml0", 4, 256);
    assert_int_equal(p->max_gso, 256);
    p->ops->destroy(p);
    p = zvs_memlink_create("ml0", 2, 100000);
    assert_int_equal(p->max_gso, 65535);
    p->ops->destroy(p);
    struct zvs_port *a, *b;
    assert_int_equal(zvs_memlink_pair("a", "b", 4, 4096, &a, &b), 0);
    assert_int_equal(a->max_gso, 4096);
    assert_int_equal(b->max_gso, 4096);
    a->ops->destroy(a);
    b->ops->destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tx_exact_bytes_and_vnet),
        cmocka_unit_test(test_tx_scattered_frame_is_gathered),
        cmocka_unit_test(test_tag_push_strip_rewrite),
        cmocka_unit_test(test_tx_ring_full_and_oversize),
        cmocka_unit_test(test_rx_exact_and_held_slots_not_overwritten),
        cmocka_unit_test(test_carrier_off_refuses),
        cmocka_unit_test(test_pair_back_to_back),
        cmocka_unit_test(test_pair_carrier_event),
        cmocka_unit_test(test_max_gso_fits_a_slot),
    };
    return cmocka_run_group_tests_name("memlink", tests, NULL, NULL);
}
