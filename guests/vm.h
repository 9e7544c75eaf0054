/* guests/: Hercules-emulated s390 machines as z/VM virtual machines (issue 13).
 *
 * A machine is one Hercules process in a network namespace of its own (so its LCS tap is
 * always tap0 there and the emulator's address and route changes stay out of the host's
 * namespace). This module writes its Hercules configuration (vm_conf.c), runs and
 * supervises the process through an injected runner (the real one, runner.c, forks and
 * execs; tests inject a fake), keeps the console log (a file per machine: everything the
 * emulator prints, which includes the guest's 3215 console, plus our own HCP lines), and
 * tells its owner when the LCS tap is open (HHCLC073I) and when the machine is gone.
 * Nothing here blocks: the owner watches zvs_vm_out_fd (readable: zvs_vm_on_output) and
 * zvs_vm_exit_fd (a pidfd, readable when the process ended: zvs_vm_on_exit) in its event
 * loop and calls zvs_vm_tick at zvs_vm_deadline.
 *
 * States: STARTING (spawned; the tap must open within ZVS_VM_TAP_TIMEOUT_MS) -> RUNNING
 * -> (SIGNAL SHUTDOWN) SHUTTING (the guest has its WITHIN seconds) -> OFF. A disabled
 * wait (HHCCP011I) leaves the machine logged on, as CP does, with the HCP450W line in the
 * console log; in SHUTTING it ends the machine (a shut-down guest stops).
 */
#ifndef ZVS_GUESTS_VM_H
#define ZVS_GUESTS_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZVS_VM_TAP_TIMEOUT_MS 10000     /* XAUTOLOG to the LCS tap opened */
#define ZVS_VM_PATH_MAX       256
#define ZVS_VM_WHY_MAX        160
/* Hercules' HTTP command interface (HTTPPORT in hercules.cnf): how SIGNAL SHUTDOWN and SEND
 * reach the emulator, because `hercules -d` does not read commands from stdin. Hercules
 * 3.13 cannot bind it to an address, so it listens on every address of the machine's own
 * network namespace: lo, and tap0, which has no IPv4 address (Hercules sets 0.0.0.0), so
 * only this host, entering that namespace, can reach it. The same port in every machine. */
#define ZVS_VM_HTTP_PORT      8081
#define ZVS_VM_REQUEST_MAX    3200      /* a command URL-encoded (3 bytes each) + the rest */

enum zvs_vm_ipl { ZVS_VM_IPL_NAMED = 1, ZVS_VM_IPL_INS = 2 };

/* What to run: from the directory entry (the daemon translates it; no cp-commands here). */
struct zvs_vm_spec {
    char     userid[9];
    char     dir[ZVS_VM_PATH_MAX];      /* the machine's folder: configuration, log */
    char     images[ZVS_VM_PATH_MAX];   /* where named images are (build/guests) */
    char     hercules[ZVS_VM_PATH_MAX]; /* the emulator program ("hercules") */
    enum zvs_vm_ipl ipl;
    char     ipl_name[17];              /* IPL name (upper case): <images>/<lower>.* */
    char     ipl_path[201];             /* IPL INS path */
    uint32_t mainsize_mb;               /* USER storage, rounded up to MB */
    bool     has_lcs;
    uint16_t lcs_devno;
    uint8_t  nic_mac[6];                /* the guest's MAC (the NIC's) */
    uint8_t  tap_mac[6];                /* the tap's: the NIC's minus one in the last byte */
    uint32_t ip;                        /* GUESTIP, host byte order, 0: none */
    uint8_t  prefix;
    uint32_t gw;
};

/* The process side, injected (runner.c is the real one). spawn starts `argv` in `dir`
 * with the environment entries `env` added, in a new network namespace, stdout and
 * stderr to a pipe and stdin from a pipe (never written: `hercules -d` does not read it;
 * kept open so the emulator never sees an end of file); it fills the pid, a pidfd
 * (readable at exit), the pipes' ends (non-blocking, close-on-exec) and a descriptor of
 * the namespace. 0 or -errno (with why filled). kill sends a signal; reap collects the
 * exit status (0 or -errno). http sends the `len` bytes of an HTTP request to
 * 127.0.0.1:port inside the machine's namespace and waits (bounded, about a second) for
 * the answer's status: 0 for 200, else -errno (ECONNREFUSED: nothing listens yet,
 * ETIMEDOUT, EPROTO: another status). set_mac sets the MAC of interface `ifname` in the
 * machine's namespace (SIOCSIFHWADDR): 0 or -errno; NULL: not done. */
struct zvs_vm_proc {
    int pid, pidfd, out_fd, in_fd, netns_fd;
};
struct zvs_vm_runner {
    int  (*spawn)(void *ctx, const char *dir, char *const argv[], char *const env[],
                  struct zvs_vm_proc *out, char *why, size_t whylen);
    int  (*kill)(void *ctx, const struct zvs_vm_proc *p, int sig);
    int  (*reap)(void *ctx, const struct zvs_vm_proc *p, int *status);
    int  (*http)(void *ctx, const struct zvs_vm_proc *p, uint16_t port, const char *req,
                 size_t len);
    int  (*set_mac)(void *ctx, const struct zvs_vm_proc *p, const char *ifname,
                    const uint8_t mac[6]);
    void *ctx;
};
extern const struct zvs_vm_runner zvs_vm_runner_linux;

