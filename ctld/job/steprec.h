/* steprec.h - a step's record: made, counted, freed (steprec.c). The
 * record itself (struct step) is step.h's.
 */
#ifndef ARBOR_CTLD_STEPREC_H
#define ARBOR_CTLD_STEPREC_H

#include <stddef.h>

struct job;
struct step;

/* A zeroed step record for n nodes. NULL with errno ENOMEM. */
struct step *step_alloc (size_t n);
/* Free s (NULL-safe, keeps errno). */
void step_destroy (struct step *s);
/* How many steps j has now. */
size_t steps_count (const struct job *j);

#endif
