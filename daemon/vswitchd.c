/* vswitchd: the zvswitch daemon.
 *
 *   vswitchd -c SYSTEM.CONFIG -u USER.DIRECT [-f] [-p pidfile] [-l level] [-L logfile]
 *            [-s statsfile] [-q qdio-socket] [-k console [--console-group group]] [--check]
 *            [--corosync-conf PATH]
 *   vswitchd -c SYSTEM.CONFIG -u USER.DIRECT --write-corosync PATH [--corosync-key PATH]
 *            [--corosync-state DIR]
 *   vswitchd -c SYSTEM.CONFIG -u USER.DIRECT --check-corosync PATH
 *
 * Foreground (-f) logs to stderr; otherwise it detaches (fork, setsid, /dev/null for the
 * standard streams) and logs to -L or nowhere. The pidfile is written once the daemon is
 * ready (every socket open, the configuration applied) and removed at exit; SIGTERM is
 * handled from the first step, so a stop during start-up still cleans up. --check parses
 * and cross-checks both files, prints every message like CPSYNTAX does, and exits 0 when
 * they are clean, 1 otherwise. --write-corosync writes this system's corosync.conf for
 * its IVL domain from SYSTEM CONFIG (daemon/ivl_conf.h) and exits; --check-corosync
 * names each difference of an operator's own file from it and exits 1 when there is one;
 * --corosync-conf names the file this system's corosync runs with, checked the same way
 * when the daemon joins its IVL domain (a difference is told, ZVSIVL1267W, and the daemon
 * runs on).
 * The console's identities are checked before detaching too: every LINUXUSER of the user
 * directory must be a Linux user here and --console-group a group, else vswitchd says
 * which and does not start.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp-commands/config.h"
#include "daemon/console_users.h"
#include "cp-commands/version.h"
#include "daemon/daemon.h"
#include "daemon/fd_limit.h"
#include "daemon/ivl_conf.h"
#include "dataplane/log.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vswitchd -c SYSTEM.CONFIG -u USER.DIRECT [options]\n"
            "  -c, --sysconfig FILE   SYSTEM CONFIG (VMLAN, DEFINE VSWITCH, RDEVICE ...)\n"
            "  -u, --userdirect FILE  user directory (USER, NICDEF, NICBIND ...)\n"
            "  -f, --foreground       stay in the foreground, log to stderr\n"
            "  -p, --pidfile FILE     write the daemon's pid here\n"
            "  -l, --log-level LEVEL  error | warn | info (default) | debug\n"
            "  -L, --log-file FILE    append log lines here\n"
            "  -s, --stats FILE       counters report, written on SIGUSR1 and at exit\n"
            "  -q, --qdio-socket PATH where external guest programs attach to NICBIND QDIO NICs\n"
            "  -k, --console PATH     operator console socket for vmcp (CP commands)\n"
            "      --console-group NAME|GID  members may connect to the console (mode 0660);\n"
            "                         USER DIRECT LINUXUSER says who they are in CP\n"
            "  -m, --monitor FILE     write monitor records (D6R21, D8R1 ...) for perfkit\n"
            "  -i, --monitor-interval SECONDS  monitor sample interval (default 60)\n"
            "      --monitor-max-mb N rotate the monitor file beyond N MB (default 64)\n"
            "      --monitor-live PATH  serve the live record stream (perfkit --live) here\n"
            "      --test-interval SECONDS  ours, for labs: balancing passes every SECONDS\n"
            "                         (1-9990) instead of each group's INTERVAL, which CP\n"
            "                         rounds up to a multiple of 30 s; OFF groups stay off\n"
            "      --guest-images DIR ours: where IPL name images are (NAME.ins.template ...;\n"
            "                         default build/guests, from the directory vswitchd starts in)\n"
            "      --guest-dir DIR    ours: the Hercules machines' folders (configuration,\n"
            "                         console log; default /run/zvswitch/guests)\n"
            "      --hercules PROGRAM ours: the emulator XAUTOLOG runs (default hercules,\n"
            "                         from PATH)\n"
            "      --check            check both files like CPSYNTAX and exit\n"
            "      --write-corosync PATH  ours: write this system's corosync.conf for its IVL\n"
            "                         domain (IVL MEMBER, IVL HEARTBEAT) and exit\n"
            "      --check-corosync PATH  ours: check an existing corosync.conf against\n"
            "                         SYSTEM CONFIG's IVL domain, name each difference, exit\n"
            "      --corosync-key PATH    its authkey (default " ZVSD_CS_KEYFILE ")\n"
            "      --corosync-state DIR   its state_dir (default " ZVSD_CS_STATE_DIR ")\n"
            "      --corosync-conf PATH   ours: the corosync.conf this system's corosync runs\n"
            "                         with, checked against SYSTEM CONFIG when the IVL\n"
            "                         domain is joined\n"
            "      --version          print the version and exit\n"
            "  -h, --help\n");
}

static int write_pidfile(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
    int rc = write(fd, buf, (size_t)n) == n ? 0 : -EIO;
    close(fd);
    return rc;
}

/* A pidfile naming a running vswitchd: refuse to start beside it. One a crash left (no
 * such process, or a pid the kernel gave to another program since) does not block the
 * start; it is overwritten once the new daemon is ready. Returns the live pid or 0. */
