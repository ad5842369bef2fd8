/* run_place.c - where each rank runs and what it runs, seen from the
 * launcher: -m arbitrary's SLURM_HOSTFILE and the --multi-prog file.
 *
 * -m arbitrary: SLURM_HOSTFILE names the host of each rank, one a line
 * (or several a line, comma-separated or as a hostlist expression; '#'
 * starts a comment), in rank order; -n defaults to the number of hosts it
 * lists, and a smaller -n takes the first ones. The step is then asked
 * for those hosts (STEP_CREATE's nodelist, in first-appearance order)
 * with as many tasks on each as they have ranks (node_tasks); once it
 * exists, the node of each rank becomes LAUNCH's task_nodes, in the
 * controller's node order. Without SLURM_HOSTFILE the ranks are laid out
 * in blocks, as srun does.
 *
 * --multi-prog: the command is a configuration file (common/spec/multiprog.h),
 * read here (at most MULTIPROG_MAX_SIZE bytes) and checked against the
 * step's task count before anything is launched (and against -n before
 * anything is allocated, when -n is given); its text goes to every stepd
 * in LAUNCH's multi_prog.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostlist.h"
#include "log.h"
#include "multiprog.h"
#include "run_place.h"

/* The wire's limit for LAUNCH's multi_prog (common/wire/proto.c). */
#define MULTIPROG_MAX_SIZE PROTO_MAX_LONG_STR

static bool run_place_arbitrary (const struct run_ctx *ctx)
{
    return ctx->opt.distribution
           && !strcmp (ctx->opt.distribution, "arbitrary");
}

/* Read all of 'path' (a regular file of at most 'max' bytes) into *text
 * (NUL-terminated, caller frees). 0, or -1 after printing why. */
