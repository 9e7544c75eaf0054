/* nic_program: a NIC an external program drives (the "qdio" and "none" kinds,
 * nic_program.h).
 *
 * Owns: the program's attachment. A program asks on the owner's attach socket for a
 * coupled NIC (its queues exist while it is coupled: COUPLE makes them); the grant hands
 * it the queues' memory and their SIGA-w and thin-interrupt eventfds, and the connection
 * stays open as the session: EOF (or anything) on it means the program detached. Until a
 * program attaches and establishes the queues, frames for the NIC are discarded (no
 * input buffers), as for a z/VM guest not yet running. UNCOUPLE detaches the program.
 */
#include "backends/nic_program.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "dataplane/log.h"
#include "qdio/nic_qdio.h"
#include "qdio/qdio_attach.h"

struct nic_program {
    struct zvs_nic_side base;        /* first: the instance is its base */
    int                    session;     /* the attach connection while attached, else -1 */
};

static struct nic_program *prog_of(const struct zvs_nic_side *b)
{
    return (struct nic_program *)b;
}

/* Only while the owner listens for programs. */
static bool usable_program(const struct zvs_nic_params *p)
{
    return p->attach_socket;
}

static int open_program(const struct zvs_nic_params *p, const struct zvs_nic_side *base,
                        struct zvs_nic_side **out)
{
    struct nic_program *g = calloc(1, sizeof *g);
    if (!g)
        return -ENOMEM;
    g->base = *base;
    g->session = -1;
    *out = &g->base;
    return 0;
}

/* The program leaves (its session ended, or UNCOUPLE takes the queues). */
static void detach(struct nic_program *g, uint64_t now)
{
    struct zvs_nic_side *b = &g->base;
    struct zvs_qdio *q = zvs_nic_qdio_queues(b->port);
    /* Buffers the program primed before it left belong to the adapter: send them. */
    b->env->host->deliver(b, now);
    b->env->host->unwatch(b, zvs_qdio_siga_fd(q));
    b->env->host->unwatch(b, g->session);
    close(g->session);
    g->session = -1;
    int rc = zvs_qdio_reset(q);
    zvs_info("%s: guest program detached%s", b->port->name, rc < 0 ? " (queues busy)" : "");
}

static void unbind_program(struct zvs_nic_side *b, uint64_t now)
{
    if (prog_of(b)->session >= 0)
        detach(prog_of(b), now);
}

/* The session: EOF (or anything) means the program detached. SIGA-w: take what it
 * primed. */
static void wake_program(struct zvs_nic_side *b, int fd, uint32_t events, uint64_t now)
{
    struct nic_program *g = prog_of(b);
    if (fd == g->session) {
        char buf[64];
        if (read(fd, buf, sizeof(buf)) <= 0 || (events & (EPOLLHUP | EPOLLERR)))
            detach(g, now);
        return;
    }
    zvs_qdio_siga_ack(zvs_nic_qdio_queues(b->port));
    b->env->host->deliver(b, now);
}

static void attach_program(struct zvs_nic_side *b, int client)
{
    struct nic_program *g = prog_of(b);
    if (!b->port) {
        /* Its queues exist while it is coupled (COUPLE makes them). */
        zvs_qdio_attach_refuse(client, "NIC not coupled");
        zvs_warn("attach: %s %04X: NIC not coupled", b->userid, b->vdev);
        return;
    }
    if (g->session >= 0) {
        zvs_qdio_attach_refuse(client, "NIC already attached");
        return;
    }
    struct zvs_qdio *q = zvs_nic_qdio_queues(b->port);
    if (zvs_qdio_attach_grant(client, zvs_qdio_memfd(q), zvs_qdio_siga_fd(q),
                              zvs_qdio_irq_fd(q)) < 0) {
        close(client);
        return;
    }
    g->session = client;
    b->env->host->watch(b, client);
    b->env->host->watch(b, zvs_qdio_siga_fd(q));
    zvs_info("%s: guest program attached", b->port->name);
}

static void describe_program(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                             char *buf, size_t len)
{
    snprintf(buf, len, "%s", usable_program(p) ? "external QDIO program" : "none");
}

static const char *state_program(const struct zvs_nic_side *b)
{
    return prog_of(b)->session >= 0 ? ", program attached" : ", no program attached";
}

static void driver_program(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                           char *buf, size_t len)
{
    snprintf(buf, len, "external QDIO guest");
}

/* Unbound first, so a session is left only when the owner stops (its watches are gone
 * then): the connection is closed, nothing more. */
static void close_program(struct zvs_nic_side *b)
{
    if (prog_of(b)->session >= 0)
        close(prog_of(b)->session);
    free(prog_of(b));
}

#define PROGRAM_CLASS {                                                                   \
    .usable = usable_program, .open = open_program, .unbind = unbind_program,             \
    .wake = wake_program, .attach = attach_program, .describe = describe_program,         \
    .coupled_state = state_program, .driver = driver_program, .close = close_program,     \
}

const struct zvs_nic_class zvs_nic_qdio_class = PROGRAM_CLASS;
/* No NICBIND: the same in every respect (a kind of its own so that QUERY and the registry
 * name what the directory said). */
const struct zvs_nic_class zvs_nic_none_class = PROGRAM_CLASS;
