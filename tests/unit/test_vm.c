/* The machine supervisor (guests/vm.h) over a fake runner: no Hercules, no fork. The fake
 * hands the supervisor real pipes (the test writes the emulator's output into one and
 * reads what the supervisor types into the other), records the signals it is asked to
 * send and the HTTP requests it is handed (byte for byte: SIGNAL SHUTDOWN and SEND go to
 * Hercules' HTTP command interface, since `hercules -d` reads no commands from stdin),
 * and returns the exit status the test chose. Asserted: what is spawned (program,
 * arguments, HERCULES_RC, the folder's hercules.cnf), the state machine (STARTING ->
 * RUNNING at HHCLC073I, even split across reads; no tap in 10 s; an early exit; FORCE;
 * SIGNAL SHUTDOWN with its deadline and the disabled wait that ends it; destroy), the
 * exact HCP lines in the console log and in the gone event, that gone comes once and
 * never after destroy, the console log's tail, and the LCS tap's MAC (set when the tap
 * opens, before tap_open; a LANSTAT MAC other than the tap's, or one that could not be
 * set, said with ZVSGST1165W). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guests/vm.h"

struct fake {
    int  spawns, kills, reaps, last_sig, status;
    int  out_w, in_r;                   /* the test's ends of the pipes */
    char argv[4][ZVS_VM_PATH_MAX + 32];
    char env0[ZVS_VM_PATH_MAX + 32];
    int  fail_spawn;
    int  https, http_rc;
    unsigned http_port;
    char req[ZVS_VM_REQUEST_MAX + 128];
    int  set_macs, set_mac_rc, taps_at_set_mac, netns_at_set_mac;
    char set_mac_if[32];
    uint8_t set_mac_mac[6];
    const int *taps;                    /* the events' tap_open count, to order set_mac */
};

static int f_set_mac(void *ctx, const struct zvs_vm_proc *p, const char *ifname,
                     const uint8_t mac[6])
{
    struct fake *f = ctx;
    f->set_macs++;
    f->taps_at_set_mac = *f->taps;
    f->netns_at_set_mac = p->netns_fd;
    snprintf(f->set_mac_if, sizeof f->set_mac_if, "%s", ifname);
    memcpy(f->set_mac_mac, mac, 6);
    return f->set_mac_rc;
}

static int f_http(void *ctx, const struct zvs_vm_proc *p, uint16_t port, const char *req,
                  size_t len)
{
    struct fake *f = ctx;
    f->https++;
    f->http_port = port;
    assert_true(len < sizeof f->req);
    memcpy(f->req, req, len);
    f->req[len] = '\0';
    assert_int_equal(strlen(f->req), len);
    return f->http_rc;
}

static int f_spawn(void *ctx, const char *dir, char *const argv[], char *const env[],
                   struct zvs_vm_proc *out, char *why, size_t whylen)
{
    struct fake *f = ctx;
    int o[2], i[2];
    f->spawns++;
    if (f->fail_spawn) {
        snprintf(why, whylen, "cannot start %s: %s", argv[0], strerror(ENOENT));
        return -ENOENT;
    }
    for (int k = 0; k < 4 && argv[k]; k++)
        snprintf(f->argv[k], sizeof f->argv[k], "%s", argv[k]);
    snprintf(f->env0, sizeof f->env0, "%s", env[0]);
    assert_int_equal(pipe2(o, O_CLOEXEC | O_NONBLOCK), 0);
    assert_int_equal(pipe2(i, O_CLOEXEC | O_NONBLOCK), 0);
    f->out_w = o[1];
    f->in_r = i[0];
    *out = (struct zvs_vm_proc){ .pid = 4242, .pidfd = open("/dev/null", O_RDONLY | O_CLOEXEC),
                                 .out_fd = o[0], .in_fd = i[1],
                                 .netns_fd = open("/dev/null", O_RDONLY | O_CLOEXEC) };
    return 0;
}

static int f_kill(void *ctx, const struct zvs_vm_proc *p, int sig)
{
    struct fake *f = ctx;
    f->kills++;
    f->last_sig = sig;
    return 0;
}

