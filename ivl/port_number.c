/* port_number: the domain-wide 802.1AX port numbers (port_number.h). */
#include "ivl/port_number.h"

#include "ivl/state_msg.h"

uint16_t zvs_ivl_port_number(unsigned index, unsigned slot)
{
    if (index < 1 || index > ZVS_IVL_MAX_SYSTEMS || slot >= ZVS_IVL_MAX_MEMBERS)
        return 0;
    return (uint16_t)(index << 8 | (slot + 1));
}

unsigned zvs_ivl_port_system(uint16_t port)
{
    unsigned index = port >> 8, low = port & 0xFF;
    if (index < 1 || index > ZVS_IVL_MAX_SYSTEMS || low < 1 || low > ZVS_IVL_MAX_MEMBERS)
        return 0;
    return index;
}
