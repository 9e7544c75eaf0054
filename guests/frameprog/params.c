/* The parameter block: 64 bytes at FP_PARAM_ADDR, loaded by the IPL from the second
 * line of the .ins file (guests/README.md documents the layout, version 1). */
#include "fp.h"

struct fp_params fp_cfg;

void params_load(void)
{
    const struct fp_params *p = (const struct fp_params *)FP_PARAM_ADDR;
    if (p->magic != FP_PARAM_MAGIC || p->version != FP_PARAM_VERSION || p->length < 64)
        fp_stop(WAIT_PARAM_BAD);
    fp_cfg = *p;
    if (fp_cfg.ip == 0 || fp_cfg.mode > FP_MODE_GENERATE)
        fp_stop(WAIT_PARAM_BAD);
    if (fp_cfg.echo_port == 0)
        fp_cfg.echo_port = 7;
    if (fp_cfg.ctl_port == 0)
        fp_cfg.ctl_port = 7001;
    if (fp_cfg.mode == FP_MODE_GENERATE &&
        (fp_cfg.gen_ip == 0 || fp_cfg.gen_port == 0 || fp_cfg.gen_size < 60 || fp_cfg.gen_size > 1514))
        fp_stop(WAIT_PARAM_BAD);
}