static int f_reap(void *ctx, const struct zvs_vm_proc *p, int *status)
{
    struct fake *f = ctx;
    f->reaps++;
    *status = f->status;
    return 0;
}

struct seen {
    int  taps, gones, netns_fd, mac_wrongs;
    char ifname[32];
    char why[ZVS_VM_WHY_MAX + 64];
    char mac_why[ZVS_VM_WHY_MAX + 200];
};

static void ev_mac_wrong(void *ctx, struct zvs_vm *vm, const char *why)
{
    struct seen *s = ctx;
    s->mac_wrongs++;
    snprintf(s->mac_why, sizeof s->mac_why, "%s", why);
}

static void ev_tap(void *ctx, struct zvs_vm *vm, int netns_fd, const char *ifname)
{
    struct seen *s = ctx;
    s->taps++;
    s->netns_fd = netns_fd;
    snprintf(s->ifname, sizeof s->ifname, "%s", ifname);
}

static void ev_gone(void *ctx, struct zvs_vm *vm, const char *why)
{
    struct seen *s = ctx;
    s->gones++;
    snprintf(s->why, sizeof s->why, "%s", why);
}

struct world {
    char          dir[64];
    char          ins[96];
    struct fake   f;
    struct seen   s;
    struct zvs_vm_runner run;
    struct zvs_vm_events ev;
    struct zvs_vm_spec spec;
};

