/* jobid.c - job ids that never repeat across controller restarts.
 *
 * Until the controller's state is durable, a restarted controller knows
 * no job, but nodes may still run the steps of the old ones; an id handed
 * out again collides with them ("step 1.0 has been revoked", "already has
 * a stepd here"). So the next id is saved in StateSaveLocation/
 * JOBID_FILE, as a decimal number and a newline, before it is handed out:
 * in blocks of JOBID_BLOCK so that a submission does not cost a disk
 * write. The file holds the first id not yet reserved; a restart resumes
 * there, skipping at most one block. It is written to a temporary file,
 * synced, and renamed over the old one, so a crash leaves either mark,
 * never a torn one. When the mark cannot be written no id is handed out
 * (the submission is refused, saying why): better a refused job than a
 * repeated id.
 *
 * Ids wrap from UINT32_MAX to 1; an id still used by a job record is
 * skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "ctld.h"
#include "error.h"
#include "job/job.h"
#include "job/jobid.h"
#include "log.h"
#include "job/jobs.h"

#define JOBID_FILE "job_id_next"
#define JOBID_BLOCK 100

/* Read the saved mark: 0 and *id set (1 when there is no file yet), or
 * -1 with errno and err. */
static int jobid_read (const char *path, uint32_t *id, arbor_error_t *err)
{
    char buf[32] = "", *end;
    unsigned long long v;
    FILE *f = fopen (path, "re");

    *id = 1;
    if (!f) {
        if (errno == ENOENT)
            return 0;
        return errprintf (err, "%s: %s", path, strerror (errno));
    }
    if (!fgets (buf, sizeof (buf), f))
        buf[0] = '\0';
    fclose (f);
    errno = 0;
    v = strtoull (buf, &end, 10);
    if (end == buf || (*end && *end != '\n') || errno || v > UINT32_MAX) {
        errno = EINVAL;
        return errprintf (err,
                          "%s: not a job id: '%.20s' (remove the file "
                          "only if no job of the previous controller can "
                          "still run)",
                          path, buf);
    }
    *id = v ? (uint32_t)v : 1;
    return 0;
}

/* Make the rename itself durable (a power loss, not only a crash);
 * best effort: the mark is already safe against a killed controller. */
static void jobid_sync_dir (const char *path)
{
    char *dir = strdup (path), *slash;
    int fd;

    if (!dir)
        return;
    if ((slash = strrchr (dir, '/')))
        *(slash == dir ? slash + 1 : slash) = '\0';
    if ((fd = open (slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        >= 0) {
        (void)fsync (fd);
        close (fd);
    }
    free (dir);
}

/* Write 'id' to a temporary file, sync it, rename it over the mark. */
static int jobid_write (const char *path, uint32_t id, arbor_error_t *err)
{
    char *tmp = NULL, text[16];
    int fd = -1, len = snprintf (text, sizeof (text), "%u\n", id);

    if (asprintf (&tmp, "%s.tmp", path) < 0) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    if ((fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0
        || write (fd, text, (size_t)len) != len || fsync (fd) < 0
        || close (fd) < 0 || (fd = -1, rename (tmp, path) < 0)) {
        int e = errno ? errno : EIO;
        if (fd >= 0)
            close (fd);
        unlink (tmp);
        errprintf (err, "cannot save the next job id in %s: %s", path,
                   strerror (e));
        free (tmp);
        errno = e;
        return -1;
    }
    free (tmp);
    jobid_sync_dir (path);
    return 0;
}

struct jobid {
    uint32_t next; /* next id to try */
    char *path;    /* NULL: ids are not saved (unit tests) */
    uint32_t left; /* ids still covered by the saved mark */
};

/* Directory 'dir' (created if missing) and the mark saved there. */
static int jobid_load (struct jobid *ji, const char *dir, arbor_error_t *err)
{
    if (!dir || !dir[0])
        return errprintf (err, "StateSaveLocation is not set");
    if (mkdir (dir, 0700) < 0 && errno != EEXIST)
        return errprintf (err, "StateSaveLocation %s: %s", dir,
                          strerror (errno));
    if (asprintf (&ji->path, "%s/%s", dir, JOBID_FILE) < 0) {
        ji->path = NULL;
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    if (jobid_read (ji->path, &ji->next, err) < 0)
        return -1;
    ji->left = 0; /* reserve a block before the first id */
    log_info ("next job id %u (%s)", ji->next, ji->path);
    return 0;
}

struct jobid *jobid_create (const struct conf *conf, arbor_error_t *err)
{
    struct jobid *ji = calloc (1, sizeof (*ji));

    if (!ji) {
        errprintf (err, "out of memory");
        return NULL;
    }
    ji->next = 1;
    if (conf && jobid_load (ji, conf->state_save_location, err) < 0) {
        jobid_destroy (ji);
        return NULL;
    }
    return ji;
}

void jobid_destroy (struct jobid *ji)
{
    int saved = errno;

    if (!ji)
        return;
    free (ji->path);
    free (ji);
    errno = saved;
}

static uint32_t jobid_after (uint32_t id, uint32_t n)
{
    uint64_t v = (uint64_t)id + n;

    return v > UINT32_MAX ? (uint32_t)(v - UINT32_MAX) : (uint32_t)v;
}

int jobid_next (struct ctld *ctx, uint32_t *id, arbor_error_t *err)
{
    struct jobid *ji = ctx->jobid;

    for (size_t tries = 0; tries <= ctx->njobs; tries++) {
        uint32_t c = ji->next ? ji->next : 1;
        if (ji->path && ji->left == 0) {
            if (jobid_write (ji->path, jobid_after (c, JOBID_BLOCK), err) < 0)
                return -1;
            ji->left = JOBID_BLOCK;
        }
        if (ji->left > 0)
            ji->left--;
        ji->next = jobid_after (c, 1);
        if (!job_find (ctx, c)) {
            *id = c;
            return 0;
        }
    }
    errno = EAGAIN;
    return errprintf (err, "no free job id");
}
