/* Scaffolding for unit tests on real Linux interfaces: the test process in a network
 * namespace of its own, veth pairs made with ip(8), and a raw AF_PACKET socket on the far
 * end of a pair (the "peer") that sends and receives exact frames. Everything made lives
 * and dies with the namespace of the process. Every wait is bounded. A failure ends the
 * running cmocka test (fail_msg / assert_*), so these are for cmocka tests only. */
#ifndef ZVS_TEST_NETNS_H
#define ZVS_TEST_NETNS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/virtio_net.h>

#include "dataplane/frame.h"
#include "dataplane/port.h"

#define TNET_RX_WAIT_MS 2000            /* a frame that should arrive */
#define TNET_QUIET_MS   100             /* a frame that should not */

/* Move the process into a new network namespace; false when that is not permitted (the
 * caller skips its namespace tests then). */
bool tnet_enter(void);

/* Run a shell command with its output silenced; a non-zero status fails the test. */
void tnet_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* CLOCK_MONOTONIC in milliseconds, for deadlines. */
int64_t tnet_now_ms(void);

/* Descriptors this process has open now: what a port or driver opened, and that its
 * close gave all of them back. */
int tnet_open_fds(void);

/* The ifindex of `name` in this namespace (sysfs would show the namespace it was
 * mounted in), or -1. */
int tnet_ifindex(const char *name);

/* Keep router solicitations and MLD reports off the interface (no-op without IPv6). */
void tnet_disable_ipv6(const char *ifname);

/* Wait up to 3 s for IFF_RUNNING to become `running` (operational state follows admin
 * state through linkwatch, up to a second later); fails the test otherwise. */
void tnet_wait_running(const char *name, bool running);

/* Make the veth pair a <-> b with the given MAC addresses ("02:00:..."), IPv6 off on
 * both ends, both up and running. */
void tnet_veth_add(const char *a, const char *mac_a, const char *b, const char *mac_b);

/* Take `name` down and up again and wait until it runs. */
void tnet_link_bounce(const char *name);

/* The peer: a blocking raw socket bound to `ifname` (ETH_P_ALL) that reports VLAN tags
 * in packet metadata (PACKET_AUXDATA) and does not see its own transmissions; with
 * `vnet`, every frame carries a struct virtio_net_hdr in front (PACKET_VNET_HDR). */
int tnet_peer_open(const char *ifname, bool vnet);

/* Send one frame from the peer, with virtio-net header `vh` when the peer has them
 * (NULL otherwise); the whole frame must go. */
void tnet_peer_send(int fd, const uint8_t *frame, uint32_t len, const struct virtio_net_hdr *vh);

/* Receive one frame on the peer as it was on the wire: a tag the kernel moved into
 * packet metadata is put back (and vh->csum_start moved past it). vh: NULL, or the
 * header's destination for a peer with headers. Returns the frame length, or -1 when
 * none came within TNET_RX_WAIT_MS. buf needs 4 bytes beyond the largest frame. */
int tnet_peer_recv(int fd, uint8_t *buf, uint32_t cap, struct virtio_net_hdr *vh);

/* True when nothing arrives on the peer for TNET_QUIET_MS. */
bool tnet_peer_quiet(int fd);

/* Fill buf with a frame of len (>= 14) bytes from src to dst with ethertype 0x88B5 (IEEE
 * local experimental: no stack in the namespace takes it) and a payload that depends on
 * seed and position. Returns len. */
uint32_t tnet_frame(uint8_t *buf, uint32_t len, uint8_t seed, const uint8_t dst[6],
                    const uint8_t src[6]);

/* RFC 1071 arithmetic, kept apart from dataplane/vnet.c so tests check its sums rather
 * than share them: add n bytes (big-endian words, an odd last byte padded) to sum... */
uint32_t tnet_csum_add(uint32_t sum, const uint8_t *p, uint32_t n);
/* ...and fold the carries into 16 bits (not complemented). */
uint16_t tnet_csum_fold(uint32_t sum);

/* The receive side every uplink backend must have, on port p (descriptor fd_of(p)) fed by
 * the peer socket `peer` with tnet_frame frames from src to dst. The caller checks its
 * backend's counters between the steps.
 * - tnet_rx_rounds: 300 frames of 60..1256 bytes in rounds of 10 through a pool of
 *   pool_bufs buffers (more frames than buffers: works only if rx_release gives them
 *   back); exact bytes, in_port = p->index, no fragments, no offload metadata, cookie <
 *   pool_bufs.
 * - tnet_rx_hold_all: pool_bufs + 4 frames of 64 bytes sent, the first pool_bufs taken
 *   into held[] and kept; the next rx then gives nothing.
 * - tnet_rx_give_back: the held frames are intact (nothing overwritten while held), go back,
 *   and the 4 that waited arrive. */
void tnet_rx_rounds(struct zvs_port *p, int (*fd_of)(const struct zvs_port *p), int peer,
                    uint32_t pool_bufs, const uint8_t dst[6], const uint8_t src[6]);
void tnet_rx_hold_all(struct zvs_port *p, int (*fd_of)(const struct zvs_port *p), int peer,
                      struct zvs_frame *held, uint32_t pool_bufs, const uint8_t dst[6],
                      const uint8_t src[6]);
void tnet_rx_give_back(struct zvs_port *p, int (*fd_of)(const struct zvs_port *p),
                       struct zvs_frame *held, uint32_t pool_bufs, const uint8_t dst[6],
                       const uint8_t src[6]);

/* A burst of n transmissions of the same frame, untouched (tag op KEEP). */
void tnet_burst_of(struct zvs_tx *txs, int n, const struct zvs_frame *f);

/* Call the port's rx until it returns frames or TNET_RX_WAIT_MS pass, polling the
 * port's descriptor (fd_of(p)) in between. Returns what the last rx returned. */
int tnet_port_rx(struct zvs_port *p, int (*fd_of)(const struct zvs_port *p),
                 struct zvs_frame *out, int max);

#endif
