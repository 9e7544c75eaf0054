/* The system's identity: its name and level, as z/VM automation asks for them.
 *
 * Owns: zvsd_system_init (the system's name from SYSTEM CONFIG's SYSTEM_IDENTIFIER
 * statements and the host name, cp-commands/config.h zvs_cfg_system_name; the start and
 * the program's times) and the answers to QUERY USERID and QUERY CPLEVEL.
 *
 * QUERY USERID answers "userid AT sysname", the userid padded to 8 as CP's fixed columns
 * are (xCAT's zvmCPUtils.pm getUserId and getHost read words 0 and 2 of it). QUERY
 * CPLEVEL answers the z/VM level zvswitch follows (7.4, cp-commands/README.md), with CP's
 * three lines (level, "Generated at", "IPL at": xCAT's getIplTime reads the third) and a
 * fourth line of ours with zvswitch's version; service level 0000 and the times' meaning
 * (Generated: the program file's time; IPL: vswitchd's start) are ours.
 */
#include "daemon/daemon_impl.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cp-commands/version.h"

#define ZVS_LEVEL_VERSION 7             /* the z/VM level emulated: 7.4 */
#define ZVS_LEVEL_RELEASE 4

void zvsd_system_init(struct zvsd *d, const struct zvs_cfg *cfg)
{
    char host[256] = "";
    struct stat st;

    if (gethostname(host, sizeof host - 1) < 0)
        host[0] = '\0';
    char *dot = strchr(host, '.');      /* the node name, not the domain */
    if (dot != NULL)
        *dot = '\0';
    zvs_cfg_system_name(cfg, host, d->sysname);
    d->ipl_wall_s = (int64_t)time(NULL);
    d->built_wall_s = stat("/proc/self/exe", &st) == 0 ? (int64_t)st.st_mtime : 0;
}

/* "MM/DD/YY HH:MM:SS ZZZ" in local time, as CP prints its times. */
static void cp_time(int64_t wall_s, char *buf, size_t size)
{
    time_t t = (time_t)wall_s;
    struct tm tm;
    char zone[16];
    if (wall_s == 0 || localtime_r(&t, &tm) == NULL ||
        strftime(zone, sizeof zone, "%Z", &tm) == 0) {
        snprintf(buf, size, "(unknown)");
        return;
    }
    snprintf(buf, size, "%02d/%02d/%02d %02d:%02d:%02d %s", tm.tm_mon + 1, tm.tm_mday,
             tm.tm_year % 100, tm.tm_hour, tm.tm_min, tm.tm_sec, zone);
}

bool zvsd_system_query(struct zvsd *d, const struct zvs_cmd *c, const char *userid,
                       struct zvs_cp_response *r)
{
    char when[48];
    switch (c->verb) {
    case ZVS_CMD_QUERY_USERID:
        zvs_cp_printf(r, "%-8s AT %s", userid, d->sysname);
        return true;
    case ZVS_CMD_QUERY_CPLEVEL:
        zvs_cp_printf(r, "z/VM Version %d Release %d.0, service level 0000 (64-bit)",
                      ZVS_LEVEL_VERSION, ZVS_LEVEL_RELEASE);
        cp_time(d->built_wall_s, when, sizeof when);
        zvs_cp_printf(r, "Generated at %s", when);
        cp_time(d->ipl_wall_s, when, sizeof when);
        zvs_cp_printf(r, "IPL at %s", when);
        zvs_cp_printf(r, "zvswitch %s", zvs_version());
        return true;
    default:
        return false;
    }
}
