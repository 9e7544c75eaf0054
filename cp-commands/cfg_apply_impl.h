/* The running configuration's private parts, shared by the files of zvs_cfg_apply:
 * cfg_apply.c (the dispatch, the lookups and these helpers), cfg_apply_vswitch.c,
 * cfg_apply_group.c and cfg_apply_nic.c (one handler family each). Nothing outside
 * cp-commands/ includes this. */
#ifndef ZVS_CFG_APPLY_IMPL_H
#define ZVS_CFG_APPLY_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp-commands/cfg_apply.h"
#include "cp-commands/command.h"
#include "cp-commands/config.h"

/* zvs_cp_error, then the errno: handlers end with `return REFUSE(r, -E.., id, args)`. */
#define REFUSE(r, err, ...) (zvs_cp_error((r), __VA_ARGS__), (err))

/* ---- small helpers (cfg_apply.c) ----------------------------------------------------- */

/* src upper-cased into dst (size bytes, NUL-terminated, cut to fit). */
void zvs_apply_copy_upper(char *dst, size_t size, const char *src);
/* A vdev as 4 hex digits, a number in decimal, a real device as zvs_rdev_format writes it. */
void zvs_apply_vdev_fmt(uint16_t vdev, char buf[8]);
void zvs_apply_num_fmt(unsigned v, char buf[12]);
void zvs_apply_dev_fmt(struct zvs_rdev d, char buf[12]);
/* The last virtual device number of a NIC's range. */
unsigned zvs_apply_nic_last(const struct zvs_cfg_nic *n);
/* The directory authorizes the NIC to couple (NICDEF with PORTTYPE or VLAN). */
bool zvs_apply_nic_dir_authorized(const struct zvs_cfg_nic *n);
/* Leaves the NIC uncoupled: LAN "" and switch index -1. */
void zvs_apply_nic_uncouple(struct zvs_cfg_nic *n);
/* ZVSCMD1133E "No room for another <what>; the limit is <limit>"; returns -ENOSPC. */
int zvs_apply_no_room(struct zvs_cp_response *r, const char *what, unsigned limit);

/* ---- device and group lookups shared by DEFINE VSWITCH, SET VSWITCH and JOIN --------- */

/* The switch other than `self` (-1: none) that has `d` as an RDEV, or -1. */
int zvs_apply_rdev_owner(const struct zvs_cfg *cfg, struct zvs_rdev d, int self);
/* The group that has `d` as a member, or -1. */
int zvs_apply_group_of(const struct zvs_cfg *cfg, struct zvs_rdev d);
/* The switch other than `self` whose GROUP is `name`, or -1. */
int zvs_apply_group_user(const struct zvs_cfg *cfg, const char *name, int self);

/* ---- the handlers zvs_cfg_apply dispatches to: 0, or a negative errno after one error
 *      line; cfg unchanged on error ---------------------------------------------------- */

/* cfg_apply_vswitch.c */
int zvs_apply_define_vswitch(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                             struct zvs_cp_response *r);
int zvs_apply_set_vswitch(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                          struct zvs_cp_response *r);
/* SET VSWITCH name VXLAN ... on switch k (cfg_apply_vxlan.c). */
int zvs_apply_set_vxlan(struct zvs_cfg *cfg, unsigned k, const struct zvs_cmd *cmd,
                        struct zvs_cp_response *r);
int zvs_apply_detach_vswitch(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                             struct zvs_cp_response *r);
/* cfg_apply_group.c */
int zvs_apply_set_port_group(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                             struct zvs_cp_response *r);
/* cfg_apply_resolver.c: RESOLVER WATCH | UNWATCH (ours) */
int zvs_apply_resolver(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                       struct zvs_cp_response *r);
/* cfg_apply_nic.c: DEFINE NIC, DETACH NIC, COUPLE, UNCOUPLE */
int zvs_apply_nic_command(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                          const struct zvs_issuer *who, struct zvs_cp_response *r);

#endif
