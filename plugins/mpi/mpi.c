/* mpi.c - the daemon side of the MPI plugin type: check an ops table,
 * load the plugin an MPI type names, list the types installed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

int mpi_ops_check (const void *ops, arbor_error_t *err)
{
    const struct mpi_ops *o = ops;
    const char *missing = NULL;

    if (!o->init)
        missing = "init";
    else if (!o->fini)
        missing = "fini";
    else if (!o->prepare)
        missing = "prepare";
    else if (!o->task_env)
        missing = "task_env";
    else if (!o->poll_fd)
        missing = "poll_fd";
    else if (!o->progress)
        missing = "progress";
    else if (!o->gathered)
        missing = "gathered";
    else if (!o->recv)
        missing = "recv";
    else if (!o->task_exited)
        missing = "task_exited";
    else if (!o->finish)
        missing = "finish";
    if (missing) {
        errno = EINVAL;
        return errprintf (err, "required op '%s' is NULL", missing);
    }
    return 0;
}

struct plugin *mpi_load (const char *dir, const char *name, arbor_error_t *err)
{
    struct plugin *p = NULL;

    if (!name || !strcmp (name, "none")) {
        errno = EINVAL;
        errprintf (err, "MPI type '%s' has no plugin", name ? name : "");
        return NULL;
    }
    if (plugin_load (dir, MPI_PLUGIN_TYPE, name, MPI_OPS_VERSION,
                     sizeof (struct mpi_ops), mpi_ops_check, &p, err)
        < 0)
        return NULL;
    return p;
}

static int mpi_list_cmp (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

/* Append a copy of 'name' to the NULL-terminated *list of *n. */
static int mpi_list_add (char ***list, size_t *n, const char *name, size_t len)
{
    char **l = realloc (*list, (*n + 2) * sizeof (*l));

    if (!l)
        return -1;
    *list = l;
    if (!(l[*n] = strndup (name, len)))
        return -1;
    l[++*n] = NULL;
    return 0;
}

char **mpi_list (const char *dir)
{
    char buf[4096];
    const char prefix[] = MPI_PLUGIN_TYPE "_";
    char **list = NULL;
    size_t n = 0;
    struct dirent *de;
    DIR *d;

    if (mpi_list_add (&list, &n, "none", 4) < 0)
        goto fail;
    if (!dir)
        dir = plugin_default_dir (buf, sizeof (buf));
    if (!(d = opendir (dir)))
        return list; /* no plugins installed: only none */
    while ((de = readdir (d))) {
        size_t len = strlen (de->d_name);
        if (strncmp (de->d_name, prefix, sizeof (prefix) - 1) != 0 || len < 4
            || strcmp (de->d_name + len - 3, ".so") != 0
            || len <= sizeof (prefix) - 1 + 3)
            continue;
        if (mpi_list_add (&list, &n, de->d_name + sizeof (prefix) - 1,
                          len - (sizeof (prefix) - 1) - 3)
            < 0) {
            closedir (d);
            goto fail;
        }
    }
    closedir (d);
    qsort (list, n, sizeof (*list), mpi_list_cmp);
    return list;
fail:
    for (size_t i = 0; list && i < n; i++)
        free (list[i]);
    free (list);
    errno = ENOMEM;
    return NULL;
}
