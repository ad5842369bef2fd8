/* arbor-test-launch - prove that a bad step credential launches nothing.
 *
 *   arbor-test-launch MODE [-N K] [-p PART] [-t SECONDS] -- CMD [ARGS...]
 *
 * Allocates a job (JOB_ALLOC) and creates a step exactly as arbor run
 * does, then damages the step credential according to MODE and sends
 * LAUNCH to node zero as arbor run would (with its own I/O listener):
 *   --tamper   flip one character in the middle of the credential
 *   --forge    sign the step's own claims with the user's munge identity
 *   --none     send an empty credential
 *   --expired  wait until the credential has expired, then send it
 *              (needs a small CredExpire; refuses to wait over -t seconds,
 *              default 120)
 *   --valid    send it untouched (control: must be accepted)
 * Then it waits for LAUNCH_REPLY and prints "launch refused: TEXT" (exit
 * 0) or "launch accepted" (exit 1); setup errors and a missing answer
 * exit 2. The job is completed before exiting.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "client.h"
#include "conf.h"
#include "cred.h"
#include "hostlist.h"
#include "log.h"
#include "net.h"
#include "rpc.h"

enum mode { MODE_NONE_SET, MODE_TAMPER, MODE_FORGE, MODE_EMPTY,
            MODE_EXPIRED, MODE_VALID };

struct tl_ctx {
    enum mode mode;
    uint32_t nnodes;
    const char *partition;
    unsigned max_wait;
    char **argv;
    int argc;
    struct client cl;
    uint32_t job_id;
    struct msg_step_created step;
    int listen_fd;
    char io_host[64];
    uint16_t io_port;
};

extern char **environ;

static void tl_usage (FILE *f)
{
    fprintf (f, "Usage: arbor-test-launch --tamper|--forge|--none|--expired"
                "|--valid [-N K] [-p PART] [-t SECONDS] -- CMD [ARGS...]\n");
}

static void tl_parse (struct tl_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "tamper", no_argument, NULL, MODE_TAMPER },
        { "forge", no_argument, NULL, MODE_FORGE },
        { "none", no_argument, NULL, MODE_EMPTY },
        { "expired", no_argument, NULL, MODE_EXPIRED },
        { "valid", no_argument, NULL, MODE_VALID },
        { "nodes", required_argument, NULL, 'N' },
        { "partition", required_argument, NULL, 'p' },
        { "max-wait", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    ctx->nnodes = 1;
    ctx->max_wait = 120;
    while ((c = getopt_long (argc, argv, "+N:p:t:h", longopts, NULL)) != -1) {
        if (c >= MODE_TAMPER && c <= MODE_VALID)
            ctx->mode = (enum mode)c;
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
        .name = "test-launch", .partition = (char *)(ctx->partition
                                                     ? ctx->partition : ""),
        .nnodes = ctx->nnodes, .cpus_per_task = 1, .nodelist = "",
        .exclude = "", .cwd = "/tmp",
    };
    struct msg_step_create sreq = { .cpus_per_task = 1, .nodelist = "",
                                    .exclude = "", .name = "test-launch" };
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
    if (client_local_addr (&ctx->cl, ctx->io_host, sizeof (ctx->io_host)) < 0)
        tl_fail ("local address", strerror (errno));
    ctx->listen_fd = net_listen_tcp (ctx->io_host, 0, &ctx->io_port, &err);
    if (ctx->listen_fd < 0)
        tl_fail ("listen", err.text);
}

/* The claims inside the real credential (munge decodes for anyone). */
static void tl_claims (struct tl_ctx *ctx, struct msg_cred_claims *claims)
{
    void *payload = NULL;
    size_t len = 0;
    uid_t uid;
    gid_t gid;
    arbor_error_t err;

    if (auth_decode (ctx->cl.auth, ctx->step.cred, strlen (ctx->step.cred),
                     AUTH_ALLOW_REPLAY, &payload, &len, &uid, &gid,
                     &err) < 0)
        tl_fail ("decode credential", err.text);
    if (proto_decode (MSG_CRED_CLAIMS, payload, len, claims, &err) < 0)
        tl_fail ("decode claims", err.text);
    free (payload);
}

