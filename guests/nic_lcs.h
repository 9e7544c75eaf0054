/* nic_lcs: the "lcs" NIC kind (NICBIND vdev LCS devno): the NIC is the LCS device of the
 * user's Hercules machine (vm.h). Its ops and their rules are backends/nic_class.h's.
 *
 * The class lives here, beside the machines, and enters the backend registry
 * (backends/backend.h) when the composition root calls zvs_nic_lcs_register once at
 * start-up: the registry's layer includes nothing above it. */
#ifndef ZVS_NIC_LCS_H
#define ZVS_NIC_LCS_H

/* Registers the "lcs" kind; again is a no-op. 0 or -errno (zvs_backend_register). */
int zvs_nic_lcs_register(void);

#endif
