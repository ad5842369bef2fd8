/* arbor-test-launch - prove that a bad step credential launches nothing.
 *
 *   arbor-test-launch MODE [-N K] [-p PART] [-t SECONDS] -- CMD [ARGS...]
 *
 * Allocates a job (JOB_ALLOC) and creates a step exactly as arbor run
 * does, then damages the step credential according to MODE and sends
 * LAUNCH to node zero as arbor run would (with its own I/O listener):
 *   --tamper   flip one character in the middle of the credential
 *   --forge    seal plausible claims (the step's job, step, nodes, tasks,
 *              cpus and I/O key, the user's own ids) under a fresh random
 *              key, with the genuine credential's key id spliced in
 *   --none     send an empty credential
 *   --expired  wait until the credential has expired (CredExpire + 2 s
 *              after the step was created), then send it (needs a small
 *              CredExpire; refuses to wait over -t seconds, default 120)
 *   --valid    send it untouched (control: must be accepted)
 *   --replay   send it untouched, wait -w SECONDS (default 3) for the step
 *              to end, then send the same LAUNCH again (a fresh frame, the
 *              same credential): the verdict is the second one's
 *   --replay-after=FILE
 *              send it untouched, wait for the step's stepds to end, end
 *              the step and the job (STEP_COMPLETE, JOB_COMPLETE: "job
 *              ended" is printed), then wait (-t SECONDS at most) until
 *              FILE exists (the test restarts a noded meanwhile) and send
 *              the same LAUNCH again: the verdict is the second one's
 *   --tasks=N  a genuine credential, but ask for N tasks on node zero
 *   --cpus=N   a genuine credential, but ask for N cpus on node zero
 *   --slice=N  a genuine credential, but a slice of N names (node zero,
 *              then made-up ones)
 * Then it waits for LAUNCH_REPLY and prints "launch refused: TEXT" (exit
 * 0) or "launch accepted" (exit 1); setup errors and a missing answer
 * exit 2. The job is completed before exiting.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "conf.h"
#include "cred.h"
#include "hostlist.h"
#include "log.h"
#include "net.h"
#include "rpc.h"

enum mode {
    MODE_NONE_SET,
    MODE_TAMPER,
    MODE_FORGE,
    MODE_EMPTY,
    MODE_EXPIRED,
    MODE_VALID,
    MODE_REPLAY,
    MODE_TASKS,
    MODE_CPUS,
    MODE_SLICE,
    MODE_REPLAY_AFTER
};

struct tl_ctx {
    enum mode mode;
    uint32_t nnodes;
    const char *partition;
    unsigned max_wait;
    unsigned replay_wait;
    uint32_t value;      /* N of --tasks, --cpus, --slice */
    const char *go_file; /* --replay-after */
    bool job_ended;      /* --replay-after ended it */
    char **argv;
    int argc;
    struct client cl;
    uint32_t job_id;
    struct msg_step_created step;
    time_t created; /* when the step's answer arrived */
    int listen_fd;
    char io_host[64];
    uint16_t io_port;
};

extern char **environ;

static void tl_usage (FILE *f)
{
    fprintf (f, "Usage: arbor-test-launch --tamper|--forge|--none|--expired"
                "|--valid|--replay|--replay-after=FILE|--tasks=N|--cpus=N"
                "|--slice=N [-N K] "
                "[-p PART] [-t SECONDS] [-w SECONDS] -- CMD [ARGS...]\n");
}

