/* libFuzzer target for the switch model's configuration parser (tests/switchmodel/
 * sm_config.c): the IOS-like text a lab's Catalyst 6509 stand-in is configured with.
 *
 * Input: the text of a config file (bytes after a NUL are not seen, as in a C string).
 * Each run parses it from an exactly sized heap copy, then checks:
 *   - accepted: counts within limits (interfaces, groups, VLANs, priorities, rate, aging),
 *     every name NUL-terminated inside its field, interface names canonical and matching
 *     their slot/port, interfaces unique by slot/port and by attach, an attach on every
 *     interface, group and mode set together, no group mixing "on" with LACP, err empty;
 *     and the configuration written back out as text parses to the same configuration;
 *   - refused: -EINVAL, and err is one terminated "file:line: message" whose line is a
 *     line of the input; the same refusal into a 12-byte error buffer (exactly sized, so
 *     ASan sees any overrun) is a terminated prefix of the full message;
 *   - the parse is deterministic; sm_ifname_parse/sm_poname_parse on the whole input
 *     return an error or a value in range.
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_switchmodel_config.c tests/switchmodel/sm_config.c \
 *         -o build/fuzz/fuzz_switchmodel_config
 *   build/fuzz/fuzz_switchmodel_config -max_total_time=60 work/ \
 *         tests/fuzz/corpus/switchmodel_config
 * Without libFuzzer (replay a corpus with any compiler): add -DZVS_FUZZ_MAIN and pass the
 * files (or directories of files) as arguments.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_common.h"
#include "tests/switchmodel/sm_config.h"

#define FILE_NAME "fuzz.conf"
#define SMALL_ERR 12                    /* shorter than "fuzz.conf:1: " */
#define TEXT_MAX  (64 * 1024)           /* sm_config_load reads at most this much */

/* The configuration and its text form, static: struct sm_config is a few KiB. */
static struct sm_config cfg, again;
static char text_out[TEXT_MAX];

static bool terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

static unsigned count_lines(const char *text)
{
    unsigned n = 1;

    for (const char *s = text; (s = strchr(s, '\n')) != NULL; s++)
        n++;
    return n;
}

static void check_if(const struct sm_config *c, unsigned i)
{
    const struct sm_if_cfg *ic = &c->ifs[i];
    char want[SM_NAME_LEN];
    uint8_t slot, port;

    CHECK(terminated(ic->name, sizeof(ic->name)));
    CHECK(terminated(ic->short_name, sizeof(ic->short_name)));
    CHECK(terminated(ic->description, sizeof(ic->description)));
    CHECK(terminated(ic->attach, sizeof(ic->attach)));
    CHECK(ic->slot >= 1 && ic->slot <= 99 && ic->port >= 1 && ic->port <= 99);
    snprintf(want, sizeof(want), "GigabitEthernet%u/%u", ic->slot, ic->port);
    CHECK(strcmp(ic->name, want) == 0);
    snprintf(want, sizeof(want), "Gi%u/%u", ic->slot, ic->port);
    CHECK(strcmp(ic->short_name, want) == 0);
    CHECK(sm_ifname_parse(ic->short_name, &slot, &port) == 0);
    CHECK(slot == ic->slot && port == ic->port);
    CHECK(ic->line >= 1);
    CHECK(i == 0 || ic->line > c->ifs[i - 1].line);    /* kept in order of first mention */
    CHECK(ic->attach[0] != '\0' && strchr(ic->attach, '/') == NULL);
    CHECK(ic->group <= SM_MAX_GROUPS);
    CHECK((ic->group == 0) == (ic->mode == SM_CHAN_NONE));
    CHECK(strcmp(sm_chan_mode_name(ic->mode), "?") != 0);
    CHECK(ic->port_priority >= 1);
    CHECK(ic->access_vlan >= 1 && ic->access_vlan <= 4094);
    CHECK(ic->rate_bps <= 100000000000ull);
    for (unsigned j = 0; j < i; j++) {
        const struct sm_if_cfg *o = &c->ifs[j];

        CHECK(o->slot != ic->slot || o->port != ic->port);
        CHECK(strcmp(o->attach, ic->attach) != 0);
        if (ic->group && o->group == ic->group)
            CHECK((ic->mode == SM_CHAN_ON) == (o->mode == SM_CHAN_ON));
    }
}

static void check_accepted(const struct sm_config *c, const char *err)
{
    CHECK(err[0] == '\0');
    CHECK(c->n_ifs <= SM_MAX_IFS);
    CHECK(terminated(c->hostname, sizeof(c->hostname)));
    CHECK(c->hostname[0] != '\0');
    CHECK(c->system_priority >= 1);
    CHECK(strcmp(sm_lb_name(c->lb), "?") != 0);
    CHECK((c->quirks & ~(unsigned)(SM_QUIRK_SUSPEND_INDIVIDUAL | SM_QUIRK_REJECT_PORT_ZERO |
                                   SM_QUIRK_REQUIRE_AGGREGATION)) == 0);
    CHECK(c->aging_s <= 1000000);
    for (unsigned i = 0; i < c->n_ifs; i++)
        check_if(c, i);
}

/* A refusal: -EINVAL and "fuzz.conf:LINE: message" with LINE a line of the input. */
static void check_refused(int rc, const char *text, const char *err, size_t errlen)
{
    static const char prefix[] = FILE_NAME ":";
    char *end;
    unsigned long line;

    CHECK(rc == -EINVAL);
    CHECK(terminated(err, errlen));
    CHECK(strncmp(err, prefix, sizeof(prefix) - 1) == 0);
    line = strtoul(err + sizeof(prefix) - 1, &end, 10);
    CHECK(line >= 1 && line <= count_lines(text));
    CHECK(end[0] == ':' && end[1] == ' ' && end[2] != '\0');
}

