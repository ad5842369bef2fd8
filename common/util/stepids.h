/* stepids.h - the step ids that are not numbers of srun steps.
 *
 * Kept apart from the wire (proto.h includes it) so that code which only
 * names steps, such as the filename patterns (fname.c), needs no protocol.
 */
#ifndef ARBOR_STEPIDS_H
#define ARBOR_STEPIDS_H

#define STEP_ID_ALL 0xfffffffeu /* every step of a job (STEP_KILL) */
/* Special steps, numbered as Slurm numbers them. */
#define STEP_ID_BATCH 0xfffffffbu       /* the batch script */
#define STEP_ID_EXTERN 0xfffffffcu      /* adopted ssh sessions */
#define STEP_ID_INTERACTIVE 0xfffffffau /* arbor alloc's shell */

#endif
