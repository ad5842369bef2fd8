/* batch_files.h - a batch job's script record and the paths of its
 * files (batch_files.c); the record itself is batch.h's struct batch.
 */
#ifndef ARBOR_CTLD_BATCH_FILES_H
#define ARBOR_CTLD_BATCH_FILES_H

#include <stddef.h>

#include "error.h"

struct ctld;
struct job;
struct msg_job_alloc;

/* Check a submission's script and take its batch fields from 'req' (they
 * are zeroed there) into j->batch. -1 with errno EINVAL/ENOMEM and err
 * ("the script does not start with #!", "the script holds a NUL byte"). */
int batch_create (struct job *j, struct msg_job_alloc *req, arbor_error_t *err);
/* Batch job j's stdin (stream 0), stdout (1) or stderr (2) file as its
 * script gets it: the pattern expanded (%N once it has nodes), absolute.
 * Caller frees; NULL with errno ENOMEM. */
char *batch_output (const struct ctld *ctx, const struct job *j, int stream);
/* Drop job j's batch part (the script is freed with its last job) and
 * cancel a signature in progress. NULL-safe. */
void batch_release (struct job *j);
/* Make 'to' (an array task made from 'from') share from's script. */
void batch_share (struct job *to, const struct job *from);
/* An output pattern of j, expanded (fname.h) and made absolute (relative
 * paths are from the job's working directory); "" stays "" unless there
 * is a default 'dflt'. NULL with errno ENOMEM. */
char *batch_path (const struct ctld *ctx, const struct job *j,
                  const char *pattern, const char *dflt);
/* The stdout pattern of j when none was given: slurm-%j.out, or
 * slurm-%A_%a.out for an array's task. */
const char *batch_default_out (const struct job *j);
/* Free the n strings of v, then v (NULL-safe). */
void batch_strv_free (char **v, size_t n);

#endif
