/* Console identities from the configuration (API and rules in console_users.h).
 *
 * Owns the step from names to numbers: the USER DIRECT keeps Linux users as written
 * (userdirect.c checks their syntax and that one spelling is mapped once); here each is
 * resolved to a uid and checked again by number, since "root" and "0", or two names of
 * one uid, are only equal after resolution. Everything is resolved and checked before the
 * first mapping, so a bad directory leaves the console's map as it was.
 *
 * Hazards: getpwnam_r and getgrnam_r may block on a network NSS source (LDAP, NIS); they
 * run once, at start, before the event loop. Their buffer grows on ERANGE up to
 * LOOKUP_BUF_MAX (a group with thousands of members needs a large one). Not finding a
 * user is reported as 0 with a NULL result or, by some NSS modules, as ENOENT, ESRCH,
 * EBADF or EPERM (getpwnam_r(3)); all of those mean "no such user" here.
 */
#include "daemon/console_users.h"

#include <assert.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp-commands/messages.h"

#define LOOKUP_BUF_MIN  16384u
#define LOOKUP_BUF_MAX  (4u << 20)

/* One resolved LINUXUSER: cfg->user[user].linuxuser[k] is uid. */
struct resolved {
    uid_t    uid;
    uint16_t user;
    uint8_t  k;
};

/* All digits: 1 and *out (0-4294967294; 4294967295 is (uid_t)-1, "no id" to the kernel),
 * or -EINVAL when the number is out of range. Anything else: 0 (a name). */
static int parse_id(const char *s, uint32_t *out)
{
    uint64_t v = 0;

    if (s[0] == '\0')
        return 0;
    for (const char *p = s; *p != '\0'; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v >= UINT32_MAX)
            return -EINVAL;
    }
    *out = (uint32_t)v;
    return 1;
}

static bool not_found(int rc)
{
    return rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF || rc == EPERM;
}

/* A user (group false) or group name, or its number, to its id: the two lookups differ
 * only in the libc call, so one loop grows the buffer for both. */
static int resolve_id(const char *s, bool group, uint32_t *out)
{
    struct passwd pw, *pwres = NULL;
    struct group gr, *grres = NULL;
    char *buf = NULL;
    uint32_t id;
    long hint = sysconf(group ? _SC_GETGR_R_SIZE_MAX : _SC_GETPW_R_SIZE_MAX);
    size_t len = hint > (long)LOOKUP_BUF_MIN ? (size_t)hint : LOOKUP_BUF_MIN;
    int rc = parse_id(s, &id);

    if (rc != 0) {
        if (rc > 0)
            *out = id;
        return rc > 0 ? 0 : rc;
    }
    if (s[0] == '\0')
        return -EINVAL;
    for (;;) {
        char *nb = realloc(buf, len);
        if (nb == NULL) {
            rc = -ENOMEM;
            goto out;
        }
        buf = nb;
        rc = group ? getgrnam_r(s, &gr, buf, len, &grres) : getpwnam_r(s, &pw, buf, len, &pwres);
        if (rc != ERANGE || len >= LOOKUP_BUF_MAX)
            break;
        len *= 2;
    }
    if (pwres != NULL || grres != NULL) {
        *out = group ? (uint32_t)grres->gr_gid : (uint32_t)pwres->pw_uid;
        rc = 0;
    } else {
        rc = not_found(rc) ? -ENOENT : -rc;
    }
out:
    free(buf);
    return rc;
}

int zvs_linuxuser_resolve(const char *s, uid_t *uid)
{
    uint32_t id;
    int rc = resolve_id(s, false, &id);
    if (rc == 0)
        *uid = (uid_t)id;
    return rc;
}

int zvs_console_group_resolve(const char *s, gid_t *gid)
{
    uint32_t id;
    int rc = resolve_id(s, true, &id);
    if (rc == 0)
        *gid = (gid_t)id;
    return rc;
}

/* Writes "file:line: ZVSCFGnnnnE text" (or "file: ..." for line 0) into err. */
static void report(char *err, size_t errlen, const struct zvs_cfg *cfg, uint32_t line,
                   enum zvs_msg_id id, const char *const *args, unsigned nargs)
{
    int n;

    if (err == NULL || errlen == 0)
        return;
    if (line != 0)
        n = snprintf(err, errlen, "%s:%u: ", cfg->userdirect_file, (unsigned)line);
    else
        n = snprintf(err, errlen, "%s: ", cfg->userdirect_file);
    if (n < 0 || (size_t)n >= errlen)
        return;
    zvs_msg_format(err + n, errlen - (size_t)n, id, args, nargs);
}

/* Resolves every LINUXUSER of cfg into *out (allocated; *n entries) and runs the checks
 * of zvs_console_check_directory. Returns *n or -errno (then *out is NULL). */
