/* bench_vxlan_encap: 64-byte frames from a guest through the switch and the VXLAN uplink's
 * encapsulation onto the underlay, for callgrind (issue 25: instructions per encapsulated
 * 64-byte frame, printed beside the VXLAN throughput).
 *
 * Design note.
 * - The set-up is vswitchd's for a VXLAN VSWITCH, in memory: a switch with one guest (a
 *   memlink port) and a VXLAN uplink (overlay/uplink_vxlan.c) whose underlay is a memlink
 *   port (the OSA port on the wire to the remote VTEP). One remote VTEP, its MAC
 *   on the underlay static (no ARP on the wire), the destination guest's MAC static
 *   behind it: every frame is a known unicast, one copy, the common case of a stream.
 * - A round of ROUND frames (TCP in IPv4, 64 bytes, flows cycling so the outer UDP source
 *   port hash sees different flows) is injected into the guest port (not measured);
 *   measured: zvs_switch_poll of the guest, which forwards the round to the uplink's tx:
 *   the VTEP's encapsulation (fdb lookup, neighbour, headers, the source port hash) and
 *   the scattered write on the underlay. What the underlay sent is drained (not measured).
 * - Every frame must reach the underlay with its 50 bytes of overhead, or exit 1.
 * - Prints `BENCH_FRAMES n` and `BENCH_CALLGRIND_MACROS 0|1` as bench_core does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/memlink.h"
#include "dataplane/switch.h"
#include "dataplane/vlan.h"
#include "overlay/uplink_vxlan.h"

#include "tests/bench/bench_callgrind.h"

#define ROUND      32u                  /* frames per poll: the switch's burst */
#define FRAME_LEN  64u
#define VNI        5000u

static const uint8_t MAC_GUEST[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x01 };
static const uint8_t MAC_PEER[6]  = { 0x02, 0x00, 0x0A, 0x00, 0x00, 0x64 };
static const uint8_t OSA_LOCAL[6] = { 0x02, 0xAA, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t OSA_PEER[6]  = { 0x02, 0xAA, 0x00, 0x00, 0x00, 0x02 };

struct bench {
    struct zvs_switch *sw;
    struct zvs_port   *guest, *vx, *under;
    uint8_t            frame[ROUND][FRAME_LEN];
    uint64_t           now;
};

static struct zvs_ipaddr ip4(uint8_t d)
{
    struct zvs_ipaddr a = { .family = 4 };
    const uint8_t b[4] = { 10, 99, 0, d };

    memcpy(a.a, b, 4);
    return a;
}

/* A TCP/IPv4 frame of FRAME_LEN bytes to the peer guest, flow k. */
static void make_frame(uint8_t *f, unsigned k)
{
    memset(f, 0, FRAME_LEN);
    memcpy(f, MAC_PEER, 6);
    memcpy(f + 6, MAC_GUEST, 6);
    zvs_put_be16(f + 12, ZVS_ETHERTYPE_IPV4);
    f[14] = 0x45;
    zvs_put_be16(f + 16, FRAME_LEN - 14);
    f[22] = 64;
    f[23] = 6;
    const uint8_t ips[8] = { 10, 77, 0, 1, 10, 77, 0, 2 };
    memcpy(f + 26, ips, 8);
    zvs_put_be16(f + 34, (uint16_t)(40000 + k));
    zvs_put_be16(f + 36, 5201);
    f[46] = 0x50;
}

static int bench_open(struct bench *b)
{
    struct zvs_switch_params sp = { .name = "VXSW" };
    struct zvs_vtep_config c = { .local = ip4(1) };
    struct zvs_ipaddr rip = ip4(2);
    struct zvs_guest g = { .vdev = 0xF000, .owner = "LNXA" };
    struct zvs_vtep *v;
    int err = 0, r;

    memset(b, 0, sizeof *b);
    memcpy(c.local_mac, OSA_LOCAL, 6);
    b->under = zvs_memlink_create("28BA", 0, 0);
    if (!b->under)
        return -1;
    b->sw = zvs_switch_create(&sp);
    v = zvs_vtep_create(&c);
    if (!b->sw || !v || zvs_vtep_map_vni(v, 0, VNI) < 0)
        return -1;
    r = zvs_vtep_add_remote(v, "10.99.0.2", &rip);
    if (r < 0 || zvs_uarp_set_static(zvs_vtep_uarp(v), &rip, OSA_PEER) < 0 ||
        zvs_vtep_fdb_add_static(zvs_vtep_fdb(v), MAC_PEER, VNI, (uint16_t)r) < 0)
        return -1;
    b->vx = zvs_uplink_vxlan_create("28BA", v, b->under, &err);
    if (!b->vx || zvs_switch_add_uplink(b->sw, b->vx) < 0)
        return -1;
    b->guest = zvs_memlink_create("LNXA.F000", 0, 0);
    if (!b->guest)
        return -1;
    b->guest->role = ZVS_PORT_GUEST;
    memcpy(g.mac, MAC_GUEST, 6);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    if (zvs_switch_add_guest(b->sw, b->guest, &g) < 0)
        return -1;
    for (unsigned k = 0; k < ROUND; k++)
        make_frame(b->frame[k], k);
    b->now = 1000000000ull;
    return 0;
}

/* frames through the switch in rounds; only the polls between START and STOP count. */
static int pump(struct bench *b, uint64_t frames, int measured)
{
    for (uint64_t done = 0; done < frames; done += ROUND) {
        unsigned n = frames - done < ROUND ? (unsigned)(frames - done) : ROUND;
        for (unsigned k = 0; k < n; k++)
            if (zvs_memlink_inject(b->guest, b->frame[k], FRAME_LEN, NULL) < 0)
                return -1;
        if (measured)
            CALLGRIND_START_INSTRUMENTATION;
        int got = zvs_switch_poll(b->sw, b->guest, b->now);
        if (measured)
            CALLGRIND_STOP_INSTRUMENTATION;
        if (got != (int)n || zvs_memlink_drain(b->under) != n)
            return -1;
        b->now += 1000;
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t frames = 200000;
    struct bench b;
    struct zvs_vtep_stats st;

    if (argc == 3 && strcmp(argv[1], "--frames") == 0)
        frames = strtoull(argv[2], NULL, 10);
    if (bench_open(&b) < 0) {
        fprintf(stderr, "bench_vxlan_encap: setup failed\n");
        return 1;
    }
    if (pump(&b, 1024, 0) < 0 || pump(&b, frames, 1) < 0) {
        fprintf(stderr, "bench_vxlan_encap: a round did not reach the underlay whole\n");
        return 1;
    }
    zvs_vtep_stats(zvs_uplink_vxlan_vtep(b.vx), &st);
    if (st.encapsulated != frames + 1024 ||
        b.under->ctr.out_bytes != (frames + 1024) * (FRAME_LEN + 50)) {
        fprintf(stderr, "bench_vxlan_encap: %llu encapsulated, %llu bytes on the underlay\n",
                (unsigned long long)st.encapsulated, (unsigned long long)b.under->ctr.out_bytes);
        return 1;
    }
    zvs_switch_destroy(b.sw);
    printf("BENCH_FRAMES %llu\n", (unsigned long long)frames);
    printf("BENCH_CALLGRIND_MACROS %d\n", HAVE_CALLGRIND_H);
    return 0;
}
