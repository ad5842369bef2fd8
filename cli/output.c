/* output.c - line-buffered task output to our stdout/stderr or to files.
 * See output.h for the rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fname.h"
#include "output.h"

struct linebuf {
    char *buf;
    size_t len, cap;
};

struct out_file {
    char *path;
    int fd;
    struct out_file *next;
};

struct output {
    struct output_cfg cfg;
    int width;          /* digits of the largest rank, for labels */
    char **nodes;       /* per task, for %N */
    uint32_t *node_ids; /* per task, for %n */
    struct linebuf *lb; /* [task * 2 + stream - 1] */
    int *fd;            /* same index; -1: not chosen yet */
    struct out_file *files;
};

char *output_pattern_expand (const struct output_cfg *cfg, const char *pattern,
                             uint32_t task, const char *node, uint32_t node_id)
{
    struct fname_vars v = {
        .job_id = cfg->job_id,
        .step_id = cfg->step_id,
        .task = task,
        .node_id = node_id,
        .node = node,
        .user = cfg->user,
        .job_name = cfg->job_name,
        .array_task_id = FNAME_NO_ARRAY,
    };

    return fname_expand (pattern, &v);
}

struct output *output_create (const struct output_cfg *cfg)
{
    struct output *o = calloc (1, sizeof (*o));
    size_t n = (size_t)cfg->ntasks * 2;

    if (!o)
        return NULL;
    o->cfg = *cfg;
    o->cfg.out_pattern = cfg->out_pattern ? strdup (cfg->out_pattern) : NULL;
    o->cfg.err_pattern = cfg->err_pattern ? strdup (cfg->err_pattern) : NULL;
    o->cfg.user = strdup (cfg->user ? cfg->user : "");
    o->cfg.job_name = strdup (cfg->job_name ? cfg->job_name : "");
    o->nodes = calloc (cfg->ntasks ? cfg->ntasks : 1, sizeof (*o->nodes));
    o->node_ids = calloc (cfg->ntasks ? cfg->ntasks : 1, sizeof (*o->node_ids));
    o->lb = calloc (n ? n : 1, sizeof (*o->lb));
    o->fd = malloc ((n ? n : 1) * sizeof (*o->fd));
    if (!o->nodes || !o->node_ids || !o->lb || !o->fd || !o->cfg.user
        || !o->cfg.job_name || (cfg->out_pattern && !o->cfg.out_pattern)
        || (cfg->err_pattern && !o->cfg.err_pattern)) {
        output_destroy (o);
        errno = ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        o->fd[i] = -1;
    o->width = snprintf (NULL, 0, "%u", cfg->ntasks ? cfg->ntasks - 1 : 0);
    return o;
}

void output_destroy (struct output *o)
{
    int e = errno;

    if (!o)
        return;
    output_flush (o, NULL);
    while (o->files) {
        struct out_file *f = o->files;
        o->files = f->next;
        close (f->fd);
        free (f->path);
        free (f);
    }
    for (uint32_t i = 0; o->nodes && i < o->cfg.ntasks; i++)
        free (o->nodes[i]);
    for (uint32_t i = 0; o->lb && i < o->cfg.ntasks * 2; i++)
        free (o->lb[i].buf);
    free (o->nodes);
    free (o->node_ids);
    free (o->lb);
    free (o->fd);
    free ((char *)o->cfg.out_pattern);
    free ((char *)o->cfg.err_pattern);
    free ((char *)o->cfg.user);
    free ((char *)o->cfg.job_name);
    free (o);
    errno = e;
}

int output_set_node (struct output *o, uint32_t task, const char *node,
                     uint32_t node_id)
{
    char *copy;

    if (task >= o->cfg.ntasks) {
        errno = EINVAL;
        return -1;
    }
    if (!(copy = strdup (node)))
        return -1;
    free (o->nodes[task]);
    o->nodes[task] = copy;
    o->node_ids[task] = node_id;
    return 0;
}

/* The fd of an expanded path, opening (truncating) it on first use. */
static int output_file_fd (struct output *o, const char *path,
                           arbor_error_t *err)
{
    struct out_file *f;

    for (f = o->files; f; f = f->next) {
        if (!strcmp (f->path, path))
            return f->fd;
    }
    if (!(f = calloc (1, sizeof (*f))) || !(f->path = strdup (path))) {
        free (f);
        return errprintf (err, "out of memory");
    }
    f->fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        int e = errno;
        errprintf (err, "%s: %s", path, strerror (e));
        free (f->path);
        free (f);
        errno = e;
        return -1;
    }
    f->next = o->files;
    o->files = f;
    return f->fd;
}

/* srun's modes in place of a file name: "all" (every task, to us),
 * "none" (no task) or a task id (that task alone): OUTPUT_TO_US, OUTPUT_DROP
 * or OUTPUT_FILE (a pattern). */
enum { OUTPUT_FILE, OUTPUT_TO_US, OUTPUT_DROP };

static int output_mode (const char *pat, uint32_t task)
{
    char *end;
    unsigned long id;

    if (!pat || !strcasecmp (pat, "all"))
        return OUTPUT_TO_US;
    if (!strcasecmp (pat, "none"))
        return OUTPUT_DROP;
    if (*pat < '0' || *pat > '9')
        return OUTPUT_FILE;
    id = strtoul (pat, &end, 10);
    if (*end)
        return OUTPUT_FILE;
    return id == task ? OUTPUT_TO_US : OUTPUT_DROP;
}

