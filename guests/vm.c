/* One machine's supervisor: the state machine of vm.h over an injected runner.
 *
 * The emulator's output is read in whatever pieces the pipe gives, appended to the
 * console log as it comes, and split into lines for the four it acts on:
 *   HHCLC073I <devno>: TAP device <name> opened  the LCS tap exists: its MAC set to the
 *                                                spec's tap_mac (set_mac), then
 *                                                tap_open, RUNNING
 *   HHCLC055I <name> using MAC <mac>             LANSTAT told the guest <mac>: not the
 *                                                tap_mac means the guest's MAC is not
 *                                                its NIC's: ZVSGST1165W, mac_wrong
 *   HHCCP011I ... Disabled wait state            HCP450W in the log (the PSW from the
 *                                                next PSW= text); SHUTTING: the end
 *   HHCCP... stopped / HHCIN900I                 nothing: the exit itself is what counts
 * A line longer than the buffer is logged and not matched. The process' end is its
 * pidfd becoming readable; the state then goes OFF and gone is called once. */
#include "guests/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX_ 512

struct zvs_vm {
    struct zvs_vm_spec   spec;
    struct zvs_vm_runner run;
    struct zvs_vm_events ev;
    struct zvs_vm_proc   proc;
    enum zvs_vm_state    state;
    int                  log_fd;
    char                 log_path[ZVS_VM_PATH_MAX + 16];
    char                 tap[32];
    char                 line[LINE_MAX_];
    size_t               nline;
    bool                 wait_psw;          /* HHCCP011I seen: the PSW follows */
    bool                 killed;            /* SIGKILL sent */
    bool                 forced;            /* FORCE: logged off for CP at once */
    bool                 destroyed;         /* the owner let go: free when reaped */
    char                 end_why[ZVS_VM_WHY_MAX];
    uint64_t             started_ms;
    uint64_t             deadline_ms;       /* tap (STARTING) or shutdown (SHUTTING) */
};

static void log_text(struct zvs_vm *vm, const char *s, size_t n)
{
    if (vm->log_fd >= 0)
        (void)!write(vm->log_fd, s, n);
}

/* One of our own lines in the console log (as CP writes on a guest's console). */
static void log_line(struct zvs_vm *vm, const char *s)
{
    log_text(vm, s, strlen(s));
    log_text(vm, "\n", 1);
}

static void kill_now(struct zvs_vm *vm, const char *why)
{
    if (vm->end_why[0] == '\0' && why != NULL)
        snprintf(vm->end_why, sizeof vm->end_why, "%s", why);
    if (!vm->killed && vm->proc.pid > 0) {
        vm->killed = true;
        (void)vm->run.kill(vm->run.ctx, &vm->proc, SIGKILL);
    }
}

