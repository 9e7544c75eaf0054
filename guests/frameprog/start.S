/* Start-up code and low core of the standalone frame program (ESA/390 mode).
 *
 * The IPL loads the image at absolute 0 and the CPU starts with the IPL PSW at 0:
 * disabled for every interruption, 31-bit addressing, at _start. The new PSWs send
 * every unexpected interruption (program check, machine check, SVC) straight to a
 * disabled wait whose address field carries a code (guests/README.md lists them); a
 * program check's interruption code is in Hercules' HHCCP014I message. The I/O and
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
        .long   0x000A0000, WAIT_PGM                    /* 0x68 program new PSW */
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
        /* The image check, first, in the image's first bytes of code: the trailer holds
         * the magic and the words from 0x200 to the end sum to zero (mktrailer.sh). A
         * truncated or damaged image stops here with WAIT_IMAGE_BAD. */
        l       %r2, 16(%r13)
        l       %r3, 20(%r13)
        l       %r4, 24(%r13)
        l       %r5, 0(%r4)
        c       %r5, 28(%r13)
        jne     3f
        sr      %r1, %r1
4:      al      %r1, 0(%r2)
        la      %r2, 4(%r2)
        clr     %r2, %r3
        jl      4b
        ltr     %r1, %r1
        jz      5f
3:      larl    %r1, .Lbadimage
        lpsw    0(%r1)
5:
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
.Lbadimage:
        .long   0x000A0000, WAIT_IMAGE_BAD
.Lconst:
        .long   0xFF000 - 96            /* 0: stack */
        .long   _bss_start, _bss_end    /* 4, 8 */
        .long   main                    /* 12 */
        .long   0x200, _image_end       /* 16, 20: the checked words */
        .long   _trailer                /* 24 */
        .long   0x5A564650              /* 28: the trailer's magic, "ZVFP" */

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