static void tl_parse (struct tl_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "tamper", no_argument, NULL, MODE_TAMPER },
        { "forge", no_argument, NULL, MODE_FORGE },
        { "none", no_argument, NULL, MODE_EMPTY },
        { "expired", no_argument, NULL, MODE_EXPIRED },
        { "valid", no_argument, NULL, MODE_VALID },
        { "replay", no_argument, NULL, MODE_REPLAY },
        { "tasks", required_argument, NULL, MODE_TASKS },
        { "cpus", required_argument, NULL, MODE_CPUS },
        { "slice", required_argument, NULL, MODE_SLICE },
        { "replay-after", required_argument, NULL, MODE_REPLAY_AFTER },
        { "replay-wait", required_argument, NULL, 'w' },
        { "nodes", required_argument, NULL, 'N' },
        { "partition", required_argument, NULL, 'p' },
        { "max-wait", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    ctx->nnodes = 1;
    ctx->max_wait = 120;
    ctx->replay_wait = 3;
    while ((c = getopt_long (argc, argv, "+N:p:t:w:h", longopts, NULL)) != -1) {
        if (c == MODE_REPLAY_AFTER) {
            ctx->mode = MODE_REPLAY_AFTER;
            ctx->go_file = optarg;
        } else if (c >= MODE_TAMPER && c <= MODE_SLICE) {
            ctx->mode = (enum mode)c;
            if (optarg)
                ctx->value = (uint32_t)strtoul (optarg, NULL, 10);
        } else if (c == 'w')
            ctx->replay_wait = (unsigned)strtoul (optarg, NULL, 10);
        else if (c == 'N')
            ctx->nnodes = (uint32_t)strtoul (optarg, NULL, 10);
        else if (c == 'p')
            ctx->partition = optarg;
        else if (c == 't')
            ctx->max_wait = (unsigned)strtoul (optarg, NULL, 10);
        else {
            tl_usage (c == 'h' ? stdout : stderr);
            exit (c == 'h' ? 0 : 2);
        }
    }
    if (ctx->mode == MODE_NONE_SET || ctx->nnodes == 0 || optind >= argc) {
        tl_usage (stderr);
        exit (2);
    }
    ctx->argv = argv + optind;
    ctx->argc = argc - optind;
}

/* Fatal setup error: exit 2 (distinct from the verdicts 0 and 1). */
static void tl_fail (const char *what, const char *text)
{
    fprintf (stderr, "arbor-test-launch: %s: %s\n", what, text);
    exit (2);
}

static void tl_setup (struct tl_ctx *ctx)
{
    struct msg_job_alloc req = {
        .name = "test-launch",
        .partition = (char *)(ctx->partition ? ctx->partition : ""),
        .nnodes = ctx->nnodes,
        .cpus_per_task = 1,
        .nodelist = "",
        .exclude = "",
        .cwd = "/tmp",
    };
    struct msg_step_create sreq = {
        .cpus_per_task = 1, .nodelist = "", .exclude = "", .name = "test-launch"
    };
    struct msg_job_allocated a;
    arbor_error_t err;

    if (client_open (&ctx->cl, &err) < 0)
        tl_fail ("controller", err.text);
    if (client_alloc (&ctx->cl, &req, &a, &err) < 0)
        tl_fail ("allocation", err.text);
    ctx->job_id = a.job_id;
    proto_clear (MSG_JOB_ALLOCATED, &a);
    sreq.job_id = ctx->job_id;
    sreq.nnodes = ctx->nnodes;
    if (client_step_create (&ctx->cl, &sreq, &ctx->step, &err) < 0)
        tl_fail ("step", err.text);
    ctx->created = time (NULL);
    if (client_local_addr (&ctx->cl, ctx->io_host, sizeof (ctx->io_host)) < 0)
        tl_fail ("local address", strerror (errno));
    ctx->listen_fd = net_listen_tcp (ctx->io_host, 0, &ctx->io_port, &err);
    if (ctx->listen_fd < 0)
        tl_fail ("listen", err.text);
}

/* Core ranges "0-(n-1)" for each node's n cpus, as the controller
 * would write them for a step alone on its nodes. Freed by the caller. */
static char **tl_cores (const struct msg_step_created *s)
{
    char **cores = calloc (s->cpus_count + 1, sizeof (char *));

    if (!cores)
        tl_fail ("forge", "out of memory");
    for (uint32_t i = 0; i < s->cpus_count; i++) {
        uint32_t n = s->cpus[i] ? s->cpus[i] : 1;
        if (asprintf (&cores[i], "0-%u", n - 1) < 0)
            tl_fail ("forge", "out of memory");
    }
    return cores;
}

/* Claims as plausible as the user can make them (the real ones are sealed
 * and unreadable), sealed under a fresh random key, then given the genuine
 * credential's key id: the node gets past the key id and must refuse on
 * the box itself. */
