/* The real process runner of vm.h: fork, a new network namespace, exec.
 *
 * The child unshares its network namespace (so the LCS tap is tap0 in a namespace of its
 * own and hercifc's address and route changes touch nothing of the host's), turns IPv6
 * off there (the kernel would otherwise send router solicitations and DAD probes through
 * the tap to the guest, which its counters would see), brings lo up, puts stdin/stdout/
 * stderr on the pipes and execs. The parent keeps a pidfd (pidfd_open: readable when the
 * child ends; waitid(P_PIDFD) reaps it) and an fd of the child's namespace (from
 * /proc/pid/ns/net, taken after the child said it unshared), so the tap can be opened
 * there (backends/lcs.c) and nothing is named or left behind: the namespace goes with
 * the last of the process and that fd.
 *
 * Commands reach Hercules over its HTTP interface on 127.0.0.1 of that namespace: the
 * calling thread enters the namespace only to make the socket (a socket stays in the
 * namespace it was made in) and returns at once, so nothing else of the daemon ever runs
 * there. The exchange is bounded (connect and the answer's status line within a second
 * each): Hercules answers a panel command in milliseconds. The tap's MAC is set the same
 * way (a socket made there, one ioctl). */
#include "guests/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static void write_proc(const char *path, const char *v)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)!write(fd, v, strlen(v));
        close(fd);
    }
}

static void lo_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    if (s < 0)
        return;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
        ifr.ifr_flags |= IFF_UP;
        (void)ioctl(s, SIOCSIFFLAGS, &ifr);
    }
    close(s);
}

static int linux_spawn(void *ctx, const char *dir, char *const argv[], char *const env[],
                       struct zvs_vm_proc *out, char *why, size_t whylen)
{
    int out_p[2], in_p[2], sync_p[2];

