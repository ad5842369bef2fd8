/* pmi2_cmds.h - the PMI-1 and PMI-2 commands' answers (pmi2_cmds.c),
 * for pmi2_plugin.c. Not installed.
 */
#ifndef ARBOR_MPI_PMI2_CMDS_H
#define ARBOR_MPI_PMI2_CMDS_H

#include "pmi2_ctx.h"
#include "pmi2_wire.h"

/* Answer one parsed command of t. */
void pmi2_cmd_handle (struct pmi2_ctx *ctx, struct pmi2_task *t,
                      const struct pmi_cmd *c);

/* Answer t's fence: rc 0, or an error with msg. */
void pmi2_fence_reply (struct pmi2_ctx *ctx, struct pmi2_task *t, int rc,
                       const char *msg);

/* Answer a malformed command of t with the protocol's error. */
void pmi2_reply_error (struct pmi2_ctx *ctx, struct pmi2_task *t,
                       const char *cmd, const char *msg);

#endif
