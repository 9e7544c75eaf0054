/* daemon/ivl_conf.c: the corosync configuration written from SYSTEM CONFIG's IVL domain
 * (vswitchd --write-corosync). The domain's statements to ivl/corosync_conf.h's struct
 * with a fake resolver (names, failures), the refusals, and the c-ares path: an address
 * literal as it is, "localhost" through the host's /etc/hosts, a whole file written, and
 * an operator's own file checked (--check-corosync). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp-commands/config.h"
#include "daemon/ivl_conf.h"

static const char domain3[] =
    "SYSTEM_IDENTIFIER_DEFAULT ZVMB\n"
    "DEFINE VSWITCH IVLVSW TYPE IVL\n"
    "DEFINE VSWITCH GLOBVSW TYPE QDIO GLOBAL\n"
    "IVL MEMBER ZVMA INDEX 1 ADDRESS 10.99.0.1\n"
    "IVL MEMBER ZVMB INDEX 2 ADDRESS zvmb.ivl.example\n"
    "IVL MEMBER ZVMC INDEX 3 ADDRESS 10.99.0.3\n"
    "IVL HEARTBEAT TIMEOUT 2\n";

static struct zvs_cfg *load(const char *text)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_non_null(cfg);
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "SYSTEM.CONFIG", text), 0);
    assert_int_equal(zvs_cfg_validate(cfg), 0);
    return cfg;
}

/* Names ending in .example resolve to 10.99.0.<index>; "gone.example" does not. */
static int fake_resolve(void *arg, const char *name, char *addr, char *why, size_t why_size)
{
    unsigned *calls = arg;
    (*calls)++;
    if (strcmp(name, "zvmb.ivl.example") == 0) {
        snprintf(addr, ZVS_CS_ADDR_LEN, "10.99.0.2");
        return 0;
    }
    if (strstr(name, ".example")) {
        snprintf(why, why_size, "%s does not resolve (NXDOMAIN)", name);
        return -ENOENT;
    }
    snprintf(addr, ZVS_CS_ADDR_LEN, "%s", name);
    return 0;
}

static void test_domain_to_corosync(void **state)
{
    struct zvs_cfg *cfg = load(domain3);
    struct zvs_cs_conf cs;
    char why[200];
    unsigned calls = 0;
    assert_int_equal(zvsd_ivl_cs_conf(cfg, "ZVMB", NULL, NULL, fake_resolve, &calls, &cs, why,
                                      sizeof why), 0);
    assert_int_equal(calls, 3);
    assert_string_equal(cs.cluster_name, "GLOBVSW");
    assert_int_equal(cs.token_ms, 2000);
    assert_int_equal(cs.nnodes, 3);
    assert_int_equal(cs.node[1].nodeid, 2);
    assert_string_equal(cs.node[1].name, "ZVMB");
    assert_string_equal(cs.node[1].addr, "10.99.0.2");
    assert_string_equal(cs.keyfile, ZVSD_CS_KEYFILE);
    assert_string_equal(cs.state_dir, ZVSD_CS_STATE_DIR);
    char text[4096];
    int len = zvs_cs_conf_write(&cs, text, sizeof text);
    assert_true(len > 0);
    assert_non_null(strstr(text, "ring0_addr: 10.99.0.2\n"));
    assert_null(strstr(text, "example"));                /* addresses only */

    /* not a member; a name that does not resolve */
    assert_int_equal(zvsd_ivl_cs_conf(cfg, "ZVMX", "/k", "/s", fake_resolve, &calls, &cs, why,
                                      sizeof why), -EINVAL);
    assert_string_equal(why, "this system (ZVMX) is not an IVL MEMBER");
    zvs_cfg_free(cfg);
    cfg = load("DEFINE VSWITCH IVLVSW TYPE IVL\n"
               "IVL MEMBER ZVMA INDEX 1 ADDRESS 10.99.0.1\n"
               "IVL MEMBER ZVMB INDEX 2 ADDRESS gone.example\n");
    assert_int_equal(zvsd_ivl_cs_conf(cfg, "ZVMA", "/k", "/s", fake_resolve, &calls, &cs, why,
                                      sizeof why), -EINVAL);
    assert_string_equal(why, "IVL MEMBER ZVMB: gone.example does not resolve (NXDOMAIN)");
    zvs_cfg_free(cfg);

    /* no IVL switch, no members; the IVL switch's name when there is no GLOBAL one */
    cfg = load("DEFINE VSWITCH VSW1\n");
    assert_int_equal(zvsd_ivl_cs_conf(cfg, "ZVMA", NULL, NULL, fake_resolve, &calls, &cs, why,
                                      sizeof why), -EINVAL);
    assert_string_equal(why, "no DEFINE VSWITCH ... TYPE IVL");
    zvs_cfg_free(cfg);
    cfg = load("DEFINE VSWITCH IVLVSW TYPE IVL\n");
    assert_int_equal(zvsd_ivl_cs_conf(cfg, "ZVMA", NULL, NULL, fake_resolve, &calls, &cs, why,
                                      sizeof why), -EINVAL);
    assert_string_equal(why, "no IVL MEMBER statement");
    zvs_cfg_free(cfg);
    cfg = load("DEFINE VSWITCH IVLVSW TYPE IVL\nIVL MEMBER ZVMA INDEX 1 ADDRESS fd00::1\n");
    assert_int_equal(zvsd_ivl_cs_conf(cfg, "ZVMA", "/k", "/s", fake_resolve, &calls, &cs, why,
                                      sizeof why), 0);
    assert_string_equal(cs.cluster_name, "IVLVSW");
    assert_int_equal(cs.token_ms, 3000);
    assert_string_equal(cs.keyfile, "/k");
    zvs_cfg_free(cfg);
}