/* Appends one formatted line to text_out. */
static size_t emit(size_t at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static size_t emit(size_t at, const char *fmt, ...)
{
    va_list ap;
    int n;

    CHECK(at < sizeof(text_out));
    va_start(ap, fmt);
    n = vsnprintf(text_out + at, sizeof(text_out) - at, fmt, ap);
    va_end(ap);
    CHECK(n >= 0 && (size_t)n < sizeof(text_out) - at);
    return at + (size_t)n;
}

static const char *const quirk_words[] = {
    "suspend-individual", "reject-partner-port-zero", "require-aggregation",
};

/* The configuration as text, every setting spelled out (README.md syntax). */
static void write_config(const struct sm_config *c)
{
    size_t at = 0;

    at = emit(at, "hostname %s\nlacp system-priority %u\n", c->hostname, c->system_priority);
    for (unsigned q = 0; q < sizeof(quirk_words) / sizeof(quirk_words[0]); q++)
        if (c->quirks & (1u << q))
            at = emit(at, "lacp quirk %s\n", quirk_words[q]);
    at = emit(at, "port-channel load-balance %s\nmac address-table aging-time %u\n",
              sm_lb_name(c->lb), c->aging_s);
    for (unsigned i = 0; i < c->n_ifs; i++) {
        const struct sm_if_cfg *ic = &c->ifs[i];

        at = emit(at, "interface %s\n attach %s\n", ic->name, ic->attach);
        if (ic->description[0])
            at = emit(at, " description %s\n", ic->description);
        if (ic->group)
            at = emit(at, " channel-group %u mode %s\n", ic->group,
                      sm_chan_mode_name(ic->mode));
        at = emit(at, " lacp rate %s\n lacp port-priority %u\n", ic->fast ? "fast" : "normal",
                  ic->port_priority);
        if (ic->rate_bps)
            at = emit(at, " rate-limit %llu\n", (unsigned long long)ic->rate_bps);
        at = emit(at, " %s\n switchport mode %s\n switchport access vlan %u\n",
                  ic->shutdown ? "shutdown" : "no shutdown", ic->trunk ? "trunk" : "access",
                  ic->access_vlan);
    }
    emit(at, "end\n");
}

/* Same settings (line numbers aside: the text written back has its own). */
static void check_same(const struct sm_config *a, const struct sm_config *b)
{
    CHECK(strcmp(a->hostname, b->hostname) == 0);
    CHECK(a->system_priority == b->system_priority);
    CHECK(a->lb == b->lb && a->quirks == b->quirks && a->aging_s == b->aging_s);
    CHECK(a->n_ifs == b->n_ifs);
    for (unsigned i = 0; i < a->n_ifs; i++) {
        const struct sm_if_cfg *x = &a->ifs[i], *y = &b->ifs[i];

        CHECK(strcmp(x->name, y->name) == 0 && strcmp(x->short_name, y->short_name) == 0);
        CHECK(x->slot == y->slot && x->port == y->port);
        CHECK(strcmp(x->description, y->description) == 0);
        CHECK(strcmp(x->attach, y->attach) == 0);
        CHECK(x->group == y->group && x->mode == y->mode && x->fast == y->fast);
        CHECK(x->port_priority == y->port_priority && x->rate_bps == y->rate_bps);
        CHECK(x->shutdown == y->shutdown && x->trunk == y->trunk);
        CHECK(x->access_vlan == y->access_vlan);
    }
}

static void check_names(const char *text)
{
    uint8_t slot = 0, port = 0;
    int g;

    if (sm_ifname_parse(text, &slot, &port) == 0)
        CHECK(slot >= 1 && slot <= 99 && port >= 1 && port <= 99);
    g = sm_poname_parse(text);
    CHECK(g == -EINVAL || (g >= 1 && g <= SM_MAX_GROUPS));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[SM_ERR_LEN], err2[SM_ERR_LEN];
    char *text, *small;
    int rc;

    if (size > TEXT_MAX)
        return 0;
    text = malloc(size + 1);
    small = malloc(SMALL_ERR);
    if (text == NULL || small == NULL)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    check_names(text);
    rc = sm_config_parse(text, FILE_NAME, &cfg, err, sizeof(err));
    TRACE("rc %d n_ifs %u err '%s'\n", rc, cfg.n_ifs, err);
    CHECK(sm_config_parse(text, FILE_NAME, &again, err2, sizeof(err2)) == rc);
    CHECK(strcmp(err, err2) == 0);
    if (rc == 0) {
        check_accepted(&cfg, err);
        write_config(&cfg);
        rc = sm_config_parse(text_out, "written", &again, err2, sizeof(err2));
        if (rc != 0)
            fprintf(stderr, "written back and refused: %s\n%s", err2, text_out);
        CHECK(rc == 0);
        check_same(&cfg, &again);
    } else {
        check_refused(rc, text, err, sizeof(err));
        CHECK(sm_config_parse(text, FILE_NAME, &again, small, SMALL_ERR) == rc);
        CHECK(terminated(small, SMALL_ERR));
        CHECK(strncmp(small, err, strlen(small)) == 0);
        CHECK(strlen(small) == SMALL_ERR - 1);
    }
    free(small);
    free(text);
    return 0;
}

#include "tests/fuzz/fuzz_replay.h"
