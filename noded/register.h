/* register.h - NODE_REGISTER to the ctld.
 *
 * At start and every NodeRegisterInterval (30 s) the noded tells the ctld
 * its name, CPUs and memory (detected, or the configured values with
 * --emulate), its load and free memory (load.h); until the
 * first registration succeeds it retries every second. The ctld's refusal
 * text is logged. All of it runs on the loop without blocking.
 */
#ifndef ARBOR_NODED_REGISTER_H
#define ARBOR_NODED_REGISTER_H

#include <stdint.h>

struct noded;
struct reg;

#define REG_RETRY 1.0          /* seconds between attempts until the first */
#define REG_ANSWER_TIMEOUT 5.0 /* seconds to wait for the ctld's RC */

/* What this node reports: the host's online CPUs and memory (MB), or the
 * configured ones when nd->emulate. */
void reg_resources (const struct noded *nd, uint32_t *cpus,
                    uint32_t *real_memory);

/* Start registering (first attempt now). NULL with errno ENOMEM. */
struct reg *reg_start (struct noded *nd);
/* Register now (NODE_REREGISTER), unless an attempt is under way. */
void reg_now (struct reg *r);
void reg_destroy (struct reg *r);

#endif
