/* Start-up code and low core of the standalone frame program (ESA/390 mode).
 *
 * The IPL loads the image at absolute 0 and the CPU starts with the IPL PSW at 0:
 * disabled for every interruption, 31-bit addressing, at _start. The new PSWs send
 * every unexpected interruption (program check, machine check, SVC) to a disabled
 * wait whose address field carries a code (guests/README.md lists them). The I/O and
 * external new PSWs return from fp_wait(): the program sleeps in an enabled wait and
 * the interruption itself is the wake-up; its status is then collected by polling.
 */
#include "waitcodes.h"

        .section .lowcore,"ax"
        .globl  _lowcore
_lowcore:
        .long   0x00080000, 0x80000000 + _start         /* 0x00 IPL PSW */
        .fill   0x58 - 0x08, 1, 0
        .long   0x00080000, 0x80000000 + fp_resume      /* 0x58 external new PSW */
        .long   0x000A0000, WAIT_SVC                    /* 0x60 SVC new PSW */
        .long   0x00080000, 0x80000000 + pgm_check      /* 0x68 program new PSW */
        .long   0x000A0000, WAIT_MCHECK                 /* 0x70 machine-check new PSW */
        .long   0x00080000, 0x80000000 + fp_resume      /* 0x78 I/O new PSW */
        .fill   0x200 - 0x80, 1, 0

        .section .text.start,"ax"
        .globl  _start
_start:
        /* A 4 KiB frame below the stack top; the back chain ends at 0. */
        larl    %r13, .Lconst
        l       %r15, 0(%r13)
        xc      0(96, %r15), 0(%r15)
        /* Clear .bss (it is not part of the image). */
        l       %r2, 4(%r13)
        l       %r3, 8(%r13)
        sr      %r3, %r2
        jz      2f
1:      mvi     0(%r2), 0
        la      %r2, 1(%r2)
        brct    %r3, 1b
2:      l       %r1, 12(%r13)
        basr    %r14, %r1
        /* main never returns; if it did, stop with a code. */
        larl    %r1, .Lreturned
        lpsw    0(%r1)
        .align  8
.Lreturned:
        .long   0x000A0000, WAIT_RETURNED
.Lconst:
        .long   0xFF000 - 96            /* 0: stack */
        .long   _bss_start, _bss_end    /* 4, 8 */
        .long   main                    /* 12 */

/* A program check: disabled wait with WAIT_PGM_BASE + the interruption code. */
        .text
pgm_check:
        larl    %r13, .Lpgmpsw
        lh      %r1, 0x8E               /* program interruption code */
        n       %r1, 8(%r13)
        o       %r1, 12(%r13)
        st      %r1, 4(%r13)
        lpsw    0(%r13)
        .align  8
.Lpgmpsw:
        .long   0x000A0000, 0
        .long   0x0000FFFF
        .long   WAIT_PGM_BASE

/* void fp_wait(void): an enabled wait for I/O and external interruptions. The
 * interruption loads the I/O or external new PSW, which resumes at fp_resume with
 * every register as it was here, so fp_resume simply returns to the caller. */
        .globl  fp_wait
        .align  4
fp_wait:
        larl    %r1, .Lwaitpsw
        lpsw    0(%r1)
        .globl  fp_resume
fp_resume:
        br      %r14
        .align  8
.Lwaitpsw:
        .long   0x030A0000, 0x80000000  /* I/O + external mask, wait */

/* void fp_stop(unsigned code): disabled wait with CODE in the address field. */
        .globl  fp_stop
        .align  4
fp_stop:
        larl    %r1, .Lstoppsw
        st      %r2, 4(%r1)
        lpsw    0(%r1)
        .align  8
.Lstoppsw:
        .long   0x000A0000, 0

/* The trailer: the last 8 bytes of the image. mktrailer.sh sets the check word so
 * that the 32-bit words from 0x200 to the end of the image sum to zero. */
        .section .trailer,"a"
        .globl  _trailer
_trailer:
        .long   0x5A564650              /* "ZVFP" */
        .long   0