static void tl_forge (struct tl_ctx *ctx)
{
    const char *real = ctx->step.cred;
    struct passwd *pw = getpwuid (getuid ());
    uint32_t gid = (uint32_t)getgid ();
    struct msg_cred_claims claims = {
        .job_id = ctx->step.job_id,
        .step_id = ctx->step.step_id,
        .uid = (uint32_t)getuid (),
        .gid = gid,
        .user = pw ? pw->pw_name : "nobody",
        .nodelist = ctx->step.nodelist,
        .cpus = ctx->step.cpus,
        .cpus_count = ctx->step.cpus_count,
        .io_key = ctx->step.io_key,
        .expires = (uint64_t)time (NULL) + 60,
        .cluster =
            ctx->cl.conf->cluster_name ? ctx->cl.conf->cluster_name : "arbor",
        .cores_count = ctx->step.cpus_count,
        .tasks = ctx->step.tasks,
        .tasks_count = ctx->step.tasks_count,
        .gids = &gid,
        .gids_count = 1,
        .home = pw ? pw->pw_dir : "/",
    };
    struct cred_key key;
    char *token;
    arbor_error_t err;

    if (!real || strncmp (real, CRED_PREFIX, strlen (CRED_PREFIX)) != 0
        || strlen (real) < strlen (CRED_PREFIX) + CRED_KEY_ID_SIZE)
        tl_fail ("forge", "the genuine credential is not an Arbor one");
    claims.cores = tl_cores (&ctx->step);
    if (cred_key_new (&key, &err) < 0
        || cred_seal (&key, &claims, &token, &err) < 0)
        tl_fail ("forge", err.text);
    memcpy (token + strlen (CRED_PREFIX), real + strlen (CRED_PREFIX),
            CRED_KEY_ID_SIZE - 1);
    for (uint32_t i = 0; i < claims.cores_count; i++)
        free (claims.cores[i]);
    free (claims.cores);
    free (ctx->step.cred);
    ctx->step.cred = token;
}

/* The claims are sealed, so their expiry is unknown here: the controller
 * set it CredExpire seconds after it created the step, which was before
 * its answer reached us. Wait that, and 2 s more, from then. */
static void tl_wait_expiry (struct tl_ctx *ctx)
{
    long wait = (long)ctx->cl.conf->cred_expire + 2;
    long left = (long)(ctx->created + wait - time (NULL));

    if (wait > (long)ctx->max_wait) {
        fprintf (stderr,
                 "arbor-test-launch: the credential expires after %ld s "
                 "(CredExpire + 2), over --max-wait %u (lower CredExpire)\n",
                 wait, ctx->max_wait);
        exit (2);
    }
    if (left > 0)
        sleep ((unsigned)left);
}

static void tl_damage (struct tl_ctx *ctx)
{
    char *c = ctx->step.cred;
    size_t n = c ? strlen (c) : 0;

    switch (ctx->mode) {
    case MODE_TAMPER:
        if (n < 2)
            tl_fail ("tamper", "credential too short");
        c[n / 2] = c[n / 2] == 'A' ? 'B' : 'A';
        break;
    case MODE_FORGE: tl_forge (ctx); break;
    case MODE_EMPTY: c[0] = '\0'; break;
    case MODE_EXPIRED: tl_wait_expiry (ctx); break;
    default: break;
    }
}

/* The slice: the step's nodes, or for --slice N node zero and N - 1
 * made-up names. Freed by tl_slice_free. */
static char **tl_slice (struct tl_ctx *ctx, struct hostlist *hl,
                        uint32_t *count)
{
    size_t n = ctx->mode == MODE_SLICE ? ctx->value : hostlist_count (hl);
    char **slice = calloc (n + 1, sizeof (char *));

    if (!slice || n == 0)
        tl_fail ("slice", "out of memory or empty");
    for (size_t i = 0; i < n; i++) {
        if (ctx->mode != MODE_SLICE || i == 0)
            slice[i] = strdup (hostlist_nth (hl, i));
        else if (asprintf (&slice[i], "bogus%zu", i) < 0)
            slice[i] = NULL;
        if (!slice[i])
            tl_fail ("slice", "out of memory");
    }
    *count = (uint32_t)n;
    return slice;
}

/* The LAUNCH arbor run would send, with --tasks / --cpus applied. */
static void tl_message (struct tl_ctx *ctx, struct hostlist *hl,
                        struct msg_launch *m)
{
    static char cwd[] = "/tmp";