static int run_read_file (const char *path, const char *what, size_t max,
                          char **text, size_t *len)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    size_t got = 0;
    char *buf;

    if (fd < 0 || fstat (fd, &st) < 0) {
        log_err ("%s %s: %s", what, path, strerror (errno));
        if (fd >= 0)
            close (fd);
        return -1;
    }
    if (!S_ISREG (st.st_mode) || (size_t)st.st_size > max) {
        log_err ("%s %s: %s", what, path,
                 S_ISREG (st.st_mode) ? "larger than 1 MiB"
                                      : "not a regular file");
        close (fd);
        return -1;
    }
    if (!(buf = malloc ((size_t)st.st_size + 1))) {
        close (fd);
        log_err ("out of memory");
        return -1;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read (fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close (fd);
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return 0;
}

/* The hosts of one hostfile line, appended to hl. */
static int run_hostfile_line (char *line, struct hostlist *hl, const char *path,
                              unsigned lineno)
{
    char *hash = strchr (line, '#');
    arbor_error_t err;
    char *p, *end;

    if (hash)
        *hash = '\0';
    for (p = line; *p == ' ' || *p == '\t' || *p == '\r'; p++)
        ;
    for (end = p + strlen (p); end > p && strchr (" \t\r", end[-1]); end--)
        ;
    *end = '\0';
    if (*p && hostlist_append_expr (hl, p, &err) < 0) {
        log_err ("SLURM_HOSTFILE %s line %u: %s", path, lineno, err.text);
        return -1;
    }
    return 0;
}

/* SLURM_HOSTFILE's hosts, a host per rank. */
static struct hostlist *run_hostfile_read (const char *path)
{
    struct hostlist *hl = hostlist_create ("", NULL);
    char *text, *line;
    unsigned lineno = 0;
    size_t len;

    if (!hl
        || run_read_file (path, "SLURM_HOSTFILE", MULTIPROG_MAX_SIZE, &text,
                          &len)
               < 0) {
        hostlist_destroy (hl);
        return NULL;
    }
    for (char *s = text; (line = strsep (&s, "\n"));) {
        lineno++;
        if (run_hostfile_line (line, hl, path, lineno) < 0) {
            free (text);
            hostlist_destroy (hl);
            return NULL;
        }
    }
    free (text);
    return hl;
}

/* The distinct hosts of the first n ranks, in first-appearance order,
 * and the ranks of each. */
static int run_place_counts (struct run_ctx *ctx, struct hostlist *hl,
                             uint32_t n)
{
    struct hostlist *distinct = hostlist_create ("", NULL);

    if (!distinct || !(ctx->arb_counts = calloc (n, sizeof (uint32_t)))
        || !(ctx->arb_hosts = calloc (n + 1, sizeof (char *))))
        goto nomem;
    for (uint32_t r = 0; r < n; r++) {
        const char *h = hostlist_nth (hl, r);
        int i = hostlist_find (distinct, h);
        if (i < 0
            && (hostlist_append (distinct, h) < 0
                || (i = (int)hostlist_count (distinct) - 1) < 0))
            goto nomem;
        ctx->arb_counts[i]++;
        if (!(ctx->arb_hosts[r] = strdup (h)))
            goto nomem;
    }
    ctx->arb_nhosts = n;
    ctx->arb_nnodes = (uint32_t)hostlist_count (distinct);
    ctx->arb_nodelist = hostlist_ranged (distinct);
    hostlist_destroy (distinct);
    return ctx->arb_nodelist ? 0 : -1;
nomem:
    hostlist_destroy (distinct);
    return -1;
}

/* -m arbitrary: the hosts of the ranks, and -n from them. */
static int run_place_hostfile (struct run_ctx *ctx)
{
    const char *path = getenv ("SLURM_HOSTFILE");
    struct alloc_opts *o = &ctx->opt.alloc;
    struct hostlist *hl;
    uint32_t n;
    int rc;

    if (!path || !*path) {
        run_verbose (ctx, "-m arbitrary without SLURM_HOSTFILE: block");
        ctx->opt.distribution = NULL; /* the caller's string, not ours */
        return 0;
    }
    if (!(hl = run_hostfile_read (path)))
        return -1;
    n = (uint32_t)hostlist_count (hl);
    if (n == 0 || (o->ntasks && o->ntasks > n)) {
        log_err ("SLURM_HOSTFILE %s lists %u host%s, fewer than the %u "
                 "tasks",
                 path, n, n == 1 ? "" : "s", o->ntasks ? o->ntasks : 1);
        hostlist_destroy (hl);
        return -1;
    }
    if (!o->ntasks)
        o->ntasks = n;
    rc = run_place_counts (ctx, hl, o->ntasks);
    hostlist_destroy (hl);
    if (rc < 0) {
        log_err ("out of memory");
        return -1;
    }
    if (!o->nnodes)
        o->nnodes = ctx->arb_nnodes;
    return 0;
}

/* Check the --multi-prog configuration for ntasks tasks. */
static int run_multi_prog_check (const struct run_ctx *ctx, uint32_t ntasks)
{
    arbor_error_t err;
    struct multiprog *mp =
        multiprog_parse (ctx->multi_prog, ctx->multi_prog_len, ntasks, &err);

    if (!mp) {
        log_err ("--multi-prog %s: %s", ctx->argv[0], err.text);
        return -1;
    }
    multiprog_destroy (mp);
    return 0;
}

int run_place_prepare (struct run_ctx *ctx)
{
    if (run_place_arbitrary (ctx) && run_place_hostfile (ctx) < 0)
        return -1;
    if (!ctx->opt.multi_prog)
        return 0;
    if (run_read_file (ctx->argv[0], "--multi-prog", MULTIPROG_MAX_SIZE,
                       &ctx->multi_prog, &ctx->multi_prog_len)
        < 0)
        return -1;
    if (ctx->opt.alloc.ntasks)
        return run_multi_prog_check (ctx, ctx->opt.alloc.ntasks);
    return 0;
}

/* The step's node index of each rank of the hostfile; the controller
 * must have given each node as many tasks as the file does. */
static int run_place_task_nodes (struct run_ctx *ctx)
{
    struct hostlist *hl = hostlist_create (ctx->step.nodelist, NULL);
    struct hostlist_index *ix = hl ? hostlist_index_create (hl) : NULL;
    uint32_t n = ctx->arb_nhosts, *count = NULL;
    int rc = -1;

    if (!ix || !(ctx->task_nodes = calloc (n ? n : 1, sizeof (uint32_t)))
        || !(count = calloc (ctx->step.tasks_count + 1, sizeof (uint32_t)))) {
        log_err ("out of memory");
        goto out;
    }
    for (uint32_t r = 0; r < n; r++) {
        int i = hostlist_index_find (ix, ctx->arb_hosts[r]);
        if (i < 0 || (uint32_t)i >= ctx->step.tasks_count) {
            log_err ("-m arbitrary: %s (rank %u) is not a node of the step "
                     "(%s)",
                     ctx->arb_hosts[r], r, ctx->step.nodelist);
            goto out;
        }
        ctx->task_nodes[r] = (uint32_t)i;
        count[i]++;
    }
    for (uint32_t i = 0; i < ctx->step.tasks_count; i++) {
        if (count[i] != ctx->step.tasks[i]) {
            log_err ("-m arbitrary: the controller gave %s %u task(s), "
                     "SLURM_HOSTFILE %u",
                     hostlist_nth (hl, i), ctx->step.tasks[i], count[i]);
            goto out;
        }
    }
    ctx->ntask_nodes = n;
    rc = 0;
out:
    free (count);
    hostlist_index_destroy (ix);
    hostlist_destroy (hl);
    return rc;
}

int run_place_step (struct run_ctx *ctx)
{
    if (ctx->arb_hosts && run_place_task_nodes (ctx) < 0)
        return -1;
    if (ctx->multi_prog && run_multi_prog_check (ctx, ctx->tasks.n) < 0)
        return -1;
    return 0;
}

void run_place_free (struct run_ctx *ctx)
{
    for (uint32_t i = 0; ctx->arb_hosts && i < ctx->arb_nhosts; i++)
        free (ctx->arb_hosts[i]);
    free (ctx->arb_hosts);
    free (ctx->arb_counts);
    free (ctx->arb_nodelist);
    free (ctx->task_nodes);
    free (ctx->multi_prog);
}
