/* Series keys and their find-or-add (series.h). */
#include "tools/web/series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct series_key series_key(bool nic, const char *vswitch, const char *userid, uint16_t addr)
{
    struct series_key k;
    memset(&k, 0, sizeof(k));
    k.nic = nic;
    k.addr = addr;
    snprintf(k.vswitch, sizeof(k.vswitch), "%s", vswitch);
    snprintf(k.userid, sizeof(k.userid), "%s", userid);
    return k;
}

static bool same(const struct series_key *a, const struct series_key *b)
{
    return a->nic == b->nic && a->addr == b->addr && strcmp(a->vswitch, b->vswitch) == 0 &&
           strcmp(a->userid, b->userid) == 0;
}

void *series_find(void **arr, unsigned *n, unsigned *cap, size_t size,
                  const struct series_key *k, unsigned hint, bool *fresh)
{
    *fresh = false;
    for (unsigned i = 0; i < *n; i++) {
        char *e = (char *)*arr + (size_t)((hint + i) % *n) * size;
        if (same((const struct series_key *)e, k))
            return e;
    }
    if (*n == *cap) {
        unsigned c = *cap ? *cap * 2 : 16;
        void *p = realloc(*arr, c * size);
        if (!p)
            return NULL;
        *arr = p;
        *cap = c;
    }
    char *e = (char *)*arr + (size_t)(*n)++ * size;
    memset(e, 0, size);
    memcpy(e, k, sizeof(*k));
    *fresh = true;
    return e;
}
