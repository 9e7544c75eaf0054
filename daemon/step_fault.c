/* The reconciler's failure-injection seam (step_fault.h): one counter and one armed
 * fault per step kind, asked by daemon_reconcile.c before each step it can fail. */
#include "daemon/step_fault.h"
#include "daemon/daemon_impl.h"

void zvsd_step_fail(struct zvsd *d, enum zvsd_step step, unsigned nth, int err)
{
    if ((unsigned)step >= ZVSD_STEPS)
        return;
    d->fault.nth[step] = err > 0 ? nth : 0;
    d->fault.err[step] = err;
    d->fault.count[step] = 0;
}

unsigned zvsd_step_count(const struct zvsd *d, enum zvsd_step step)
{
    return (unsigned)step < ZVSD_STEPS ? d->fault.count[step] : 0;
}

int zvsd_step_fault(struct zvsd *d, enum zvsd_step step)
{
    d->fault.count[step]++;
    if (d->fault.nth[step] == 0 || d->fault.count[step] != d->fault.nth[step])
        return 0;
    d->fault.nth[step] = 0;                 /* one-shot */
    return -d->fault.err[step];
}
