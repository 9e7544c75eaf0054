/* The hermetic VXLAN tests' remote VTEP; see herm_vxlan.h. */
#include "tests/unit/herm_vxlan.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "overlay/vxlan_codec.h"

const uint8_t herm_vx_remote_mac[6] = { 0x02, 0xbb, 0x00, 0x00, 0x00, 0x02 };

struct herm *herm_vx_start(const char *sysconfig, struct herm_guest **a)
{
    static const char *const links[] = { "osa28ba", NULL };
    struct herm_opts o = {
        .sysconfig = sysconfig,
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links,
    };
    struct herm *h = herm_start(&o);

    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    *a = herm_guest_attach(h, "LNXA", 0xF000);
    return h;
}

void herm_vx_send(struct herm *h, const char *link, const uint8_t *outer_dst,
                  const uint8_t *inner, uint32_t len, uint32_t vni)
{
    uint8_t outer[HERM_FRAME_MAX];
    struct zvs_vxlan_outer ou = { .src = { .family = 4, .a = { 10, 0, 0, 2 } },
                                  .dst = { .family = 4, .a = { 10, 0, 0, 1 } } };

    assert_true(len + ZVS_VXLAN_MAX_HDR <= sizeof outer);
    memcpy(ou.src_mac, herm_vx_remote_mac, 6);
    if (outer_dst)
        memcpy(ou.dst_mac, outer_dst, 6);
    else
        memset(ou.dst_mac, 0xff, 6);
    unsigned hl = zvs_vxlan_encap(outer, &ou, vni, 50000, len);
    memcpy(outer + hl, inner, len);
    herm_link_send(h, link, outer, hl + len);
}

void herm_expect(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("no \"%s\" in:\n%s", want, text);
}

void herm_refused(struct herm *h, const char *line, int want_rc, const char *want)
{
    int rc;
    const char *out = herm_cp(h, "OPERATOR", "ABCDEFG", line, &rc);

    assert_int_equal(rc, want_rc);
    assert_string_equal(out, want);
}
