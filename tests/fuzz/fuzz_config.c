/* libFuzzer target for the SYSTEM CONFIG and USER DIRECT parsers.
 *
 * Input: SYSTEM CONFIG text, a line "%%%%", USER DIRECT text. Without the separator the
 * whole input is fed to both parsers. Each run parses, validates and dumps, then checks
 * the invariants the daemon relies on: counts within limits, indexes in range, names
 * NUL-terminated and upper case, resolved MACs made of prefix and MACID, one error count
 * per error message.
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_config.c cp-commands/[a-z]*.c -o build/fuzz/fuzz_config
 *   build/fuzz/fuzz_config -max_total_time=60 work/ tests/fuzz/corpus/config
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/config.h"
#include "tests/fuzz/cfg_invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char SEP[] = "\n%%%%\n";

/* One configuration for every input, reset from a pristine copy: zvs_cfg_new()'s
 * 1.6 MB calloc and its free per input (fresh pages faulted in, ASan's quarantine) were
 * the harness's own cost. The block is still a heap allocation of the struct's exact
 * size (ASan's redzones around it), and the messages list, the only thing a parse
 * allocates, is freed after every input as zvs_cfg_free would. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct zvs_cfg *fresh, *cfg;
    static FILE *sink;
    const char *text = (const char *)data;
    const char *sep = memmem(text, size, SEP, sizeof SEP - 1);
    size_t sc_len = sep != NULL ? (size_t)(sep - text) : size;
    const char *ud = sep != NULL ? sep + sizeof SEP - 1 : text;
    size_t ud_len = sep != NULL ? size - sc_len - (sizeof SEP - 1) : size;

    if (sink == NULL) {
        sink = fopen("/dev/null", "w");
        fresh = zvs_cfg_new();
        cfg = zvs_cfg_new();
    }
    if (fresh == NULL || cfg == NULL || sink == NULL)
        abort();
    memcpy(cfg, fresh, sizeof *cfg);
    CHECK(zvs_cfg_parse_sysconfig_buf(cfg, "SYSTEM.CONFIG", text, sc_len) >= 0);
    CHECK(zvs_cfg_parse_userdirect_buf(cfg, "USER.DIRECT", ud, ud_len) >= 0);
    CHECK(zvs_cfg_validate(cfg) >= 0);
    CHECK(zvs_cfg_dump(cfg, sink) == 0);
    check_invariants(cfg);
    zvs_msg_list_free(&cfg->msgs);
    return 0;
}