    memset (m, 0, sizeof (*m));
    m->slice = tl_slice (ctx, hl, &m->slice_count);
    m->cred = ctx->step.cred;
    m->job_id = ctx->step.job_id;
    m->step_id = ctx->step.step_id;
    m->budget_ms = ctx->cl.conf->launch_timeout * 1000;
    m->argv = ctx->argv;
    m->argv_count = (uint32_t)ctx->argc;
    for (m->env = environ; m->env[m->env_count]; m->env_count++)
        ;
    m->cwd = cwd;
    m->io_host = ctx->io_host;
    m->io_port = ctx->io_port;
    m->step_nodelist = ctx->step.nodelist;
    m->tasks = ctx->step.tasks;
    m->tasks_count = ctx->step.tasks_count;
    m->cpus = ctx->step.cpus;
    m->cpus_count = ctx->step.cpus_count;
    m->job_nodelist = ctx->step.job_nodelist;
    m->cpus_per_task = 1;
    m->stdin_task = STDIN_NONE;
    m->job_name = "test-launch";
    if (ctx->mode == MODE_TASKS && m->tasks_count > 0)
        m->tasks[0] = ctx->value; /* the credential still says the truth */
    if (ctx->mode == MODE_CPUS && m->cpus_count > 0)
        m->cpus[0] = ctx->value;
}

/* Send 'm' to node zero on a fresh connection (a session with the
 * noded, which runs as NodedUser, as arbor run opens it); the reply in
 * *reply. */
static int tl_send (struct tl_ctx *ctx, const struct msg_launch *m,
                    union msg_any *reply, int *type)
{
    struct rpc_chan ch;
    arbor_error_t err;
    long noded_uid = conf_noded_uid (ctx->cl.conf);
    uid_t uid;
    int rc;

    if (noded_uid < 0)
        tl_fail ("NodedUser", "no such user");
    if (rpc_open (&ch, ctx->cl.auth, ctx->step.addrs[0],
                  (uint16_t)ctx->step.noded_port, (uid_t)noded_uid, 5000, &err)
        < 0)
        tl_fail ("connect node zero", err.text);
    rc = rpc_send (&ch, MSG_LAUNCH, 1, m, &err);
    if (rc == 0)
        rc = rpc_recv (&ch, (int)m->budget_ms + 5000, type, reply, &uid, &err);
    if (rc < 0) /* no verdict: a noded that crashed is no refusal */
        fprintf (stderr, "arbor-test-launch: no answer to LAUNCH: %s\n",
                 err.text);
    rpc_close (&ch);
    return rc;
}

/* For 'secs' seconds, accept the stepds' I/O connections and read and
 * drop whatever they send, until they close: a stepd whose launcher never
 * reads would not end its step. With 'expect' > 0, return as soon as that
 * many connections came and all closed (the step's stepds are done). */
