/* The standalone frame program: shared declarations.
 *
 * Freestanding C for ESA/390 (31-bit, big-endian, real addressing): no C library, no
 * interruptions except the I/O and external ones that end fp_wait(). Network byte
 * order is the machine's own, so packet fields are read and written directly. */
#ifndef FRAMEPROG_FP_H
#define FRAMEPROG_FP_H

#include <stddef.h>
#include <stdint.h>
#include "waitcodes.h"

/* start.S */
void fp_wait(void);
__attribute__((noreturn)) void fp_stop(uint32_t code);

/* lib.c */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t fp_strlen(const char *s);
uint64_t fp_tod(void);                  /* TOD clock: bit 51 = 1 microsecond */
uint32_t fp_now_us(void);               /* microseconds, wraps every 71 minutes */
void fp_set_alarm_us(uint32_t us);      /* an external interruption after US microseconds */
void fp_clear_alarm(void);
uint32_t fp_udiv(uint32_t n, uint32_t d, uint32_t *rem);

/* A small text builder for console lines and control replies. */
struct fp_buf {
    char *p;
    size_t len, cap;
};
void fp_puts(struct fp_buf *b, const char *s);
void fp_putc(struct fp_buf *b, char c);
void fp_putu64(struct fp_buf *b, uint64_t v);
void fp_puthex(struct fp_buf *b, uint32_t v, int digits);
void fp_putip(struct fp_buf *b, uint32_t ip);
void fp_putmac(struct fp_buf *b, const uint8_t *mac);

/* console.c: lines to the 3215 console, when there is one (best effort). */
void con_init(void);
void con_line(const char *s);

/* params.c */
#define FP_PARAM_ADDR    0x00100000u
#define FP_PARAM_MAGIC   0x5A565042u     /* "ZVPB" */
#define FP_PARAM_VERSION 1
#define FP_MODE_RESPOND  0                /* ARP, ICMP echo, UDP echo port, control */
#define FP_MODE_REFLECT  1                /* also reflect UDP sent to any other port */
#define FP_MODE_GENERATE 2                /* also start the generator at boot (gen_*) */

struct fp_params {                        /* the block as it sits in storage (64 bytes) */
    uint32_t magic;                       /* 0x00 "ZVPB" */
    uint16_t version;                     /* 0x04 1 */
    uint16_t length;                      /* 0x06 64 */
    uint32_t ip;                          /* 0x08 the program's IPv4 address */
    uint32_t netmask;                     /* 0x0C informational */
    uint16_t echo_port;                   /* 0x10 UDP echo port, 0 = 7 */
    uint16_t ctl_port;                    /* 0x12 UDP control port, 0 = 7001 */
    uint16_t mode;                        /* 0x14 FP_MODE_* */
    uint16_t devno;                       /* 0x16 LCS read device number, 0 = first found */
    uint32_t gen_ip;                      /* 0x18 generator: destination address */
    uint16_t gen_port;                    /* 0x1C generator: destination UDP port */
    uint16_t gen_size;                    /* 0x1E generator: frame size 60..1514 */
    uint32_t gen_rate;                    /* 0x20 generator: frames/s, 0 = as fast as it can */
    uint32_t gen_count;                   /* 0x24 generator: frames, 0 = until STOP */
    uint8_t reserved[24];                 /* 0x28 zero */
} __attribute__((packed));

extern struct fp_params fp_cfg;           /* validated copy, defaults filled in */
void params_load(void);

/* cio.c: channel I/O with polling (ESA/390 subchannels). */
struct ccw1 {                             /* format-1 CCW */
    uint8_t cmd;
    uint8_t flags;
    uint16_t count;
    uint32_t addr;
} __attribute__((aligned(8)));

#define CCW_CC   0x40
#define CCW_SLI  0x20

struct cio_dev {
    uint32_t sid;                         /* subsystem id 0x0001nnnn */
    uint16_t devno;
    uint16_t cu_type, dev_type;
    uint8_t cu_model, dev_model;
    int busy;
    uint8_t dstat, cstat;                 /* device and subchannel status of the last end */
    uint16_t residual;
};

int cio_find(uint16_t devno, struct cio_dev *d);
int cio_next(uint32_t *schno, struct cio_dev *d);
int cio_enable(struct cio_dev *d);
int cio_start(struct cio_dev *d, struct ccw1 *ccw);     /* 0, or -1 (not operational) */
int cio_poll(struct cio_dev *d);                        /* 1 when the I/O ended, else 0 */
int cio_run(struct cio_dev *d, struct ccw1 *ccw, uint32_t timeout_us);  /* 0 ok, -1 */
int cio_sense_id(struct cio_dev *d);

/* lcs.c: the LCS device. */
#define LCS_BUF 0x5000
void lcs_init(void);                      /* finds, enables, handshakes; stops on failure */
extern uint8_t lcs_mac[6];
extern uint16_t lcs_devno;
uint8_t *lcs_tx_frame(size_t len);        /* room for one frame in the next write, or NULL */
int lcs_tx_room(size_t len);              /* a frame of LEN fits now */
int lcs_poll(void);                       /* runs the device; delivers frames; 1 if it did work */

/* net.c */
struct fp_counters {
    uint64_t frames_in, bytes_in, frames_out, bytes_out;
    uint64_t arp_req_in, arp_reply_in, arp_reply_out, arp_req_out;
    uint64_t icmp_echo_in, icmp_echo_out;
    uint64_t udp_echo_in, udp_echo_out, udp_reflect_in, udp_reflect_out, udp_sink_in;
    uint64_t ctl_in, ctl_out, ctl_bad;
    uint64_t gen_out, gen_bytes_out;
    uint64_t drop_not_mine, drop_malformed, drop_unsupported, drop_tx_full;
    uint64_t lcs_reads, lcs_writes, lcs_cmd_replies, lcs_read_errors, lcs_write_errors;
};
extern struct fp_counters fp_cnt;
void net_init(void);
void net_input(const uint8_t *frame, size_t len);
int net_poll(void);                       /* the generator; 1 if it queued frames */
uint32_t net_next_deadline_us(int *has);  /* when net_poll wants to run next */

#endif
