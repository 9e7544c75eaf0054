/* The Hercules configuration of one machine, written into its folder.
 *
 *   hercules.cnf  ARCHMODE (the image template's "*ZVS ARCHMODE x" line, default ESA/390),
 *                 CPUMODEL 2097, MAINSIZE (USER storage in MB), NUMCPU 1, OSTAILOR when
 *                 the template has "*ZVS OSTAILOR x" (LINUX: without it Hercules logs a
 *                 program-check dump for each of the thousands of page faults and
 *                 translation exceptions a Linux boot takes as normal, ~5,500 lines),
 *                 "HTTPPORT 8081 NOAUTH" (the command interface SIGNAL SHUTDOWN and SEND
 *                 use, vm.h), the 3215 console at 0009 (its "/" prefix lets SEND type
 *                 into it), and the LCS device:
 *                 "devno.2 LCS -n /dev/net/tun -m tapmac -o lcs.oat ip".
 *   lcs.oat       "HWADD 00 tapmac" and "devno IP 00 PRI ip": all IPv4 and ARP for the
 *                 port reach the guest (without an OAT only those for the one address do).
 *                 HWADD sets the tap's MAC, not the guest's: Hercules 3.13 gives the guest
 *                 the tap's MAC + 1 in the last byte (LANSTAT), so the tap gets the NIC's
 *                 MAC - 1 there (cp-commands/config_machines.c keeps every NIC off it).
 *                 Hercules applies -m and HWADD only at the guest's STARTUP, through
 *                 hercifc and without waiting for it, so LANSTAT can read the tap's MAC
 *                 before: the supervisor sets the same MAC itself when the tap opens
 *                 (vm.c: set_tap_mac); these lines keep Hercules' own bookkeeping (its
 *                 HHCLC056W check) agreeing with it.
 *   <image>.ins   IPL name: <images>/<name>.ins.template with its placeholders replaced
 *                 and every file it names copied (linked when it can be) into the folder,
 *                 because Hercules 3.13 opens .ins files relative to the .ins file's own
 *                 folder and refuses others. Placeholders: @IMAGE@ (<name>.bin),
 *                 @PARAMS@ (params.bin: the frame program's parameter block, version 1,
 *                 guests/README.md), @PARMLINE@ (parmline.txt: the template's "*ZVS
 *                 PARMLINE text" followed by "zvs.ip=a.b.c.d/n zvs.gw=a.b.c.d zvs.mac=..",
 *                 NUL-terminated, for a Linux kernel command line).
 *   hercules.rc   "ipl <the .ins>" (IPL INS path: the user's file, as it is).
 */
#include "guests/vm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The reason becomes ZVSGST1163E's second operand, which CP's formatter upper-cases and cuts
 * at 64 characters: reasons name files by their name in the folder, never by a path (the
 * daemon logs the folders), and stay short. */
#define WHY(...) (snprintf(why, whylen, __VA_ARGS__), -EINVAL)

static void mac_str(const uint8_t m[6], char *buf, size_t size)
{
    snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void ip_str(uint32_t ip, char *buf, size_t size)
{
    snprintf(buf, size, "%u.%u.%u.%u", (unsigned)(ip >> 24), (unsigned)(ip >> 16) & 255u,
             (unsigned)(ip >> 8) & 255u, (unsigned)ip & 255u);
}

static int write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            int e = errno;
            close(fd);
            return -e;
        }
        p += w;
        len -= (size_t)w;
    }
    return close(fd) < 0 ? -errno : 0;
}

