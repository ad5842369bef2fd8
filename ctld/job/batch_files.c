/* batch_files.c - a batch job's script record and its files: the
 * script, arguments, environment and output patterns kept at submission
 * (shared by the tasks of an array, freed with the last), and the paths
 * its stdin, stdout and stderr expand to. Below the batch job's life
 * (batch.c) and the job record (job.c, job_rec.c), which all use it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "fname.h"
#include "job/batch.h"
#include "job/batch_files.h"
#include "job/job.h"
#include "nodes/node.h"
#include "proto.h"

#define BATCH_DEFAULT_OUT "slurm-%j.out"
#define BATCH_ARRAY_OUT "slurm-%A_%a.out"

void batch_strv_free (char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free (v[i]);
    free (v);
}

void batch_share (struct job *to, const struct job *from)
{
    to->batch = from->batch;
    if (to->batch)
        to->batch->refs++;
}

void batch_release (struct job *j)
{
    struct batch *b = j->batch;
    int saved = errno;

    j->batch = NULL;
    if (!b || --b->refs > 0) {
        errno = saved;
        return;
    }
    free (b->script);
    batch_strv_free (b->argv, b->argc);
    batch_strv_free (b->env, b->nenv);
    free (b->std_out);
    free (b->std_err);
    free (b->std_in);
    free (b->submit_host);
    free (b);
    errno = saved;
}

/* The script must be one: "#!" first, no NUL (as sbatch says). */
static int batch_check_script (const char *s, size_t len, arbor_error_t *err)
{
    errno = EINVAL;
    if (len < 2 || s[0] != '#' || s[1] != '!')
        return errprintf (err, "the batch script does not start with #! "
                               "followed by the path of an interpreter");
    if (memchr (s, '\0', len))
        return errprintf (err, "the batch script contains a NUL byte (a "
                               "binary file?)");
    return 0;
}

/* Take a string field of the request (a NULL one becomes ""). */
static char *take_str (char **field)
{
    char *s = *field ? *field : strdup ("");

    *field = NULL;
    return s;
}

int batch_create (struct job *j, struct msg_job_alloc *req, arbor_error_t *err)
{
    struct batch *b;

    if (batch_check_script (req->script, req->script_len, err) < 0)
        return -1;
    if (!(b = calloc (1, sizeof (*b)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    b->script = req->script;
    b->script_len = req->script_len;
    req->script = NULL;
    req->script_len = 0;
    b->argv = req->script_argv;
    b->argc = req->script_argv_count;
    b->env = req->env;
    b->nenv = req->env_count;
    req->script_argv = req->env = NULL;
    req->script_argv_count = req->env_count = 0;
    b->std_out = take_str (&req->std_out);
    b->std_err = take_str (&req->std_err);
    b->std_in = take_str (&req->std_in);
    b->submit_host = take_str (&req->submit_host);
    b->append = req->open_append;
    b->slurm_names = req->slurm_names;
    b->cpus_per_task_set = req->cpus_per_task_set;
    b->ntasks_asked = req->ntasks;
    b->refs = 1;
    j->batch = b;
    if (!b->std_out || !b->std_err || !b->std_in || !b->submit_host) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    return 0;
}

const char *batch_default_out (const struct job *j)
{
    return j->array_job_id ? BATCH_ARRAY_OUT : BATCH_DEFAULT_OUT;
}

/* An output pattern of the job, expanded and made absolute (relative
 * paths are from the job's working directory); "" stays "" unless there
 * is a default. NULL with errno ENOMEM. */
char *batch_path (const struct ctld *ctx, const struct job *j,
                  const char *pattern, const char *dflt)
{
    struct fname_vars v = {
        .job_id = j->id,
        .step_id = STEP_ID_BATCH,
        .node = j->nnodes ? ctx->nodes[j->nodes[0].node].name : NULL,
        .user = j->user,
        .job_name = j->name,
        .array_job_id = j->array_job_id,
        .array_task_id = j->array_job_id ? j->array_task_id : FNAME_NO_ARRAY,
    };
    char *x, *abs;

    if (!*pattern && !dflt)
        return strdup ("");
    if (!(x = fname_expand (*pattern ? pattern : dflt, &v)) || x[0] == '/')
        return x;
    if (asprintf (&abs, "%s%s%s", j->cwd,
                  j->cwd[strlen (j->cwd) - 1] == '/' ? "" : "/", x)
        < 0)
        abs = NULL;
    free (x);
    return abs;
}

char *batch_output (const struct ctld *ctx, const struct job *j, int stream)
{
    const struct batch *b = j->batch;
    const char *dflt = batch_default_out (j);

    if (stream == 0)
        return batch_path (ctx, j, b->std_in, "/dev/null");
    if (stream == 2 && *b->std_err)
        return batch_path (ctx, j, b->std_err, NULL);
    return batch_path (ctx, j, b->std_out, dflt); /* stderr: with stdout */
}
