/* dataplane/oversize: frames dropped as too big, recorded by ingress port until taken. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "dataplane/oversize.h"

/* Ten ports sending too-big frames interval after interval: the 9th and the 10th are
 * recorded every time (a table of 8 slots refilled each interval by the same first eight,
 * muted or not, never let them in), each with its own count and last length. */
static void every_port_recorded(void **state)
{
    static struct zvs_oversize o;
    struct zvs_oversize_rec r[4];

    for (int interval = 0; interval < 3; interval++) {
        for (uint16_t p = 1; p <= 10; p++)
            for (uint16_t k = 0; k <= p % 3; k++)
                zvs_oversize_note(&o, p, 1500u + p + k);
        unsigned seen = 0, n;
        uint16_t last = 0;
        while ((n = zvs_oversize_take(&o, r, 4)) > 0) {
            for (unsigned i = 0; i < n; i++) {
                assert_true(r[i].in_port > last);      /* once each, by port index */
                last = r[i].in_port;
                assert_int_equal(r[i].frames, 1 + r[i].in_port % 3);
                assert_int_equal(r[i].len, 1500u + r[i].in_port + r[i].in_port % 3);
                seen++;
            }
        }
        assert_int_equal(seen, 10);
        assert_int_equal(last, 10);
    }
    assert_int_equal(zvs_oversize_take(&o, r, 4), 0);
}

/* The highest port index is kept, past it only counted by the drop's counter; a port
 * taken counts from one again. */
static void bounds_and_clear(void **state)
{
    static struct zvs_oversize o;
    struct zvs_oversize_rec r[2];

    zvs_oversize_note(&o, ZVS_OVERSIZE_PORTS - 1, 2000);
    zvs_oversize_note(&o, ZVS_OVERSIZE_PORTS, 2000);
    assert_int_equal(zvs_oversize_take(&o, r, 2), 1);
    assert_int_equal(r[0].in_port, ZVS_OVERSIZE_PORTS - 1);
    zvs_oversize_note(&o, 5, 1600);
    zvs_oversize_note(&o, 5, 1600);
    assert_int_equal(zvs_oversize_take(&o, r, 2), 1);
    assert_int_equal(r[0].frames, 2);
    zvs_oversize_note(&o, 5, 1601);                     /* counts from one again */
    assert_int_equal(zvs_oversize_take(&o, r, 2), 1);
    assert_int_equal(r[0].frames, 1);
    assert_int_equal(r[0].len, 1601);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_port_recorded),
        cmocka_unit_test(bounds_and_clear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
