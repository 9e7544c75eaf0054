/* One system's end of the IVL (ivl/link.c): frames wrapped and unwrapped between two
 * systems with every counter, sequence gaps counted as lost and older numbers as
 * reordered, a system forgotten and seen afresh, a restart the view never saw taken as a
 * new sequence, and the drops: no valid header (by reason), our own frame looped back,
 * another Global VSWITCH's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "ivl/link.h"

static const uint8_t MAC1[6] = { 0x02, 0, 0, 0, 0x0B, 1 };
static const uint8_t MAC2[6] = { 0x02, 0, 0, 0, 0x0B, 2 };

static uint8_t inner[100];

/* System 1 sends `kind` to system 2; returns what system 2's unwrap said. */
static int send(struct zvs_ivl_link *a, struct zvs_ivl_link *b, uint8_t kind)
{
    uint8_t buf[256];
    struct zvs_ivl_hdr h;
    const uint8_t *in;
    size_t il;
    int n = zvs_ivl_link_wrap(a, kind, MAC2, inner, sizeof inner, buf, sizeof buf);
    assert_int_equal(n, ZVS_IVL_OUTER_LEN + (int)sizeof inner);
    return zvs_ivl_link_unwrap(b, buf, (size_t)n, &h, &in, &il);
}

static void counts_both_ways(void **state)
{
    struct zvs_ivl_link a, b;
    zvs_ivl_link_init(&a, 1, 7, MAC1);
    zvs_ivl_link_init(&b, 2, 7, MAC2);
    memset(inner, 0x5A, sizeof inner);
    assert_int_equal(send(&a, &b, ZVS_IVL_OUTBOUND), 0);
    assert_int_equal(send(&a, &b, ZVS_IVL_OUTBOUND), 0);
    assert_int_equal(send(&a, &b, ZVS_IVL_FLOOD), 0);
    assert_int_equal(a.st.tx_frames[ZVS_IVL_OUTBOUND], 2);
    assert_int_equal(a.st.tx_bytes[ZVS_IVL_OUTBOUND], 200);
    assert_int_equal(a.st.tx_frames[ZVS_IVL_FLOOD], 1);
    assert_int_equal(b.st.rx_frames[ZVS_IVL_OUTBOUND], 2);
    assert_int_equal(b.st.rx_bytes[ZVS_IVL_FLOOD], 100);
    assert_int_equal(b.st.rx_lost + b.st.rx_reordered, 0);
    /* nothing is counted for what the codec refuses */
    uint8_t buf[256];
    assert_int_equal(zvs_ivl_link_wrap(&a, 9, MAC2, inner, sizeof inner, buf, sizeof buf),
                     -EINVAL);
    assert_int_equal(a.tx_seq, 3);
}

static void gaps_and_reordering_counted(void **state)
{
    struct zvs_ivl_link a, b;
    uint8_t f[5][256];
    int n[5];
    zvs_ivl_link_init(&a, 1, 7, MAC1);
    zvs_ivl_link_init(&b, 2, 7, MAC2);
    for (unsigned i = 0; i < 5; i++)
        n[i] = zvs_ivl_link_wrap(&a, ZVS_IVL_INBOUND, MAC2, inner, sizeof inner, f[i],
                                 sizeof f[i]);
    struct zvs_ivl_hdr h;
    const uint8_t *in;
    size_t il;
    /* 0, then 3 (1 and 2 lost), then 1 late (reordered), then 4 */
    assert_int_equal(zvs_ivl_link_unwrap(&b, f[0], (size_t)n[0], &h, &in, &il), 0);
    assert_int_equal(zvs_ivl_link_unwrap(&b, f[3], (size_t)n[3], &h, &in, &il), 0);
    assert_int_equal(b.st.rx_lost, 2);
    assert_int_equal(zvs_ivl_link_unwrap(&b, f[1], (size_t)n[1], &h, &in, &il), 0);
    assert_int_equal(b.st.rx_reordered, 1);
    assert_int_equal(zvs_ivl_link_unwrap(&b, f[4], (size_t)n[4], &h, &in, &il), 0);
    assert_int_equal(b.st.rx_lost, 2);
    /* system 1 restarts (its sequence from 0): forgotten, it is not a loss */
    zvs_ivl_link_forget(&b, 1);
    zvs_ivl_link_init(&a, 1, 7, MAC1);
    assert_int_equal(send(&a, &b, ZVS_IVL_INBOUND), 0);
    assert_int_equal(b.st.rx_lost, 2);
    assert_int_equal(b.st.rx_reordered, 1);
}

