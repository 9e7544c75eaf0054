/* Disabled-wait codes of the frame program: the address field of the wait PSW that
 * Hercules shows (HHCCP011I ... Disabled wait state PSW 000A0000 xxxxxxxx).
 * Shared by start.S and the C sources; guests/README.md documents them. */
#ifndef FRAMEPROG_WAITCODES_H
#define FRAMEPROG_WAITCODES_H

#define WAIT_IMAGE_BAD      0x00000BAD  /* image trailer or checksum wrong: truncated/corrupt */
#define WAIT_PARAM_BAD      0x00000BA1  /* parameter block missing, bad magic, version or value */
#define WAIT_NO_LCS         0x00000C01  /* no 3088 (LCS) read/write subchannel pair found */
#define WAIT_MSCH_FAILED    0x00000C02  /* MODIFY SUBCHANNEL refused on an LCS subchannel */
#define WAIT_IO_FAILED      0x00000C03  /* START SUBCHANNEL cc 3 or a channel error on LCS */
#define WAIT_LCS_STARTUP    0x00000C11  /* no (or failed) reply to LCS STARTUP within 5 s */
#define WAIT_LCS_STARTLAN   0x00000C12  /* no (or failed) reply to LCS STARTLAN within 5 s */
#define WAIT_LCS_LANSTAT    0x00000C13  /* no (or failed) reply to LCS LANSTAT within 5 s */
#define WAIT_RETURNED       0x00000EEE  /* main returned (a program bug) */
#define WAIT_SVC            0x00E30000  /* unexpected SVC interruption */
#define WAIT_MCHECK         0x00E10000  /* machine check */
#define WAIT_PGM            0x00E00000  /* program check (Hercules logs the interruption code) */

#endif
