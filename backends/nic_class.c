/* nic_class: the owner's calls into a guest NIC kind (see nic_class.h).
 *
 * Owns: the rules every kind shares, applied once here: a kind is found in the backend
 * registry (backend.c), an op that may be NULL is skipped, the base remembers the bound
 * port, a request to attach a program to a kind that takes none is refused as a request
 * for no NIC at all is, and the per-owner state slots.
 */
#include "backends/nic_class.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "dataplane/log.h"
#include "qdio/qdio_attach.h"

const struct zvs_nic_class *zvs_nic_class_find(const char *kind)
{
    const struct zvs_backend_class *c = zvs_backend_find(kind);
    return c && c->side == ZVS_BACKEND_GUEST ? c->nic : NULL;
}

bool zvs_nic_usable(const struct zvs_nic_params *p)
{
    const struct zvs_nic_class *c = zvs_nic_class_find(p->kind);
    return c && (!c->usable || c->usable(p));
}

int zvs_nic_open(const struct zvs_nic_params *p, struct zvs_nic_env *env, void *owner,
                 struct zvs_nic_side **out)
{
    const struct zvs_nic_class *c = zvs_nic_class_find(p->kind);
    *out = NULL;
    if (!c)
        return -ENOENT;
    struct zvs_nic_side base = { .cls = c, .env = env, .owner = owner, .vdev = p->vdev };
    snprintf(base.userid, sizeof base.userid, "%s", p->userid);
    return c->open(p, &base, out);
}

int zvs_nic_bind(struct zvs_nic_side *b, struct zvs_port *port)
{
    int rc = b->cls->bind ? b->cls->bind(b, port) : 0;
    if (rc == 0)
        b->port = port;
    return rc;
}

void zvs_nic_unbind(struct zvs_nic_side *b, uint64_t now)
{
    if (!b->port)
        return;
    if (b->cls->unbind)
        b->cls->unbind(b, now);
    b->port = NULL;
}

void zvs_nic_wake(struct zvs_nic_side *b, int fd, uint32_t events, uint64_t now)
{
    if (b->cls->wake)
        b->cls->wake(b, fd, events, now);
}

void zvs_nic_attach(struct zvs_nic_side *b, int client, const char *userid, uint16_t vdev)
{
    if (!b || !b->cls->attach) {
        zvs_qdio_attach_refuse(client, "no NICBIND QDIO NIC for that userid and vdev");
        zvs_warn("attach: %s %04X: no such external NIC", userid, vdev);
        return;
    }
    b->cls->attach(b, client);
}

void zvs_nic_machine_up(struct zvs_nic_side *b, const struct zvs_nic_machine *m,
                        uint64_t now)
{
    if (b->cls->machine_up)
        b->cls->machine_up(b, m, now);
}

void zvs_nic_machine_gone(struct zvs_nic_side *b, uint64_t now)
{
    if (b->cls->machine_gone)
        b->cls->machine_gone(b, now);
}

uint32_t zvs_nic_fit_mtu(struct zvs_nic_side *b, uint32_t mtu)
{
    return b->cls->fit_mtu ? b->cls->fit_mtu(b, mtu) : 0;
}

void zvs_nic_fold(struct zvs_nic_side *b)
{
    if (b->cls->fold)
        b->cls->fold(b);
}

/* The class whose words go to buf, or NULL with "(unknown kind)" there. */
static const struct zvs_nic_class *wording(const struct zvs_nic_params *p, char *buf,
                                           size_t len)
{
    const struct zvs_nic_class *c = zvs_nic_class_find(p->kind);
    if (!c)
        snprintf(buf, len, "(unknown kind)");
    return c;
}

void zvs_nic_describe(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                      char *buf, size_t len)
{
    const struct zvs_nic_class *c = wording(p, buf, len);
    if (c)
        c->describe(p, b, buf, len);
}

void zvs_nic_driver(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                    char *buf, size_t len)
{
    const struct zvs_nic_class *c = wording(p, buf, len);
    if (c)
        c->driver(p, b, buf, len);
}

void zvs_nic_details(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                     zvs_nic_print_fn print, void *ctx)
{
    const struct zvs_nic_class *c = zvs_nic_class_find(p->kind);
    if (c && c->details)
        c->details(p, b, print, ctx);
}

const char *zvs_nic_coupled_state(const struct zvs_nic_side *b)
{
    return b && b->cls->coupled_state ? b->cls->coupled_state(b) : "";
}

void zvs_nic_close(struct zvs_nic_side *b)
{
    if (b)
        b->cls->close(b);
}

void **zvs_nic_env_state(struct zvs_nic_env *env, const struct zvs_nic_class *cls)
{
    for (unsigned i = 0; i < ZVS_NIC_KINDS_MAX; i++) {
        if (env->kind[i].cls == cls)
            return &env->kind[i].state;
        if (!env->kind[i].cls) {
            env->kind[i].cls = cls;
            return &env->kind[i].state;
        }
    }
    return NULL;
}

void zvs_nic_env_started(struct zvs_nic_env *env)
{
    for (unsigned i = 0; i < ZVS_NIC_KINDS_MAX && env->kind[i].cls; i++)
        if (env->kind[i].cls->started)
            env->kind[i].cls->started(&env->kind[i].state);
}

void zvs_nic_env_fini(struct zvs_nic_env *env)
{
    for (unsigned i = 0; i < ZVS_NIC_KINDS_MAX && env->kind[i].cls; i++)
        if (env->kind[i].cls->env_fini)
            env->kind[i].cls->env_fini(&env->kind[i].state);
    memset(env->kind, 0, sizeof env->kind);
}
