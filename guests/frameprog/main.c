/* The standalone frame program (start.S has checked the image): reads its parameters, brings up
 * the first LCS device and then answers and generates frames for ever, sleeping in
 * an enabled wait when there is nothing to do. */
#include "fp.h"

static void banner(void)
{
    char line[120];
    struct fp_buf b = { line, 0, sizeof line - 1 };
    fp_puts(&b, "ZVFP001I LCS ");
    fp_puthex(&b, lcs_devno, 4);
    fp_puts(&b, " UP MAC ");
    fp_putmac(&b, lcs_mac);
    fp_puts(&b, " IP ");
    fp_putip(&b, fp_cfg.ip);
    fp_puts(&b, " ECHO ");
    fp_putu64(&b, fp_cfg.echo_port);
    fp_puts(&b, " CTL ");
    fp_putu64(&b, fp_cfg.ctl_port);
    fp_puts(&b, " MODE ");
    fp_putu64(&b, fp_cfg.mode);
    line[b.len] = 0;
    con_line(line);
}

int main(void);

int main(void)
{
    fp_clear_alarm();
    /* I/O interruptions of every subclass may end fp_wait(). */
    uint32_t cr6 = 0xFF000000;
    __asm__ volatile("lctl 6,6,%0" : : "Q"(cr6));
    params_load();
    con_init();
    con_line("ZVFP000I FRAME PROGRAM STARTING");
    net_init();
    lcs_init();
    banner();
    for (;;) {
        int work = lcs_poll();
        work |= net_poll();
        if (work)
            continue;
        int has;
        uint32_t due = net_next_deadline_us(&has);
        if (has) {
            int32_t left = (int32_t)(due - fp_now_us());
            if (left <= 0)
                continue;
            fp_set_alarm_us((uint32_t)left);
        }
        fp_wait();
        fp_clear_alarm();
    }
}
