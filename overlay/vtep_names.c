/* Remote VTEPs by host name; see vtep_names.h. */
#include "overlay/vtep_names.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

int zvs_vtep_add_remote_name(struct zvs_vtep *v, struct zvs_names *t, const char *name,
                             uint64_t now)
{
    char canon[ZVS_HOSTNAME_MAX + 1];
    struct zvs_ipaddr lit;
    int idx, rc;

    if (zvs_ipaddr_parse(name, &lit) == 0)
        return zvs_vtep_add_remote(v, name, &lit);
    if (zvs_hostname_check(name, strlen(name), canon) != ZVS_HOSTNAME_OK)
        return -EINVAL;
    idx = zvs_vtep_add_remote(v, canon, NULL);
    if (idx < 0)
        return idx;
    rc = zvs_names_watch(t, canon, v, now);
    if (rc < 0) {
        zvs_vtep_del_remote(v, (unsigned)idx);
        return rc;
    }
    return idx;
}

int zvs_vtep_del_remote_name(struct zvs_vtep *v, struct zvs_names *t, unsigned idx)
{
    const struct zvs_vtep_remote *r = zvs_vtep_remote(v, idx);
    struct zvs_ipaddr lit;

    if (!r || r->state == ZVS_VTEP_REMOTE_FREE)
        return -EINVAL;
    if (zvs_ipaddr_parse(r->name, &lit) != 0)
        zvs_names_unwatch(t, r->name);
    return zvs_vtep_del_remote(v, idx);
}

void zvs_vtep_name_event(struct zvs_vtep *v, const struct zvs_name *n)
{
    int idx = zvs_vtep_find_remote(v, n->name);
    int fam = zvs_vtep_config_of(v)->local.family == 6 ? AF_INET6 : AF_INET;

    if (idx < 0)
        return;
    for (unsigned i = 0; i < n->naddr; i++) {
        if (n->addr[i].family == fam) {
            struct zvs_ipaddr a = { .family = (uint8_t)(fam == AF_INET ? 4 : 6) };

            memcpy(a.a, n->addr[i].bytes, fam == AF_INET ? 4 : 16);
            zvs_vtep_set_remote_addr(v, (unsigned)idx, &a);
            return;
        }
    }
    zvs_vtep_set_remote_addr(v, (unsigned)idx, NULL);
}