static void tl_drain_io (struct tl_ctx *ctx, unsigned secs, unsigned expect)
{
    struct pollfd pf[64];
    nfds_t n = 1;
    unsigned came = 0;
    time_t end = time (NULL) + (time_t)secs;
    char buf[4096];

    pf[0] = (struct pollfd){ .fd = ctx->listen_fd, .events = POLLIN };
    while (time (NULL) < end && !(expect && came >= expect && n == 1)) {
        if (poll (pf, n, 200) <= 0)
            continue;
        for (nfds_t i = n; i-- > 1;) {
            if (pf[i].revents && read (pf[i].fd, buf, sizeof (buf)) <= 0) {
                close (pf[i].fd);
                pf[i] = pf[--n];
            }
        }
        if ((pf[0].revents & POLLIN) && n < 64) {
            int fd = accept (ctx->listen_fd, NULL, NULL);
            if (fd >= 0) {
                pf[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
                came++;
            }
        }
    }
    for (nfds_t i = 1; i < n; i++)
        close (pf[i].fd);
}

/* --replay-after: the step's stepds have all closed their I/O (they
 * ended), then the step and the job are ended, then FILE is awaited. */
static void tl_end_then_wait (struct tl_ctx *ctx)
{
    arbor_error_t err;
    time_t end;

    tl_drain_io (ctx, ctx->max_wait, ctx->step.addrs_count);
    if (client_step_complete (&ctx->cl, ctx->job_id, ctx->step.step_id, 0,
                              false, 0, 0, &err)
            < 0
        || client_job_complete (&ctx->cl, ctx->job_id, 0, 0, &err) < 0)
        tl_fail ("ending the job", err.text);
    ctx->job_ended = true;
    printf ("job ended\n");
    fflush (stdout);
    end = time (NULL) + (time_t)ctx->max_wait;
    while (access (ctx->go_file, F_OK) < 0) {
        if (time (NULL) > end)
            tl_fail ("replay", "the go file never appeared");
        usleep (100 * 1000);
    }
}

/* Send LAUNCH to node zero as arbor run does (--replay, --replay-after:
 * twice, the step given time to end in between); the last reply in
 * *reply. */
static int tl_launch (struct tl_ctx *ctx, union msg_any *reply, int *type)
{
    struct hostlist *hl = hostlist_create (ctx->step.nodelist, NULL);
    struct msg_launch m;
    int rc;

    if (!hl)
        tl_fail ("step", "bad node list");
    tl_message (ctx, hl, &m);
    rc = tl_send (ctx, &m, reply, type);
    if (rc == 0
        && (ctx->mode == MODE_REPLAY || ctx->mode == MODE_REPLAY_AFTER)) {
        bool ok = *type == MSG_LAUNCH_REPLY && reply->launch_reply.errnum == 0;
        printf ("first launch %s\n", ok ? "accepted" : "refused");
        proto_clear (*type, reply);
        if (!ok)
            tl_fail ("replay", "the first launch was refused");
        fflush (stdout);
        if (ctx->mode == MODE_REPLAY_AFTER)
            tl_end_then_wait (ctx);
        else
            tl_drain_io (ctx, ctx->replay_wait, 0);
        rc = tl_send (ctx, &m, reply, type);
    }
    for (uint32_t i = 0; i < m.slice_count; i++)
        free (m.slice[i]);
    free (m.slice);
    hostlist_destroy (hl);
    return rc;
}

/* Print the verdict; returns the exit status. */
static int tl_verdict (int type, union msg_any *r)
{
    int refused = 1;

    if (type == MSG_RC && r->rc.errnum != 0)
        printf ("launch refused: %s\n", r->rc.text ? r->rc.text : "");
    else if (type == MSG_LAUNCH_REPLY && r->launch_reply.errnum != 0) {
        printf ("launch refused: %s",
                r->launch_reply.text ? r->launch_reply.text : "");
        for (uint32_t i = 0; i < r->launch_reply.failed_nodes_count; i++)
            printf ("%s%s: %s", i ? "; " : " (",
                    r->launch_reply.failed_nodes[i],
                    i < r->launch_reply.failed_errors_count
                        ? r->launch_reply.failed_errors[i]
                        : "");
        printf ("%s\n", r->launch_reply.failed_nodes_count ? ")" : "");
    } else {
        printf ("launch accepted\n");
        refused = 0;
    }
    proto_clear (type, r);
    return refused ? 0 : 1;
}

int main (int argc, char **argv)
{
    struct tl_ctx ctx = { .listen_fd = -1 };
    union msg_any reply;
    arbor_error_t err;
    int type, rc;

    log_open ("arbor-test-launch", LOG_LVL_INFO, NULL);
    ctx.cl.ch.fd = -1;
    tl_parse (&ctx, argc, argv);
    tl_setup (&ctx);
    tl_damage (&ctx);
    rc = tl_launch (&ctx, &reply, &type) == 0 ? tl_verdict (type, &reply) : 2;
    fflush (stdout);
    /* A step that was accepted ends on its own before the job does (its
     * tasks ran: what --valid shows), not killed by our JOB_COMPLETE. */
    if ((ctx.mode == MODE_VALID || ctx.mode == MODE_REPLAY_AFTER) && rc == 1)
        tl_drain_io (&ctx, 30, ctx.step.addrs_count);
    if (!ctx.job_ended) {
        client_step_complete (&ctx.cl, ctx.job_id, ctx.step.step_id, 0, false,
                              0, 0, &err);
        client_job_complete (&ctx.cl, ctx.job_id, 0, 0, &err);
    }
    proto_clear (MSG_STEP_CREATED, &ctx.step);
    close (ctx.listen_fd);
    client_close (&ctx.cl);
    return rc;
}
