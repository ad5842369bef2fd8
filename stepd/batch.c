/* batch.c - the batch step: a job's script, run once on its first node.
 *
 * The controller launches it (LAUNCH for step STEP_ID_BATCH, with the
 * script and no launcher). The stepd writes the script to
 * <spool>/batch.<job>/script, in a directory of the job's user (0700,
 * userdir.h), and runs it as the step's one task, with that path as
 * argv[0] and the submitted arguments after it, as Slurm does. Its
 * stdout and stderr go to the files the controller named, opened by the
 * task itself once it is the job's user (task_child.c), so a file the
 * user may not write fails the launch with the reason instead of being
 * written as root; stdin is the named file or /dev/null. Nothing goes to
 * a launcher: the script's exit status reaches the controller in the
 * step's STEP_COMPLETE. The directory goes when the step ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "stepd.h"
#include "userdir.h"

struct batch {
    char *dir;  /* <spool>/batch.<job> */
    char *path; /* dir/script */
};

bool batch_step (const struct stepd *sd)
{
    return sd->have_init && sd->init.step_id == STEP_ID_BATCH;
}

/* Write the script, executable by the user alone. */
static int batch_write (struct stepd *sd, struct batch *b, arbor_error_t *err)
{
    const char *p = sd->init.script;
    size_t left = sd->init.script_len;
    int fd = open (b->path,
                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);

    if (fd < 0)
        return errprintf (err, "batch script %s: %s", b->path,
                          strerror (errno));
    while (left > 0) {
        ssize_t n = write (fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        p += n;
        left -= (size_t)n;
    }
    if (left > 0
        || (geteuid () == 0 && fchown (fd, sd->init.uid, sd->init.gid) < 0)) {
        int e = errno ? errno : EIO;
        close (fd);
        errno = e;
        return errprintf (err, "batch script %s: %s", b->path, strerror (e));
    }
    return close (fd) < 0 ? errprintf (err, "batch script %s: %s", b->path,
                                       strerror (errno))
                          : 0;
}

int batch_prepare (struct stepd *sd, arbor_error_t *err)
{
    char *spool;
    struct batch *b;

    if (!batch_step (sd))
        return 0;
    if (!(b = calloc (1, sizeof (*b))))
        return errprintf (err, "out of memory");
    sd->batch = b;
    spool = conf_expand (sd->conf->spool_dir, sd->node);
    if (!spool || asprintf (&b->dir, "%s/batch.%u", spool, sd->init.job_id) < 0
        || asprintf (&b->path, "%s/script", b->dir) < 0) {
        free (spool);
        return errprintf (err, "out of memory");
    }
    free (spool);
    if (userdir_make (b->dir, sd->init.uid, sd->init.gid, "batch directory",
                      err)
        < 0)
        return -1;
    return batch_write (sd, b, err);
}

const char *batch_script_path (const struct stepd *sd)
{
    return sd->batch ? sd->batch->path : NULL;
}

void batch_finish (struct stepd *sd)
{
    struct batch *b = sd->batch;

    if (!b)
        return;
    if (b->dir)
        userdir_remove (b->dir);
    free (b->dir);
    free (b->path);
    free (b);
    sd->batch = NULL;
}