enum zvs_vm_state { ZVS_VM_OFF, ZVS_VM_STARTING, ZVS_VM_RUNNING, ZVS_VM_SHUTTING };

struct zvs_vm;

/* What the owner hears. tap_open: the LCS tap `ifname` exists in namespace netns_fd
 * (valid until gone); its MAC is already the spec's tap_mac (set_mac) unless mac_wrong
 * says otherwise. gone: the machine has ended (process exited, FORCE, no tap in time);
 * `why` is the HCP line also written to the log. mac_wrong: the guest will not carry its
 * NIC's MAC (the tap's MAC could not be set, or Hercules' LANSTAT reported another);
 * `why` is the ZVSGST1165W line also written to the log. Any may be NULL. */
struct zvs_vm_events {
    void (*tap_open)(void *ctx, struct zvs_vm *vm, int netns_fd, const char *ifname);
    void (*gone)(void *ctx, struct zvs_vm *vm, const char *why);
    void (*mac_wrong)(void *ctx, struct zvs_vm *vm, const char *why);
    void *ctx;
};

/* Writes the machine's folder (vm_conf.c): hercules.cnf, hercules.rc, the OAT file, and
 * for a named image the .ins with the image's files and the parameters. 0, or -errno
 * with why ("image FRAMEPROG: no /x/frameprog.ins.template", ...). */
int zvs_vm_prepare(const struct zvs_vm_spec *spec, char *why, size_t whylen);

/* Prepares and starts the machine. NULL with why filled when it cannot start. */
struct zvs_vm *zvs_vm_start(const struct zvs_vm_spec *spec, const struct zvs_vm_runner *run,
                            const struct zvs_vm_events *ev, uint64_t now_ms,
                            char *why, size_t whylen);
/* Ends the process at once (SIGKILL, then reaped when its pidfd says so) and frees the
 * machine when it is reaped; after zvs_vm_destroy nothing is called back. */
void zvs_vm_destroy(struct zvs_vm *vm);

void zvs_vm_on_output(struct zvs_vm *vm, uint64_t now_ms);
void zvs_vm_on_exit(struct zvs_vm *vm, uint64_t now_ms);
void zvs_vm_tick(struct zvs_vm *vm, uint64_t now_ms);
/* The next instant zvs_vm_tick has work, UINT64_MAX: none. */
uint64_t zvs_vm_deadline(const struct zvs_vm *vm);

/* FORCE: SIGKILL now; gone is called when the process is reaped. */
void zvs_vm_force(struct zvs_vm *vm, uint64_t now_ms);
/* SIGNAL SHUTDOWN: Hercules' ssd (the SCLP signal-quiesce a Linux guest shuts down on),
 * over the HTTP command interface; FORCE after within_s. 0 or the runner's -errno (the
 * state does not change then). */
int  zvs_vm_signal_shutdown(struct zvs_vm *vm, uint32_t within_s, uint64_t now_ms);
/* SEND: the text as a line of the guest's 3215 console ("/" + text to Hercules). */
int  zvs_vm_send(struct zvs_vm *vm, const char *text);
/* The HTTP request that has Hercules run panel command cmd (URL-encoded): what
 * zvs_vm_signal_shutdown and zvs_vm_send hand the runner. Its length, or -ENAMETOOLONG. */
int  zvs_vm_http_request(const char *cmd, char *buf, size_t size);

enum zvs_vm_state zvs_vm_state(const struct zvs_vm *vm);
/* Whether the user is logged on as CP sees it: false once its machine ended, and from the
 * moment of FORCE, which logs the user off when it answers, although its Hercules is reaped
 * later; QUERY NAMES and the USERS count follow this. (A machine that ends otherwise, a
 * shutdown or a disabled wait, is logged on until its Hercules is gone and its console log
 * has its last line.) */
bool zvs_vm_logged_on(const struct zvs_vm *vm);
const char *zvs_vm_userid(const struct zvs_vm *vm);
const char *zvs_vm_log_path(const struct zvs_vm *vm);
const char *zvs_vm_tap(const struct zvs_vm *vm);    /* "" until HHCLC073I */
int  zvs_vm_out_fd(const struct zvs_vm *vm);
int  zvs_vm_exit_fd(const struct zvs_vm *vm);
int  zvs_vm_pid(const struct zvs_vm *vm);
int  zvs_vm_netns_fd(const struct zvs_vm *vm);      /* -1 once the machine ended */
const struct zvs_vm_spec *zvs_vm_spec(const struct zvs_vm *vm);
uint64_t zvs_vm_started_ms(const struct zvs_vm *vm);

/* The last n lines of a console log into buf (NUL-terminated, at most size-1 bytes; the
 * oldest lines are left out when it is too small). Returns the number of lines, or
 * -errno. */
int zvs_vm_log_tail(const char *path, unsigned n, char *buf, size_t size);

#endif
