/* EBCDIC code page 037 <-> ISO-8859-1 (ASCII), and CP names in monitor records: 8 bytes,
 * EBCDIC, blank (X'40') padded. A CP name is made of A-Z 0-9 @ # $ (ASCII upper case in
 * memory); anything else in a record is refused, not guessed. */
#ifndef ZVS_EBCDIC_H
#define ZVS_EBCDIC_H

#include <stdbool.h>
#include <stdint.h>

#define ZVS_EBCDIC_BLANK 0x40

uint8_t zvs_ebcdic_from_ascii(uint8_t c);
uint8_t zvs_ebcdic_to_ascii(uint8_t e);
/* A-Z 0-9 @ # $ */
bool zvs_ebcdic_name_char(char c);
/* ASCII name (at most 8 name characters, NUL terminated within 9 bytes; "" allowed) ->
 * 8 EBCDIC bytes blank padded. 0 or -EINVAL (too long, or a character not allowed). */
int zvs_ebcdic_name_put(uint8_t out[8], const char *name);
/* 8 EBCDIC bytes -> ASCII, trailing blanks trimmed, NUL terminated. 0 or -EBADMSG (a byte
 * that is neither a name character nor a blank, or a name character after a blank); out is
 * "" on error. */
int zvs_ebcdic_name_get(char out[9], const uint8_t in[8]);

#endif
