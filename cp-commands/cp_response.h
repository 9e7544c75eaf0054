/* A CP command's response: lines of text plus the CP return code, as the console sends
 * it back and the executor writes it. command.h includes this, so every file that wrote
 * responses through command.h still does. */
#ifndef ZVS_CP_RESPONSE_H
#define ZVS_CP_RESPONSE_H

#include <stddef.h>

#include "cp-commands/cp_messages.h"             /* enum zvs_cpmsg_id for zvs_cp_error */

/* A response: lines of text ("\n"-terminated) and the CP return code (0 success). */
struct zvs_cp_response {
    char   *text;                       /* NUL-terminated, owned (free with _fini) */
    size_t  len;
    size_t  cap;
    int     rc;
    char    module[4];                  /* the answering command's CP module ("SWQ"), set
                                           by the parser; "" before one is known */
};

void zvs_cp_response_init(struct zvs_cp_response *r);
void zvs_cp_response_fini(struct zvs_cp_response *r);
/* Appends one formatted line (a newline is added). Never fails visibly: on allocation
 * failure the response is marked truncated with a last line saying so. */
void zvs_cp_printf(struct zvs_cp_response *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* An error: "ID text" from the command message catalogue (an IBM message without a
 * fixed module names r->module), sets r->rc to the catalogue's return code for it. */
void zvs_cp_error(struct zvs_cp_response *r, int msg, ...);

#endif