static void mac_str(const uint8_t m[6], char *buf, size_t size)
{
    snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* ZVSGST1165W in the console log and to the owner: the guest will not carry its NIC's MAC. */
static void mac_wrong(struct zvs_vm *vm, const char *what)
{
    char why[ZVS_VM_WHY_MAX + 160], nic[18];
    mac_str(vm->spec.nic_mac, nic, sizeof nic);
    snprintf(why, sizeof why, "ZVSGST1165W Machine %s: %s: the guest's MAC is not its NIC's %s",
             vm->spec.userid, what, nic);
    log_line(vm, why);
    if (vm->ev.mac_wrong)
        vm->ev.mac_wrong(vm->ev.ctx, vm, why);
}

/* The tap just opened. Hercules 3.13 sets the tap's MAC (the -m option, HWADD) only at
 * the guest's LCS STARTUP, through hercifc: IFC_IOCtl in tuntap.c writes the request to
 * that helper's socket and returns, and the helper is forked and exec'd at that first
 * request, so the ioctl happens whenever it gets the CPU. LANSTAT (LCS_LanStats in
 * ctc_lcs.c) reads the tap's MAC with its own SIOCGIFHWADDR, and on a loaded machine
 * that came first: the guest got the kernel's random MAC (HHCLC055I with it, HHCLC056W
 * "NOT using MAC" the -m one, in the lab's console log). Hercules prints HHCLC073I while
 * it reads its configuration, before hercules.rc's IPL, and the guest's LANSTAT follows
 * STARTLAN, which pauses 250 ms: setting the MAC here wins by that margin, with no helper
 * to start (hercifc later sets the same value). Only a daemon that does not read this
 * line for all that time still loses; check_lanstat says so then. */
static void set_tap_mac(struct zvs_vm *vm)
{
    if (!vm->spec.has_lcs || vm->run.set_mac == NULL)
        return;
    int rc = vm->run.set_mac(vm->run.ctx, &vm->proc, vm->tap, vm->spec.tap_mac);
    if (rc < 0) {
        char what[160], mac[18];
        mac_str(vm->spec.tap_mac, mac, sizeof mac);
        snprintf(what, sizeof what, "cannot set %s's MAC to %s (%s)", vm->tap, mac,
                 strerror(-rc));
        mac_wrong(vm, what);
    }
}

/* HHCLC055I: the MAC LCS_LanStats gave the guest (Hercules 3.13's LANSTAT reply; the
 * guest then uses it plus one in the last byte, guests/README.md). */
static void check_lanstat(struct zvs_vm *vm, const char *p)
{
    char name[32];
    unsigned m[6];
    if (!vm->spec.has_lcs ||
        sscanf(p, "HHCLC055I %31s using MAC %2x:%2x:%2x:%2x:%2x:%2x", name, &m[0], &m[1],
               &m[2], &m[3], &m[4], &m[5]) != 7)
        return;
    uint8_t got[6];
    for (int i = 0; i < 6; i++)
        got[i] = (uint8_t)m[i];
    if (memcmp(got, vm->spec.tap_mac, 6) == 0)
        return;
    char what[160], g[18], want[18];
    mac_str(got, g, sizeof g);
    mac_str(vm->spec.tap_mac, want, sizeof want);
    snprintf(what, sizeof what, "LANSTAT gave the guest %s's MAC %s, not %s", name, g, want);
    mac_wrong(vm, what);
}

static void on_line(struct zvs_vm *vm, const char *l)
{
    const char *p;

    if ((p = strstr(l, "HHCLC073I")) != NULL && vm->state == ZVS_VM_STARTING) {
        const char *t = strstr(p, "TAP device ");
        char name[32];
        if (t != NULL && sscanf(t + 11, "%31s", name) == 1) {
            snprintf(vm->tap, sizeof vm->tap, "%s", name);
            vm->state = ZVS_VM_RUNNING;
            vm->deadline_ms = UINT64_MAX;
            set_tap_mac(vm);
            if (vm->ev.tap_open)
                vm->ev.tap_open(vm->ev.ctx, vm, vm->proc.netns_fd, vm->tap);
        }
        return;
    }
    if ((p = strstr(l, "HHCLC055I")) != NULL) {
        check_lanstat(vm, p);
        return;
    }
    if (strstr(l, "HHCCP011I") != NULL && strstr(l, "isabled wait") != NULL) {
        vm->wait_psw = true;
        p = strstr(l, "PSW=");
    } else if (vm->wait_psw) {
        p = strstr(l, "PSW=");
    } else {
        return;
    }
    if (p == NULL)
        return;                         /* the PSW is on the next line */
    char w1[16] = "", w2[16] = "", msg[128];
    vm->wait_psw = false;
    (void)sscanf(p + 4, "%15s %15s", w1, w2);
    snprintf(msg, sizeof msg, "HCPGIR450W CP entered; disabled wait PSW %s %s", w1, w2);
    log_line(vm, msg);
    if (vm->state == ZVS_VM_SHUTTING)
        kill_now(vm, NULL);             /* shut down: the machine is done */
}

void zvs_vm_on_output(struct zvs_vm *vm, uint64_t now_ms)
{
    char buf[4096];
    ssize_t n;

    while ((n = read(vm->proc.out_fd, buf, sizeof buf)) > 0) {
        log_text(vm, buf, (size_t)n);
        for (ssize_t i = 0; i < n; i++) {
            char ch = buf[i];
            if (ch == '\n') {
                vm->line[vm->nline < LINE_MAX_ ? vm->nline : LINE_MAX_ - 1] = '\0';
                if (vm->nline < LINE_MAX_)
                    on_line(vm, vm->line);
                vm->nline = 0;
            } else if (vm->nline < LINE_MAX_) {
                vm->line[vm->nline++] = ch;
            }
        }
    }
}

static void end_machine(struct zvs_vm *vm)
{
    char why[ZVS_VM_WHY_MAX + 64];
    int status = 0;

    (void)vm->run.reap(vm->run.ctx, &vm->proc, &status);
    if (vm->end_why[0] == '\0') {
        if (vm->state == ZVS_VM_STARTING)
            snprintf(vm->end_why, sizeof vm->end_why,
                     "ZVSGST1164E Machine %s did not start: Hercules exited (status %d) before "
                     "opening its LCS tap", vm->spec.userid, status);
        else
            snprintf(vm->end_why, sizeof vm->end_why,
                     "ZVSGST1166I Machine %s ended: Hercules exited (status %d)", vm->spec.userid,
                     status);
    }
    snprintf(why, sizeof why, "%s", vm->end_why);
    log_line(vm, why);
    vm->state = ZVS_VM_OFF;
    if (vm->proc.pidfd >= 0)
        close(vm->proc.pidfd);
    if (vm->proc.out_fd >= 0)
        close(vm->proc.out_fd);
    if (vm->proc.in_fd >= 0)
        close(vm->proc.in_fd);
    if (vm->proc.netns_fd >= 0)
        close(vm->proc.netns_fd);
    vm->proc = (struct zvs_vm_proc){ .pid = -1, .pidfd = -1, .out_fd = -1, .in_fd = -1,
                                     .netns_fd = -1 };
    if (!vm->destroyed && vm->ev.gone)
        vm->ev.gone(vm->ev.ctx, vm, why);
}

void zvs_vm_on_exit(struct zvs_vm *vm, uint64_t now_ms)
{
    if (vm->state == ZVS_VM_OFF)
        return;
    if (vm->proc.out_fd >= 0)
        zvs_vm_on_output(vm, now_ms);   /* the last words first */
    end_machine(vm);
    if (vm->destroyed) {
        if (vm->log_fd >= 0)
            close(vm->log_fd);
        free(vm);
    }
}

void zvs_vm_tick(struct zvs_vm *vm, uint64_t now_ms)
{
    char why[ZVS_VM_WHY_MAX];

    if (now_ms < vm->deadline_ms)
        return;
    vm->deadline_ms = UINT64_MAX;
    if (vm->state == ZVS_VM_STARTING) {
        snprintf(why, sizeof why, "ZVSGST1164E Machine %s did not start: no LCS tap within %u s",
                 vm->spec.userid, ZVS_VM_TAP_TIMEOUT_MS / 1000);
        kill_now(vm, why);
    } else if (vm->state == ZVS_VM_SHUTTING) {
        snprintf(why, sizeof why, "ZVSGST1167I Machine %s did not shut down in time: forced",
                 vm->spec.userid);
        kill_now(vm, why);
    }
}

uint64_t zvs_vm_deadline(const struct zvs_vm *vm)
{
    return vm->deadline_ms;
}

struct zvs_vm *zvs_vm_start(const struct zvs_vm_spec *spec, const struct zvs_vm_runner *run,
                            const struct zvs_vm_events *ev, uint64_t now_ms, char *why,
                            size_t whylen)
{
    struct zvs_vm *vm = calloc(1, sizeof *vm);
    if (vm == NULL) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    vm->spec = *spec;
    vm->run = *run;
    if (ev != NULL)
        vm->ev = *ev;
    vm->proc = (struct zvs_vm_proc){ .pid = -1, .pidfd = -1, .out_fd = -1, .in_fd = -1,
                                     .netns_fd = -1 };
    vm->log_fd = -1;
    if (zvs_vm_prepare(spec, why, whylen) < 0)
        goto fail;
    snprintf(vm->log_path, sizeof vm->log_path, "%s/console.log", spec->dir);
    vm->log_fd = open(vm->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (vm->log_fd < 0) {
        snprintf(why, whylen, "%s: %s", vm->log_path, strerror(errno));
        goto fail;
    }
    char cnf[ZVS_VM_PATH_MAX + 16], rc[ZVS_VM_PATH_MAX + 32], hdr[ZVS_VM_PATH_MAX + 64];
    snprintf(cnf, sizeof cnf, "%s/hercules.cnf", spec->dir);
    snprintf(rc, sizeof rc, "HERCULES_RC=%s/hercules.rc", spec->dir);
    char *argv[] = { vm->spec.hercules, "-d", "-f", cnf, NULL };
    char *env[] = { rc, NULL };
    snprintf(hdr, sizeof hdr, "ZVSGST1168I XAUTOLOG %s: starting %s", spec->userid, spec->hercules);
    log_line(vm, hdr);
    if (run->spawn(run->ctx, spec->dir, argv, env, &vm->proc, why, whylen) < 0)
        goto fail;
    vm->state = ZVS_VM_STARTING;
    vm->started_ms = now_ms;
    vm->deadline_ms = spec->has_lcs ? now_ms + ZVS_VM_TAP_TIMEOUT_MS : UINT64_MAX;
    if (!spec->has_lcs)
        vm->state = ZVS_VM_RUNNING;     /* nothing to wait for */
    return vm;
fail:
    if (vm->log_fd >= 0)
        close(vm->log_fd);
    free(vm);
    return NULL;
}

void zvs_vm_destroy(struct zvs_vm *vm)
{
    if (vm == NULL)
        return;
    vm->destroyed = true;
    if (vm->state == ZVS_VM_OFF) {
        if (vm->log_fd >= 0)
            close(vm->log_fd);
        free(vm);
        return;
    }
    kill_now(vm, NULL);
    /* Reaped now: SIGKILL cannot be refused, and the owner stops watching the pidfd. */
    zvs_vm_on_exit(vm, 0);
}

void zvs_vm_force(struct zvs_vm *vm, uint64_t now_ms)
{
    char why[ZVS_VM_WHY_MAX];
    snprintf(why, sizeof why, "ZVSGST1169I Machine %s forced off", vm->spec.userid);
    vm->forced = true;
    kill_now(vm, why);
}

/* Unreserved characters (RFC 3986) as they are, every other byte %XX: Hercules' CGI
 * decoding turns '+' into a blank, so a '+' in the text must be encoded too. */
int zvs_vm_http_request(const char *cmd, char *buf, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    char enc[ZVS_VM_REQUEST_MAX];
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)cmd; *c; c++) {
        if (n + 4 > sizeof enc)
            return -ENAMETOOLONG;
        if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
            *c == '-' || *c == '.' || *c == '_' || *c == '~') {
            enc[n++] = (char)*c;
        } else {
            enc[n++] = '%';
            enc[n++] = hex[*c >> 4];
            enc[n++] = hex[*c & 15];
        }
    }
    enc[n] = '\0';
    int len = snprintf(buf, size, "GET /cgi-bin/tasks/cmd?cmd=%s HTTP/1.0\r\n"
                       "Host: 127.0.0.1:%u\r\n\r\n", enc, (unsigned)ZVS_VM_HTTP_PORT);
    return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : len;
}

