/* The LCS device (3088, a read and a write subchannel): the handshake (STARTUP,
 * STARTLAN, LANSTAT) and the frame pump.
 *
 * Both directions carry blocks of LCS frames. Each frame starts with a 4-byte header:
 * a halfword offset, from the start of the block, of the next frame (0 ends the
 * block), a type (0 command, 1 Ethernet) and the port (0). Reads return everything
 * the device has buffered, so one read is kept outstanding at all times, into one of
 * two buffers, and the next starts before the last one is parsed. Writes are built
 * in one of two buffers while the other is on the channel. */
#include "fp.h"

#define TXBUF 0x8000
#define LCS_FRAME_CMD 0x00
#define LCS_FRAME_ENET 0x01
#define LCS_CMD_STRTLAN 0x01
#define LCS_CMD_LANSTAT 0x04
#define LCS_CMD_STARTUP 0x07

uint8_t lcs_mac[6];
uint16_t lcs_devno;

static struct cio_dev rd, wr;
static uint8_t rxbuf[2][LCS_BUF] __attribute__((aligned(256)));
static uint8_t txbuf[2][TXBUF] __attribute__((aligned(256)));
static size_t txlen[2];
static int rxcur, txfill;
static struct ccw1 rxccw, txccw;
static uint16_t seqno;
/* Set once LANSTAT has given the MAC. Frames that come before (the LAN starts at
 * STARTLAN, a broadcast ARP may arrive while LANSTAT is still under way) are counted and
 * dropped: answered then, an ARP reply would carry the MAC 00:00:00:00:00:00. */
static int lan_up;

static int flush(void);

/* The last command reply seen. */
static struct {
    int seen;
    uint8_t cmd;
    uint16_t seq, rc;
    uint8_t data[64];
} reply;

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Room for LEN bytes of one frame of TYPE in the block being built. */
static uint8_t *tx_alloc(size_t len, uint8_t type)
{
    size_t off = txlen[txfill];
    if (off + 4 + len + 2 > TXBUF)
        return NULL;
    uint8_t *h = txbuf[txfill] + off;
    put16(h, (uint16_t)(off + 4 + len));
    h[2] = type;
    h[3] = 0;
    txlen[txfill] = off + 4 + len;
    return h + 4;
}

uint8_t *lcs_tx_frame(size_t len)
{
    uint8_t *p = tx_alloc(len, LCS_FRAME_ENET);
    if (!p && flush())
        p = tx_alloc(len, LCS_FRAME_ENET);
    return p;
}

int lcs_tx_room(size_t len)
{
    if (txlen[txfill] + 4 + len + 2 <= TXBUF)
        return 1;
    return flush();
}

static int write_done(void)
{
    if (!cio_poll(&wr))
        return 0;
    if ((wr.dstat & 0x02) || (wr.cstat & ~0x40))
        fp_cnt.lcs_write_errors++;
    return 1;
}

static void start_read(void)
{
    rxccw.cmd = 0x02;
    rxccw.flags = CCW_SLI;
    rxccw.count = LCS_BUF;
    rxccw.addr = (uint32_t)rxbuf[rxcur];
    if (cio_start(&rd, &rxccw) != 0)
        fp_stop(WAIT_IO_FAILED);
}

static void start_write(void)
{
    size_t n = txlen[txfill];
    put16(txbuf[txfill] + n, 0);        /* end of block */
    txccw.cmd = 0x01;
    txccw.flags = CCW_SLI;
    txccw.count = (uint16_t)(n + 2);
    txccw.addr = (uint32_t)txbuf[txfill];
    if (cio_start(&wr, &txccw) != 0)
        fp_stop(WAIT_IO_FAILED);
    fp_cnt.lcs_writes++;
    txfill ^= 1;
    txlen[txfill] = 0;
}

/* Puts the block being built on the channel if the write subchannel is free (it
 * does not read: frames are only parsed from lcs_poll). 1 if the block went. */
static int flush(void)
{
    write_done();
    if (wr.busy || txlen[txfill] == 0)
        return 0;
    start_write();
    return 1;
}