/* src into the folder as name: a hard link, else a copy. */
static int copy_in(const char *src, const char *dir, const char *name)
{
    char dst[ZVS_VM_PATH_MAX + 64];
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    (void)unlink(dst);
    if (link(src, dst) == 0)
        return 0;
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -errno;
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        return -e;
    }
    char buf[65536];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            rc = -EIO;
            break;
        }
    if (n < 0)
        rc = -errno;
    close(in);
    if (close(out) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

/* The frame program's parameter block, version 1 (guests/README.md). */
static int write_params(const struct zvs_vm_spec *s, const char *dir)
{
    uint8_t b[64] = { 'Z', 'V', 'P', 'B', 0, 1, 0, 64 };
    uint32_t mask = s->prefix == 0 ? 0 : 0xFFFFFFFFu << (32 - s->prefix);
    for (int i = 0; i < 4; i++) {
        b[8 + i] = (uint8_t)(s->ip >> (24 - 8 * i));
        b[12 + i] = (uint8_t)(mask >> (24 - 8 * i));
    }
    b[0x16] = (uint8_t)(s->lcs_devno >> 8);
    b[0x17] = (uint8_t)s->lcs_devno;
    char path[ZVS_VM_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/params.bin", dir);
    return write_file(path, b, sizeof b);
}

static int write_parmline(const struct zvs_vm_spec *s, const char *dir, const char *prefix)
{
    char line[1024], ip[16], gw[16], mac[18];
    ip_str(s->ip, ip, sizeof ip);
    ip_str(s->gw, gw, sizeof gw);
    mac_str(s->nic_mac, mac, sizeof mac);
    int n = snprintf(line, sizeof line, "%s%szvs.ip=%s/%u zvs.gw=%s zvs.mac=%s", prefix,
                     prefix[0] ? " " : "", ip, (unsigned)s->prefix, s->gw ? gw : "none", mac);
    char path[ZVS_VM_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/parmline.txt", dir);
    return write_file(path, line, (size_t)n + 1);
}

/* Reads the template, writes <dir>/<lower>.ins. archmode gets the template's choice. */
static int write_ins(const struct zvs_vm_spec *s, char *ins, size_t inslen, char *archmode,
                     size_t archlen, char *ostailor, size_t oslen, char *why, size_t whylen)
{
    char lower[17], tpl[ZVS_VM_PATH_MAX + 48], line[512], parm[520] = "";
    size_t i;
    for (i = 0; s->ipl_name[i] != '\0' && i < sizeof lower - 1; i++)
        lower[i] = (char)tolower((unsigned char)s->ipl_name[i]);
    lower[i] = '\0';
    snprintf(tpl, sizeof tpl, "%s/%s.ins.template", s->images, lower);
    FILE *in = fopen(tpl, "re");
    if (in == NULL)
        return WHY("no %s.ins.template in the images folder", lower);
    snprintf(ins, inslen, "%s/%s.ins", s->dir, lower);
    FILE *out = fopen(ins, "we");
    if (out == NULL) {
        fclose(in);
        return WHY("cannot write %s.ins: %s", lower, strerror(errno));
    }
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, in) != NULL) {
        char file[256], addr[24];
        if (sscanf(line, "*ZVS ARCHMODE %23s", addr) == 1) {
            snprintf(archmode, archlen, "%s", addr);
            continue;
        }
        if (sscanf(line, "*ZVS OSTAILOR %23s", addr) == 1) {
            snprintf(ostailor, oslen, "%s", addr);
            continue;
        }
        if (strncmp(line, "*ZVS PARMLINE ", 14) == 0) {
            snprintf(parm, sizeof parm, "%s", line + 14);
            parm[strcspn(parm, "\n")] = '\0';
            continue;
        }
        if (line[0] == '*' || sscanf(line, "%255s %23s", file, addr) != 2) {
            fputs(line, out);
            continue;
        }
        char src[ZVS_VM_PATH_MAX + 300];
        const char *name = file;
        if (strcmp(file, "@PARAMS@") == 0) {
            name = "params.bin";
            if (s->ip == 0)
                rc = WHY("it takes IP parameters: the entry has no GUESTIP");
            else
                rc = write_params(s, s->dir) < 0 ? WHY("cannot write params.bin: %s", strerror(errno)) : 0;
        } else if (strcmp(file, "@PARMLINE@") == 0) {
            name = "parmline.txt";      /* written once the whole template is read */
        } else {
            char img[64];
            if (strcmp(file, "@IMAGE@") == 0) {
                snprintf(img, sizeof img, "%s.bin", lower);
                name = img;
            }
            snprintf(src, sizeof src, "%s/%s", s->images, name);
            struct stat st;
            if (stat(src, &st) < 0 || st.st_size == 0)
                rc = WHY("no %.24s in the images folder", name);
            else if (copy_in(src, s->dir, name) < 0)
                rc = WHY("cannot copy %.24s", name);
            fprintf(out, "%s %s\n", name, addr);
            continue;
        }
        fprintf(out, "%s %s\n", name, addr);
    }
    fclose(in);
    if (fclose(out) != 0 && rc == 0)
        rc = WHY("cannot write %s.ins: %s", lower, strerror(errno));
    if (rc == 0)
        rc = write_parmline(s, s->dir, parm) < 0 ? WHY("cannot write parmline.txt: %s", strerror(errno)) : 0;
    return rc;
}

int zvs_vm_prepare(const struct zvs_vm_spec *s, char *why, size_t whylen)
{
    char path[ZVS_VM_PATH_MAX + 32], ins[ZVS_VM_PATH_MAX + 32], arch[32] = "ESA/390";
    char buf[2048], tapmac[18], ip[16], ostailor[32] = "";
    int rc;

    if (mkdir(s->dir, 0750) < 0 && errno != EEXIST)
        return WHY("machine folder: %s", strerror(errno));
    if (s->ipl == ZVS_VM_IPL_NAMED) {
        rc = write_ins(s, ins, sizeof ins, arch, sizeof arch, ostailor, sizeof ostailor, why,
                       whylen);
        if (rc < 0)
            return rc;
    } else {
        if (access(s->ipl_path, R_OK) < 0)
            return WHY("the .ins file: %s", strerror(errno));
        snprintf(ins, sizeof ins, "%s", s->ipl_path);
    }
    mac_str(s->tap_mac, tapmac, sizeof tapmac);
    ip_str(s->ip, ip, sizeof ip);
    if (s->has_lcs) {
        int n = snprintf(buf, sizeof buf, "HWADD 00 %s\n%04X IP 00 PRI %s\n", tapmac,
                         (unsigned)s->lcs_devno, ip);
        snprintf(path, sizeof path, "%s/lcs.oat", s->dir);
        if (write_file(path, buf, (size_t)n) < 0)
            return WHY("cannot write lcs.oat: %s", strerror(errno));
    }
    int n = snprintf(buf, sizeof buf,
                     "# zvswitch: machine %s (written at XAUTOLOG)\n"
                     "ARCHMODE %s\nCPUMODEL 2097\nMAINSIZE %u\nNUMCPU 1\n%s%s%s"
                     "HTTPPORT %u NOAUTH\n0009 3215-C /\n",
                     s->userid, arch, (unsigned)(s->mainsize_mb ? s->mainsize_mb : 1),
                     ostailor[0] ? "OSTAILOR " : "", ostailor, ostailor[0] ? "\n" : "",
                     (unsigned)ZVS_VM_HTTP_PORT);
    if (s->has_lcs)
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "%04X.2 LCS -n /dev/net/tun -m %s -o %s/lcs.oat %s\n",
                      (unsigned)s->lcs_devno, tapmac, s->dir, ip);
    snprintf(path, sizeof path, "%s/hercules.cnf", s->dir);
    if (write_file(path, buf, (size_t)n) < 0)
        return WHY("cannot write hercules.cnf: %s", strerror(errno));
    n = snprintf(buf, sizeof buf, "ipl %s\n", ins);
    snprintf(path, sizeof path, "%s/hercules.rc", s->dir);
    if (write_file(path, buf, (size_t)n) < 0)
        return WHY("cannot write hercules.rc: %s", strerror(errno));
    return 0;
}
