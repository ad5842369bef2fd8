/* stepd_stat.c - STEP_STAT for sstat: what a step's tasks use here now.
 *
 * Any user may ask (serve.c); stepd_ask.c checks that the sender owns
 * the step (or is root/ArborUser) and relays the request to the stepd,
 * which measures (stepd/stat.c); its STEP_STAT_REPLY goes back with the
 * asker's matchtag.
 */
#include "noded_base.h"
#include "stepd_ask.h"
#include "stepd_stat.h"

#define STAT_TIMEOUT 10.0 /* s: a stepd reads /proc, it never blocks */

void stepd_stat_handle (struct noded *nd, struct conn *c, const struct frame *f,
                        const struct msg_step_stat *m)
{
    stepd_ask_relay (nd, c, f, m->job_id, m->step_id, MSG_STEP_STAT, m,
                     MSG_STEP_STAT_REPLY, STAT_TIMEOUT);
}
