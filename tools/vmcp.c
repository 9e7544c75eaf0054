/* vmcp: send CP commands to vswitchd's operator console (protocol in
 * cp-commands/console_protocol.h).
 *
 *   vmcp [options] 'QUERY VSWITCH CCBVSW1 DETAILS'   one command, as s390-tools' vmcp
 *   vmcp [options]                                   one command per stdin line (ours)
 *   vmcp [-s SOCKET] --console                       stays attached, printing the
 *                                                    operator's unsolicited messages (ours)
 * The command may be given as several arguments (joined with blanks). Socket: -s, else
 * $ZVS_CONSOLE, else /run/zvswitch/console.sock.
 *
 * By default vmcp behaves as s390-tools' vmcp(8), because automation (xCAT, OpenStack's
 * z/VM drivers, s390-tools' own scripts) reads its exit status and output:
 *   - the command is upper-cased unless -k/--keepcase; at most 240 characters;
 *   - the response goes to stdout, at most --buffer bytes of it (16384 by default,
 *     4096-1048576, k/M suffixes); more is cut and reported;
 *   - exit status 0; 1 when CP's return code is non-zero (stderr: "Error: non-zero CP
 *     response for command 'Q X': #3"); 2 when the response was truncated (stderr says
 *     how long it was; s390-tools checks this first, so a truncated response with a
 *     non-zero rc also exits 2); 3 for a Linux error (vswitchd cannot be reached, the
 *     connection breaks); 4 for invalid options or a command too long. The texts are
 *     s390-tools'.
 * Ours: --exit-rc makes the exit status the CP return code itself (capped at 255; 1 when
 * the daemon cannot be reached), as vmcp exited before it followed s390-tools; the
 * response is then never cut unless --buffer is given. Commands from stdin (a console
 * session, as under CMS): each response, then CMS's ready message with a non-zero return
 * code, "Ready(00003);" (at least 5 digits: "How z/VM Responds to Your Commands", z/VM
 * 7.3 CMS User's Guide); the exit status speaks of the last command; responses are not
 * cut. Blank stdin lines are skipped; a prompt is shown when stdin is a terminal.
 * Hazards: a daemon that stops answering would hang us; replies are awaited at most
 * REPLY_TIMEOUT_S seconds.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cp-commands/console_protocol.h"
#include "cp-commands/version.h"

#define REPLY_TIMEOUT_S 60

/* s390-tools vmcp's limits and exit statuses (vmcp/vmcp.c there). */
#define CMD_MAX         240             /* CP's limit for one command */
#define BUF_DEFAULT     16384
#define BUF_MIN         4096
#define BUF_MAX         1048576
enum { VMCP_OK = 0, VMCP_CP = 1, VMCP_BUF = 2, VMCP_LIN = 3, VMCP_OPT = 4 };

/* How much of a response reaches stdout: cap bytes (0: all), and what it really had. */
struct out_limit {
    size_t cap;
    size_t total;
};

struct conn {
    int    fd;
    char   buf[4096];                   /* received, not yet consumed */
    size_t len;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vmcp [-k] [-b SIZE] [--exit-rc] [-s SOCKET] CP-command\n"
            "       vmcp [-k] [--exit-rc] [-s SOCKET]        (commands from stdin, ours)\n"
            "       vmcp [-s SOCKET] --console                (ours)\n"
            "  Sends a CP command to vswitchd and prints the response, as s390-tools' vmcp.\n"
            "  Exit status: 0; 1 non-zero CP return code (\"Error: non-zero CP response for\n"
            "  command 'CMD': #rc\" on stderr); 2 response truncated; 3 Linux error (vswitchd\n"
            "  cannot be reached); 4 invalid options or command too long (240 characters).\n"
            "  -k, --keepcase       do not convert the command to upper case\n"
            "  -b, --buffer SIZE    response bytes shown, 4096-1048576 (k or M suffix);\n"
            "                       default 16384, more is cut (exit 2)\n"
            "      --exit-rc        ours: the exit status is the CP return code (capped at\n"
            "                       255; 1 when vswitchd cannot be reached), nothing is cut\n"
            "                       unless -b is given\n"
            "  Without a command (ours): one command per stdin line; a non-zero return code\n"
            "  ends its response with CMS's ready message, e.g. Ready(00003);\n"
            "  -c, --console        ours: stay attached like an operator's console: print\n"
            "                       each unsolicited message (hh:mm:ss HCP...) until vswitchd\n"
            "                       closes the console or vmcp is interrupted\n"
            "  -s, --socket SOCKET  console socket (default $ZVS_CONSOLE or %s)\n"
            "  -v, --version        print the version and exit\n"
            "  -h, --help           this help\n",
            ZVS_CONSOLE_DEFAULT_PATH);
}

