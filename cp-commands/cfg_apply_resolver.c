/* RESOLVER WATCH | UNWATCH name: the names the running configuration keeps resolved
 * (zvswitch extension; the daemon's name layer follows it, daemon/daemon_names.c).
 *
 * Rules: a name is watched once (its canonical form: lower case, no trailing dot);
 * UNWATCH of a name not watched is refused; at most ZVS_CFG_MAX_WATCH names. A name added
 * by command carries line 0. UNWATCH keeps the order of the others (QUERY RESOLVER lists
 * them in the order they were watched). */
#include "cp-commands/cfg_apply_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int zvs_apply_resolver(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                       struct zvs_cp_response *r)
{
    struct zvs_cfg_resolver *res = &cfg->resolver;
    int k = zvs_cfg_find_watch(res, cmd->hostname);

    if (cmd->res_op == ZVS_CMD_RES_WATCH) {
        if (k >= 0)
            return REFUSE(r, -EEXIST, ZVS_CPMSG_RES_WATCHED, cmd->hostname);
        if (res->nwatch >= ZVS_CFG_MAX_WATCH)
            return zvs_apply_no_room(r, "RESOLVER WATCH", ZVS_CFG_MAX_WATCH);
        snprintf(res->watch[res->nwatch], sizeof res->watch[0], "%s", cmd->hostname);
        res->watch_line[res->nwatch++] = 0;
    } else {
        if (k < 0)
            return REFUSE(r, -ENOENT, ZVS_CPMSG_RES_NOT_WATCHED, cmd->hostname);
        unsigned n = res->nwatch - (unsigned)k - 1;
        memmove(res->watch[k], res->watch[k + 1], n * sizeof res->watch[0]);
        memmove(&res->watch_line[k], &res->watch_line[k + 1], n * sizeof res->watch_line[0]);
        res->nwatch--;
        memset(res->watch[res->nwatch], 0, sizeof res->watch[0]);
        res->watch_line[res->nwatch] = 0;
    }
    zvs_cp_printf(r, "Command complete");
    return 0;
}