static int setup(void **state)
{
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    snprintf(w->dir, sizeof w->dir, "/tmp/zvs-test-vm.XXXXXX");
    assert_non_null(mkdtemp(w->dir));
    snprintf(w->ins, sizeof w->ins, "%s/own.ins", w->dir);
    FILE *fp = fopen(w->ins, "w");
    assert_non_null(fp);
    fputs("own.bin 0x00000000\n", fp);
    fclose(fp);
    w->run = (struct zvs_vm_runner){ .spawn = f_spawn, .kill = f_kill, .reap = f_reap,
                                     .http = f_http, .set_mac = f_set_mac, .ctx = &w->f };
    w->ev = (struct zvs_vm_events){ .tap_open = ev_tap, .gone = ev_gone,
                                    .mac_wrong = ev_mac_wrong, .ctx = &w->s };
    w->f.taps = &w->s.taps;
    struct zvs_vm_spec *s = &w->spec;
    snprintf(s->userid, sizeof s->userid, "FP1");
    snprintf(s->dir, sizeof s->dir, "%s/FP1", w->dir);
    snprintf(s->images, sizeof s->images, "%s", w->dir);
    snprintf(s->hercules, sizeof s->hercules, "/opt/herc/hercules");
    s->ipl = ZVS_VM_IPL_INS;
    snprintf(s->ipl_path, sizeof s->ipl_path, "%s", w->ins);
    s->mainsize_mb = 16;
    s->has_lcs = true;
    s->lcs_devno = 0x600;
    memcpy(s->nic_mac, "\x02\x00\x0c\x00\x00\x02", 6);
    memcpy(s->tap_mac, "\x02\x00\x0c\x00\x00\x01", 6);
    s->ip = 0x0a4d0032;                 /* 10.77.0.50 */
    s->prefix = 24;
    w->f.out_w = w->f.in_r = -1;
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    struct world *w = *state;
    char cmd[128];
    if (w->f.out_w >= 0)
        close(w->f.out_w);
    if (w->f.in_r >= 0)
        close(w->f.in_r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", w->dir);
    assert_int_equal(system(cmd), 0);
    free(w);
    return 0;
}

static struct zvs_vm *start(struct world *w, uint64_t now)
{
    char why[ZVS_VM_WHY_MAX] = "";
    struct zvs_vm *vm = zvs_vm_start(&w->spec, &w->run, &w->ev, now, why, sizeof why);
    assert_non_null(vm);
    return vm;
}

static void emit(struct world *w, struct zvs_vm *vm, const char *text, uint64_t now)
{
    assert_int_equal(write(w->f.out_w, text, strlen(text)), (ssize_t)strlen(text));
    zvs_vm_on_output(vm, now);
}

/* The console log's last n lines, without the final newline. */
static const char *tail(struct world *w, unsigned n)
{
    static char buf[4096];
    char path[ZVS_VM_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/console.log", w->spec.dir);
    assert_int_equal(zvs_vm_log_tail(path, n, buf, sizeof buf), (int)n);
    size_t len = strlen(buf);
    assert_true(len > 0 && buf[len - 1] == '\n');      /* the tail keeps the last newline */
    buf[len - 1] = '\0';
    return buf;
}

/* Nothing is ever typed into the emulator's stdin. */
static void stdin_untouched(struct world *w)
{
    char c;
    assert_int_equal(read(w->f.in_r, &c, 1), -1);
    assert_int_equal(errno, EAGAIN);
}

static void spawns_hercules_with_its_folder(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 1000);
    char want[ZVS_VM_PATH_MAX + 32], cnf[512];

    assert_int_equal(w->f.spawns, 1);
    assert_string_equal(w->f.argv[0], "/opt/herc/hercules");
    assert_string_equal(w->f.argv[1], "-d");
    assert_string_equal(w->f.argv[2], "-f");
    snprintf(want, sizeof want, "%s/hercules.cnf", w->spec.dir);
    assert_string_equal(w->f.argv[3], want);
    snprintf(want, sizeof want, "HERCULES_RC=%s/hercules.rc", w->spec.dir);
    assert_string_equal(w->f.env0, want);
    FILE *fp = fopen(w->f.argv[3], "r");
    assert_non_null(fp);
    size_t n = fread(cnf, 1, sizeof cnf - 1, fp);
    cnf[n] = '\0';
    fclose(fp);
    assert_non_null(strstr(cnf, "MAINSIZE 16\nNUMCPU 1\nHTTPPORT 8081 NOAUTH\n0009 3215-C /\n"));
    assert_null(strstr(cnf, "OSTAILOR"));       /* only when the image's template asks */
    assert_non_null(strstr(cnf, "0600.2 LCS -n /dev/net/tun -m 02:00:0c:00:00:01 -o "));
    assert_non_null(strstr(cnf, "/lcs.oat 10.77.0.50\n"));
    assert_int_equal(zvs_vm_state(vm), ZVS_VM_STARTING);
    assert_int_equal(zvs_vm_deadline(vm), 1000 + ZVS_VM_TAP_TIMEOUT_MS);
    assert_int_equal(zvs_vm_pid(vm), 4242);
    assert_string_equal(tail(w, 1), "ZVSGST1168I XAUTOLOG FP1: starting /opt/herc/hercules");
    zvs_vm_destroy(vm);
    assert_int_equal(w->f.last_sig, SIGKILL);
    assert_int_equal(w->f.reaps, 1);
    assert_int_equal(w->s.gones, 0);     /* nothing is called back after destroy */
}

static void tap_line_split_across_reads_makes_it_running(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    emit(w, vm, "HHCCF065I Hercules: tid=7F, pid=4242\nHHCLC073I 0600: TAP dev", 10);
    assert_int_equal(w->s.taps, 0);
    emit(w, vm, "ice tap0 opened\n", 20);
    assert_int_equal(w->s.taps, 1);
    assert_string_equal(w->s.ifname, "tap0");
    assert_true(w->s.netns_fd >= 0);
    assert_int_equal(zvs_vm_state(vm), ZVS_VM_RUNNING);
    assert_string_equal(zvs_vm_tap(vm), "tap0");
    assert_int_equal(zvs_vm_deadline(vm), UINT64_MAX);
    emit(w, vm, "HHCLC073I 0600: TAP device tap1 opened\n", 30);
    assert_int_equal(w->s.taps, 1);      /* once: only while starting */
    zvs_vm_tick(vm, 50000);
    assert_int_equal(w->f.kills, 0);
    zvs_vm_destroy(vm);
}

static void no_tap_in_time_is_ended(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 500);
    zvs_vm_tick(vm, 500 + ZVS_VM_TAP_TIMEOUT_MS - 1);
    assert_int_equal(w->f.kills, 0);
    zvs_vm_tick(vm, 500 + ZVS_VM_TAP_TIMEOUT_MS);
    assert_int_equal(w->f.kills, 1);
    assert_int_equal(w->f.last_sig, SIGKILL);
    w->f.status = 137;
    zvs_vm_on_exit(vm, 10600);
    assert_int_equal(w->s.gones, 1);
    assert_string_equal(w->s.why, "ZVSGST1164E Machine FP1 did not start: no LCS tap within 10 s");
    assert_string_equal(tail(w, 1), w->s.why);
    assert_int_equal(zvs_vm_state(vm), ZVS_VM_OFF);
    zvs_vm_on_exit(vm, 10700);           /* a second report changes nothing */
    assert_int_equal(w->s.gones, 1);
    zvs_vm_destroy(vm);
    assert_int_equal(w->f.kills, 1);
}