/* Where (task, stream) output goes. */
static int output_dest (struct output *o, uint32_t task, int stream,
                        arbor_error_t *err)
{
    size_t i = (size_t)task * 2 + (size_t)stream - 1;
    const char *pat = o->cfg.out_pattern;
    char *path;
    int mode;

    if (o->fd[i] >= 0)
        return o->fd[i];
    if (stream == 2 && o->cfg.err_pattern)
        pat = o->cfg.err_pattern;
    mode = output_mode (pat, task);
    if (mode == OUTPUT_TO_US)
        return o->fd[i] = stream == 1 ? STDOUT_FILENO : STDERR_FILENO;
    if (mode == OUTPUT_DROP)
        pat = "/dev/null";
    path = output_pattern_expand (&o->cfg, pat, task, o->nodes[task],
                                  o->node_ids[task]);
    if (!path)
        return errprintf (err, "out of memory");
    o->fd[i] = output_file_fd (o, path, err);
    free (path);
    return o->fd[i];
}

/* Write all of buf to fd. */
static int output_write (int fd, const char *buf, size_t len, uint32_t task,
                         arbor_error_t *err)
{
    while (len > 0) {
        ssize_t n = write (fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errprintf (err, "write task %u output: %s", task,
                              strerror (errno));
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Write label + data with one writev, finishing short writes. */
static int output_emit (struct output *o, uint32_t task, int stream,
                        const char *data, size_t len, arbor_error_t *err)
{
    char label[32];
    struct iovec iov[2], *v = iov;
    int fd = output_dest (o, task, stream, err);
    int cnt = 0;

    if (fd < 0)
        return -1;
    if (o->cfg.label) {
        int n = snprintf (label, sizeof (label), "%*u: ", o->width, task);
        iov[cnt++] = (struct iovec){ label, (size_t)n };
    }
    iov[cnt++] = (struct iovec){ (char *)data, len };
    while (cnt > 0) {
        ssize_t n = writev (fd, v, cnt);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errprintf (err, "write task %u output: %s", task,
                              strerror (errno));
        while (cnt > 0 && (size_t)n >= v->iov_len) {
            n -= (ssize_t)v->iov_len;
            v++;
            cnt--;
        }
        if (cnt > 0) {
            v->iov_base = (char *)v->iov_base + n;
            v->iov_len -= (size_t)n;
        }
    }
    return 0;
}

static int linebuf_append (struct linebuf *lb, const char *data, size_t len)
{
    if (lb->len + len > lb->cap) {
        size_t cap = lb->cap ? lb->cap : 256;
        char *nb;
        while (cap < lb->len + len)
            cap *= 2;
        if (!(nb = realloc (lb->buf, cap)))
            return -1;
        lb->buf = nb;
        lb->cap = cap;
    }
    memcpy (lb->buf + lb->len, data, len);
    lb->len += len;
    return 0;
}

/* Emit every complete line of lb (all of it if 'all'), keep the rest. */
static int output_drain (struct output *o, uint32_t task, int stream, bool all,
                         arbor_error_t *err)
{
    struct linebuf *lb = &o->lb[(size_t)task * 2 + (size_t)stream - 1];
    size_t done = 0;
    int rc = 0;

    while (rc == 0 && done < lb->len) {
        char *nl = memchr (lb->buf + done, '\n', lb->len - done);
        size_t n = nl ? (size_t)(nl - (lb->buf + done)) + 1 : 0;
        if (!nl && (all || lb->len - done >= OUTPUT_MAX_LINE))
            n = lb->len - done;
        if (n == 0)
            break;
        rc = output_emit (o, task, stream, lb->buf + done, n, err);
        /* A labelled partial line ends its line: the next label must
         * start a fresh one. Unlabelled output stays byte-exact. */
        if (rc == 0 && o->cfg.label && lb->buf[done + n - 1] != '\n')
            rc = output_write (o->fd[(size_t)task * 2 + (size_t)stream - 1],
                               "\n", 1, task, err);
        done += n;
    }
    if (done > 0) {
        memmove (lb->buf, lb->buf + done, lb->len - done);
        lb->len -= done;
    }
    return rc;
}

int output_data (struct output *o, uint32_t task, int stream, const char *data,
                 size_t len, arbor_error_t *err)
{
    struct linebuf *lb;

    if (task >= o->cfg.ntasks || (stream != 1 && stream != 2)) {
        errno = EINVAL;
        return errprintf (err, "output for unknown task %u stream %d", task,
                          stream);
    }
    if (o->cfg.unbuffered && len > 0)
        return output_emit (o, task, stream, data, len, err);
    lb = &o->lb[(size_t)task * 2 + (size_t)stream - 1];
    if (len > 0 && linebuf_append (lb, data, len) < 0)
        return errprintf (err, "out of memory");
    return output_drain (o, task, stream, len == 0, err);
}

int output_flush (struct output *o, arbor_error_t *err)
{
    int rc = 0;

    for (uint32_t t = 0; t < o->cfg.ntasks; t++) {
        for (int s = 1; s <= 2; s++) {
            if (output_drain (o, t, s, true, err) < 0)
                rc = -1;
        }
    }
    return rc;
}
