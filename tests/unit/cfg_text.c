/* See cfg_text.h. */
#include "tests/unit/cfg_text.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

char *cfg_dump_text(const struct zvs_cfg *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(zvs_cfg_dump(cfg, f), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}
