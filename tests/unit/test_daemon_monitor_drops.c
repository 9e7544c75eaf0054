/* The real daemon's monitor records carry the data plane's discard counters by reason
 * (hermetic.h, virtual time): a guest that does not empty its input queue, a guest that
 * sends from a group MAC address and a runt from the LAN are counted under their reasons
 * in the D8R1 and D6R21 the sampler writes, and in every record the reasons of each kind
 * add up to the record's discards and errors (dataplane/port.c counts each frame in both).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hermetic.h"
#include "monitor/monfile.h"
#include "monitor/monrec.h"

static const char *const links[] = { "osa28ba", "osa2902", NULL };

/* The reasons of a kind, summed. */
static uint64_t kind_sum(const uint64_t *drops, enum zvs_mon_drop_kind kind)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < ZVS_MON_DROP_REASONS; i++)
        if (zvs_mon_drop_kind(i) == kind)
            n += drops[i];
    return n;
}

/* A record's reasons: all there, and each kind adds up to the record's own total. */
static void check_kinds(uint8_t ndrops, const uint64_t *drops, uint64_t discards,
                        uint64_t errors)
{
    assert_int_equal(ndrops, ZVS_MON_DROP_REASONS);
    assert_true(kind_sum(drops, ZVS_MON_DROP_KIND_DISCARD) == discards);
    assert_true(kind_sum(drops, ZVS_MON_DROP_KIND_ERROR) == errors);
}

static void reasons_by_kind_in_monitor_records(void **state)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true, .monitor_interval_s = 60,
    };
    struct herm *h = herm_start(&o);
    (void)state;
    herm_report_group(h);
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXA");
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXB");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1");
    herm_op(h, "COUPLE USERID LNXB F000 TO SYSTEM CCBVSW1");
    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);
    (void)herm_guest_attach(h, "LNXB", 0xF000);
    herm_warp(h, 30.0);
    static const uint8_t ma[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x01 };
    static const uint8_t mb[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x0a };
    static const uint8_t group_mac[6] = { 0x03, 0x00, 0x0c, 0x00, 0x01, 0x01 };
    uint8_t f[98];
    herm_frame(f, sizeof f, mb, ma, 1);
    herm_guest_blast(h, a, f, sizeof f, 400);       /* LNXB never takes its frames */
    herm_frame(f, sizeof f, mb, group_mac, 2);
    herm_guest_send(h, a, f, sizeof f, 1);          /* a group address as the source */
    static const uint8_t runt[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
    herm_link_send(h, "osa28ba", runt, sizeof runt);
    herm_warp(h, 61.0);
    char path[128], dir[64];
    snprintf(path, sizeof path, "%s", h->mon_path);
    snprintf(dir, sizeof dir, "%s", h->dir);
    h->keep_monitor = true;
    herm_stop(h);

    int err = 0;
    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_non_null(rd);
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    unsigned checked = 0;
    uint64_t no_buffer = 0, bad_src = 0, runts = 0;
    while (zvs_mon_reader_next(rd, &g, &e) == 1) {
        for (unsigned i = 0; i < g.nrec; i++) {
            const struct zvs_mon_record *r = &g.rec[i];
            if (r->domain == ZVS_MON_DOMAIN_IO && r->number == ZVS_MON_REC_D6R21) {
                const struct zvs_mon_vswitch_activity *v = &r->u.vsw;
                check_kinds(v->ndrops, v->drops, v->tx_discards + v->rx_discards,
                            v->tx_errors + v->rx_errors);
                if (v->rdev == 0x28BA)
                    runts = v->drops[ZVS_MON_DROP_RUNT];
                checked++;
            } else if (r->domain == ZVS_MON_DOMAIN_NET && r->number == ZVS_MON_REC_D8R1) {
                const struct zvs_mon_vnic_activity *v = &r->u.vnic;
                check_kinds(v->ndrops, v->drops, v->tx_discards + v->rx_discards,
                            v->tx_errors + v->rx_errors);
                if (strcmp(v->owner, "LNXB") == 0)
                    no_buffer = v->drops[ZVS_MON_DROP_NO_BUFFER];
                if (strcmp(v->owner, "LNXA") == 0)
                    bad_src = v->drops[ZVS_MON_DROP_BAD_SRC];
                checked++;
            }
        }
    }
    zvs_mon_reader_close(rd);
    unlink(path);
    rmdir(dir);
    assert_true(checked >= 4);
    assert_true(no_buffer > 0);
    assert_int_equal(bad_src, 1);
    assert_int_equal(runts, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reasons_by_kind_in_monitor_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