static void early_exit_is_reported(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    emit(w, vm, "HHCCF040S Cannot create CPU thread\n", 5);
    w->f.status = 3;
    zvs_vm_on_exit(vm, 10);
    assert_int_equal(w->s.gones, 1);
    assert_string_equal(w->s.why, "ZVSGST1164E Machine FP1 did not start: Hercules exited (status 3) "
                                  "before opening its LCS tap");
    assert_string_equal(tail(w, 2), "HHCCF040S Cannot create CPU thread\n"
                                    "ZVSGST1164E Machine FP1 did not start: Hercules exited (status 3) "
                                    "before opening its LCS tap");
    assert_int_equal(w->f.kills, 0);
    zvs_vm_destroy(vm);
}

static void disabled_wait_is_logged_and_the_machine_stays(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    emit(w, vm, "HHCLC073I 0600: TAP device tap0 opened\n", 1);
    emit(w, vm, "HHCCP011I CPU0000: Disabled wait state\n          PSW=000A0000 00000BAD\n", 2);
    assert_string_equal(tail(w, 1), "HCPGIR450W CP entered; disabled wait PSW 000A0000 00000BAD");
    assert_int_equal(zvs_vm_state(vm), ZVS_VM_RUNNING);    /* logged on, as CP leaves it */
    assert_int_equal(w->f.kills, 0);
    /* The same on one line. */
    emit(w, vm, "HHCCP011I CPU0000: Disabled wait state PSW=000A0000 00000C11\n", 3);
    assert_string_equal(tail(w, 1), "HCPGIR450W CP entered; disabled wait PSW 000A0000 00000C11");
    zvs_vm_destroy(vm);
}

/* Hercules 3.13 sets the tap's MAC at the guest's LCS STARTUP through hercifc,
 * asynchronously, and LANSTAT may read the tap's MAC first (guests/vm.c: set_tap_mac):
 * the supervisor sets it itself when the tap opens, before the owner hears of the tap,
 * and nothing is said while LANSTAT reports the tap_mac. */
static void tap_mac_set_before_tap_open(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    assert_int_equal(w->f.set_macs, 0);                 /* no tap yet */
    emit(w, vm, "HHCLC073I 0600: TAP device tap0 opened\n", 1);
    assert_int_equal(w->f.set_macs, 1);
    assert_int_equal(w->f.taps_at_set_mac, 0);          /* before tap_open */
    assert_int_equal(w->s.taps, 1);
    assert_string_equal(w->f.set_mac_if, "tap0");
    assert_true(w->f.netns_at_set_mac >= 0);            /* in the machine's namespace */
    assert_memory_equal(w->f.set_mac_mac, "\x02\x00\x0c\x00\x00\x01", 6);
    emit(w, vm, "HHCLC055I tap0 using MAC 02:00:0C:00:00:01\n", 2);
    assert_int_equal(w->s.mac_wrongs, 0);
    assert_string_equal(tail(w, 1), "HHCLC055I tap0 using MAC 02:00:0C:00:00:01");
    zvs_vm_destroy(vm);
}

/* What the lab saw under load: LANSTAT gave the guest the kernel's random MAC. Said in
 * the console log and to the owner, with the NIC's MAC; every LANSTAT is checked. A MAC
 * that could not be set is said at once. */
