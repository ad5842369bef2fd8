/* gpubind.h - srun --gpu-bind values (and SLURM_GPU_BIND), in Slurm's
 * syntax (issue 35): parsed by the launcher, to refuse a typo before
 * anything is allocated, and again by each stepd, which turns the step's
 * GPUs into each task's CUDA_VISIBLE_DEVICES (stepd/gpu_env.h).
 *
 *     [verbose,]{none|closest|single:N|per_task:N|map_gpu:LIST|mask_gpu:LIST}
 *
 *   none        every task sees all of the step's GPUs (also what
 *               --gpu-bind=none does to --gpus-per-task)
 *   closest     each task sees the GPUs whose CPUs it runs on
 *   single:N    each task sees one GPU, at most N tasks per GPU
 *   per_task:N  task i sees GPUs i*N .. i*N+N-1 of the step's
 *   map_gpu:L   local task i sees GPU L[i % length]: decimal GPU ids (or
 *               hexadecimal after "0x", as Slurm's older pages allow)
 *   mask_gpu:L  local task i sees the GPUs of mask L[i % length]: masks
 *               are always hexadecimal, "0x" optional, as in Slurm
 *               ("mask_gpu:10" is GPU 4), at most 64 GPUs (0-63)
 *
 * LIST is comma-separated, each item optionally followed by "*N" for N
 * repetitions ("map_gpu:0*4,1*4"). Keywords are matched case-blind;
 * "verbose" alone asks for verbose output of the default binding. Which
 * GPU an id names (global, or relative to the step's GPUs under
 * ConstrainDevices) and whether the step holds it are only known on the
 * node (stepd/gpu_env.h). Pure functions: no I/O, no globals.
 */
#ifndef ARBOR_GPUBIND_H
#define ARBOR_GPUBIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

/* Entries of an expanded list, and single:N / per_task:N. */
#define GPUBIND_LIST_MAX 1024u
#define GPUBIND_N_MAX 1024u
/* Largest GPU id of a map_gpu list; a mask holds GPUs 0-63. */
#define GPUBIND_GPU_MAX 1023u
/* Bytes of a value: room for gpubind_text of the longest list (1024
 * distinct 64-bit masks with counts), so that the text always parses. */
#define GPUBIND_LEN_MAX 32768u

enum gpubind_mode {
    GPUBIND_DEFAULT = 0, /* not given: --gpus-per-task decides */
    GPUBIND_NONE,
    GPUBIND_CLOSEST,
    GPUBIND_SINGLE,   /* n tasks per GPU */
    GPUBIND_PER_TASK, /* n GPUs per task */
    GPUBIND_MAP,      /* list: GPU ids */
    GPUBIND_MASK,     /* list: GPU masks */
};

struct gpubind {
    enum gpubind_mode mode;
    bool verbose;
    uint32_t n;     /* GPUBIND_SINGLE, GPUBIND_PER_TASK: >= 1 */
    uint64_t *list; /* GPUBIND_MAP, GPUBIND_MASK: repetitions expanded */
    size_t nlist;   /* 1..GPUBIND_LIST_MAX for those, else 0 */
};

/* Parse s ("" or NULL: GPUBIND_DEFAULT) into *b, which the caller clears
 * with gpubind_clear. Returns 0, or -1 with errno EINVAL and err saying
 * what and where ("invalid --gpu-bind \"map_gpu:x\": a GPU id expected
 * at position 9") or ENOMEM; on failure *b is left empty. */
int gpubind_parse (const char *s, struct gpubind *b, arbor_error_t *err);

/* Free what *b holds and empty it. NULL-safe; keeps errno. */
void gpubind_clear (struct gpubind *b);

/* The canonical text of *b, as sent on the wire: lower case, repeated
 * entries folded ("verbose,map_gpu:0*2,1", "mask_gpu:0x3", "single:1",
 * "" for the default). It parses back to the same binding. Caller frees;
 * NULL with errno ENOMEM. */
char *gpubind_text (const struct gpubind *b);

/* "none", "closest", "single", "per_task", "map_gpu", "mask_gpu"; ""
 * for the default. Static. */
const char *gpubind_mode_name (enum gpubind_mode mode);

#endif