static void parse_block(const uint8_t *b, size_t len)
{
    size_t off = 0;
    while (off + 2 <= len) {
        uint16_t next = get16(b + off);
        if (next == 0)
            return;
        if (next <= off + 4 || next > len) {
            fp_cnt.drop_malformed++;
            return;
        }
        const uint8_t *f = b + off;
        if (f[2] == LCS_FRAME_ENET && lan_up) {
            net_input(f + 4, next - off - 4);
        } else if (f[2] == LCS_FRAME_ENET) {
            fp_cnt.frames_in++;
            fp_cnt.bytes_in += next - off - 4;
            fp_cnt.drop_unsupported++;
        } else if (f[2] == LCS_FRAME_CMD && next - off >= 12) {
            fp_cnt.lcs_cmd_replies++;
            reply.seen = 1;
            reply.cmd = f[4];
            reply.seq = get16(f + 6);
            reply.rc = get16(f + 8);
            size_t n = next - off;
            memcpy(reply.data, f, n < sizeof reply.data ? n : sizeof reply.data);
        } else {
            fp_cnt.drop_unsupported++;
        }
        off = next;
    }
}

int lcs_poll(void)
{
    int work = 0;
    if (cio_poll(&rd)) {
        work = 1;
        int done = rxcur;
        size_t n = LCS_BUF - rd.residual;
        int bad = (rd.dstat & 0x02) || (rd.cstat & ~0x40);
        rxcur ^= 1;
        start_read();
        if (bad)
            fp_cnt.lcs_read_errors++;
        else {
            fp_cnt.lcs_reads++;
            parse_block(rxbuf[done], n);
        }
    }
    if (write_done())
        work = 1;
    if (flush())
        work = 1;
    return work;
}

/* Sends command CMD (with a STARTUP buffer size when asked) and runs the device
 * until its reply comes; stops with CODE when none comes within 5 s or it fails. */
static void command(uint8_t cmd, uint32_t code)
{
    uint8_t *c = tx_alloc(16, LCS_FRAME_CMD);
    if (!c)
        fp_stop(code);
    memset(c, 0, 16);
    c[0] = cmd;
    c[1] = 0;                           /* initiator: host */
    put16(c + 2, ++seqno);
    c[6] = LCS_FRAME_ENET;              /* LAN type */
    c[7] = 0;                           /* relative adapter */
    if (cmd == LCS_CMD_STARTUP)
        put16(c + 8, LCS_BUF);
    reply.seen = 0;
    uint32_t t0 = fp_now_us();
    while (!(reply.seen && reply.cmd == cmd && reply.seq == seqno)) {
        lcs_poll();
        if (fp_now_us() - t0 > 5000000)
            fp_stop(code);
    }
    if (reply.rc != 0)
        fp_stop(code);
}

static int find_lcs(void)
{
    uint32_t schno = 0;
    struct cio_dev d;
    while (cio_next(&schno, &d)) {
        if (cio_sense_id(&d) != 0 || d.cu_type != 0x3088 || (d.devno & 1))
            continue;
        if (fp_cfg.devno && d.devno != fp_cfg.devno)
            continue;
        struct cio_dev w;
        if (!cio_find((uint16_t)(d.devno | 1), &w) || cio_sense_id(&w) != 0 || w.cu_type != 0x3088)
            continue;
        rd = d;
        wr = w;
        return 1;
    }
    return 0;
}

void lcs_init(void)
{
    if (!find_lcs())
        fp_stop(WAIT_NO_LCS);
    if (cio_enable(&rd) != 0 || cio_enable(&wr) != 0)
        fp_stop(WAIT_MSCH_FAILED);
    lcs_devno = rd.devno;
    start_read();
    command(LCS_CMD_STARTUP, WAIT_LCS_STARTUP);
    command(LCS_CMD_STRTLAN, WAIT_LCS_STARTLAN);
    command(LCS_CMD_LANSTAT, WAIT_LCS_LANSTAT);
    /* The LANSTAT reply: command header (12 bytes), 10 unused bytes, the MAC. */
    memcpy(lcs_mac, reply.data + 22, 6);
    lan_up = 1;
}