    if (pipe2(out_p, O_CLOEXEC) < 0)
        goto fail0;
    if (pipe2(in_p, O_CLOEXEC) < 0)
        goto fail1;
    if (pipe2(sync_p, O_CLOEXEC) < 0)
        goto fail2;
    pid_t pid = fork();
    if (pid < 0)
        goto fail3;
    if (pid == 0) {
        char ok = 'N';
        if (unshare(CLONE_NEWNET) == 0) {
            ok = 'Y';
            write_proc("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
            write_proc("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
            lo_up();
        }
        (void)!write(sync_p[1], &ok, 1);
        if (ok != 'Y')
            _exit(126);
        if (dup2(in_p[0], 0) < 0 || dup2(out_p[1], 1) < 0 || dup2(out_p[1], 2) < 0 ||
            chdir(dir) < 0)
            _exit(126);
        for (unsigned i = 0; env[i] != NULL; i++)
            putenv(env[i]);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        setsid();                       /* the daemon's terminal signals are not its */
        execvp(argv[0], argv);
        _exit(127);
    }
    close(sync_p[1]);
    close(out_p[1]);
    close(in_p[0]);
    char ok = 0;
    ssize_t r;
    do
        r = read(sync_p[0], &ok, 1);
    while (r < 0 && errno == EINTR);
    close(sync_p[0]);
    *out = (struct zvs_vm_proc){ .pid = pid, .pidfd = -1, .out_fd = out_p[0],
                                 .in_fd = in_p[1], .netns_fd = -1 };
    out->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    char ns[64];
    snprintf(ns, sizeof ns, "/proc/%d/ns/net", (int)pid);
    if (ok == 'Y')
        out->netns_fd = open(ns, O_RDONLY | O_CLOEXEC);
    if (ok != 'Y' || out->pidfd < 0 || out->netns_fd < 0) {
        int e = ok != 'Y' ? EPERM : errno;
        snprintf(why, whylen, "%s", ok != 'Y' ? "cannot make a network namespace (root?)"
                                               : strerror(e));
        kill(pid, SIGKILL);
        (void)waitpid(pid, NULL, 0);
        close(out_p[0]);
        close(in_p[1]);
        if (out->pidfd >= 0)
            close(out->pidfd);
        if (out->netns_fd >= 0)
            close(out->netns_fd);
        return -e;
    }
    (void)fcntl(out_p[0], F_SETFL, O_NONBLOCK);
    (void)fcntl(in_p[1], F_SETFL, O_NONBLOCK);
    return 0;
fail3:
    close(sync_p[0]);
    close(sync_p[1]);
fail2:
    close(in_p[0]);
    close(in_p[1]);
fail1:
    close(out_p[0]);
    close(out_p[1]);
fail0:
    snprintf(why, whylen, "cannot start %s: %s", argv[0], strerror(errno));
    return -errno;
}

static int linux_kill(void *ctx, const struct zvs_vm_proc *p, int sig)
{
    return kill(p->pid, sig) < 0 ? -errno : 0;
}

static int linux_reap(void *ctx, const struct zvs_vm_proc *p, int *status)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int rc = p->pidfd >= 0 ? waitid((idtype_t)P_PIDFD, (id_t)p->pidfd, &si, WEXITED)
                           : waitid(P_PID, (id_t)p->pid, &si, WEXITED);
    if (rc < 0)
        return -errno;
    *status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
    return 0;
}

/* A socket of `type` made in the namespace netns_fd, the thread back in its own after. */
static int socket_in(int netns_fd, int type)
{
    int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (self < 0)
        return -errno;
    if (setns(netns_fd, CLONE_NEWNET) < 0) {
        int e = errno;
        close(self);
        return -e;
    }
    int s = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int e = errno;
    if (setns(self, CLONE_NEWNET) < 0)
        abort();                        /* never runs on in the machine's namespace */
    close(self);
    return s < 0 ? -e : s;
}

static int wait_fd(int fd, short events, int ms)
{
    struct pollfd p = { .fd = fd, .events = events };
    int n;
    do
        n = poll(&p, 1, ms);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : n == 0 ? -ETIMEDOUT : 0;
}

static int linux_http(void *ctx, const struct zvs_vm_proc *p, uint16_t port, const char *req,
                      size_t len)
{
    if (p->netns_fd < 0)
        return -EPIPE;
    int s = socket_in(p->netns_fd, SOCK_STREAM);
    if (s < 0)
        return s;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int rc = 0, err = 0;
    socklen_t el = sizeof err;
    if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        if (errno != EINPROGRESS)
            rc = -errno;
        else if ((rc = wait_fd(s, POLLOUT, 1000)) == 0 &&
                 getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err != 0)
            rc = -err;
    }
    if (rc == 0) {
        ssize_t w = send(s, req, len, MSG_NOSIGNAL);
        rc = w == (ssize_t)len ? 0 : w < 0 ? -errno : -EAGAIN;
    }
    /* "HTTP/1.0 200 ..." within a second: Hercules has taken the command. */
    char st[16] = "";
    size_t got = 0;
    while (rc == 0 && got < 12) {
        if ((rc = wait_fd(s, POLLIN, 1000)) < 0)
            break;
        ssize_t r = recv(s, st + got, 12 - got, 0);
        if (r <= 0) {
            rc = r < 0 && errno == EAGAIN ? 0 : -EPROTO;
            continue;
        }
        got += (size_t)r;
    }
    if (rc == 0 && (strncmp(st, "HTTP/1.", 7) != 0 || strncmp(st + 8, " 200", 4) != 0))
        rc = -EPROTO;
    close(s);
    return rc;
}

/* An interface ioctl acts in the namespace of the socket it is made on, so the MAC is
 * set without the daemon's thread staying in the machine's namespace. */
static int linux_set_mac(void *ctx, const struct zvs_vm_proc *p, const char *ifname,
                         const uint8_t mac[6])
{
    if (p->netns_fd < 0)
        return -EPIPE;
    int s = socket_in(p->netns_fd, SOCK_DGRAM);
    if (s < 0)
        return s;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
    memcpy(ifr.ifr_hwaddr.sa_data, mac, 6);
    int rc = ioctl(s, SIOCSIFHWADDR, &ifr) < 0 ? -errno : 0;
    close(s);
    return rc;
}

const struct zvs_vm_runner zvs_vm_runner_linux = {
    .spawn = linux_spawn, .kill = linux_kill, .reap = linux_reap, .http = linux_http,
    .set_mac = linux_set_mac, .ctx = NULL,
};
