/* forward_rule: the IVL domain's forwarding decision (forward_rule.h has the rules). */
#include "ivl/forward_rule.h"

#include <string.h>

#include "ivl/state_msg.h"

static uint8_t bit(unsigned index)
{
    return (uint8_t)(1u << index);
}

/* The lowest-index other system with a distributing member, as a mask (0: none). */
static uint8_t carrier_for(const struct zvs_ivl_fwd_in *in)
{
    uint8_t others = in->distributing & in->present & (uint8_t)~bit(in->self);
    for (unsigned i = 1; i <= ZVS_IVL_MAX_SYSTEMS; i++)
        if (others & bit(i))
            return bit(i);
    return 0;
}

/* Toward the LAN: our members, or one other system's over the IVL. */
static void to_lan(const struct zvs_ivl_fwd_in *in, struct zvs_ivl_fwd_out *out)
{
    if (in->distributing & bit(in->self))
        out->to_members = true;
    else if (!(out->outbound = carrier_for(in)))
        out->drop = ZVS_IVL_FWD_NO_UPLINK;
}

static uint8_t other_systems(const struct zvs_ivl_fwd_in *in)
{
    return in->present & (uint8_t)~bit(in->self);
}

/* To a guest here, or INBOUND to the system it was learned on: false when that system is
 * not in the view. */
static bool to_guest(const struct zvs_ivl_fwd_in *in, struct zvs_ivl_fwd_out *out)
{
    if (in->dst == ZVS_IVL_DST_LOCAL)
        out->to_guests = true;
    else
        out->inbound = bit(in->remote) & other_systems(in);
    return out->to_guests || out->inbound;
}

static void from_guest(const struct zvs_ivl_fwd_in *in, struct zvs_ivl_fwd_out *out)
{
    switch (in->dst) {
    case ZVS_IVL_DST_LOCAL:
    case ZVS_IVL_DST_REMOTE:
        if (!to_guest(in, out))
            to_lan(in, out);            /* it left the view: the LAN may still know it */
        break;
    case ZVS_IVL_DST_LAN:
        to_lan(in, out);
        break;
    case ZVS_IVL_DST_FLOOD:
        out->to_guests = true;
        out->flood = other_systems(in);
        to_lan(in, out);
        break;
    }
}

static void from_lag(const struct zvs_ivl_fwd_in *in, struct zvs_ivl_fwd_out *out)
{
    switch (in->dst) {
    case ZVS_IVL_DST_LOCAL:
    case ZVS_IVL_DST_REMOTE:
        if (!to_guest(in, out))
            out->drop = ZVS_IVL_FWD_NO_GUEST;
        break;
    case ZVS_IVL_DST_LAN:
        out->drop = ZVS_IVL_FWD_REFLECTED;
        break;
    case ZVS_IVL_DST_FLOOD:
        out->to_guests = true;
        out->flood = other_systems(in);
        break;
    }
}

static void from_ivl(const struct zvs_ivl_fwd_in *in, struct zvs_ivl_fwd_out *out)
{
    switch (in->kind) {
    case ZVS_IVL_OUTBOUND:
        if (in->distributing & bit(in->self))
            out->to_members = true;
        else
            out->drop = ZVS_IVL_FWD_NO_UPLINK;
        break;
    case ZVS_IVL_INBOUND:
        if (in->dst == ZVS_IVL_DST_LOCAL)
            out->to_guests = true;
        else
            out->drop = ZVS_IVL_FWD_NO_GUEST;
        break;
    case ZVS_IVL_FLOOD:
        out->to_guests = true;
        break;
    default:
        out->drop = ZVS_IVL_FWD_BAD_KIND;
        break;
    }
}

void zvs_ivl_forward_rule(const struct zvs_ivl_fwd_in *in, struct zvs_ivl_fwd_out *out)
{
    memset(out, 0, sizeof *out);
    switch (in->from) {
    case ZVS_IVL_FROM_GUEST: from_guest(in, out); break;
    case ZVS_IVL_FROM_LAG:   from_lag(in, out); break;
    case ZVS_IVL_FROM_IVL:   from_ivl(in, out); break;
    }
}
