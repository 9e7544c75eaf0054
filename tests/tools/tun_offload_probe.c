/* tun_offload_probe: which virtio-net offloads this kernel's tap takes (TUNSETOFFLOAD),
 * the measurement behind overlay/README.md's choice for VXLAN: UDP segmentation (USO,
 * VIRTIO_NET_HDR_GSO_UDP_L4) and UDP tunnel GSO (the virtio 1.4 tunnel extension Linux
 * added to tun). Prints one line per flag: accepted or refused with the errno.
 *
 *   tun_offload_probe          (needs CAP_NET_ADMIN; makes a tap and removes it)
 *
 * The flag values are the kernel's uapi (linux/if_tun.h); defined here when the installed
 * headers are older than the running kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6 0x40
#endif
#ifndef TUN_F_UDP_TUNNEL_GSO
#define TUN_F_UDP_TUNNEL_GSO 0x080
#endif
#ifndef TUN_F_UDP_TUNNEL_GSO_CSUM
#define TUN_F_UDP_TUNNEL_GSO_CSUM 0x100
#endif

int main(void)
{
    static const struct { const char *name; unsigned flags; } probe[] = {
        { "CSUM", TUN_F_CSUM },
        { "CSUM|TSO4|TSO6", TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 },
        { "CSUM|USO4|USO6 (GSO_UDP_L4)", TUN_F_CSUM | TUN_F_USO4 | TUN_F_USO6 },
        { "CSUM|TSO4|TSO6|UDP_TUNNEL_GSO", TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 |
                                           TUN_F_UDP_TUNNEL_GSO },
        { "CSUM|TSO4|TSO6|UDP_TUNNEL_GSO|UDP_TUNNEL_GSO_CSUM",
          TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_UDP_TUNNEL_GSO |
          TUN_F_UDP_TUNNEL_GSO_CSUM },
    };
    struct ifreq ifr;
    int fd = open("/dev/net/tun", O_RDWR), bad = 0;

    if (fd < 0) {
        perror("/dev/net/tun");
        return 2;
    }
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "zvsprobe%d", (int)getpid() % 10000);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        perror("TUNSETIFF");
        return 2;
    }
    for (unsigned i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        int rc = ioctl(fd, TUNSETOFFLOAD, (unsigned long)probe[i].flags);
        printf("%-52s %s\n", probe[i].name, rc == 0 ? "accepted" : strerror(errno));
        bad += rc != 0;
    }
    close(fd);                          /* not persistent: the tap goes with the fd */
    return bad ? 1 : 0;
}