static void tl_forge (struct tl_ctx *ctx)
{
    struct msg_cred_claims claims;
    char *token;
    arbor_error_t err;

    tl_claims (ctx, &claims);
    if (conf_arbor_uid (ctx->cl.conf) == (long)getuid ())
        fprintf (stderr, "arbor-test-launch: warning: running as ArborUser,"
                         " a self-signed credential is a genuine one\n");
    if (cred_sign (ctx->cl.auth, &claims, &token, &err) < 0)
        tl_fail ("sign", err.text);
    proto_clear (MSG_CRED_CLAIMS, &claims);
    free (ctx->step.cred);
    ctx->step.cred = token;
}

static void tl_wait_expiry (struct tl_ctx *ctx)
{
    struct msg_cred_claims claims;
    long left;

    tl_claims (ctx, &claims);
    left = (long)claims.expires - (long)time (NULL);
    proto_clear (MSG_CRED_CLAIMS, &claims);
    if (left > (long)ctx->max_wait) {
        fprintf (stderr, "arbor-test-launch: credential expires in %ld s, "
                 "over --max-wait %u (lower CredExpire)\n", left,
                 ctx->max_wait);
        exit (2);
    }
    if (left >= 0)
        sleep ((unsigned)left + 2);
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

/* Send LAUNCH to node zero as arbor run does; the reply in *reply. */
static int tl_launch (struct tl_ctx *ctx, union msg_any *reply, int *type)
{
    struct hostlist *hl = hostlist_create (ctx->step.nodelist, NULL);
    struct msg_launch m = { 0 };
    char cwd[] = "/tmp";
    arbor_error_t err;
    uid_t uid;
    int fd, rc;

    if (!hl || !(m.slice = calloc (hostlist_count (hl) + 1, sizeof (char *))))
        tl_fail ("step", "bad node list");
    for (size_t i = 0; i < hostlist_count (hl); i++)
        m.slice[m.slice_count++] = (char *)hostlist_nth (hl, i);
    m.cred = ctx->step.cred;
    m.job_id = ctx->step.job_id;
    m.step_id = ctx->step.step_id;
    m.budget_ms = ctx->cl.conf->launch_timeout * 1000;
    m.argv = ctx->argv;
    m.argv_count = (uint32_t)ctx->argc;
    for (m.env = environ; m.env[m.env_count]; m.env_count++)
        ;
    m.cwd = cwd;
    m.io_host = ctx->io_host;
    m.io_port = ctx->io_port;
    m.step_nodelist = ctx->step.nodelist;
    m.tasks = ctx->step.tasks;
    m.tasks_count = ctx->step.tasks_count;
    m.cpus = ctx->step.cpus;
    m.cpus_count = ctx->step.cpus_count;
    m.job_nodelist = ctx->step.job_nodelist;
    m.cpus_per_task = 1;
    m.stdin_task = STDIN_NONE;
    m.job_name = "test-launch";
    fd = net_connect_tcp (ctx->step.addrs[0], (uint16_t)ctx->step.noded_port,
                          5000, &err);
    if (fd < 0)
        tl_fail ("connect node zero", err.text);
    rc = rpc_send (fd, ctx->cl.auth, MSG_LAUNCH, 1, &m, &err);
    if (rc == 0)
        rc = rpc_recv (fd, ctx->cl.auth, (int)m.budget_ms + 5000, type,
                       reply, &uid, &err);
    if (rc < 0)   /* no verdict: a noded that crashed is no refusal */
        fprintf (stderr, "arbor-test-launch: no answer to LAUNCH: %s\n",
                 err.text);
    close (fd);
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
        printf ("launch refused: %s", r->launch_reply.text
                                          ? r->launch_reply.text : "");
        for (uint32_t i = 0; i < r->launch_reply.failed_nodes_count; i++)
            printf ("%s%s: %s", i ? "; " : " (",
                    r->launch_reply.failed_nodes[i],
                    i < r->launch_reply.failed_errors_count
                        ? r->launch_reply.failed_errors[i] : "");
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
    ctx.cl.fd = -1;
    tl_parse (&ctx, argc, argv);
    tl_setup (&ctx);
    tl_damage (&ctx);
    rc = tl_launch (&ctx, &reply, &type) == 0 ? tl_verdict (type, &reply)
                                                : 2;
    fflush (stdout);
    client_step_complete (&ctx.cl, ctx.job_id, ctx.step.step_id, 0, &err);
    client_job_complete (&ctx.cl, ctx.job_id, 0, &err);
    proto_clear (MSG_STEP_CREATED, &ctx.step);
    close (ctx.listen_fd);
    client_close (&ctx.cl);
    return rc;
}
