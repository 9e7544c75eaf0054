/* Console identities from the configuration: the USER DIRECT's LINUXUSER statements
 * resolved to uids for the console's uid map, and the console group named on vswitchd's
 * command line (--console-group).
 *
 * Names are resolved once, when vswitchd starts (getpwnam_r / getgrnam_r, so NSS sources
 * such as LDAP work too); a name the system does not know is an error and vswitchd does
 * not start. A number is a uid (gid) as is: it needs no passwd (group) entry. A user
 * renamed or deleted while vswitchd runs keeps the uid it had at start, as a running
 * process's credentials do.
 *
 * Root: the console maps uid 0 to OPERATOR, classes A-G, by default; SYSTEM CONFIG's
 * SYSTEM_USERIDS OPERATOR userid names another userid for it. A LINUXUSER that
 * resolves to uid 0 (root, 0, or any alias of uid 0) replaces that default with its own
 * entry's userid and classes, so a site that wants root to be class B only can say so.
 */
#ifndef ZVS_CONSOLE_USERS_H
#define ZVS_CONSOLE_USERS_H

#include <stddef.h>
#include <sys/types.h>

#include "cp-commands/config.h"
#include "daemon/console.h"

/* A Linux user name (getpwnam_r) or a uid in decimal, 0-4294967294 (no lookup). 0,
 * -ENOENT no such user, -EINVAL empty or a number out of range, -ENOMEM, or the lookup's
 * -errno. */
int zvs_linuxuser_resolve(const char *s, uid_t *uid);

/* A group name (getgrnam_r) or a gid in decimal, 0-4294967294. Same returns. */
int zvs_console_group_resolve(const char *s, gid_t *gid);

/* Resolves every LINUXUSER of cfg and checks that no uid is mapped by two names (root
 * in one entry and 0 in another, or two names of one uid) and that the console's map can
 * hold them all. Returns how many Linux users cfg maps, or -errno with the first problem
 * written to err as "file:line: ZVSCFGnnnnE text": -ENOENT an unknown user (ZVSCFG1067E),
 * -EEXIST one uid twice (ZVSCFG1068E), -ENOSPC more than the map holds (ZVSCFG1015E), another
 * lookup failure (ZVSCFG1069E), -ENOMEM. For vswitchd to refuse a bad directory before it
 * detaches. */
int zvs_console_check_directory(const struct zvs_cfg *cfg, char *err, size_t errlen);

/* zvs_console_check_directory, then maps each Linux user's uid to its entry's userid and
 * privilege classes (uid 0 included: it replaces the default OPERATOR mapping). Returns
 * the number mapped, or -errno as above; a failed check maps nothing. (The check counts
 * the map's room as root's default entry plus the directory's; a caller that mapped
 * other uids before may still get -ENOSPC part way.) */
int zvs_console_map_directory(struct zvs_console *c, const struct zvs_cfg *cfg, char *err,
                              size_t errlen);

#endif
