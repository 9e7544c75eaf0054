/* libFuzzer target for the monitor file reader on z/VM's MONWRITE framing (layout versions
 * 3 and 4, monitor/monwrite.c) and for the codec's IBM read mode (ZVS_MON_FORMAT_IBM).
 *
 * Input: one flag byte, then the bytes of a monitor file. Flag bit 0: "reseal" - every
 * block with our area (ASCII "ZVMW" 80 bytes before its end) gets its data pages' CRC-32
 * and its own recomputed, so mutations reach the entry and record walkers instead of dying
 * at a checksum. Bit 1: "z/VM's" - our area is zeroed in every block that has one, so the
 * same file is read as one z/VM wrote (entries counted from the IUCV message, records in
 * IBM's layouts). The seeds cover control entries pointing outside the file, records
 * spanning a frame, record lengths of 0 and past the frame, D1R13 and D1R11, and our
 * resolver records of domain 15 (D15R1 samples, a D15R2 event with IPv4 and IPv6).
 *
 * Invariants:
 *   - next() returns 1, 0 or a negative errno; an error names an offset within the input
 *     and a non-empty reason; a group's offset is block aligned and inside the input, its
 *     records fit the pages read; the reader ends within (blocks + 2) calls and then stays
 *     at the end;
 *   - every record the reader accepts encodes in the current layout (4), and those bytes
 *     decode and encode to the same bytes;
 *   - the decoder in IBM mode answers 0, -EBADMSG or -ENOTSUP, and never reads past the
 *     record it is given (an exactly sized heap copy).
 *
 *   build with `make fuzzers`; run: build/fuzz/fuzz_monwrite -max_total_time=60 work/
 *   tests/fuzz/corpus/monwrite. Without libFuzzer: -DZVS_FUZZ_MAIN and pass the files.
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

#define BLK  ZVS_MON_BLOCK
#define AREA (BLK - 80)                 /* our area in a version 3 or 4 control record */

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Our area: +16 data pages, +24 their CRC-32, +76 the record's CRC-32 (RECORDS.md). */
static void reseal(uint8_t *b, size_t len, bool zvm)
{
    for (size_t off = 0; off + BLK <= len; off += BLK) {
        uint8_t *ctl = b + off;
        if (memcmp(ctl + AREA, "ZVMW", 4) != 0)
            continue;
        if (zvm) {
            memset(ctl + AREA, 0, 80);
            continue;
        }
        uint32_t n = get_be32(ctl + AREA + 16);
        size_t avail = (len - off - BLK) / BLK;
        put_be32(ctl + AREA + 24, zvs_mon_crc32(0, ctl + BLK,
                                                (size_t)(n < avail ? n : avail) * BLK));
        put_be32(ctl + AREA + 76, 0);
        put_be32(ctl + AREA + 76, zvs_mon_crc32(0, ctl, BLK));
    }
}

static void check_record(const struct zvs_mon_record *r)
{
    uint8_t a[ZVS_MON_RECORD_MAX], b[ZVS_MON_RECORD_MAX];
    struct zvs_mon_record again;
    int n = zvs_mon_encode_version(r, ZVS_MON_FORMAT_CURRENT, a, sizeof(a));

    CHECK(n >= ZVS_MON_HDR_LEN && n <= ZVS_MON_RECORD_MAX);
    CHECK(zvs_mon_decode_version(a, (size_t)n, ZVS_MON_FORMAT_CURRENT, &again) == 0);
    CHECK(zvs_mon_encode_version(&again, ZVS_MON_FORMAT_CURRENT, b, sizeof(b)) == n);
    CHECK(memcmp(a, b, (size_t)n) == 0);
}

static void fuzz_decode_ibm(const uint8_t *data, size_t size)
{
    struct zvs_mon_record r;
    uint8_t *copy = malloc(size ? size : 1);
    int rc;

    if (!copy)
        return;
    memcpy(copy, data, size);
    rc = zvs_mon_decode_version(copy, size, ZVS_MON_FORMAT_IBM, &r);
    CHECK(rc == 0 || rc == -EBADMSG || rc == -ENOTSUP);
    if (rc == 0)
        check_record(&r);
    CHECK(zvs_mon_encode_version(&r, ZVS_MON_FORMAT_IBM, copy, size) == -EINVAL);
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
    if (data[0] & 3)
        reseal(file, len, data[0] & 2);
    fuzz_decode_ibm(file, len < 640 ? len : 640);
    fuzz_monreader(file, len, check_record);
    free(file);
    return 0;
}

#include "tests/fuzz/fuzz_replay.h"
