/* libFuzzer target for the monitor file reader (monitor/monfile.c) and the record codec
 * (monitor/monrec.c).
 *
 * Input: one flag byte, then the bytes of a monitor file. Flag bit 0: "reseal" - before
 * reading, every block that starts with the control block magic gets its data block CRCs
 * and its own CRC recomputed, so mutations get past the checksums and exercise the
 * record walker and the decoder instead of dying at the first CRC. The same bytes are
 * also given to the decoder as one record, in both layout versions, from an exactly sized
 * heap copy.
 *
 * Invariants:
 *   - next() returns 1, 0 or a negative errno; an error names an offset within the input
 *     and a non-empty reason; a group's offset is block aligned and inside the input, its
 *     record count fits the data blocks read; the reader ends within (blocks + 2) calls;
 *   - every record the reader or the decoder accepts encodes again to its MRHDRLEN, and
 *     those bytes decode and encode to the same bytes (names are CP names, ranges hold);
 *   - a record the decoder refuses is -EBADMSG or -ENOTSUP, nothing else;
 *   - a group of a format version the reader does not know is -EPROTONOSUPPORT, and the
 *     reader then ends.
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_monfile.c monitor/monrec.c monitor/monfile.c monitor/ebcdic.c \
 *         -o build/fuzz/fuzz_monfile
 *   build/fuzz/fuzz_monfile -max_total_time=60 work/ tests/fuzz/corpus/monfile
 * Without libFuzzer (replay a corpus with any compiler): add -DZVS_FUZZ_MAIN and pass the
 * files (or directories of files) as arguments.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monfile.h"
#include "monitor/monrec.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/fuzz_monreader.h"

#define BLK ZVS_MON_BLOCK

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The harness's own CRC-32 (zvs_mon_crc32's: reflected, polynomial 0xEDB88320), built
 * without coverage instrumentation: resealing every 4 KB block through the instrumented
 * zvs_mon_crc32 (a comparison callback per byte) was a sixth of this target's time and
 * teaches the fuzzer nothing; the reader still verifies each CRC with zvs_mon_crc32,
 * and the first reseal checks that both agree. */
__attribute__((no_sanitize("coverage")))
static uint32_t seal_crc(const uint8_t *p, size_t len)
{
    static uint32_t table[256];

    if (table[1] == 0) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++)
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

/* Recomputes the checksums of every control block (layout: monitor/RECORDS.md). */
static void reseal(uint8_t *b, size_t len)
{
    static bool agreed;

    if (!agreed && len > 0) {
        CHECK(seal_crc(b, len) == zvs_mon_crc32(0, b, len));
        agreed = true;
    }
    for (size_t off = 0; off + BLK <= len; off += BLK) {
        uint8_t *ctl = b + off;
        if (memcmp(ctl, "ZVMW", 4) != 0)
            continue;
        uint32_t n = (uint32_t)ctl[16] << 24 | (uint32_t)ctl[17] << 16 |
                     (uint32_t)ctl[18] << 8 | ctl[19];
        for (uint32_t i = 0; i < n && i < (BLK - 32) / 8; i++) {
            size_t d = off + (size_t)(i + 1) * BLK;
            if (d + BLK > len)
                break;
            put_be32(ctl + 32 + 8 * i + 4, seal_crc(b + d, BLK));
        }
        put_be32(ctl + 28, 0);
        put_be32(ctl + 28, seal_crc(ctl, BLK));
    }
}

/* An accepted record: it encodes in layout `version`, and its bytes are a fixed point of
 * decode+encode in that version. */
static void check_record_version(const struct zvs_mon_record *r, unsigned version)
{
    uint8_t a[ZVS_MON_RECORD_MAX], b[ZVS_MON_RECORD_MAX];
    struct zvs_mon_record again;
    int n = zvs_mon_encode_version(r, version, a, sizeof(a));

    CHECK(n >= ZVS_MON_HDR_LEN && n <= ZVS_MON_RECORD_MAX);
    CHECK((a[0] << 8 | a[1]) == n);
    CHECK(zvs_mon_decode_version(a, (size_t)n, version, &again) == 0);
    CHECK(zvs_mon_encode_version(&again, version, b, sizeof(b)) == n);
    CHECK(memcmp(a, b, (size_t)n) == 0);
    CHECK(strcmp(zvs_mon_record_name(r->domain, r->number), "unknown") != 0);
}

/* Whatever layout it was read in, a record is good in every layout we write. */
static void check_record(const struct zvs_mon_record *r)
{
    check_record_version(r, ZVS_MON_FORMAT_V1);
    check_record_version(r, ZVS_MON_FORMAT_V2);
}

static void fuzz_decode(const uint8_t *data, size_t size)
{
    struct zvs_mon_record r;
    uint8_t *copy = malloc(size ? size : 1);
    int rc;

    if (!copy)
        return;
    memcpy(copy, data, size);
    for (unsigned v = ZVS_MON_FORMAT_V1; v <= ZVS_MON_FORMAT_V2; v++) {
        rc = zvs_mon_decode_version(copy, size, v, &r);
        CHECK(rc == 0 || rc == -EBADMSG || rc == -ENOTSUP);
        if (rc == 0) {
            CHECK(size >= ZVS_MON_HDR_LEN && size <= ZVS_MON_RECORD_MAX);
            check_record(&r);
            TRACE("decode v%u: %s\n", v, zvs_mon_record_name(r.domain, r.number));
        }
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *file;
    size_t len;

    if (size < 1)
        return 0;
    len = size - 1;
    file = malloc(len ? len : 1);
    if (!file)
        return 0;
    memcpy(file, data + 1, len);
    if (data[0] & 1)
        reseal(file, len);
    fuzz_decode(file, len);
    fuzz_monreader(file, len, check_record);
    free(file);
    return 0;
}

#include "tests/fuzz/fuzz_replay.h"
