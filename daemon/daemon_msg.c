/* The operator's unsolicited messages: what happens to switches, uplinks, port group
 * members and NICs, told to the console's subscribers and the log in one catalogue text
 * (cp-commands/cp_messages.h), as z/VM tells its operator.
 *
 * Owns: the choice of which catalogue messages reach the console (the rest are the log's
 * only) and each switch's status as last told (HCPSWU2830I ready / HCPSWU2832E not
 * active), watched once per event-loop iteration, after the events that change it, so
 * that it follows the device and member messages that explain it.
 * A command's messages are held until its outcome is known (zvsd_say_hold): told in their
 * order when it stands, dropped when it is rolled back (what it said did not happen).
 * Rules: one catalogue entry per message, formatted once; the console (console.c) applies
 * the per-kind rate limit to the console and the log alike. Without a console (no -k)
 * every message is logged. A switch's status is news only when it changes by itself:
 * DISCONNECT, DETACH and NOUPLINK are the operator's doing and answered by the command.
 */
#include "daemon/daemon_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/console.h"
#include "lag/pgroup.h"

/* Messages the log keeps for itself: a member between its Mux states is a trace, not
 * news for the operator. */
static bool console_worthy(enum zvs_cpmsg_id id)
{
    return id != ZVS_CPMSG_MEMBER_STATE && id != ZVS_CPMSG_BUCKET_MOVED;
}

/* A message a command said while its outcome was open (zvsd_say_hold). */
struct zvsd_held {
    enum zvs_cpmsg_id id;
    bool              has_owner;
    char              owner[ZVS_USERID_MAX + 1];
    char              text[ZVS_CPMSG_TEXT_MAX];
};

static void tell(struct zvsd *d, enum zvs_cpmsg_id id, const char *owner, const char *text)
{
    if (d->console && console_worthy(id)) {
        zvs_console_notify(d->console, id, owner, text, zvs_evloop_now(d->loop),
                           zvs_evloop_wall_us(d->loop));
        return;
    }
    enum zvs_log_level level = zvs_cpmsg_def(id)->severity == 'I' ? ZVS_LOG_INFO
                                                                  : ZVS_LOG_WARN;
    for (const char *p = text; *p != '\0'; ) {
        int n = (int)strcspn(p, "\n");
        zvs_log(level, "%.*s", n, p);
        p += n + (p[n] == '\n');
    }
}

/* Held while a command's outcome is open; a message that finds no room (out of memory)
 * is told at once rather than lost. */
static bool hold(struct zvsd *d, enum zvs_cpmsg_id id, const char *owner, const char *text)
{
    if (d->nheld == d->held_cap) {
        unsigned cap = d->held_cap ? 2 * d->held_cap : 8;
        struct zvsd_held *h = realloc(d->held, cap * sizeof *h);
        if (!h)
            return false;
        d->held = h;
        d->held_cap = cap;
    }
    struct zvsd_held *h = &d->held[d->nheld++];
    h->id = id;
    h->has_owner = owner != NULL;
    snprintf(h->owner, sizeof h->owner, "%s", owner ? owner : "");
    snprintf(h->text, sizeof h->text, "%s", text);
    return true;
}

static void say_args(struct zvsd *d, enum zvs_cpmsg_id id, const char *owner,
                     const char *const *args, unsigned nargs)
{
    char text[ZVS_CPMSG_TEXT_MAX];
    zvs_cpmsg_format(text, sizeof text, id, args, nargs);
    if (d->holding && hold(d, id, owner, text))
        return;
    tell(d, id, owner, text);
}

void zvsd_say_hold(struct zvsd *d)
{
    d->holding = true;
    d->nheld = 0;
}

void zvsd_say_release(struct zvsd *d, bool told)
{
    d->holding = false;
    for (unsigned i = 0; told && i < d->nheld; i++)
        tell(d, d->held[i].id, d->held[i].has_owner ? d->held[i].owner : NULL, d->held[i].text);
    d->nheld = 0;
    free(d->held);
    d->held = NULL;
    d->held_cap = 0;
}

void zvsd_say(struct zvsd *d, enum zvs_cpmsg_id id, const char *owner, ...)
{
    const char *args[ZVS_CPMSG_ARGS_MAX];
    unsigned n = 0;
    va_list ap;
    va_start(ap, owner);
    for (const char *a; (a = va_arg(ap, const char *)) != NULL; )
        if (n < ZVS_CPMSG_ARGS_MAX)
            args[n++] = a;
    va_end(ap);
    say_args(d, id, owner, args, n);
}

void zvsd_say_lag(void *arg, enum zvs_cpmsg_id id, const char *const *args, unsigned nargs)
{
    say_args(arg, id, NULL, args, nargs);
}

/* Does an uplink carry the switch's traffic (QUERY VSWITCH's "State: Ready")? Only for a
 * switch that has uplinks and is connected. */
static bool carrying(const struct d_switch *ds)
{
    if (ds->lag && zvs_pgroup_distributing(zvs_lag_group(ds->lag)) > 0)
        return true;
    const struct zvs_port *a = zvs_switch_active_uplink(ds->sw);
    return a && a->carrier;
}

void zvsd_say_switches(struct zvsd *d)
{
    for (unsigned i = 0; i < d->nsw; i++) {
        struct d_switch *ds = &d->sw[i];
        if (!ds->sw || ds->cfg.nouplink || !ds->cfg.connect) {
            ds->ready_told = false;     /* the operator's doing: said by the command */
            continue;
        }
        bool now = carrying(ds);
        if (now == ds->ready_told)
            continue;
        ds->ready_told = now;
        if (now)
            zvsd_say(d, ZVS_CPMSG_SWITCH_STATUS, NULL, ds->cfg.name, "ready", NULL);
        else
            zvsd_say(d, ZVS_CPMSG_SWITCH_NOT_ACTIVE, NULL, ds->cfg.name, NULL);
    }
    if (d->console)
        zvs_console_notify_flush(d->console, zvs_evloop_now(d->loop),
                                 zvs_evloop_wall_us(d->loop));
}
