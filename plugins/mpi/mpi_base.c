/* mpi_base.c - the pieces every MPI plugin repeats (mpi_base.h): the
 * ctx's allocation and step, the calls to the stepd's services, and the
 * tasks' "KEY=VALUE" variables.
 * Linked into each plugin module, so that none needs the daemon's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_base.h"

void *mpi_base_create (size_t size, const struct plugin_env *env,
                       arbor_error_t *err)
{
    struct mpi_base *b = calloc (1, size);

    if (!b) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        return NULL;
    }
    b->env = env;
    return b;
}

void mpi_base_prepare (struct mpi_base *b, const struct mpi_step *s,
                       const struct mpi_host *host)
{
    b->host = host;
    b->job_id = s->job_id;
    b->step_id = s->step_id;
    b->node_id = s->node_id;
    b->nnodes = s->nnodes;
    b->ntasks = s->ntasks;
    b->nlocal = s->nlocal;
}

int64_t mpi_host_allgather (const struct mpi_base *b, const void *data,
                            size_t len)
{
    return b->host->allgather (b->host->arg, data, len);
}

int mpi_host_send (const struct mpi_base *b, uint32_t node, const void *data,
                   size_t len)
{
    return b->host->send (b->host->arg, node, data, len);
}

void mpi_host_abort (const struct mpi_base *b, uint32_t rank, int code,
                     const char *text)
{
    b->host->abort (b->host->arg, rank, code, text);
}

void mpi_task_env_clear (char ***vars, int *keep_fd)
{
    *vars = NULL;
    *keep_fd = -1;
}

int mpi_env_add (char ***env, const char *key, const char *fmt, ...)
{
    size_t n = 0;
    char **e, *val, *kv;
    va_list ap;
    int rc;

    va_start (ap, fmt);
    rc = vasprintf (&val, fmt, ap);
    va_end (ap);
    if (rc < 0)
        return -1;
    rc = asprintf (&kv, "%s=%s", key, val);
    free (val);
    if (rc < 0)
        return -1;
    while (*env && (*env)[n])
        n++;
    if (!(e = realloc (*env, (n + 2) * sizeof (*e)))) {
        free (kv);
        errno = ENOMEM;
        return -1;
    }
    e[n] = kv;
    e[n + 1] = NULL;
    *env = e;
    return 0;
}

void mpi_env_free (char **env)
{
    int saved = errno;

    for (size_t i = 0; env && env[i]; i++)
        free (env[i]);
    free (env);
    errno = saved;
}
