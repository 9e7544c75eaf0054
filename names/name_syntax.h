/* Host names as a peer's address may be given (RFC 1035 section 2.3.1 with RFC 1123
 * section 2.1's leading digit): what the parsers accept before anything is looked up. */
#ifndef ZVS_NAME_SYNTAX_H
#define ZVS_NAME_SYNTAX_H

#include <stddef.h>

#define ZVS_HOSTNAME_MAX 253            /* RFC 1035: 255 octets on the wire, 253 as text */
#define ZVS_LABEL_MAX    63

enum zvs_hostname_err {
    ZVS_HOSTNAME_OK,
    ZVS_HOSTNAME_EMPTY,
    ZVS_HOSTNAME_TOO_LONG,              /* over ZVS_HOSTNAME_MAX */
    ZVS_HOSTNAME_LABEL_LONG,            /* a label over ZVS_LABEL_MAX */
    ZVS_HOSTNAME_LABEL_EMPTY,           /* "a..b", ".a" */
    ZVS_HOSTNAME_BAD_CHAR,              /* not a letter, digit, hyphen or dot */
    ZVS_HOSTNAME_HYPHEN,                /* a label that begins or ends with a hyphen */
    ZVS_HOSTNAME_NUMERIC_TLD,           /* all-digit last label ("1.2.3", not an address) */
};

/* Checks s (len bytes, no NUL needed) as a host name or an IPv4/IPv6 address literal; a
 * trailing dot is allowed. On ZVS_HOSTNAME_OK, when canon is not NULL, the name in lower
 * case without its trailing dot is written there (ZVS_HOSTNAME_MAX + 1 bytes). */
enum zvs_hostname_err zvs_hostname_check(const char *s, size_t len, char *canon);
/* What is wrong, in a message's words ("label longer than 63 characters"). */
const char *zvs_hostname_err_text(enum zvs_hostname_err e);

#endif