static long pidfile_live(const char *path)
{
    char buf[32] = "", comm[32] = "", proc[64];
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    long pid = fgets(buf, sizeof buf, f) ? strtol(buf, NULL, 10) : 0;
    fclose(f);
    if (pid <= 0 || pid == (long)getpid() || (kill((pid_t)pid, 0) < 0 && errno != EPERM))
        return 0;
    snprintf(proc, sizeof proc, "/proc/%ld/comm", pid);
    f = fopen(proc, "re");
    if (!f)
        return 0;
    if (!fgets(comm, sizeof comm, f))
        comm[0] = '\0';
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    return strcmp(comm, "vswitchd") == 0 ? pid : 0;
}

/* The signals the event loop takes through its signalfd (daemon.c). They are blocked from
 * vswitchd's first step, so a SIGTERM that arrives while it is still starting waits for
 * the loop, which then stops cleanly (pidfile, sockets and monitor file closed), instead of
 * killing a half-made daemon that leaves them behind. */
static void block_loop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGUSR1);
    sigaddset(set, SIGHUP);
    sigprocmask(SIG_BLOCK, set, NULL);
}

/* A fault knob for the start-up race: ZVSWITCH_STOP_AT=step sends vswitchd a SIGTERM at that
 * step (config, log, detach, create, ready), so a test stops it at each one on purpose
 * instead of by luck. */
static void startup_step(const char *step)
{
    const char *at = getenv("ZVSWITCH_STOP_AT");
    if (at && strcmp(at, step) == 0)
        raise(SIGTERM);
}

static int detach(void)
{
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid > 0) {
        /* A child starts with no pending signal: a stop that reached the parent before the
         * fork is handed on, or the daemon would run on after its stop was asked for. */
        sigset_t pending;
        sigpending(&pending);
        if (sigismember(&pending, SIGTERM) || sigismember(&pending, SIGINT))
            kill(pid, SIGTERM);
        _exit(0);
    }
    if (setsid() < 0)
        return -errno;
    if (chdir("/") < 0)
        return -errno;
    int fd = open("/dev/null", O_RDWR);
    if (fd < 0)
        return -errno;
    dup2(fd, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    if (fd > 2)
        close(fd);
    return 0;
}

/* Who may use the console: the group and every LINUXUSER must exist here (the daemon
 * resolves them again when it opens the console; this says what is wrong before it
 * detaches). 0 or -1 (reported on stderr). */
static int console_access_check(const struct zvs_cfg *cfg, const char *group)
{
    char err[ZVS_CFG_PATH_MAX + ZVS_MSG_TEXT_MAX];
    gid_t gid;
    int rc;

    if (group && (rc = zvs_console_group_resolve(group, &gid)) < 0) {
        fprintf(stderr, "vswitchd: console group %s: %s\n", group,
                rc == -ENOENT ? "no such group" : strerror(-rc));
        return -1;
    }
    if (zvs_console_check_directory(cfg, err, sizeof(err)) < 0) {
        fprintf(stderr, "vswitchd: %s\n", err);
        return -1;
    }
    return 0;
}

