/* libFuzzer target for the offload fix-up (dataplane/vnet.c).
 *
 * Input: a 12-byte prefix, then the frame.
 *   byte 0      vnet flags (low 6 bits); bit 6: out_gso, bit 7: out_csum_partial
 *   byte 1      gso_type
 *   bytes 2-3   hdr_len      (big-endian, like every field below)
 *   bytes 4-5   gso_size
 *   bytes 6-7   csum_start
 *   bytes 8-9   csum_offset
 *   bytes 10-11 max_len (egress frame size; 0 means 1514)
 * The frame and the scratch buffer are exactly sized heap copies, so ASan sees any access
 * past their ends. Beyond memory safety the target checks what the API promises: pieces
 * fit max_len, the piece count is the return value, GSO pieces parse, carry the whole
 * payload between them and have correct (or correctly completable) L4 checksums, and a
 * failed checksum completion writes nothing.
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -I. dataplane/vnet.c
 *        tests/fuzz/fuzz_vnet.c -o fuzz_vnet; run: ./fuzz_vnet tests/fuzz/corpus/vnet
 * Without libFuzzer (replay a corpus with any compiler): add -DZVS_FUZZ_MAIN and pass the
 * files (or directories of files) as arguments.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/vnet.h"

#define PREFIX_LEN 12

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

struct fuzz_ctx {
    uint32_t              max_len;
    uint8_t               gso_base;     /* gso_type without ECN */
    const uint8_t        *frame;        /* the input frame */
    uint32_t              len;
    int                   pieces;       /* emitted so far */
    uint32_t              payload;      /* L4 payload bytes seen in GSO pieces */
};

/* Independent ones'-complement sum (no shared code with vnet.c). */
static uint32_t f_sum(const uint8_t *p, uint32_t n, uint32_t acc)
{
    for (uint32_t i = 0; i + 1 < n; i += 2)
        acc += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        acc += (uint32_t)p[n - 1] << 8;
    return acc;
}

static uint16_t f_fold(uint32_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xFFFF) + (acc >> 16);
    return (uint16_t)acc;
}

/* Pseudo-header + L4 bytes of a parsed piece fold to 0xFFFF. */
static bool l4_csum_ok(const uint8_t *f, const struct zvs_l4_hdrs *h)
{
    uint32_t l4len = h->ip_end - h->l4_off;
    const uint8_t *ip = f + h->l3_off;
    uint32_t acc = h->ip_ver == 4 ? f_sum(ip + 12, 8, 0) : f_sum(ip + 8, 32, 0);

    acc += h->l4_proto + l4len;
    return f_fold(f_sum(f + h->l4_off, l4len, acc)) == 0xFFFF;
}

static void check_gso_piece(struct fuzz_ctx *c, const uint8_t *frame, uint32_t len,
                            const struct zvs_vnet *vnet)
{
    struct zvs_l4_hdrs h;

    CHECK(zvs_vnet_parse(frame, len, &h) == 0);
    CHECK(h.ip_end == len);
    c->payload += h.ip_end - h.hdr_len;
    if (vnet->gso_type != ZVS_VNET_GSO_NONE)
        CHECK(vnet->gso_size && vnet->hdr_len == h.hdr_len && (vnet->flags & ZVS_VNET_F_NEEDS_CSUM));
    if (vnet->flags & ZVS_VNET_F_NEEDS_CSUM) {
        uint8_t *copy = malloc(len);
        struct zvs_vnet v = *vnet;
        CHECK(copy != NULL);
        memcpy(copy, frame, len);
        CHECK(v.csum_start == h.l4_off);
        CHECK(zvs_vnet_csum_complete(copy, len, &v) == 0);
        CHECK(l4_csum_ok(copy, &h));
        free(copy);
    } else {
        CHECK(vnet->flags == ZVS_VNET_F_DATA_VALID);
        CHECK(l4_csum_ok(frame, &h));
    }
    if (h.ip_ver == 4) {
        const uint8_t *ip = frame + h.l3_off;
        CHECK(f_fold(f_sum(ip, (uint32_t)(h.l4_off - h.l3_off), 0)) == 0xFFFF);
    }
}