static int conn_open(struct conn *c, const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct timeval tv = { .tv_sec = REPLY_TIMEOUT_S };

    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "vmcp: socket path too long: %s\n", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    c->len = 0;
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        fprintf(stderr, "Error: Could not reach vswitchd at %s: %s\n", path, strerror(errno));
        if (c->fd >= 0)
            close(c->fd);
        return -1;
    }
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    return 0;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes n response bytes to stdout, as far as the limit lets them. */
static void emit(struct out_limit *lim, const char *p, size_t n)
{
    size_t show = n;
    if (lim->cap != 0)
        show = lim->total >= lim->cap ? 0 : (n < lim->cap - lim->total ? n : lim->cap - lim->total);
    if (show > 0)
        fwrite(p, 1, show, stdout);
    lim->total += n;
}

/* Prints response lines up to the terminator (within lim); returns the rc, or -1
 * (reported). */
static int read_response(struct conn *c, struct out_limit *lim)
{
    for (;;) {
        char *nl;
        while ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
            size_t n = (size_t)(nl - c->buf) + 1;
            bool last = c->buf[0] == ZVS_CONSOLE_RS;
            int rc = -1;
            if (last) {
                char tail[32];
                size_t tn = n - 1 < sizeof tail - 1 ? n - 1 : sizeof tail - 1;
                memcpy(tail, c->buf, tn);
                tail[tn] = '\0';
                if (sscanf(tail + 1, "RC=%d", &rc) != 1 || rc < 0) {
                    fprintf(stderr, "Error: malformed response terminator from vswitchd\n");
                    return -1;
                }
            } else {
                emit(lim, c->buf, n);
            }
            memmove(c->buf, c->buf + n, c->len - n);
            c->len -= n;
            if (last)
                return rc;
        }
        if (c->len == sizeof c->buf) {
            emit(lim, c->buf, c->len);          /* a line longer than our buffer */
            c->len = 0;
        }
        ssize_t r = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "Error: %s\n", r == 0 ? "connection closed by vswitchd"
                                                   : strerror(errno));
            return -1;
        }
        c->len += (size_t)r;
    }
}

/* Sends one command line and prints its response within lim (NULL: all). rc, or -1. */
static int run_command(struct conn *c, const char *cmd, struct out_limit *lim)
{
    struct out_limit all = { 0 };
    size_t n = strlen(cmd);
    if (send_all(c->fd, cmd, n) < 0 || send_all(c->fd, "\n", 1) < 0) {
        /* A refused connection (ZVSCON1101E not mapped, ZVSCON1106E busy) is answered and
         * closed at accept, maybe before our command went out: the answer is still in
         * our receive queue, and it is what the user needs to see. */
        if (errno != EPIPE && errno != ECONNRESET) {
            fprintf(stderr, "Error: Could not issue CP command: %s\n", strerror(errno));
            return -1;
        }
    }
    int rc = read_response(c, lim ? lim : &all);
    fflush(stdout);
    return rc;
}

/* --console: subscribe ("\x1eCONSOLE", answered "\x1eRC=0"), then print every message
 * line with its time (local hh:mm:ss, as an operator's console shows it) until the
 * daemon closes the connection. "attached" goes to stderr once the daemon has said yes,
 * so a script knows from when on nothing is missed. Returns -1 (reported) at the end. */
static int console_mode(struct conn *c, const char *path)
{
    struct timeval none = { 0 };
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);  /* wait for ever */
    if (run_command(c, ZVS_CONSOLE_REQ_SUBSCRIBE, NULL) != 0)
        return -1;
    fprintf(stderr, "vmcp: console attached to %s\n", path);
    size_t plen = strlen(ZVS_CONSOLE_MSG_PREFIX);
    for (;;) {
        char *nl;
        while ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
            *nl = '\0';
            unsigned long long sec = 0;
            int off = 0;
            if (strncmp(c->buf, ZVS_CONSOLE_MSG_PREFIX, plen) == 0 &&
                sscanf(c->buf + plen, "%llu.%*u %n", &sec, &off) == 1 && off > 0) {
                time_t t = (time_t)sec;
                struct tm tm;
                char hms[16] = "??:??:??";
                if (localtime_r(&t, &tm))
                    strftime(hms, sizeof hms, "%H:%M:%S", &tm);
                printf("%s %s\n", hms, c->buf + plen + off);
                fflush(stdout);
            }
            size_t n = (size_t)(nl - c->buf) + 1;
            memmove(c->buf, c->buf + n, c->len - n);
            c->len -= n;
        }
        if (c->len == sizeof c->buf)
            c->len = 0;                 /* a line longer than any message: skip it */
        ssize_t r = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "vmcp: %s\n", r == 0 ? "console closed by vswitchd"
                                                 : strerror(errno));
            return -1;
        }
        c->len += (size_t)r;
    }
}

/* Upper-cases a command as s390-tools' vmcp does unless --keepcase. */
static void upper(char *cmd)
{
    for (; *cmd; cmd++)
        *cmd = (char)toupper((unsigned char)*cmd);
}

/* A CP return code (or -1: reported Linux error) as the exit status: s390-tools' by
 * default, the rc itself with --exit-rc (ours). */
