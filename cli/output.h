/* output.h - where task output goes, a line at a time.
 *
 * IO_DATA chunks arrive per task and stream (1 stdout, 2 stderr) in any
 * size. Each (task, stream) has a line buffer; complete lines are written
 * with one write(2) each, prefixed with "RANK: " under --label (the rank
 * right-aligned to the width of the largest rank, as srun does), so lines
 * of different tasks never interleave mid-line. A partial line is written
 * when its stream reaches EOF (or grows past OUTPUT_MAX_LINE); under
 * --label it is then ended with a newline so the next label starts a line.
 *
 * Destinations: our stdout/stderr, or files named by -o/-e patterns
 * (Slurm's, common/spec/fname.h: %j job id, %J job.step, %s step id, %t task
 * rank (one file per task), %n node index, %N node name, %u user, %x job
 * name, %% a percent sign, widths as in %3t). Without -e, stderr goes where -o
 * sends stdout (as srun). Files are opened (truncated) on first use and shared
 * between tasks and streams that expand to the same path.
 */
#ifndef ARBOR_CLI_OUTPUT_H
#define ARBOR_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

#define OUTPUT_MAX_LINE (64u * 1024)

struct output;

struct output_cfg {
    uint32_t job_id, step_id, ntasks;
    bool label;              /* -l: "RANK: " prefixes */
    bool unbuffered;         /* -u: write chunks as they come, no line split */
    const char *out_pattern; /* -o, NULL: our stdout */
    const char *err_pattern; /* -e, NULL: -o's, or our stderr */
    const char *user;        /* %u */
    const char *job_name;    /* %x */
};

/* NULL with errno ENOMEM. Patterns and names are copied. */
struct output *output_create (const struct output_cfg *cfg);
/* Flushes partial lines, closes files. Keeps errno. */
void output_destroy (struct output *o);

/* The node a task runs on (for %N; copied) and its index in the step
 * (%n). */
int output_set_node (struct output *o, uint32_t task, const char *node,
                     uint32_t node_id);

/* Take a chunk of task output; len 0 means EOF on that stream. 0, or -1
 * with errno (EINVAL bad task or stream, or the write/open error) and err
 * naming the file. */
int output_data (struct output *o, uint32_t task, int stream, const char *data,
                 size_t len, arbor_error_t *err);

/* Write every partial line still buffered. */
int output_flush (struct output *o, arbor_error_t *err);

/* Expand a -o/-e pattern for 'task' of the step 'cfg' describes; caller
 * frees. node may be NULL ("%N" then expands to "unknown"). NULL with
 * errno ENOMEM. */
char *output_pattern_expand (const struct output_cfg *cfg, const char *pattern,
                             uint32_t task, const char *node, uint32_t node_id);

#endif
