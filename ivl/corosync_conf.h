/* corosync_conf: the corosync.conf each system's corosync runs with, written from what
 * SYSTEM CONFIG says of the IVL domain, and an existing one checked against it.
 *
 * The IVL domain runs on Corosync (cluster.h); the operator runs one corosync per system
 * and must not have to keep two descriptions of the domain in line by hand. So the file
 * is generated (vswitchd writes it; addresses only: peers named by host name are resolved
 * first) or, when the operator keeps their own, checked at start-up: every difference
 * that matters to the domain is named (the token timeout against HEARTBEAT TIMEOUT, the
 * nodes and their addresses, votequorum and auto_tie_breaker, sched_rr).
 *
 * What the generated file holds (corosync.conf(5), votequorum(5), corosync 3 with knet):
 *   totem     version 2, cluster_name, transport knet, token = HEARTBEAT TIMEOUT (with
 *             token_coefficient 0, so on any number of systems), the
 *             authkey (keyfile) with crypto_cipher aes256 / crypto_hash sha256: state
 *             messages are authenticated by corosync itself
 *   nodelist  one node per system: name (SYSTEM_IDENTIFIER), nodeid, ring0_addr (its
 *             address on the IVL network, so cutting the IVL cuts membership)
 *   quorum    corosync_votequorum; with two systems auto_tie_breaker (lowest node id)
 *   system    sched_rr: no (real-time priority would disturb timed work on few cores),
 *             state_dir of this system
 */
#ifndef ZVS_IVL_COROSYNC_CONF_H
#define ZVS_IVL_COROSYNC_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "ivl/state_msg.h"

#define ZVS_CS_ADDR_LEN  46             /* INET6_ADDRSTRLEN */
#define ZVS_CS_PATH_LEN  256

struct zvs_cs_node {
    uint32_t nodeid;                    /* 1..: the system's index in the domain */
    char     name[ZVS_IVL_NAME_LEN + 1];
    char     addr[ZVS_CS_ADDR_LEN];     /* an address, never a host name */
};

struct zvs_cs_conf {
    char               cluster_name[ZVS_IVL_NAME_LEN + 1];  /* the Global VSWITCH's name */
    uint32_t           token_ms;
    struct zvs_cs_node node[ZVS_IVL_MAX_SYSTEMS];
    unsigned           nnodes;
    char               keyfile[ZVS_CS_PATH_LEN];
    char               state_dir[ZVS_CS_PATH_LEN];
};

/* Write the file's text into buf: its length, -ENOSPC when buf is short, -EINVAL for a
 * configuration corosync would refuse (no node, a node id 0 or repeated, an empty
 * address, a token of 0). */
int zvs_cs_conf_write(const struct zvs_cs_conf *c, char *buf, size_t size);

/* Check an existing corosync.conf's text against `want`: the number of differences that
 * matter to the domain, each described on one line of `why` (as much as fits). */
unsigned zvs_cs_conf_check(const char *text, size_t len, const struct zvs_cs_conf *want,
                           char *why, size_t why_size);

#endif
