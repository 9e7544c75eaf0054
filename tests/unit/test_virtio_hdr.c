/* virtio-net header codec: exact wire bytes in both byte orders, round trips, and the
 * headers that must be refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "backends/virtio_hdr.h"

static const struct zvs_vnet tso = {
    .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV4, .hdr_len = 66,
    .gso_size = 1448, .csum_start = 34, .csum_offset = 16,
};

static void little_endian_wire_bytes(void **state)
{
    struct virtio_net_hdr vh;
    assert_true(zvs_virtio_hdr_encode(&tso, true, &vh));
    const uint8_t want[10] = { VIRTIO_NET_HDR_F_NEEDS_CSUM, VIRTIO_NET_HDR_GSO_TCPV4,
                               66, 0, 0xA8, 0x05, 34, 0, 16, 0 };
    assert_memory_equal(&vh, want, 10);
    struct zvs_vnet back;
    assert_true(zvs_virtio_hdr_decode(&vh, true, 66 + 3 * 1448, &back));
    assert_memory_equal(&back, &tso, sizeof(tso));
}

static void host_order_round_trip(void **state)
{
    struct virtio_net_hdr vh;
    struct zvs_vnet back, v = tso;
    v.gso_type = ZVS_VNET_GSO_TCPV6 | ZVS_VNET_GSO_ECN;
    assert_true(zvs_virtio_hdr_encode(&v, false, &vh));
    assert_int_equal(vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV6 | VIRTIO_NET_HDR_GSO_ECN);
    assert_int_equal(vh.gso_size, 1448);
    assert_true(zvs_virtio_hdr_decode(&vh, false, 5000, &back));
    assert_memory_equal(&back, &v, sizeof(v));
}

static void fields_without_their_flag_are_zero(void **state)
{
    struct virtio_net_hdr vh = { .flags = VIRTIO_NET_HDR_F_DATA_VALID,
                                 .gso_type = VIRTIO_NET_HDR_GSO_NONE,
                                 .hdr_len = 7, .gso_size = 9, .csum_start = 3, .csum_offset = 4 };
    struct zvs_vnet v;
    assert_true(zvs_virtio_hdr_decode(&vh, false, 100, &v));
    assert_int_equal(v.flags, ZVS_VNET_F_DATA_VALID);
    assert_int_equal(v.hdr_len + v.gso_size + v.csum_start + v.csum_offset, 0);
    struct virtio_net_hdr out;
    assert_true(zvs_virtio_hdr_encode(&v, false, &out));
    assert_int_equal(out.flags, VIRTIO_NET_HDR_F_DATA_VALID);
}

static void impossible_headers_refused(void **state)
{
    struct virtio_net_hdr vh;
    struct zvs_vnet v;
    memset(&vh, 0, sizeof(vh));
    vh.flags = 0x80;                                     /* unknown flag */
    assert_false(zvs_virtio_hdr_decode(&vh, false, 100, &v));
    memset(&vh, 0, sizeof(vh));
    vh.gso_type = 0x42;                                  /* unknown GSO type */
    assert_false(zvs_virtio_hdr_decode(&vh, false, 100, &v));
    vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;              /* GSO without a segment size */
    assert_false(zvs_virtio_hdr_decode(&vh, false, 100, &v));
    memset(&vh, 0, sizeof(vh));
    vh.gso_type = VIRTIO_NET_HDR_GSO_ECN;                /* ECN on a plain frame */
    assert_false(zvs_virtio_hdr_decode(&vh, false, 100, &v));
    memset(&vh, 0, sizeof(vh));
    vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;              /* checksum field past the end */
    vh.csum_start = 90;
    vh.csum_offset = 9;
    assert_false(zvs_virtio_hdr_decode(&vh, false, 100, &v));
    vh.csum_offset = 8;                                  /* ends exactly at byte 100 */
    assert_true(zvs_virtio_hdr_decode(&vh, false, 100, &v));
    struct zvs_vnet bad = { .gso_type = 0x09 };
    assert_false(zvs_virtio_hdr_encode(&bad, false, &vh));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(little_endian_wire_bytes),
        cmocka_unit_test(host_order_round_trip),
        cmocka_unit_test(fields_without_their_flag_are_zero),
        cmocka_unit_test(impossible_headers_refused),
    };
    return cmocka_run_group_tests_name("virtio_hdr", tests, NULL, NULL);
}
