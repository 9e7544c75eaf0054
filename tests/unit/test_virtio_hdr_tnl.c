/* The 24-byte virtio-net header of a tap with the UDP tunnel offload (backends/
 * virtio_hdr.h, struct virtio_net_hdr_v1_hash_tunnel): the exact bytes of a VXLAN
 * super-frame's header (the one tun_tunnel_gso_probe wrote and read back on Linux 6.18),
 * the round trip, a plain header through the same codec, and every header the kernel
 * itself would refuse (virtio_net_hdr_tnl_to_skb) refused here too. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "backends/virtio_hdr.h"

/* Outer Ethernet/IPv4/UDP/VXLAN (50 bytes), inner Ethernet/IPv4/TCP (54), MSS 1400. */
static const struct zvs_vnet vxlan_tso = {
    .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV4 | ZVS_VNET_GSO_UDP_TUNNEL4,
    .hdr_len = 104, .gso_size = 1400, .csum_start = 84, .csum_offset = 16,
    .tnl_outer_th = 34, .tnl_inner_nh = 64,
};

static void vxlan_super_frame_bytes(void **state)
{
    struct zvs_virtio_hdr_tnl h;
    const uint8_t want[24] = {
        0x01, 0x21,                     /* NEEDS_CSUM; UDP_TUNNEL_IPV4 | TCPV4 */
        104, 0, 0x78, 0x05,             /* hdr_len 104, gso_size 1400 */
        84, 0, 16, 0,                   /* csum_start 84, csum_offset 16 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* num_buffers, hash report */
        34, 0, 64, 0,                   /* outer_th_offset 34, inner_nh_offset 64 */
    };
    struct zvs_vnet back;

    assert_int_equal(ZVS_VIRTIO_HDR_TNL_LEN, 24);
    assert_true(zvs_virtio_hdr_tnl_encode(&vxlan_tso, &h));
    assert_memory_equal(&h, want, 24);
    assert_true(zvs_virtio_hdr_tnl_decode(&h, 5704, &back));
    assert_memory_equal(&back, &vxlan_tso, sizeof back);
}

/* Without a tunnel type the first 10 bytes are the plain header, little endian. */
static void plain_header_through_the_same_codec(void **state)
{
    const struct zvs_vnet tso = { .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV6 |
                                  ZVS_VNET_GSO_ECN, .hdr_len = 74, .gso_size = 1428,
                                  .csum_start = 54, .csum_offset = 16 };
    struct zvs_virtio_hdr_tnl h;
    struct zvs_vnet back;

    assert_true(zvs_virtio_hdr_tnl_encode(&tso, &h));
    const uint8_t want[24] = { 0x01, 0x84, 74, 0, 0x94, 0x05, 54, 0, 16, 0 };
    assert_memory_equal(&h, want, 24);
    assert_true(zvs_virtio_hdr_tnl_decode(&h, 3000, &back));
    assert_memory_equal(&back, &tso, sizeof back);
    /* DATA_VALID with the outer checksum valid too (UDP_TUNNEL_CSUM): the flag is dropped. */
    memset(&h, 0, sizeof h);
    h.flags = 0x02 | ZVS_VIRTIO_F_UDP_TUNNEL_CSUM;
    assert_true(zvs_virtio_hdr_tnl_decode(&h, 100, &back));
    assert_int_equal(back.flags, ZVS_VNET_F_DATA_VALID);
}

static bool decodes(void (*edit)(struct zvs_virtio_hdr_tnl *h))
{
    struct zvs_virtio_hdr_tnl h;
    struct zvs_vnet v;

    assert_true(zvs_virtio_hdr_tnl_encode(&vxlan_tso, &h));
    edit(&h);
    return zvs_virtio_hdr_tnl_decode(&h, 5704, &v);
}

static void both_families(struct zvs_virtio_hdr_tnl *h) { h->gso_type |= 0x40; }
static void inner_udp_l4(struct zvs_virtio_hdr_tnl *h) { h->gso_type = 0x20 | 5; }
static void inner_ufo(struct zvs_virtio_hdr_tnl *h) { h->gso_type = 0x20 | 3; }
static void inner_none(struct zvs_virtio_hdr_tnl *h) { h->gso_type = 0x20; }
static void no_csum(struct zvs_virtio_hdr_tnl *h) { h->flags = 0; }
static void outer_th_in_eth(struct zvs_virtio_hdr_tnl *h) { h->outer_th_offset = 10; }
static void inner_nh_in_udp(struct zvs_virtio_hdr_tnl *h) { h->inner_nh_offset = 40; }
static void csum_before_inner_nh(struct zvs_virtio_hdr_tnl *h) { h->csum_start = 64; }
static void csum_beyond_frame(struct zvs_virtio_hdr_tnl *h) { h->csum_start = 5700; }
static void ipv6_tunnel(struct zvs_virtio_hdr_tnl *h) { h->gso_type = 0x40 | 1; }

/* What the kernel refuses with EINVAL on a tap's write is refused on a read too. */
static void impossible_tunnel_headers_refused(void **state)
{
    assert_false(decodes(both_families));
    assert_false(decodes(inner_udp_l4));
    assert_false(decodes(inner_ufo));
    assert_false(decodes(inner_none));
    assert_false(decodes(no_csum));
    assert_false(decodes(outer_th_in_eth));
    assert_false(decodes(inner_nh_in_udp));
    assert_false(decodes(csum_before_inner_nh));
    assert_false(decodes(csum_beyond_frame));
    assert_true(decodes(ipv6_tunnel));  /* the codec knows IPv6 outers; vtep.c checks */

    struct zvs_vnet both = vxlan_tso;
    struct zvs_virtio_hdr_tnl h;
    both.gso_type |= ZVS_VNET_GSO_UDP_TUNNEL6;
    assert_false(zvs_virtio_hdr_tnl_encode(&both, &h));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vxlan_super_frame_bytes),
        cmocka_unit_test(plain_header_through_the_same_codec),
        cmocka_unit_test(impossible_tunnel_headers_refused),
    };
    return cmocka_run_group_tests_name("virtio_hdr_tnl", tests, NULL, NULL);
}
