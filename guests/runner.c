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
 * the last of the process and that fd. */
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

const struct zvs_vm_runner zvs_vm_runner_linux = {
    .spawn = linux_spawn, .kill = linux_kill, .reap = linux_reap, .ctx = NULL,
};
