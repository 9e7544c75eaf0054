/* nic_program: the NIC kinds an external program drives over the owner's attach socket
 * (qdio/qdio_attach.h): "qdio" (NICBIND vdev QDIO) and "none" (no NICBIND: a z/VM
 * guest's operating system drives the device CP gave it the same way). Registered in
 * backend.c; the ops and their rules are nic_class.h's. */
#ifndef ZVS_NIC_PROGRAM_H
#define ZVS_NIC_PROGRAM_H

#include "backends/nic_class.h"

extern const struct zvs_nic_class zvs_nic_qdio_class;
extern const struct zvs_nic_class zvs_nic_none_class;

#endif