static void wrong_lanstat_mac_is_reported(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    emit(w, vm, "HHCLC073I 0600: TAP device tap0 opened\n", 1);
    emit(w, vm, "HHCLC055I tap0 using MAC AA:AA:4F:79:63:FD\n"
                "HHCLC056W tap0 NOT using MAC 02:00:0C:00:00:01\n", 2);
    const char *want = "ZVSGST1165W Machine FP1: LANSTAT gave the guest tap0's MAC "
                       "aa:aa:4f:79:63:fd, not 02:00:0c:00:00:01: the guest's MAC is not "
                       "its NIC's 02:00:0c:00:00:02";
    assert_int_equal(w->s.mac_wrongs, 1);
    assert_string_equal(w->s.mac_why, want);
    assert_string_equal(tail(w, 2), "HHCLC056W tap0 NOT using MAC 02:00:0C:00:00:01\n"
                                    "ZVSGST1165W Machine FP1: LANSTAT gave the guest tap0's MAC "
                                    "aa:aa:4f:79:63:fd, not 02:00:0c:00:00:01: the guest's "
                                    "MAC is not its NIC's 02:00:0c:00:00:02");
    assert_int_equal(zvs_vm_state(vm), ZVS_VM_RUNNING);  /* the machine goes on */
    emit(w, vm, "HHCLC055I tap0 using MAC 02:00:0C:00:00:01\n", 3);   /* a later LANSTAT */
    assert_int_equal(w->s.mac_wrongs, 1);
    zvs_vm_destroy(vm);

    w->f.set_mac_rc = -EPERM;
    w->s.taps = 0;
    vm = start(w, 10);
    emit(w, vm, "HHCLC073I 0600: TAP device tap0 opened\n", 11);
    assert_int_equal(w->s.mac_wrongs, 2);
    assert_string_equal(w->s.mac_why, "ZVSGST1165W Machine FP1: cannot set tap0's MAC to "
                        "02:00:0c:00:00:01 (Operation not permitted): the guest's MAC is "
                        "not its NIC's 02:00:0c:00:00:02");
    assert_int_equal(w->s.taps, 1);                     /* the tap is still the backend */
    zvs_vm_destroy(vm);
}

/* A machine without an LCS device has no tap MAC to set or check. */
static void no_lcs_no_mac(void **state)
{
    struct world *w = *state;
    w->spec.has_lcs = false;
    struct zvs_vm *vm = start(w, 0);
    emit(w, vm, "HHCLC055I tap0 using MAC AA:AA:4F:79:63:FD\n", 1);
    assert_int_equal(w->f.set_macs, 0);
    assert_int_equal(w->s.mac_wrongs, 0);
    zvs_vm_destroy(vm);
}

static void force_ends_it_once(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    emit(w, vm, "HHCLC073I 0600: TAP device tap0 opened\n", 1);
    zvs_vm_force(vm, 100);
    zvs_vm_force(vm, 101);
    assert_int_equal(w->f.kills, 1);     /* SIGKILL once */
    assert_int_equal(w->f.last_sig, SIGKILL);
    w->f.status = 137;
    zvs_vm_on_exit(vm, 120);
    assert_int_equal(w->s.gones, 1);
    assert_string_equal(w->s.why, "ZVSGST1169I Machine FP1 forced off");
    assert_int_equal(zvs_vm_state(vm), ZVS_VM_OFF);
    zvs_vm_destroy(vm);
}

static void signal_shutdown_then_forced_after_within(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    emit(w, vm, "HHCLC073I 0600: TAP device tap0 opened\n", 1);
    assert_int_equal(zvs_vm_signal_shutdown(vm, 30, 1000), 0);
    assert_int_equal(w->f.https, 1);
    assert_int_equal(w->f.http_port, 8081);
    assert_string_equal(w->f.req, "GET /cgi-bin/tasks/cmd?cmd=ssd HTTP/1.0\r\n"
                                  "Host: 127.0.0.1:8081\r\n\r\n");
    stdin_untouched(w);
    assert_int_equal(zvs_vm_state(vm), ZVS_VM_SHUTTING);
    assert_int_equal(zvs_vm_deadline(vm), 31000);
    zvs_vm_tick(vm, 30999);
    assert_int_equal(w->f.kills, 0);
    zvs_vm_tick(vm, 31000);
    assert_int_equal(w->f.kills, 1);
    zvs_vm_on_exit(vm, 31010);
    assert_string_equal(w->s.why, "ZVSGST1167I Machine FP1 did not shut down in time: forced");
    zvs_vm_destroy(vm);
}

