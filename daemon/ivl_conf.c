/* ivl_conf: corosync.conf from SYSTEM CONFIG's IVL domain (see the header). */
#include "daemon/ivl_conf.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "names/resolver_ares.h"

#define DEFAULT_TOKEN_MS  3000u         /* corosync 3's totem.token when none is given */
#define RESOLVE_WAIT_MS   10000         /* c-ares' own tries end sooner (2 x 2 s each) */

static int why_set(char *why, size_t size, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t size, int rc, const char *fmt, ...)
{
    if (why && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, size, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static const struct zvs_cfg_vswitch *domain_switch(const struct zvs_cfg *cfg,
                                                   enum zvs_vswitch_scope scope)
{
    for (unsigned i = 0; i < cfg->nvswitch; i++)
        if (cfg->vswitch[i].scope == scope)
            return &cfg->vswitch[i];
    return NULL;
}

int zvsd_ivl_cs_conf(const struct zvs_cfg *cfg, const char *sysname, const char *keyfile,
                     const char *state_dir, zvsd_resolve_fn resolve, void *arg,
                     struct zvs_cs_conf *out, char *why, size_t why_size)
{
    const struct zvs_cfg_vswitch *ivl = domain_switch(cfg, ZVS_VSW_IVL);
    const struct zvs_cfg_vswitch *global = domain_switch(cfg, ZVS_VSW_GLOBAL);
    const struct zvs_cfg_ivl *d = &cfg->ivl;

    memset(out, 0, sizeof *out);
    if (!ivl)
        return why_set(why, why_size, -EINVAL, "no DEFINE VSWITCH ... TYPE IVL");
    if (d->nmember == 0)
        return why_set(why, why_size, -EINVAL, "no IVL MEMBER statement");
    bool self = false;
    for (unsigned i = 0; i < d->nmember; i++)
        self |= strcmp(d->member[i].sysname, sysname) == 0;
    if (!self)
        return why_set(why, why_size, -EINVAL,
                       "this system (%s) is not an IVL MEMBER", sysname);
    snprintf(out->cluster_name, sizeof out->cluster_name, "%s",
             global ? global->name : ivl->name);
    out->token_ms = d->heartbeat_s ? d->heartbeat_s * 1000u : DEFAULT_TOKEN_MS;
    for (unsigned i = 0; i < d->nmember && i < ZVS_IVL_MAX_SYSTEMS; i++) {
        struct zvs_cs_node *n = &out->node[out->nnodes++];
        n->nodeid = d->member[i].index;
        snprintf(n->name, sizeof n->name, "%s", d->member[i].sysname);
        char reason[128] = "";
        if (resolve(arg, d->member[i].address, n->addr, reason, sizeof reason) < 0)
            return why_set(why, why_size, -EINVAL, "IVL MEMBER %s: %s", d->member[i].sysname,
                           reason);
    }
    snprintf(out->keyfile, sizeof out->keyfile, "%s", keyfile ? keyfile : ZVSD_CS_KEYFILE);
    snprintf(out->state_dir, sizeof out->state_dir, "%s",
             state_dir ? state_dir : ZVSD_CS_STATE_DIR);
    return 0;
}

/* ---- c-ares, waited for ------------------------------------------------------------- */

struct wait {
    struct pollfd         fd[8];
    unsigned              nfd;
    bool                  done;
    struct zvs_res_answer a;
};

static int w_watch(void *arg, int fd, bool write)
{
    struct wait *w = arg;
    unsigned i = 0;
    while (i < w->nfd && w->fd[i].fd != fd)
        i++;
    if (i == w->nfd) {
        if (w->nfd == sizeof w->fd / sizeof w->fd[0])
            return -ENOSPC;
        w->nfd++;
    }
    w->fd[i] = (struct pollfd){ .fd = fd, .events = (short)(POLLIN | (write ? POLLOUT : 0)) };
    return 0;
}

static void w_unwatch(void *arg, int fd)
{
    struct wait *w = arg;
    for (unsigned i = 0; i < w->nfd; i++)
        if (w->fd[i].fd == fd) {
            w->fd[i] = w->fd[--w->nfd];
            return;
        }
}

static void w_done(void *arg, uint64_t token, const struct zvs_res_answer *a, uint64_t now)
{
    struct wait *w = arg;
    w->a = *a;
    w->done = true;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int zvsd_resolve_ares(void *arg, const char *name, char *addr, char *why, size_t why_size)
{
    const struct zvs_cfg_resolver *rc = arg;
    struct zvs_res_addr lit;
    if (zvs_res_addr_parse(name, &lit)) {
        zvs_res_addr_format(&lit, addr, ZVS_CS_ADDR_LEN);
        return 0;
    }
    char servers[ZVS_CFG_MAX_DNS * (ZVS_RES_SERVER_STR + 1)] = "";
    for (unsigned i = 0; rc && i < rc->nserver; i++) {
        size_t len = strlen(servers);
        snprintf(servers + len, sizeof servers - len, "%s%s", i ? "," : "", rc->server[i]);
    }
    struct wait w = { .nfd = 0 };
    struct zvs_res_host host = { .watch = w_watch, .unwatch = w_unwatch, .arg = &w };
    struct zvs_res_ares_params p = { .servers = servers,
                                     .timeout_ms = rc ? rc->timeout_ms : 0 };
    int err = 0;
    struct zvs_resolver *r = zvs_resolver_ares_create(&p, &host, w_done, &w, &err);
    if (!r)
        return why_set(why, why_size, err ? err : -ENOMEM, "the resolver: %s",
                       strerror(err ? -err : ENOMEM));
    uint64_t start = now_ns();
    err = zvs_resolver_query(r, name, rc ? rc->order : ZVS_RES_ORDER_V4_V6, 1, start);
    while (err == 0 && !w.done && now_ns() - start < RESOLVE_WAIT_MS * 1000000ull) {
        uint64_t now = now_ns(), due = zvs_resolver_next_wakeup(r, now);
        int ms = due == 0 ? 100 : due <= now ? 0 : (int)((due - now) / 1000000u) + 1;
        struct pollfd fd[8];
        unsigned n = w.nfd;
        memcpy(fd, w.fd, sizeof fd);
        if (poll(fd, n, ms > 100 ? 100 : ms) > 0)
            for (unsigned i = 0; i < n && !w.done; i++)
                if (fd[i].revents)
                    zvs_resolver_fd_ready(r, fd[i].fd,
                                          (fd[i].revents & (POLLIN | POLLERR | POLLHUP)) != 0,
                                          (fd[i].revents & POLLOUT) != 0, now_ns());
        if (!w.done)
            zvs_resolver_run(r, now_ns());
    }
    zvs_resolver_destroy(r);
    if (err < 0)
        return why_set(why, why_size, err, "%s cannot be looked up: %s", name, strerror(-err));
    if (!w.done)
        return why_set(why, why_size, -ETIMEDOUT, "%s did not resolve in time", name);
    if (w.a.status != ZVS_RES_OK || w.a.naddr == 0)
        return why_set(why, why_size, -ENOENT, "%s does not resolve (%s)", name,
                       zvs_res_status_name(w.a.status));
    zvs_res_addr_format(&w.a.addr[0], addr, ZVS_CS_ADDR_LEN);
    return 0;
}

/* The domain as this host's system must run it, names resolved; -EINVAL after saying
 * why on err (`what`: what could not be done with `path`). */
static int this_system_conf(const struct zvs_cfg *cfg, const char *keyfile,
                            const char *state_dir, struct zvs_cs_conf *cs, const char *what,
                            const char *path, FILE *err)
{
    char host[256] = "", sysname[ZVS_NAME_MAX + 1], why[256];
    if (gethostname(host, sizeof host - 1) < 0)
        host[0] = '\0';
    zvs_cfg_system_name(cfg, host, sysname);
    if (zvsd_ivl_cs_conf(cfg, sysname, keyfile, state_dir, zvsd_resolve_ares,
                         (void *)&cfg->resolver, cs, why, sizeof why) < 0) {
        fprintf(err, "vswitchd: cannot %s %s: %s\n", what, path, why);
        return -EINVAL;
    }
    return 0;
}

int zvsd_ivl_check_corosync(const struct zvs_cfg *cfg, const char *path, FILE *out)
{
    struct zvs_cs_conf cs;
    if (this_system_conf(cfg, NULL, NULL, &cs, "check", path, out) < 0)
        return -EINVAL;
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        fprintf(out, "vswitchd: cannot check %s: %s\n", path, strerror(e));
        return -e;
    }
    enum { TEXT_MAX = 65536 };          /* a corosync.conf is a few hundred bytes */
    char *text = malloc(TEXT_MAX);
    size_t len = text ? fread(text, 1, TEXT_MAX, f) : 0;
    fclose(f);
    if (!text) {
        fprintf(out, "vswitchd: cannot check %s: %s\n", path, strerror(ENOMEM));
        return -ENOMEM;
    }
    char why[2048];
    unsigned n = zvs_cs_conf_check(text, len, &cs, why, sizeof why);
    free(text);
    if (n)
        fprintf(out, "vswitchd: %s differs from SYSTEM CONFIG's IVL domain in %u way(s):\n%s",
                path, n, why);
    return (int)n;
}

int zvsd_ivl_write_corosync(const struct zvs_cfg *cfg, const char *path, const char *keyfile,
                            const char *state_dir, FILE *err)
{
    struct zvs_cs_conf cs;
    if (this_system_conf(cfg, keyfile, state_dir, &cs, "write", path, err) < 0)
        return -EINVAL;
    char text[8192];
    int len = zvs_cs_conf_write(&cs, text, sizeof text);
    if (len < 0) {
        fprintf(err, "vswitchd: cannot write %s: %s\n", path, strerror(-len));
        return len;
    }
    char tmp[ZVS_CS_PATH_LEN + 8];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "w");
    bool ok = f && fwrite(text, 1, (size_t)len, f) == (size_t)len;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok || rename(tmp, path) < 0) {
        int e = errno;
        fprintf(err, "vswitchd: cannot write %s: %s\n", path, strerror(e));
        unlink(tmp);
        return -e;
    }
    return 0;
}