static int resolve_all(const struct zvs_cfg *cfg, struct resolved **out, unsigned *n,
                       char *err, size_t errlen)
{
    struct resolved *r = NULL;
    unsigned total = 0, used = 0;
    bool root = false;
    int rc = 0;

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    for (unsigned i = 0; i < cfg->nuser; i++)
        total += cfg->user[i].nlinuxuser;
    if (total > 0 && (r = calloc(total, sizeof *r)) == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    for (unsigned i = 0; i < cfg->nuser; i++) {
        const struct zvs_cfg_user *u = &cfg->user[i];
        for (unsigned k = 0; k < u->nlinuxuser; k++) {
            const char *name = u->linuxuser[k];
            uid_t uid = 0;
            rc = zvs_linuxuser_resolve(name, &uid);
            if (rc == -ENOENT || rc == -EINVAL) {
                const char *args[] = { name, u->userid };
                report(err, errlen, cfg, u->linuxuser_line[k], ZVS_MSG_LINUXUSER_UNKNOWN,
                       args, 2);
                rc = -ENOENT;
                goto out;
            }
            if (rc < 0) {
                const char *args[] = { name, u->userid, strerror(-rc) };
                report(err, errlen, cfg, u->linuxuser_line[k], ZVS_MSG_LINUXUSER_LOOKUP,
                       args, 3);
                goto out;
            }
            for (unsigned j = 0; j < used; j++) {
                if (r[j].uid != uid)
                    continue;
                const struct zvs_cfg_user *o = &cfg->user[r[j].user];
                char num[12];
                snprintf(num, sizeof num, "%lu", (unsigned long)uid);
                const char *args[] = { name, u->userid, num, o->userid, o->linuxuser[r[j].k] };
                report(err, errlen, cfg, u->linuxuser_line[k], ZVS_MSG_LINUXUSER_SAME_UID,
                       args, 5);
                rc = -EEXIST;
                goto out;
            }
            root = root || uid == 0;
            r[used++] = (struct resolved){ .uid = uid, .user = (uint16_t)i, .k = (uint8_t)k };
        }
    }
    /* The map holds these plus root's default entry when no LINUXUSER replaces it. */
    if (used + (root ? 0u : 1u) > ZVS_CONSOLE_MAX_USERS) {
        char lim[12];
        snprintf(lim, sizeof lim, "%u", ZVS_CONSOLE_MAX_USERS - (root ? 0u : 1u));
        const char *args[] = { "LINUXUSER", lim };
        report(err, errlen, cfg, 0, ZVS_MSG_TOO_MANY, args, 2);
        rc = -ENOSPC;
        goto out;
    }
    rc = (int)used;
out:
    if (rc < 0) {
        free(r);
        r = NULL;
        used = 0;
    }
    *out = r;
    *n = used;
    return rc;
}

int zvs_console_check_directory(const struct zvs_cfg *cfg, char *err, size_t errlen)
{
    struct resolved *r;
    unsigned n;
    int rc = resolve_all(cfg, &r, &n, err, errlen);

    free(r);
    return rc;
}

int zvs_console_map_directory(struct zvs_console *c, const struct zvs_cfg *cfg, char *err,
                              size_t errlen)
{
    struct resolved *r;
    unsigned n;
    int rc = resolve_all(cfg, &r, &n, err, errlen);

    /* Root's default entry acts as SYSTEM_USERIDS OPERATOR's userid (a valid name: the
     * parser made it); a LINUXUSER naming uid 0 below still replaces it. */
    if (rc >= 0) {
        uint32_t all = 0;
        for (char k = 'A'; k <= 'G'; k++)
            all |= ZVS_PRIVCLASS(k);
        (void)zvs_console_map_user(c, 0, zvs_cfg_operator(cfg), all);  /* replaces in place */
    }
    for (unsigned i = 0; rc >= 0 && i < n; i++) {
        const struct zvs_cfg_user *u = &cfg->user[r[i].user];
        assert(u->privclass != 0);      /* 0 would remove the mapping */
        int e = zvs_console_map_user(c, r[i].uid, u->userid, u->privclass);
        if (e < 0) {
            /* Only when the caller mapped other uids first: the check counted root's
             * default entry and ours (the userids are valid names: the parser made them). */
            assert(e == -ENOSPC);
            char lim[12];
            snprintf(lim, sizeof lim, "%u", ZVS_CONSOLE_MAX_USERS);
            const char *args[] = { "LINUXUSER", lim };
            report(err, errlen, cfg, 0, ZVS_MSG_TOO_MANY, args, 2);
            rc = e;
        }
    }
    free(r);
    return rc;
}