static void test_resolve_ares(void **state)
{
    char addr[ZVS_CS_ADDR_LEN], why[200];
    assert_int_equal(zvsd_resolve_ares(NULL, "10.99.0.7", addr, why, sizeof why), 0);
    assert_string_equal(addr, "10.99.0.7");
    assert_int_equal(zvsd_resolve_ares(NULL, "FD00:0::3", addr, why, sizeof why), 0);
    assert_string_equal(addr, "fd00::3");
    /* c-ares with the host's configuration reads /etc/hosts first */
    assert_int_equal(zvsd_resolve_ares(NULL, "localhost", addr, why, sizeof why), 0);
    assert_string_equal(addr, "127.0.0.1");
}

/* A scratch directory (dir: a mkdtemp template) and the corosync.conf path in it. */
static void scratch(char *dir, char *path, size_t size)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, size, "%s/corosync.conf", dir);
}

static void test_write_file(void **state)
{
    struct zvs_cfg *cfg = load("SYSTEM_IDENTIFIER_DEFAULT ZVMA\n"
                               "DEFINE VSWITCH IVLVSW TYPE IVL\n"
                               "DEFINE VSWITCH GLOBVSW TYPE QDIO GLOBAL\n"
                               "IVL MEMBER ZVMA INDEX 1 ADDRESS localhost\n"
                               "IVL MEMBER ZVMB INDEX 2 ADDRESS 10.99.0.2\n");
    char dir[] = "/tmp/zvs-ivlconf-XXXXXX", path[64];
    scratch(dir, path, sizeof path);
    assert_int_equal(zvsd_ivl_write_corosync(cfg, path, "/k/authkey", "/s", stderr), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_non_null(strstr(text, "cluster_name: GLOBVSW\n"));
    assert_non_null(strstr(text, "ring0_addr: 127.0.0.1\n"));
    assert_non_null(strstr(text, "auto_tie_breaker: 1\n"));      /* two systems */
    assert_non_null(strstr(text, "keyfile: /k/authkey\n"));
    unlink(path);
    /* a directory that is not there: refused, nothing left behind */
    snprintf(path, sizeof path, "%s/no/corosync.conf", dir);
    assert_int_not_equal(zvsd_ivl_write_corosync(cfg, path, NULL, NULL, stderr), 0);
    assert_int_equal(rmdir(dir), 0);
    zvs_cfg_free(cfg);
}

/* An operator's own file checked against SYSTEM CONFIG: the one written agrees; one with
 * another token and a node moved is named difference by difference. */
static void test_check_file(void **state)
{
    struct zvs_cfg *cfg = load("SYSTEM_IDENTIFIER_DEFAULT ZVMA\n"
                               "DEFINE VSWITCH IVLVSW TYPE IVL\n"
                               "IVL MEMBER ZVMA INDEX 1 ADDRESS 10.99.0.1\n"
                               "IVL MEMBER ZVMB INDEX 2 ADDRESS 10.99.0.2\n"
                               "IVL MEMBER ZVMC INDEX 3 ADDRESS 10.99.0.3\n"
                               "IVL HEARTBEAT TIMEOUT 2\n");
    char dir[] = "/tmp/zvs-ivlconf-XXXXXX", path[64];
    scratch(dir, path, sizeof path);
    assert_int_equal(zvsd_ivl_write_corosync(cfg, path, NULL, NULL, stderr), 0);
    char *out = NULL;
    size_t outlen = 0;
    FILE *o = open_memstream(&out, &outlen);
    assert_int_equal(zvsd_ivl_check_corosync(cfg, path, o), 0);
    fflush(o);
    assert_int_equal(outlen, 0);

    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("totem {\n    token: 5000\n    crypto_hash: sha256\n}\n"
          "nodelist {\n"
          "    node {\n        nodeid: 1\n        ring0_addr: 10.99.0.1\n    }\n"
          "    node {\n        nodeid: 2\n        ring0_addr: 10.99.0.9\n    }\n"
          "    node {\n        nodeid: 3\n        ring0_addr: 10.99.0.3\n    }\n}\n"
          "quorum {\n    provider: corosync_votequorum\n}\nsystem {\n    sched_rr: no\n}\n", f);
    fclose(f);
    assert_int_equal(zvsd_ivl_check_corosync(cfg, path, o), 2);
    fflush(o);
    assert_non_null(strstr(out, "differs from SYSTEM CONFIG's IVL domain in 2 way(s):\n"));
    assert_non_null(strstr(out, "totem.token is 5000 ms, HEARTBEAT TIMEOUT is 2000 ms\n"));
    assert_non_null(strstr(out, "10.99.0.9"));
    fclose(o);
    free(out);
    unlink(path);
    assert_int_equal(rmdir(dir), 0);
    zvs_cfg_free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_domain_to_corosync),
        cmocka_unit_test(test_resolve_ares),
        cmocka_unit_test(test_write_file),
        cmocka_unit_test(test_check_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
