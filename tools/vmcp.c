/* vmcp: send CP commands to vswitchd's operator console (protocol in
 * cp-commands/console_protocol.h).
 *
 *   vmcp [-s SOCKET] 'QUERY VSWITCH CCBVSW1 DETAILS'   one command; exit status = CP rc
 *   vmcp [-s SOCKET]                                   one command per stdin line
 *   vmcp [-s SOCKET] --console                         stays attached, printing the
 *                                                      operator's unsolicited messages
 * The command may also be given as several arguments (joined with blanks, as Linux's vmcp
 * does). Socket: -s, else $ZVS_CONSOLE, else /run/zvswitch/console.sock.
 * A non-zero CP return code is reported as IBM documents it for each way of issuing
 * commands:
 *   - one command (Linux's vmcp): the response on stdout, then on stderr
 *       Error: non-zero CP response for command 'Q X': #3
 *     the text of IBM's vmcp(8) (s390-tools man page, RETURN CODES; the command as sent);
 *   - commands from stdin (a console session, as under CMS): the response, then CMS's
 *     ready message with the return code, "Ready(00003);" (at least 5 digits, leading
 *     zeros: "How z/VM Responds to Your Commands", z/VM 7.3 CMS User's Guide); a zero rc
 *     prints nothing, as before (short of CMS's plain "Ready;", which would only pad
 *     every response of a script).
 * Exit status: the CP return code (of the last command from stdin), capped at 255: ours.
 * IBM's vmcp exits 1 for any non-zero CP rc and gives the number only in its message;
 * we keep the number because scripts and REXX-style automation test it. 1 with a
 * "vmcp:" message on stderr when the daemon cannot be reached or the connection breaks.
 * Blank stdin lines are skipped; a prompt is shown when stdin is a terminal.
 * Hazards: a daemon that stops answering would hang us; replies are awaited at most
 * REPLY_TIMEOUT_S seconds.
 */
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

struct conn {
    int    fd;
    char   buf[4096];                   /* received, not yet consumed */
    size_t len;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vmcp [-s SOCKET] [CP command ...]\n"
            "  Sends a CP command to vswitchd and prints the response; a non-zero CP return\n"
            "  code adds \"Error: non-zero CP response for command 'CMD': #rc\" on stderr (as\n"
            "  IBM's vmcp). The exit status is the CP return code (capped at 255; 1 when the\n"
            "  daemon cannot be reached).\n"
            "  Without a command: reads one command per line from stdin; a non-zero return\n"
            "  code ends the response with CMS's ready message, e.g. Ready(00003);\n"
            "  -c, --console        stay attached like an operator's console: print each\n"
            "                       unsolicited message (hh:mm:ss HCP...) until vswitchd\n"
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
        fprintf(stderr, "vmcp: cannot reach vswitchd at %s: %s\n", path, strerror(errno));
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

/* Prints response lines up to the terminator; returns the rc, or -1 (reported). */
static int read_response(struct conn *c)
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
                    fprintf(stderr, "vmcp: malformed response terminator\n");
                    return -1;
                }
            } else {
                fwrite(c->buf, 1, n, stdout);
            }
            memmove(c->buf, c->buf + n, c->len - n);
            c->len -= n;
            if (last)
                return rc;
        }
        if (c->len == sizeof c->buf) {
            fwrite(c->buf, 1, c->len, stdout);  /* a line longer than our buffer */
            c->len = 0;
        }
        ssize_t r = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "vmcp: %s\n", r == 0 ? "connection closed by vswitchd"
                                                 : strerror(errno));
            return -1;
        }
        c->len += (size_t)r;
    }
}

/* Sends one command line and prints its response. rc, or -1. */
static int run_command(struct conn *c, const char *cmd)
{
    size_t n = strlen(cmd);
    if (send_all(c->fd, cmd, n) < 0 || send_all(c->fd, "\n", 1) < 0) {
        /* A refused connection (HCP1101E not mapped, HCP1106E busy) is answered and
         * closed at accept, maybe before our command went out: the answer is still in
         * our receive queue, and it is what the user needs to see. */
        if (errno != EPIPE && errno != ECONNRESET) {
            fprintf(stderr, "vmcp: cannot send: %s\n", strerror(errno));
            return -1;
        }
    }
    int rc = read_response(c);
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
    if (run_command(c, ZVS_CONSOLE_REQ_SUBSCRIBE) != 0)
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

static int exit_status(int rc)
{
    if (rc < 0)
        return 1;
    return rc > 255 ? 255 : rc;
}

static int interactive(struct conn *c)
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
        rc = run_command(c, line);
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

int main(int argc, char **argv)
{
    const char *path = getenv("ZVS_CONSOLE");
    struct conn c;
    int opt, rc;
    bool console = false;

    if (path == NULL || path[0] == '\0')
        path = ZVS_CONSOLE_DEFAULT_PATH;
    static const struct option longopts[] = {
        { "socket", required_argument, NULL, 's' },
        { "console", no_argument, NULL, 'c' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'v' },
        { NULL, 0, NULL, 0 },
    };
    while ((opt = getopt_long(argc, argv, "+s:chv", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            path = optarg;
            break;
        case 'c':
            console = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'v':
            printf("vmcp (zvswitch) %s\n", zvs_version());
            return 0;
        default:
            usage(stderr);
            return 1;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    if (conn_open(&c, path) < 0)
        return 1;
    if (console && optind < argc) {
        fprintf(stderr, "vmcp: --console takes no command\n");
        close(c.fd);
        return 1;
    }
    if (console) {
        rc = console_mode(&c, path);
    } else if (optind == argc) {
        rc = interactive(&c);
    } else {
        size_t total = 1;
        for (int i = optind; i < argc; i++)
            total += strlen(argv[i]) + 1;
        char *cmd = malloc(total);
        if (cmd == NULL) {
            fprintf(stderr, "vmcp: out of memory\n");
            close(c.fd);
            return 1;
        }
        cmd[0] = '\0';
        for (int i = optind; i < argc; i++) {
            if (i > optind)
                strcat(cmd, " ");
            strcat(cmd, argv[i]);
        }
        rc = run_command(&c, cmd);
        if (rc > 0)                             /* IBM's vmcp(8) message */
            fprintf(stderr, "Error: non-zero CP response for command '%s': #%d\n", cmd, rc);
        free(cmd);
    }
    close(c.fd);
    return exit_status(rc);
}