static int emit(void *arg, const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet)
{
    struct fuzz_ctx *c = arg;

    CHECK(frame != NULL && len <= c->max_len);
    c->pieces++;
    if (c->gso_base == ZVS_VNET_GSO_NONE) {
        CHECK(len == c->len);
        if (!(vnet->flags & ZVS_VNET_F_NEEDS_CSUM))
            return 0;
        CHECK(memcmp(frame, c->frame, len) == 0);   /* left partial: untouched */
        return 0;
    }
    check_gso_piece(c, frame, len, vnet);
    return 0;
}

static void fuzz_csum_complete(const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet)
{
    uint8_t *copy = malloc(len ? len : 1);
    struct zvs_vnet v = *vnet;

    CHECK(copy != NULL);
    memcpy(copy, frame, len);
    int rc = zvs_vnet_csum_complete(copy, len, &v);
    CHECK(rc == 0 || rc == -EINVAL);
    if (rc < 0 || !(vnet->flags & ZVS_VNET_F_NEEDS_CSUM))
        CHECK(memcmp(copy, frame, len) == 0 && memcmp(&v, vnet, sizeof(v)) == 0);
    else
        CHECK(!(v.flags & ZVS_VNET_F_NEEDS_CSUM) && (v.flags & ZVS_VNET_F_DATA_VALID));
    free(copy);
}

static void fuzz_parse(const uint8_t *frame, uint32_t len)
{
    struct zvs_l4_hdrs h;
    int rc = zvs_vnet_parse(frame, len, &h);

    CHECK(rc == 0 || rc == -EINVAL || rc == -ENOTSUP);
    if (rc == 0)
        CHECK(h.l3_off < h.l4_off && h.l4_off < h.hdr_len && h.hdr_len <= h.ip_end &&
              h.ip_end <= len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < PREFIX_LEN || size - PREFIX_LEN > 0x20000)
        return 0;
    struct zvs_vnet vnet = {
        .flags = data[0] & 0x3F,
        .gso_type = data[1],
        .hdr_len = zvs_be16(data + 2),
        .gso_size = zvs_be16(data + 4),
        .csum_start = zvs_be16(data + 6),
        .csum_offset = zvs_be16(data + 8),
    };
    bool out_gso = data[0] & 0x40;
    bool out_partial = data[0] & 0x80;
    uint32_t max_len = zvs_be16(data + 10);
    if (max_len == 0)
        max_len = 1514;
    uint32_t len = (uint32_t)(size - PREFIX_LEN);
    uint8_t *frame = malloc(len ? len : 1);
    uint8_t *scratch = malloc(max_len);
    CHECK(frame != NULL && scratch != NULL);
    memcpy(frame, data + PREFIX_LEN, len);

    fuzz_parse(frame, len);
    fuzz_csum_complete(frame, len, &vnet);

    struct fuzz_ctx c = { .max_len = max_len, .frame = frame, .len = len,
                          .gso_base = vnet.gso_type & (uint8_t)~ZVS_VNET_GSO_ECN };
    int rc = zvs_vnet_segment(frame, len, &vnet, max_len, out_gso, out_partial, scratch,
                              emit, &c);
    CHECK(rc > 0 || rc == -EINVAL || rc == -ENOTSUP || rc == -EMSGSIZE);
    if (rc > 0) {
        CHECK(rc == c.pieces);
        if (c.gso_base != ZVS_VNET_GSO_NONE) {
            struct zvs_l4_hdrs h;
            CHECK(zvs_vnet_parse(frame, len, &h) == 0);
            CHECK(c.payload == h.ip_end - h.hdr_len);
        }
    } else {
        CHECK(c.pieces == 0);
    }
    free(scratch);
    free(frame);
    return 0;
}

#include "fuzz_replay.h"
