/* Recording port backend for unit tests. */
#include "fake_port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fake_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    struct fake_port *fp = (struct fake_port *)p;
    int done = 0;
    fp->tx_calls++;
    for (int i = 0; i < n; i++) {
        if (fp->accept == 0 || fp->nframes >= FAKE_MAX_FRAMES) {
            *why = fp->refuse_why;
            break;
        }
        struct fake_frame *r = &fp->frames[fp->nframes++];
        r->len = zvs_frame_emit(txs[i].f, (enum zvs_tag_op)txs[i].tag_op, txs[i].vid, r->bytes, &r->vnet);
        r->ivl = txs[i].ivl;
        if (fp->accept > 0)
            fp->accept--;
        done++;
    }
    return done;
}

static int fake_rx(struct zvs_port *p, struct zvs_frame *out, int max) { return 0; }
static void fake_release(struct zvs_port *p, struct zvs_frame *f, int n) {}

static void fake_flush(struct zvs_port *p)
{
    ((struct fake_port *)p)->flushes++;
}

static void fake_prefetch(struct zvs_port *p, unsigned level)
{
    struct fake_port *fp = (struct fake_port *)p;
    if (level < 3)
        fp->prefetches[level]++;
}

static void fake_destroy(struct zvs_port *p)
{
    struct fake_port *fp = (struct fake_port *)p;
    if (fp->destroyed)
        *fp->destroyed = 1;
    free(fp->frames);
    free(fp);
}

static const struct zvs_port_ops fake_ops = {
    .kind = "fake", .tx = fake_tx, .rx = fake_rx, .rx_release = fake_release,
    .flush = fake_flush, .destroy = fake_destroy, .prefetch = fake_prefetch,
};

struct fake_port *fake_port_new(const char *name, uint32_t caps, uint32_t mtu)
{
    struct fake_port *fp = calloc(1, sizeof(*fp));
    fp->frames = calloc(FAKE_MAX_FRAMES, sizeof(*fp->frames));
    snprintf(fp->port.name, sizeof(fp->port.name), "%s", name);
    fp->port.ops = &fake_ops;
    fp->port.caps = caps;
    fp->port.mtu = mtu;
    fp->port.max_gso = 65535;
    fp->port.carrier = true;
    fp->accept = -1;
    fp->refuse_why = ZVS_DROP_NO_BUFFER;
    return fp;
}

void fake_port_reset(struct fake_port *fp)
{
    fp->nframes = 0;
    fp->tx_calls = 0;
    fp->flushes = 0;
}
