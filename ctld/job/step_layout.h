/* step_layout.h - where a new step runs in its job (step_layout.c). */
#ifndef ARBOR_CTLD_STEP_LAYOUT_H
#define ARBOR_CTLD_STEP_LAYOUT_H

#include "error.h"
#include "proto.h"

struct ctld;
struct job;
struct step;

/* "step creation temporarily disabled": the cores it needs are held. */
#define BUSY_TEXT "step creation temporarily disabled"

/* The nodes, tasks and cores of the step 'req' asks for in j (a new
 * record, step_alloc'd; cores not taken yet: step.c's step_take). NULL
 * with errno (EBUSY: held by other steps; EINVAL: cannot fit) and err. */
struct step *step_layout (const struct ctld *ctx, const struct job *j,
                          const struct msg_step_create *req,
                          arbor_error_t *err);

#endif