/* A sender restarts unseen by the view (its sequence from 0 again after 2000 frames):
 * one restart, then its frames are in order again, neither reordered nor lost. */
static void unseen_restart_is_a_new_sequence(void **state)
{
    struct zvs_ivl_link a, b;
    zvs_ivl_link_init(&a, 1, 7, MAC1);
    zvs_ivl_link_init(&b, 2, 7, MAC2);
    for (int i = 0; i < 2000; i++)
        assert_int_equal(send(&a, &b, ZVS_IVL_FLOOD), 0);
    zvs_ivl_link_init(&a, 1, 7, MAC1);
    for (int i = 0; i < 10; i++)
        assert_int_equal(send(&a, &b, ZVS_IVL_FLOOD), 0);
    assert_int_equal(b.st.rx_restarted, 1);
    assert_int_equal(b.st.rx_reordered, 0);
    assert_int_equal(b.st.rx_lost, 0);
    assert_int_equal(b.st.rx_frames[ZVS_IVL_FLOOD], 2010);
    /* a late frame a little behind is still reordered */
    uint8_t f[256];
    struct zvs_ivl_link old = a;
    old.tx_seq = 3;
    int n = zvs_ivl_link_wrap(&old, ZVS_IVL_FLOOD, MAC2, inner, sizeof inner, f, sizeof f);
    struct zvs_ivl_hdr h;
    const uint8_t *in;
    size_t il;
    assert_int_equal(zvs_ivl_link_unwrap(&b, f, (size_t)n, &h, &in, &il), 0);
    assert_int_equal(b.st.rx_reordered, 1);
    assert_int_equal(b.st.rx_restarted, 1);
}

static void drops_counted(void **state)
{
    struct zvs_ivl_link a, b, c;
    zvs_ivl_link_init(&a, 1, 7, MAC1);
    zvs_ivl_link_init(&b, 1, 7, MAC2);  /* the same index: a loop */
    zvs_ivl_link_init(&c, 2, 8, MAC2);  /* another Global VSWITCH */
    assert_int_equal(send(&a, &b, ZVS_IVL_FLOOD), -1);
    assert_int_equal(b.st.rx_own, 1);
    assert_int_equal(send(&a, &c, ZVS_IVL_FLOOD), -1);
    assert_int_equal(c.st.rx_other_vswitch, 1);
    uint8_t junk[64] = { 0 };
    struct zvs_ivl_hdr h;
    const uint8_t *in;
    size_t il;
    assert_int_equal(zvs_ivl_link_unwrap(&c, junk, 20, &h, &in, &il), -1);
    assert_int_equal(zvs_ivl_link_unwrap(&c, junk, sizeof junk, &h, &in, &il), -1);
    assert_int_equal(c.st.rx_bad[ZVS_IVL_FE_SHORT], 1);
    assert_int_equal(c.st.rx_bad[ZVS_IVL_FE_ETHERTYPE], 1);
    assert_int_equal(c.st.rx_frames[ZVS_IVL_FLOOD], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_both_ways),
        cmocka_unit_test(gaps_and_reordering_counted),
        cmocka_unit_test(unseen_restart_is_a_new_sequence),
        cmocka_unit_test(drops_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
