/* Host name syntax (name_syntax.h). The parsers of SYSTEM CONFIG and CP commands call it,
 * so a name that could never be looked up is refused where it is typed. */
#include "names/name_syntax.h"

#include "names/resolver.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static const char *const err_text[] = {
    [ZVS_HOSTNAME_OK]          = "valid",
    [ZVS_HOSTNAME_EMPTY]       = "empty name",
    [ZVS_HOSTNAME_TOO_LONG]    = "name longer than 253 characters",
    [ZVS_HOSTNAME_LABEL_LONG]  = "label longer than 63 characters",
    [ZVS_HOSTNAME_LABEL_EMPTY] = "empty label",
    [ZVS_HOSTNAME_BAD_CHAR]    = "character not allowed in a host name",
    [ZVS_HOSTNAME_HYPHEN]      = "label begins or ends with a hyphen",
    [ZVS_HOSTNAME_NUMERIC_TLD] = "all-numeric last label",
};

const char *zvs_hostname_err_text(enum zvs_hostname_err e)
{
    return (unsigned)e < sizeof err_text / sizeof err_text[0] ? err_text[e] : "?";
}

/* An address literal, within the text's length. */
static bool is_literal(const char *s, size_t len)
{
    char buf[ZVS_RES_ADDR_STR];
    struct zvs_res_addr a;
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return zvs_res_addr_parse(buf, &a);
}

static void set_canon(char *canon, const char *s, size_t len)
{
    if (!canon)
        return;
    for (size_t i = 0; i < len; i++)
        canon[i] = (char)tolower((unsigned char)s[i]);
    canon[len] = '\0';
}

enum zvs_hostname_err zvs_hostname_check(const char *s, size_t len, char *canon)
{
    if (is_literal(s, len)) {
        set_canon(canon, s, len);
        return ZVS_HOSTNAME_OK;
    }
    if (len > 0 && s[len - 1] == '.')
        len--;                          /* the root: "host.example." */
    if (len == 0)
        return ZVS_HOSTNAME_EMPTY;
    if (len > ZVS_HOSTNAME_MAX)
        return ZVS_HOSTNAME_TOO_LONG;
    size_t start = 0;
    bool digits_only = true;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            size_t n = i - start;
            if (n == 0)
                return ZVS_HOSTNAME_LABEL_EMPTY;
            if (n > ZVS_LABEL_MAX)
                return ZVS_HOSTNAME_LABEL_LONG;
            if (s[start] == '-' || s[i - 1] == '-')
                return ZVS_HOSTNAME_HYPHEN;
            if (i == len && digits_only)
                return ZVS_HOSTNAME_NUMERIC_TLD;
            start = i + 1;
            digits_only = true;
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        if (!isalnum(c) && c != '-')
            return ZVS_HOSTNAME_BAD_CHAR;
        if (!isdigit(c))
            digits_only = false;
    }
    set_canon(canon, s, len);
    return ZVS_HOSTNAME_OK;
}