static int to_emulator(struct zvs_vm *vm, const char *cmd)
{
    char req[ZVS_VM_REQUEST_MAX + 128];
    if (vm->proc.pid <= 0 || vm->killed)
        return -EPIPE;
    if (vm->run.http == NULL)
        return -ENOTSUP;
    int len = zvs_vm_http_request(cmd, req, sizeof req);
    if (len < 0)
        return len;
    return vm->run.http(vm->run.ctx, &vm->proc, ZVS_VM_HTTP_PORT, req, (size_t)len);
}

int zvs_vm_signal_shutdown(struct zvs_vm *vm, uint32_t within_s, uint64_t now_ms)
{
    int rc = to_emulator(vm, "ssd");
    if (rc < 0)
        return rc;
    vm->state = ZVS_VM_SHUTTING;
    vm->deadline_ms = now_ms + (uint64_t)within_s * 1000u;
    return 0;
}

int zvs_vm_send(struct zvs_vm *vm, const char *text)
{
    char line[1100];
    snprintf(line, sizeof line, "/%s", text);
    return to_emulator(vm, line);
}

enum zvs_vm_state zvs_vm_state(const struct zvs_vm *vm) { return vm->state; }
bool zvs_vm_logged_on(const struct zvs_vm *vm) { return vm->state != ZVS_VM_OFF && !vm->forced; }
const char *zvs_vm_userid(const struct zvs_vm *vm) { return vm->spec.userid; }
const char *zvs_vm_log_path(const struct zvs_vm *vm) { return vm->log_path; }
const char *zvs_vm_tap(const struct zvs_vm *vm) { return vm->tap; }
int zvs_vm_out_fd(const struct zvs_vm *vm) { return vm->proc.out_fd; }
int zvs_vm_exit_fd(const struct zvs_vm *vm) { return vm->proc.pidfd; }
int zvs_vm_pid(const struct zvs_vm *vm) { return vm->proc.pid; }
int zvs_vm_netns_fd(const struct zvs_vm *vm) { return vm->proc.netns_fd; }
const struct zvs_vm_spec *zvs_vm_spec(const struct zvs_vm *vm) { return &vm->spec; }
uint64_t zvs_vm_started_ms(const struct zvs_vm *vm) { return vm->started_ms; }

int zvs_vm_log_tail(const char *path, unsigned n, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    off_t end = lseek(fd, 0, SEEK_END);
    size_t want = size - 1;
    off_t from = end > (off_t)want ? end - (off_t)want : 0;
    ssize_t got = pread(fd, buf, want, from);
    close(fd);
    if (got < 0)
        return -errno;
    buf[got] = '\0';
    /* Keep the last n lines (a final line without '\n' counts). */
    size_t len = (size_t)got;
    if (len > 0 && buf[len - 1] == '\n')
        len--;
    unsigned lines = 0;
    size_t start = len;
    while (start > 0 && lines < n) {
        start--;
        if (buf[start] == '\n') {
            lines++;
            if (lines == n) {
                start++;
                break;
            }
        }
    }
    if (start == 0 && lines < n && len > 0)
        lines++;
    memmove(buf, buf + start, (size_t)got - start);
    buf[(size_t)got - start] = '\0';
    return (int)lines;
}
