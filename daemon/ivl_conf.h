/* ivl_conf: the corosync configuration of this system's IVL domain, written from SYSTEM
 * CONFIG (vswitchd --write-corosync): the operator never keeps two descriptions of the
 * domain in line by hand. The domain's statements (cp-commands/README.md: DEFINE VSWITCH
 * ... TYPE QDIO GLOBAL, TYPE IVL, IVL MEMBER, IVL HEARTBEAT TIMEOUT) become
 * ivl/corosync_conf.h's struct; a member named by host name is resolved first (names/),
 * so the file holds addresses only.
 */
#ifndef ZVS_DAEMON_IVL_CONF_H
#define ZVS_DAEMON_IVL_CONF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cp-commands/config.h"
#include "ivl/corosync_conf.h"

#define ZVSD_CS_KEYFILE   "/etc/zvswitch/corosync/authkey"
#define ZVSD_CS_STATE_DIR "/var/lib/zvswitch/corosync"

/* One name to one address (text into addr, ZVS_CS_ADDR_LEN bytes): 0, or -errno with
 * what went wrong in why. */
typedef int (*zvsd_resolve_fn)(void *arg, const char *name, char *addr, char *why,
                               size_t why_size);

/* The domain of `cfg` as corosync must run it on system `sysname`: cluster name the
 * Global VSWITCH's (else the IVL switch's), token = IVL HEARTBEAT TIMEOUT (3 s when not
 * given), one node per IVL MEMBER (node id = INDEX) with its address resolved by
 * `resolve`, `keyfile` and `state_dir` (NULL: the defaults above). 0, or -EINVAL with
 * the reason in why (no IVL switch or members, this system not among them, a name that
 * does not resolve). */
int zvsd_ivl_cs_conf(const struct zvs_cfg *cfg, const char *sysname, const char *keyfile,
                     const char *state_dir, zvsd_resolve_fn resolve, void *arg,
                     struct zvs_cs_conf *out, char *why, size_t why_size);

/* The resolver vswitchd uses for it: c-ares with the RESOLVER statement's servers, order
 * and timeout (the host's configuration without one: /etc/hosts, then DNS), waited for
 * with poll() up to `timeout_ms`; an address literal is taken as it is. `arg` is the
 * struct zvs_cfg_resolver. */
int zvsd_resolve_ares(void *arg, const char *name, char *addr, char *why, size_t why_size);

/* vswitchd --write-corosync PATH: this system's name (SYSTEM_IDENTIFIER and the host
 * name), the domain resolved through zvsd_resolve_ares with RESOLVER's settings, the file
 * written whole (a temporary file renamed over PATH). 0, or -errno after saying why on
 * `err`. */
int zvsd_ivl_write_corosync(const struct zvs_cfg *cfg, const char *path, const char *keyfile,
                            const char *state_dir, FILE *err);

/* vswitchd --check-corosync PATH: the operator's own corosync.conf against what SYSTEM
 * CONFIG says of the domain (ivl/corosync_conf.h's check: token against HEARTBEAT TIMEOUT,
 * the nodes and their addresses, votequorum, crypto, sched_rr), one line per difference
 * on `out`. 0 when they agree, the number of differences, or -errno after saying why. */
int zvsd_ivl_check_corosync(const struct zvs_cfg *cfg, const char *path, FILE *out);

#endif
