/* Frames dropped as too big, by ingress port; see oversize.h. */
#include "dataplane/oversize.h"

void zvs_oversize_note(struct zvs_oversize *o, uint16_t in_port, uint32_t len)
{
    if (in_port >= ZVS_OVERSIZE_PORTS)
        return;
    uint64_t bit = 1ull << (in_port % 64);
    uint64_t *w = &o->dirty[in_port / 64];

    if (!(*w & bit)) {
        *w |= bit;
        o->ndirty++;
        o->frames[in_port] = 0;
    }
    o->len[in_port] = len;
    o->frames[in_port]++;
}

unsigned zvs_oversize_take(struct zvs_oversize *o, struct zvs_oversize_rec *out,
                           unsigned room)
{
    unsigned n = 0;

    for (unsigned w = 0; o->ndirty > 0 && n < room && w < ZVS_OVERSIZE_PORTS / 64; w++) {
        while (o->dirty[w] && n < room) {
            unsigned i = w * 64 + (unsigned)__builtin_ctzll(o->dirty[w]);
            o->dirty[w] &= o->dirty[w] - 1;
            o->ndirty--;
            out[n++] = (struct zvs_oversize_rec){ .in_port = (uint16_t)i, .len = o->len[i],
                                                  .frames = o->frames[i] };
        }
    }
    return n;
}
