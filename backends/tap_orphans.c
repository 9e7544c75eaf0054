/* tap_orphans: finding the persistent guest taps a crashed vswitchd left (see tap_orphans.h).
 *
 * Design note.
 * - A namespace is entered with setns(2) on this thread only, and left at once for the
 *   one saved at the start (zvs_netns_run); sockets and /dev/net/tun opened inside
 *   belong to that namespace for their life, which is what reaching a moved tap needs.
 * - In each namespace one RTM_GETLINK dump lists the interfaces; a match is kind "tun"
 *   with IFLA_IFALIAS equal to the tag. Whether it is a tap, and free, is the kernel's
 *   word at adoption (TUNSETIFF: -EINVAL for a tun, -EBUSY when a live process holds it).
 * - Namespaces are told apart by their nsfs inode (stat), so a namespace that many
 *   processes share is entered once. The scan is bounded by what exists: one stat per
 *   process, one dump per distinct namespace; it runs once per start, and only when the
 *   configuration has a tap.
 */
#include "backends/tap_orphans.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "dataplane/log.h"

#ifndef NS_GET_USERNS
#define NS_GET_USERNS _IO(0xb7, 0x1)    /* linux/nsfs.h, Linux 4.9 */
#endif

struct orphan {
    char name[IFNAMSIZ];
    int  netns;                         /* fd of its namespace; -1 once taken */
};

struct zvs_tap_orphans {
    unsigned      n, cap;
    struct orphan *v;
};

int zvs_tap_tag(char *buf, size_t len)
{
    struct stat st;

    if (stat("/proc/self/ns/net", &st) < 0)
        return -errno;
    snprintf(buf, len, "zvswitch netns:%llu", (unsigned long long)st.st_ino);
    return 0;
}

/* Whether netns_fd names the namespace this thread is in (nsfs inodes compared). */
static bool netns_is_own(int netns_fd)
{
    struct stat there, here;
    return fstat(netns_fd, &there) == 0 && stat("/proc/thread-self/ns/net", &here) == 0 &&
           there.st_ino == here.st_ino && there.st_dev == here.st_dev;
}

int zvs_netns_run(int netns_fd, int (*fn)(void *arg), void *arg)
{
    /* Here already: no setns, which needs CAP_SYS_ADMIN even into one's own namespace. */
    if (netns_fd < 0 || netns_is_own(netns_fd))
        return fn(arg);
    int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home < 0)
        return -errno;
    if (setns(netns_fd, CLONE_NEWNET) < 0) {
        int e = -errno;
        close(home);
        return e;
    }
    int rc = fn(arg);
    if (setns(home, CLONE_NEWNET) < 0) {
        zvs_err("cannot return to vswitchd's own network namespace: %s: stopping",
                strerror(errno));
        abort();
    }
    close(home);
    return rc;
}

/* ---- the dump in one namespace ------------------------------------------------------ */

struct scan_ctx {
    struct zvs_tap_orphans *o;
    const char             *tag;
    int                     netns;     /* the namespace being scanned (kept per match) */
};

static bool linkinfo_is_tun(const struct rtattr *li)
{
    int len = (int)RTA_PAYLOAD(li);
    for (const struct rtattr *a = RTA_DATA(li); RTA_OK(a, len); a = RTA_NEXT(a, len))
        if (a->rta_type == IFLA_INFO_KIND)
            return strncmp(RTA_DATA(a), "tun", RTA_PAYLOAD(a)) == 0 && RTA_PAYLOAD(a) >= 3;
    return false;
}

static int add_match(struct scan_ctx *c, const char *name)
{
    struct zvs_tap_orphans *o = c->o;
    for (unsigned i = 0; i < o->n; i++)
        if (strcmp(o->v[i].name, name) == 0) {
            zvs_warn("tap_orphans: tap %s tagged as ours in two namespaces; the first kept",
                     name);
            return 0;
        }
    if (o->n == o->cap) {
        unsigned cap = o->cap ? o->cap * 2 : 8;
        struct orphan *v = realloc(o->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        o->v = v;
        o->cap = cap;
    }
    int fd = c->netns >= 0 ? fcntl(c->netns, F_DUPFD_CLOEXEC, 0)
                           : open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct orphan *e = &o->v[o->n++];
    snprintf(e->name, sizeof e->name, "%s", name);
    e->netns = fd;
    return 0;
}

static int one_link(struct scan_ctx *c, const struct nlmsghdr *nh)
{
    const struct ifinfomsg *ifi = NLMSG_DATA(nh);
    int len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
    const char *name = NULL, *alias = NULL;
    size_t alias_len = 0;
    bool tun = false;

    if (len < 0)
        return 0;
    for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
        if (a->rta_type == IFLA_IFNAME)
            name = RTA_DATA(a);
        else if (a->rta_type == IFLA_IFALIAS) {
            alias = RTA_DATA(a);
            alias_len = RTA_PAYLOAD(a);
        } else if (a->rta_type == IFLA_LINKINFO)
            tun = linkinfo_is_tun(a);
    }
    size_t tl = strlen(c->tag);
    if (!tun || !name || !alias || alias_len < tl || memcmp(alias, c->tag, tl) != 0 ||
        (alias_len > tl && alias[tl] != '\0') || strnlen(name, IFNAMSIZ) >= IFNAMSIZ)
        return 0;
    return add_match(c, name);
}

