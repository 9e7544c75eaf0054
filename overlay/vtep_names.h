/* Remote VTEPs by host name: a VTEP's remotes watched in a names/ table (c-ares, or its
 * in-memory twin in tests), each answer moving the remote to its new address.
 *
 * The owner (the daemon) has one names table for everything it resolves; a VTEP adds its
 * remotes to it with `user` = the VTEP, and the table's event function hands the VTEP's
 * events to zvs_vtep_name_event. The first address of the VTEP's family is used (an
 * answer with several: the first in the resolver's order); a name that loses every such
 * address (NXDOMAIN, no record of the family) leaves the remote without one, and what was
 * learned behind it floods to the others until it resolves again. While lookups fail for
 * a reason that may pass, the last good address stays (names/README.md).
 */
#ifndef ZVS_VTEP_NAMES_H
#define ZVS_VTEP_NAMES_H

#include <stdint.h>

#include "names/name_watch.h"
#include "overlay/vtep.h"

/* A remote given as `name`: an address literal is added with its address; a host name
 * (RFC 1123 syntax, kept in lower case) is added without one and watched in t. Returns
 * the remote's index, -EINVAL (bad syntax, an address of the other family), -EEXIST,
 * -ENOSPC (the VTEP's or the table's). */
int zvs_vtep_add_remote_name(struct zvs_vtep *v, struct zvs_names *t, const char *name,
                             uint64_t now);

/* Remove a remote and stop watching its name. */
int zvs_vtep_del_remote_name(struct zvs_vtep *v, struct zvs_names *t, unsigned idx);

/* A names event for a name this VTEP watches (n->user == v): the remote takes the
 * name's address now. */
void zvs_vtep_name_event(struct zvs_vtep *v, const struct zvs_name *n);

#endif