/* Paths are used after chdir("/"): make them absolute first. */
static char *absolute(const char *path)
{
    if (!path)
        return NULL;
    if (path[0] == '/')
        return strdup(path);
    char *cwd = getcwd(NULL, 0), *out = NULL;
    if (cwd && asprintf(&out, "%s/%s", cwd, path) < 0)
        out = NULL;
    free(cwd);
    return out;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "sysconfig", required_argument, NULL, 'c' },
        { "userdirect", required_argument, NULL, 'u' },
        { "foreground", no_argument, NULL, 'f' },
        { "pidfile", required_argument, NULL, 'p' },
        { "log-level", required_argument, NULL, 'l' },
        { "log-file", required_argument, NULL, 'L' },
        { "stats", required_argument, NULL, 's' },
        { "qdio-socket", required_argument, NULL, 'q' },
        { "console", required_argument, NULL, 'k' },
        { "console-group", required_argument, NULL, 'G' },
        { "monitor", required_argument, NULL, 'm' },
        { "monitor-interval", required_argument, NULL, 'i' },
        { "monitor-max-mb", required_argument, NULL, 'M' },
        { "monitor-live", required_argument, NULL, 'V' },
        { "check", no_argument, NULL, 'C' },
        { "write-corosync", required_argument, NULL, 'W' },
        { "check-corosync", required_argument, NULL, 'X' },
        { "corosync-key", required_argument, NULL, 'K' },
        { "corosync-state", required_argument, NULL, 'S' },
        { "corosync-conf", required_argument, NULL, 'Y' },
        { "test-interval", required_argument, NULL, 'T' },
        { "guest-images", required_argument, NULL, 'I' },
        { "guest-dir", required_argument, NULL, 'D' },
        { "hercules", required_argument, NULL, 'H' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'v' },
        { NULL, 0, NULL, 0 },
    };
    const char *sysconfig = NULL, *userdirect = NULL, *console_group = NULL;
    char *pidfile = NULL, *logfile = NULL, *stats = NULL, *qsock = NULL, *console = NULL, *monitor = NULL, *monlive = NULL;
    char *images = NULL, *guestdir = NULL, *hercules = NULL, *cs_conf = NULL;
    const char *cs_write = NULL, *cs_check = NULL, *cs_key = NULL, *cs_state = NULL;
    unsigned long mon_interval = 60, mon_max_mb = 64, test_interval = 0;
    bool foreground = false, check = false;
    enum zvs_log_level level = ZVS_LOG_INFO;
    int c, rc = 1;
    sigset_t stop;

    block_loop_signals(&stop);

    while ((c = getopt_long(argc, argv, "c:u:fp:l:L:s:q:k:m:i:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': sysconfig = optarg; break;
        case 'u': userdirect = optarg; break;
        case 'f': foreground = true; break;
        case 'p': free(pidfile); pidfile = absolute(optarg); break;
        case 'L': free(logfile); logfile = absolute(optarg); break;
        case 's': free(stats); stats = absolute(optarg); break;
        case 'q': free(qsock); qsock = absolute(optarg); break;
        case 'k': free(console); console = absolute(optarg); break;
        case 'G': console_group = optarg; break;
        case 'm': free(monitor); monitor = absolute(optarg); break;
        case 'V': free(monlive); monlive = absolute(optarg); break;
        case 'I': free(images); images = absolute(optarg); break;
        case 'D': free(guestdir); guestdir = absolute(optarg); break;
        /* A bare name is looked up in PATH, as execvp does; a path is made absolute. */
        case 'H':
            free(hercules);
            hercules = strchr(optarg, '/') ? absolute(optarg) : strdup(optarg);
            break;
        case 'i':
        case 'M': {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end || v == 0 || v > (c == 'i' ? 86400ul : 65536ul)) {
                fprintf(stderr, "vswitchd: invalid %s '%s'\n",
                        c == 'i' ? "monitor interval" : "monitor size", optarg);
                goto out;
            }
            if (c == 'i')
                mon_interval = v;
            else
                mon_max_mb = v;
            break;
        }
        case 'C': check = true; break;
        case 'W': cs_write = optarg; break;
        case 'X': cs_check = optarg; break;
        case 'K': cs_key = optarg; break;
        case 'S': cs_state = optarg; break;
        case 'Y': free(cs_conf); cs_conf = absolute(optarg); break;
        case 'T': {
            char *end;
            test_interval = strtoul(optarg, &end, 10);
            if (*end || test_interval == 0 || test_interval > 9990ul) {
                fprintf(stderr, "vswitchd: invalid test interval '%s' (1-9990)\n", optarg);
                goto out;
            }
            break;
        }
        case 'l':
            if (zvs_log_parse_level(optarg, &level) < 0) {
                fprintf(stderr, "vswitchd: unknown log level '%s'\n", optarg);
                goto out;
            }
            break;
        case 'h': usage(stdout); rc = 0; goto out;
        case 'v': printf("vswitchd (zvswitch) %s\n", zvs_version()); rc = 0; goto out;
        default: usage(stderr); goto out;
        }
    }
    if (!sysconfig || optind != argc) {
        usage(stderr);
        goto out;
    }
    if (console_group && !console) {
        fprintf(stderr, "vswitchd: --console-group needs --console\n");
        goto out;
    }
    /* The images' default is relative to where vswitchd starts, which it leaves when it
     * detaches (chdir /): resolve it now. */
    if (!images)
        images = absolute("build/guests");
    if (check) {
        int errors = zvs_config_syntax_check(sysconfig, userdirect, stdout);
        rc = errors == 0 ? 0 : 1;
        goto out;
    }

    struct zvs_cfg *cfg = zvs_cfg_new();
    if (!cfg) {
        fprintf(stderr, "vswitchd: out of memory\n");
        goto out;
    }
    int errors = zvs_cfg_load(cfg, sysconfig, userdirect);
    if (errors != 0) {
        /* Print what the parser found, as --check would, and refuse to start. */
        zvs_config_syntax_check(sysconfig, userdirect, stderr);
        zvs_cfg_free(cfg);
        goto out;
    }
    if (cs_write || cs_check) {
        rc = cs_write ? zvsd_ivl_write_corosync(cfg, cs_write, cs_key, cs_state, stderr)
                      : zvsd_ivl_check_corosync(cfg, cs_check, stderr);
        rc = rc == 0 ? 0 : 1;
        zvs_cfg_free(cfg);
        goto out;
    }
    if (console && console_access_check(cfg, console_group) < 0) {
        zvs_cfg_free(cfg);
        goto out;
    }
    long other = pidfile ? pidfile_live(pidfile) : 0;
    if (other > 0) {
        fprintf(stderr, "vswitchd: already running (pid %ld, pidfile %s)\n", other, pidfile);
        zvs_cfg_free(cfg);
        goto out;
    }
    startup_step("config");
    zvs_log_set_level(level);
    if (logfile && zvs_log_open(logfile) < 0)
        fprintf(stderr, "vswitchd: cannot open log %s: %s\n", logfile, strerror(errno));
    startup_step("log");
    if (!foreground && detach() < 0) {
        zvs_err("cannot detach: %s", strerror(errno));
        zvs_cfg_free(cfg);
        goto out;
    }
    startup_step("detach");
    /* Three descriptors a QDIO NIC: 1,000 guests need more than a 1,024 soft limit. */
    uint64_t fds_before = 0, fds_after = 0;
    int frc = zvsd_raise_fd_limit(&fds_before, &fds_after);
    if (frc < 0)
        zvs_warn("cannot raise the open-file limit from %llu: %s",
                 (unsigned long long)fds_before, strerror(-frc));
    else if (fds_after != fds_before)
        zvs_info("open-file limit raised from %llu to %llu", (unsigned long long)fds_before,
                 (unsigned long long)fds_after);

    struct zvsd_options opt = { .stats_path = stats, .qdio_socket = qsock,
                                 .console_path = console,
                                 .console_group = console_group,
                                 .monitor_path = monitor,
                                 .monitor_interval_s = (uint32_t)mon_interval,
                                 .test_interval_s = (uint32_t)test_interval,
                                 .monitor_max_bytes = (uint64_t)mon_max_mb << 20,
                                 .monitor_live_path = monlive,
                                 .guest_images = images, .guest_dir = guestdir,
                                 .hercules = hercules, .corosync_conf = cs_conf };
    struct zvsd *d = zvsd_create(cfg, &opt);
    zvs_cfg_free(cfg);
    if (d) {
        startup_step("create");
        /* The pidfile says the daemon is ready: written once everything is up, so whoever
         * waits for it (a service manager, a test) finds a daemon that serves. */
        if (pidfile && write_pidfile(pidfile) < 0)
            zvs_warn("cannot write pidfile %s", pidfile);
        startup_step("ready");
        zvs_info("vswitchd running (pid %ld)", (long)getpid());
        rc = zvsd_run(d) < 0 ? 1 : 0;
        zvsd_destroy(d);
        zvs_info("vswitchd stopped");
    }
    if (d && pidfile)
        unlink(pidfile);
    zvs_log_close();
out:
    free(pidfile);
    free(logfile);
    free(stats);
    free(qsock);
    free(console);
    free(monitor);
    free(monlive);
    free(images);
    free(guestdir);
    free(hercules);
    free(cs_conf);
    return rc;
}