static int exit_status(int rc, bool exit_rc)
{
    if (rc < 0)
        return exit_rc ? 1 : VMCP_LIN;
    if (exit_rc)
        return rc > 255 ? 255 : rc;
    return rc > 0 ? VMCP_CP : VMCP_OK;
}

/* Commands from stdin (ours): rc of the last command, or -1. */
static int interactive(struct conn *c, bool keep_case)
{
    bool tty = isatty(STDIN_FILENO);
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;

    for (;;) {
        if (tty) {
            fputs("vmcp> ", stdout);
            fflush(stdout);
        }
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0)
            break;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (strspn(line, " \t") == (size_t)n)
            continue;
        if (!keep_case)
            upper(line);
        rc = run_command(c, line, NULL);
        if (rc < 0)
            break;
        if (rc != 0) {
            printf("Ready(%05d);\n", rc);        /* CMS's ready message */
            fflush(stdout);
        }
    }
    free(line);
    return rc;
}

/* --buffer SIZE: bytes, k or M; s390-tools' range. -1 if not valid. */
static long parse_buffer(const char *arg)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || strlen(end) > 1)
        return -1;
    if (*end == 'k' || *end == 'K')
        v = v > BUF_MAX ? -1 : v * 1024;
    else if (*end == 'm' || *end == 'M')
        v = v > BUF_MAX ? -1 : v * 1048576;
    else if (*end != '\0')
        return -1;
    return v < BUF_MIN || v > BUF_MAX ? -1 : v;
}

/* The arguments joined with blanks into cmd[CMD_MAX + 1]; false if too long. */
static bool join_command(int argc, char **argv, int first, char *cmd)
{
    size_t len = 0;
    cmd[0] = '\0';
    for (int i = first; i < argc; i++) {
        size_t n = strlen(argv[i]) + (len > 0 ? 1 : 0);
        if (len + n > CMD_MAX)
            return false;
        if (len > 0)
            cmd[len++] = ' ';
        memcpy(cmd + len, argv[i], strlen(argv[i]) + 1);
        len += strlen(argv[i]);
    }
    return true;
}

int main(int argc, char **argv)
{
    const char *path = getenv("ZVS_CONSOLE");
    struct conn c;
    int opt, rc;
    bool console = false, keep_case = false, exit_rc = false;
    long buffer = 0;

    if (path == NULL || path[0] == '\0')
        path = ZVS_CONSOLE_DEFAULT_PATH;
    static const struct option longopts[] = {
        { "socket", required_argument, NULL, 's' },
        { "console", no_argument, NULL, 'c' },
        { "keepcase", no_argument, NULL, 'k' },
        { "buffer", required_argument, NULL, 'b' },
        { "exit-rc", no_argument, NULL, 'R' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'v' },
        { NULL, 0, NULL, 0 },
    };
    while ((opt = getopt_long(argc, argv, "+s:ckb:hv", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            path = optarg;
            break;
        case 'c':
            console = true;
            break;
        case 'k':
            keep_case = true;
            break;
        case 'b':
            buffer = parse_buffer(optarg);
            if (buffer < 0) {
                fprintf(stderr, "Error: Invalid buffersize (needs to be between %d and %d)\n",
                        BUF_MIN, BUF_MAX);
                return VMCP_OPT;
            }
            break;
        case 'R':
            exit_rc = true;
            break;
        case 'h':
            usage(stdout);
            return VMCP_OK;
        case 'v':
            printf("vmcp (zvswitch) %s\n", zvs_version());
            return VMCP_OK;
        default:
            fprintf(stderr, "Try 'vmcp --help' for more information.\n");
            return VMCP_OPT;
        }
    }
    if (console && optind < argc) {
        fprintf(stderr, "Error: --console takes no command\n");
        return VMCP_OPT;
    }
    char cmd[CMD_MAX + 1];
    if (!join_command(argc, argv, optind, cmd)) {
        fprintf(stderr, "Error: Command too long (cannot be longer than %d characters)\n",
                CMD_MAX);
        return VMCP_OPT;
    }
    if (!keep_case)
        upper(cmd);
    signal(SIGPIPE, SIG_IGN);
    if (conn_open(&c, path) < 0)
        return exit_status(-1, exit_rc);
    if (console) {
        rc = console_mode(&c, path);
    } else if (optind == argc) {
        rc = interactive(&c, keep_case);
    } else {
        struct out_limit lim = { .cap = (size_t)(buffer > 0 ? buffer : exit_rc ? 0 : BUF_DEFAULT) };
        rc = run_command(&c, cmd, &lim);
        if (rc >= 0 && lim.cap != 0 && lim.total > lim.cap) {
            fprintf(stderr, "Error: output (%zu bytes) was truncated, try --buffer to increase size\n",
                    lim.total);
            close(c.fd);
            return exit_rc ? exit_status(rc, true) : VMCP_BUF;
        }
        if (rc > 0)                             /* s390-tools vmcp's message */
            fprintf(stderr, "Error: non-zero CP response for command '%s': #%d\n", cmd, rc);
    }
    close(c.fd);
    return exit_status(rc, exit_rc);
}
