/* job_slurm.c - Slurm's other submission options (cli/opt_slurm.h), as
 * a job keeps them: checked and stored by job_fill (job.c).
 *
 *   -M/--clusters   must name this cluster (ClusterName), as a Slurm
 *                   controller answers for itself alone
 *   -N MIN-MAX      MAX is kept; the scheduler gives the job as many nodes
 *                   of the range as it can have at once (sched_range.c)
 *   --comment       kept and shown (scontrol show job Comment=, squeue %k)
 *   --time-min      kept and shown (TimeMin=); see docs/slurm-differences.md
 *   --mincpus/--tmp part of the node request (select.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "job/job_slurm.h"
#include "nodes/part.h"
#include "timestr.h"

#define JOB_COMMENT_MAX 1024 /* bytes, as Slurm bounds it */

/* Does the -M list ("a,b") name this cluster? Slurm also takes "all". */
static bool job_names_cluster (const struct ctld *ctx, const char *list)
{
    const char *me =
        ctx->conf->cluster_name ? ctx->conf->cluster_name : "arbor";
    size_t n = strlen (me);

    for (const char *p = list; *p;) {
        size_t len = strcspn (p, ",");
        if ((len == n && !strncasecmp (p, me, n))
            || (len == 3 && !strncasecmp (p, "all", 3)))
            return true;
        p += len;
        p += *p == ',';
    }
    return false;
}

static int job_slurm_check (const struct ctld *ctx,
                            const struct msg_job_alloc *req, arbor_error_t *err)
{
    errno = EINVAL;
    if (req->clusters && *req->clusters
        && !job_names_cluster (ctx, req->clusters))
        return errprintf (err,
                          "Invalid cluster name(s) '%.100s': this is cluster "
                          "'%s', the only one it answers for",
                          req->clusters,
                          ctx->conf->cluster_name ? ctx->conf->cluster_name
                                                  : "arbor");
    if (req->nnodes_max && req->nnodes_max < req->nnodes)
        return errprintf (err, "invalid node count range %u-%u", req->nnodes,
                          req->nnodes_max);
    if (req->comment && strlen (req->comment) > JOB_COMMENT_MAX)
        return errprintf (err, "--comment is longer than %d bytes",
                          JOB_COMMENT_MAX);
    return 0;
}

int job_slurm_fill (const struct ctld *ctx, struct job *j,
                    const struct msg_job_alloc *req, arbor_error_t *err)
{
    char *comment;

    if (job_slurm_check (ctx, req, err) < 0)
        return -1;
    if (!(comment = strdup (req->comment ? req->comment : ""))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    free (j->comment);
    j->comment = comment;
    j->req.mincpus = req->mincpus;
    j->req.tmp_mb = req->tmp_mb;
    j->range.min = req->nnodes;
    j->range.max = req->nnodes_max > req->nnodes ? req->nnodes_max : 0;
    j->range.per_node_tasks = req->ntasks == 0;
    j->time_min = req->time_min;
    return 0;
}

int job_slurm_check_time (const struct job *j, arbor_error_t *err)
{
    if (j->time_min && j->time_limit != TIME_INFINITE
        && j->time_min > j->time_limit) {
        errno = EINVAL;
        return errprintf (err,
                          "--time-min %u exceeds the time limit %u minutes",
                          j->time_min, j->time_limit);
    }
    return 0;
}