static int scan_here(void *arg)
{
    struct scan_ctx *c = arg;
    struct {
        struct nlmsghdr  nh;
        struct ifinfomsg ifi;
    } req = {
        .nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
                .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
        .ifi = { .ifi_family = AF_UNSPEC },
    };
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    struct timeval tmo = { .tv_sec = 1 };
    static __thread union {
        struct nlmsghdr nh;
        uint8_t         raw[32768];
    } buf;
    int rc = 0;

    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return -errno;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) < 0 ||
        sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
        rc = -errno;
        goto out;
    }
    for (;;) {
        ssize_t n = recv(fd, &buf, sizeof(buf), 0);
        if (n < 0) {
            rc = -errno;
            goto out;
        }
        int left = (int)n;
        for (const struct nlmsghdr *nh = &buf.nh; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
            if (nh->nlmsg_type == NLMSG_DONE)
                goto out;
            if (nh->nlmsg_type == NLMSG_ERROR) {
                rc = -EPROTO;
                goto out;
            }
            if (nh->nlmsg_type == RTM_NEWLINK && (rc = one_link(c, nh)) < 0)
                goto out;
        }
    }
out:
    close(fd);
    return rc;
}

/* ---- which namespaces ----------------------------------------------------------------- */

struct seen {
    unsigned n, cap;
    struct { dev_t dev; ino_t ino; } *v;
};

static bool seen_add(struct seen *s, const struct stat *st)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->v[i].dev == st->st_dev && s->v[i].ino == st->st_ino)
            return false;
    if (s->n == s->cap) {
        unsigned cap = s->cap ? s->cap * 2 : 32;
        void *v = realloc(s->v, cap * sizeof(*s->v));
        if (!v)
            return false;               /* not scanned: found by nobody, never wrong */
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n].dev = st->st_dev;
    s->v[s->n].ino = st->st_ino;
    s->n++;
    return true;
}

/* Same owning user namespace as ours (see the header: a foreign one is not trusted). */
static bool owned_by_us(int netns_fd, const struct stat *own_user)
{
    struct stat st;
    int u = ioctl(netns_fd, NS_GET_USERNS);
    if (u < 0)
        return false;
    bool ok = fstat(u, &st) == 0 && st.st_dev == own_user->st_dev &&
              st.st_ino == own_user->st_ino;
    close(u);
    return ok;
}

static void scan_path(struct scan_ctx *c, struct seen *s, const char *path,
                      const struct stat *own_user)
{
    struct stat st;
    if (stat(path, &st) < 0 || !seen_add(s, &st))
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (owned_by_us(fd, own_user)) {
        c->netns = fd;
        int rc = zvs_netns_run(fd, scan_here, c);
        if (rc < 0 && rc != -EPERM)
            zvs_debug("tap_orphans: %s not scanned: %s", path, strerror(-rc));
    }
    close(fd);
}

static void scan_dir(struct scan_ctx *c, struct seen *s, const char *dir, bool pids,
                     const struct stat *own_user)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char path[300];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || (pids && (e->d_name[0] < '0' || e->d_name[0] > '9')))
            continue;
        snprintf(path, sizeof path, pids ? "%s/%s/ns/net" : "%s/%s", dir, e->d_name);
        scan_path(c, s, path, own_user);
    }
    closedir(d);
}

int zvs_tap_orphans_scan(const char *tag, struct zvs_tap_orphans **out)
{
    struct zvs_tap_orphans *o = calloc(1, sizeof(*o));
    struct seen s = { 0 };
    struct stat own, own_user;

    *out = NULL;
    if (!o)
        return -ENOMEM;
    struct scan_ctx c = { .o = o, .tag = tag, .netns = -1 };
    /* Our own namespace first, and always (no setns needed). */
    if (stat("/proc/thread-self/ns/net", &own) == 0)
        seen_add(&s, &own);
    (void)scan_here(&c);
    if (stat("/proc/self/ns/user", &own_user) == 0) {
        scan_dir(&c, &s, "/run/netns", false, &own_user);
        scan_dir(&c, &s, "/proc", true, &own_user);
    }
    free(s.v);
    *out = o;
    return 0;
}

unsigned zvs_tap_orphans_count(const struct zvs_tap_orphans *o)
{
    unsigned n = 0;
    for (unsigned i = 0; o && i < o->n; i++)
        n += o->v[i].netns >= 0;
    return n;
}

int zvs_tap_orphans_take(struct zvs_tap_orphans *o, const char *ifname)
{
    for (unsigned i = 0; o && i < o->n; i++)
        if (o->v[i].netns >= 0 && strcmp(o->v[i].name, ifname) == 0) {
            int fd = o->v[i].netns;
            o->v[i].netns = -1;
            return fd;
        }
    return -ENOENT;
}

/* Attach to the tap by name and drop its persistence: the close deletes it. */
static int delete_here(void *arg)
{
    const char *name = arg;
    struct ifreq ifr;
    int rc = 0;

    if (if_nametoindex(name) == 0)
        return -ENODEV;                 /* never create one just to delete it */
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETPERSIST, 0) < 0)
        rc = -errno;
    close(fd);
    return rc;
}

unsigned zvs_tap_orphans_purge(struct zvs_tap_orphans *o)
{
    unsigned n = 0;
    for (unsigned i = 0; o && i < o->n; i++) {
        struct orphan *e = &o->v[i];
        if (e->netns < 0)
            continue;
        int rc = zvs_netns_run(e->netns, delete_here, e->name);
        if (rc == 0) {
            zvs_info("tap %s: left by a previous vswitchd, no NIC of the configuration "
                     "uses it: deleted", e->name);
            n++;
        } else {
            zvs_warn("tap %s: left by a previous vswitchd, not deleted: %s", e->name,
                     strerror(-rc));
        }
        close(e->netns);
        e->netns = -1;
    }
    return n;
}

void zvs_tap_orphans_free(struct zvs_tap_orphans *o)
{
    if (!o)
        return;
    for (unsigned i = 0; i < o->n; i++)
        if (o->v[i].netns >= 0)
            close(o->v[i].netns);
    free(o->v);
    free(o);
}
