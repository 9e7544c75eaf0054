/* Monitor record builders for unit tests.
 *
 * Owns: the lab identities the monitor tests share (names, devices, LAN). The golden bytes
 * in test_monrec.c are written from these values, so changing one here changes what those
 * tests expect: change the golden bytes with it, by hand, from monitor/RECORDS.md.
 * Names are copied with strcpy into the record's fixed fields; each is shorter than the
 * field, so every name stays terminated. */
#include "monrec_builders.h"

#include <string.h>

/* The LAN every record names: VSWITCH SYSTEM VSW1, port group ETHGRP (group may be NULL). */
static void lab_lan(char *owner, char *name, char *group)
{
    strcpy(owner, "SYSTEM");
    strcpy(name, "VSW1");
    if (group)
        strcpy(group, "ETHGRP");
}

struct zvs_mon_record monrec_new(uint8_t domain, uint16_t number, uint64_t tod)
{
    struct zvs_mon_record r;

    memset(&r, 0, sizeof(r));
    r.domain = domain;
    r.number = number;
    r.tod = tod;
    return r;
}

struct zvs_mon_record monrec_vswitch(uint16_t rdev, uint64_t tod)
{
    struct zvs_mon_record r = monrec_new(ZVS_MON_DOMAIN_IO, ZVS_MON_REC_D6R21, tod);
    struct zvs_mon_vswitch_activity *v = &r.u.vsw;

    v->rdev = rdev;
    v->queuestorage_mb = 8;
    strcpy(v->controller, "DTCVSW1");
    lab_lan(v->lan_owner, v->lan_name, v->group);
    return r;
}

struct zvs_mon_record monrec_vswitch_event(uint16_t number, uint64_t tod)
{
    struct zvs_mon_record r = monrec_new(ZVS_MON_DOMAIN_IO, number, tod);
    struct zvs_mon_vswitch_event *v = &r.u.vswev;

    lab_lan(v->lan_owner, v->lan_name, v->group);
    strcpy(v->controller, "DTCVSW1");
    v->rdev = 0x0603;
    return r;
}

struct zvs_mon_record monrec_vnic(uint16_t vdev, uint64_t tod)
{
    struct zvs_mon_record r = monrec_new(ZVS_MON_DOMAIN_NET, ZVS_MON_REC_D8R1, tod);
    struct zvs_mon_vnic_activity *v = &r.u.vnic;

    strcpy(v->owner, "LINUX01");
    v->vdev = vdev;
    v->nic_type = 2;
    v->vswitch = 1;
    v->transport = 2;
    lab_lan(v->lan_owner, v->lan_name, v->group);
    return r;
}

struct zvs_mon_record monrec_link(uint16_t number, uint64_t tod)
{
    struct zvs_mon_record r = monrec_new(ZVS_MON_DOMAIN_NET, number, tod);
    struct zvs_mon_vnic_link *l = &r.u.link;

    lab_lan(l->lan_owner, l->lan_name, NULL);
    strcpy(l->nic_owner, "LINUX02");
    l->vdev = 0x0700;
    l->nic_type = 2;
    return r;
}