static void shutdown_ends_at_the_guests_wait(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    emit(w, vm, "HHCLC073I 0600: TAP device tap0 opened\n", 1);
    assert_int_equal(zvs_vm_signal_shutdown(vm, 60, 10), 0);
    emit(w, vm, "HHCCP011I CPU0000: Disabled wait state\n          PSW=000A0000 00000000\n", 20);
    assert_int_equal(w->f.kills, 1);     /* a shut-down guest stops: the machine ends */
    w->f.status = 137;
    zvs_vm_on_exit(vm, 30);
    assert_string_equal(w->s.why, "ZVSGST1166I Machine FP1 ended: Hercules exited (status 137)");
    zvs_vm_destroy(vm);
}

static void send_types_a_console_line(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    assert_int_equal(zvs_vm_send(vm, "echo hello"), 0);
    assert_string_equal(w->f.req, "GET /cgi-bin/tasks/cmd?cmd=%2Fecho%20hello HTTP/1.0\r\n"
                                  "Host: 127.0.0.1:8081\r\n\r\n");
    /* Every byte but the unreserved ones encoded: '+' would be a blank, '&' and '#' would
     * end the value, '%' would start an escape. */
    assert_int_equal(zvs_vm_send(vm, "a+b&c=d#e%f?g h~i_j.k-l\t\xc3\xa9"), 0);
    assert_string_equal(w->f.req, "GET /cgi-bin/tasks/cmd?cmd="
                        "%2Fa%2Bb%26c%3Dd%23e%25f%3Fg%20h~i_j.k-l%09%C3%A9 HTTP/1.0\r\n"
                        "Host: 127.0.0.1:8081\r\n\r\n");
    stdin_untouched(w);
    zvs_vm_destroy(vm);
}

static void a_command_hercules_did_not_take_changes_nothing(void **state)
{
    struct world *w = *state;
    struct zvs_vm *vm = start(w, 0);
    emit(w, vm, "HHCLC073I 0600: TAP device tap0 opened\n", 1);
    w->f.http_rc = -ECONNREFUSED;       /* the HTTP server not listening (yet) */
    assert_int_equal(zvs_vm_signal_shutdown(vm, 30, 1000), -ECONNREFUSED);
    assert_int_equal(zvs_vm_state(vm), ZVS_VM_RUNNING);
    assert_int_equal(zvs_vm_deadline(vm), UINT64_MAX);
    assert_int_equal(zvs_vm_send(vm, "x"), -ECONNREFUSED);
    w->f.http_rc = 0;
    zvs_vm_force(vm, 5);
    assert_int_equal(w->f.last_sig, SIGKILL);   /* Hercules 3.13 does not end on SIGTERM */
    assert_int_equal(zvs_vm_send(vm, "x"), -EPIPE);    /* forced: nothing more goes to it */
    assert_int_equal(w->f.https, 2);
    zvs_vm_destroy(vm);
}

static void request_too_long_is_refused(void **state)
{
    (void)state;
    char big[1100], req[ZVS_VM_REQUEST_MAX + 128];
    memset(big, '/', sizeof big - 1);
    big[sizeof big - 1] = '\0';                  /* 1099 bytes, 3297 encoded */
    assert_int_equal(zvs_vm_http_request(big, req, sizeof req), -ENAMETOOLONG);
    big[1000] = '\0';
    assert_int_equal(zvs_vm_http_request(big, req, sizeof req), 3000 + 62);
    assert_int_equal(zvs_vm_http_request("ssd", req, 20), -ENAMETOOLONG);
}

