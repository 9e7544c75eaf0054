/* dummy: the table of named in-memory links (see dummy.h).
 *
 * Owns: up to ZVS_DUMMY_MAX near ends waiting for their open, each a memlink port with a
 * doorbell. Nothing here is on the per-frame path: the ports are memlink's.
 * Hazard: the table is process-wide and unlocked; a test that forks keeps a copy.
 */
#include "backends/dummy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/ifinfo.h"
#include "backends/memlink.h"

struct dummy_slot {
    char             name[16];          /* IFNAMSIZ */
    struct zvs_port *near;              /* NULL: slot free */
};

static struct dummy_slot table[ZVS_DUMMY_MAX];

static struct dummy_slot *slot_of(const char *name)
{
    for (int i = 0; i < ZVS_DUMMY_MAX; i++)
        if (table[i].near && strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

void zvs_dummy_mac(const char *name, int near, uint8_t mac[6])
{
    uint32_t h = 2166136261u;           /* FNV-1a: stable across runs and builds */
    for (const char *c = name; *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    mac[0] = near ? 0x02 : 0x06;        /* locally administered, unicast */
    mac[1] = 0x00;
    mac[2] = (uint8_t)(h >> 24);
    mac[3] = (uint8_t)(h >> 16);
    mac[4] = (uint8_t)(h >> 8);
    mac[5] = (uint8_t)h;
}

int zvs_dummy_create(const char *name, struct zvs_port **far_end)
{
    struct zvs_port *near = NULL, *far = NULL;
    struct dummy_slot *free_slot = NULL;
    char far_name[24];
    uint8_t mac[6];

    *far_end = NULL;
    if (!zvs_ifname_ok(name))
        return -EINVAL;
    if (slot_of(name))
        return -EEXIST;
    for (int i = 0; i < ZVS_DUMMY_MAX && !free_slot; i++)
        if (!table[i].near)
            free_slot = &table[i];
    if (!free_slot)
        return -ENOSPC;
    snprintf(far_name, sizeof(far_name), "%s.far", name);
    int rc = zvs_memlink_pair(name, far_name, 0, 0, &near, &far);
    if (rc < 0)
        return rc;
    rc = zvs_memlink_doorbell(near);
    if (rc < 0) {
        near->ops->destroy(near);
        far->ops->destroy(far);
        return rc;
    }
    zvs_dummy_mac(name, 1, mac);
    zvs_memlink_set_mac(near, mac);
    zvs_dummy_mac(name, 0, mac);
    zvs_memlink_set_mac(far, mac);
    snprintf(free_slot->name, sizeof(free_slot->name), "%s", name);
    free_slot->near = near;
    *far_end = far;
    return 0;
}

int zvs_dummy_create_pair(const char *a, const char *b)
{
    struct zvs_port *pa = NULL, *pb = NULL;
    struct dummy_slot *sa = NULL, *sb = NULL;
    uint8_t mac[6];

    if (!zvs_ifname_ok(a) || !zvs_ifname_ok(b) || strcmp(a, b) == 0)
        return -EINVAL;
    if (slot_of(a) || slot_of(b))
        return -EEXIST;
    for (int i = 0; i < ZVS_DUMMY_MAX && !sb; i++)
        if (!table[i].near) {
            if (!sa)
                sa = &table[i];
            else
                sb = &table[i];
        }
    if (!sb)
        return -ENOSPC;
    int rc = zvs_memlink_pair(a, b, 0, 0, &pa, &pb);
    if (rc < 0)
        return rc;
    if ((rc = zvs_memlink_doorbell(pa)) < 0 || (rc = zvs_memlink_doorbell(pb)) < 0) {
        pa->ops->destroy(pa);
        pb->ops->destroy(pb);
        return rc;
    }
    zvs_dummy_mac(a, 1, mac);
    zvs_memlink_set_mac(pa, mac);
    zvs_dummy_mac(b, 1, mac);
    zvs_memlink_set_mac(pb, mac);
    snprintf(sa->name, sizeof(sa->name), "%s", a);
    sa->near = pa;
    snprintf(sb->name, sizeof(sb->name), "%s", b);
    sb->near = pb;
    return 0;
}

struct zvs_port *zvs_dummy_open(const char *name, int *err)
{
    int rc = zvs_ifname_ok(name) ? -ENODEV : -EINVAL;
    struct dummy_slot *s = rc == -ENODEV ? slot_of(name) : NULL;
    if (!s) {
        if (err)
            *err = rc;
        return NULL;
    }
    struct zvs_port *p = s->near;
    *s = (struct dummy_slot){ 0 };
    return p;
}

int zvs_dummy_destroy(const char *name)
{
    struct dummy_slot *s = name ? slot_of(name) : NULL;
    if (!s)
        return -ENODEV;
    s->near->ops->destroy(s->near);
    *s = (struct dummy_slot){ 0 };
    return 0;
}

void zvs_dummy_clear(void)
{
    for (int i = 0; i < ZVS_DUMMY_MAX; i++)
        if (table[i].near)
            (void)zvs_dummy_destroy(table[i].name);
}
