/* Frames dropped as too big, by ingress port; see oversize.h. */
#include "dataplane/oversize.h"

#include <string.h>

void zvs_oversize_note(struct zvs_oversize *o, uint16_t in_port, uint32_t len)
{
    unsigned i;

    for (i = 0; i < o->n && o->rec[i].in_port != in_port; i++)
        ;
    if (i == ZVS_OVERSIZE_PORTS)
        return;                         /* no room this interval: counted only */
    if (i == o->n)
        o->rec[o->n++] = (struct zvs_oversize_rec){ .in_port = in_port };
    o->rec[i].len = len;
    o->rec[i].frames++;
}

unsigned zvs_oversize_take(struct zvs_oversize *o, struct zvs_oversize_rec *out)
{
    unsigned n = o->n;

    if (n == 0)
        return 0;
    memcpy(out, o->rec, n * sizeof *out);
    o->n = 0;
    return n;
}
