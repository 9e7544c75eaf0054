/* switchmodel: plays the measurement report's Cisco 6509 on Linux interfaces.
 *
 *   switchmodel -c CONFIG [-C SOCKET] [-l LOGFILE] [-v]     run the switch
 *   switchmodel -c CONFIG --check                            parse the config, exit
 *   switchmodel -C SOCKET -x 'show etherchannel summary'     ask a running switch
 *
 * Design note: main only wires things: config, log, event loop, the switch, the control
 * socket, and SIGTERM/SIGINT through a signalfd so the loop stops and everything is
 * freed (valgrind clean). Exit status: 0 ok, 1 a refused command or a runtime error, 2
 * usage or configuration error.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>

#include "tests/switchmodel/sm_config.h"
#include "tests/switchmodel/sm_ctl.h"
#include "tests/switchmodel/sm_switch.h"
#include "daemon/evloop.h"
#include "dataplane/log.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: switchmodel -c CONFIG [-C SOCKET] [-l LOGFILE] [-v] [--check]\n"
               "       switchmodel -C SOCKET -x COMMAND\n");
}

static void on_signal(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct signalfd_siginfo si;
    if (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
        zvs_info("signal %u: exiting", si.ssi_signo);
    zvs_evloop_stop(arg);
}

static int run(const struct sm_config *cfg, const char *ctl_path)
{
    int rc = 1, err = 0, sfd = -1;
    struct zvs_evloop *loop = NULL;
    struct sm_switch *sw = NULL;
    struct sm_ctl *ctl = NULL;
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGPIPE);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
        goto out;
    sigdelset(&set, SIGPIPE);
    sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    loop = zvs_evloop_create();
    if (sfd < 0 || !loop) {
        zvs_err("cannot create the event loop");
        goto out;
    }
    if (zvs_evloop_add_fd(loop, sfd, EPOLLIN, on_signal, loop) < 0)
        goto out;
    sw = sm_switch_create(cfg, loop, &err);
    if (!sw) {
        zvs_err("cannot start the switch: %s", strerror(-err));
        goto out;
    }
    if (ctl_path) {
        ctl = sm_ctl_open(ctl_path, sw, loop, &err);
        if (!ctl) {
            zvs_err("control socket %s: %s", ctl_path, strerror(-err));
            goto out;
        }
    }
    zvs_info("%s ready", cfg->hostname);
    err = zvs_evloop_run(loop);
    rc = err < 0 ? 1 : 0;
out:
    sm_ctl_close(ctl);
    sm_switch_destroy(sw);
    if (sfd >= 0) {
        if (loop)
            (void)zvs_evloop_del_fd(loop, sfd);
        close(sfd);
    }
    zvs_evloop_destroy(loop);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "check", no_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *cfg_path = NULL, *ctl_path = NULL, *log_path = NULL, *command = NULL;
    int verbose = 0, check = 0, o, rc;

    while ((o = getopt_long(argc, argv, "c:C:l:x:vh", longopts, NULL)) != -1) {
        switch (o) {
        case 'c': cfg_path = optarg; break;
        case 'C': ctl_path = optarg; break;
        case 'l': log_path = optarg; break;
        case 'x': command = optarg; break;
        case 'v': verbose++; break;
        case 'k': check = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    if (command) {
        if (!ctl_path) {
            usage(stderr);
            return 2;
        }
        rc = sm_ctl_client(ctl_path, command, stdout, 10000);
        if (rc < 0)
            fprintf(stderr, "switchmodel: %s: %s\n", ctl_path, strerror(-rc));
        return rc == 0 ? 0 : 1;
    }
    if (!cfg_path) {
        usage(stderr);
        return 2;
    }
    static struct sm_config cfg;
    char err[SM_ERR_LEN + 256];
    if (sm_config_load(cfg_path, &cfg, err, sizeof(err)) < 0) {
        fprintf(stderr, "switchmodel: %s\n", err);
        return 2;
    }
    if (check) {
        printf("%s: ok (%s, %u interfaces)\n", cfg_path, cfg.hostname, cfg.n_ifs);
        return 0;
    }
    if (log_path && (rc = zvs_log_open(log_path)) < 0) {
        fprintf(stderr, "switchmodel: %s: %s\n", log_path, strerror(-rc));
        return 2;
    }
    /* INFO by default: link, bundle and quirk events are what a lab reads; -v adds
     * every LACP machine transition. */
    zvs_log_set_level(verbose ? ZVS_LOG_DEBUG : ZVS_LOG_INFO);
    rc = run(&cfg, ctl_path);
    zvs_log_close();
    return rc;
}