static void linux_template_asks_for_ostailor(void **state)
{
    struct world *w = *state;
    char why[ZVS_VM_WHY_MAX] = "", path[ZVS_VM_PATH_MAX + 32], cnf[1024];
    snprintf(path, sizeof path, "%s/lnx.ins.template", w->dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("*ZVS ARCHMODE z/Arch\n*ZVS OSTAILOR LINUX\n*ZVS PARMLINE console=ttyS0\n"
          "own.bin 0x0\n@PARMLINE@ 0x10480\n", fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/own.bin", w->dir);
    fp = fopen(path, "w");
    fputs("x", fp);
    fclose(fp);
    w->spec.ipl = ZVS_VM_IPL_NAMED;
    snprintf(w->spec.ipl_name, sizeof w->spec.ipl_name, "LNX");
    assert_int_equal(zvs_vm_prepare(&w->spec, why, sizeof why), 0);
    snprintf(path, sizeof path, "%s/hercules.cnf", w->spec.dir);
    fp = fopen(path, "r");
    size_t n = fread(cnf, 1, sizeof cnf - 1, fp);
    cnf[n] = '\0';
    fclose(fp);
    char want[1024];
    snprintf(want, sizeof want, "# zvswitch: machine FP1 (written at XAUTOLOG)\n"
             "ARCHMODE z/Arch\nCPUMODEL 2097\nMAINSIZE 16\nNUMCPU 1\n"
             "OSTAILOR LINUX\nHTTPPORT 8081 NOAUTH\n0009 3215-C /\n"
             "0600.2 LCS -n /dev/net/tun -m 02:00:0c:00:00:01 -o %s/lcs.oat 10.77.0.50\n",
             w->spec.dir);
    assert_string_equal(cnf, want);
}

static void spawn_failure_and_missing_ins_start_nothing(void **state)
{
    struct world *w = *state;
    char why[ZVS_VM_WHY_MAX] = "";
    w->f.fail_spawn = 1;
    assert_null(zvs_vm_start(&w->spec, &w->run, &w->ev, 0, why, sizeof why));
    assert_string_equal(why, "cannot start /opt/herc/hercules: No such file or directory");
    w->f.fail_spawn = 0;
    snprintf(w->spec.ipl_path, sizeof w->spec.ipl_path, "%s/none.ins", w->dir);
    why[0] = '\0';
    assert_null(zvs_vm_start(&w->spec, &w->run, &w->ev, 0, why, sizeof why));
    /* Short: ZVSGST1163E shows it upper-cased and cut at 64 characters. */
    assert_string_equal(why, "the .ins file: No such file or directory");
    assert_int_equal(w->f.spawns, 1);
    assert_int_equal(w->s.gones, 0);
}

static void named_image_missing_says_which_file(void **state)
{
    struct world *w = *state;
    char why[ZVS_VM_WHY_MAX] = "";
    w->spec.ipl = ZVS_VM_IPL_NAMED;
    snprintf(w->spec.ipl_name, sizeof w->spec.ipl_name, "FRAMEPROG");
    assert_int_equal(zvs_vm_prepare(&w->spec, why, sizeof why), -EINVAL);
    assert_string_equal(why, "no frameprog.ins.template in the images folder");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(spawns_hercules_with_its_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(tap_line_split_across_reads_makes_it_running, setup, teardown),
        cmocka_unit_test_setup_teardown(no_tap_in_time_is_ended, setup, teardown),
        cmocka_unit_test_setup_teardown(early_exit_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(disabled_wait_is_logged_and_the_machine_stays, setup, teardown),
        cmocka_unit_test_setup_teardown(tap_mac_set_before_tap_open, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_lanstat_mac_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(no_lcs_no_mac, setup, teardown),
        cmocka_unit_test_setup_teardown(force_ends_it_once, setup, teardown),
        cmocka_unit_test_setup_teardown(signal_shutdown_then_forced_after_within, setup, teardown),
        cmocka_unit_test_setup_teardown(shutdown_ends_at_the_guests_wait, setup, teardown),
        cmocka_unit_test_setup_teardown(send_types_a_console_line, setup, teardown),
        cmocka_unit_test_setup_teardown(a_command_hercules_did_not_take_changes_nothing, setup, teardown),
        cmocka_unit_test(request_too_long_is_refused),
        cmocka_unit_test_setup_teardown(linux_template_asks_for_ostailor, setup, teardown),
        cmocka_unit_test_setup_teardown(spawn_failure_and_missing_ins_start_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(named_image_missing_says_which_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
