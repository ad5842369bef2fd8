/* pmi2_cmds.c - the answers to the commands of both protocols.
 *
 * A table per protocol maps a command's name to its handler. Handlers
 * answer at once, except the fences (answered when the all-gather is
 * complete, pmi2_plugin.c), a PMI-2 info-getnodeattr that waits for a
 * key not yet put, and abort (the step ends). What the step does not
 * offer (spawn, name publishing) is answered with an error, so that the
 * client fails instead of waiting. Names and fields follow MPICH's simple
 * PMI clients (src/pmi/simple, src/pmi/pmi2/simple), as Slurm's mpi/pmi2
 * and MPICH's Hydra answer them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmi2_cmds.h"

/* PMI-2's error codes (MPICH's pmi2.h) */
#define PMI2_FAIL -1
#define PMI2_ERR_INVALID_ARG 3
#define PMI2_ERR_INVALID_KEY 4
#define PMI2_ERR_OTHER 14

struct pmi2_handler {
    const char *name;
    void (*fn) (struct pmi2_ctx *ctx, struct pmi2_task *t,
                const struct pmi_cmd *c);
};

static void cmd_warn (struct pmi2_ctx *ctx, struct pmi2_task *t,
                      const struct pmi_cmd *c, const char *what)
{
    plugin_log (ctx->base.env, PLUGIN_LOG_WARN, "PMI: rank %u: %.40s: %s",
                t->rank, c->name, what);
}

/* A whole number in [lo, hi] from a pair, or -1 with errno EINVAL. */
static int cmd_int (const struct pmi_cmd *c, const char *key, long lo, long hi,
                    long *out)
{
    const char *v = pmi_cmd_get (c, key);
    char *end;
    long n;

    if (!v || !*v)
        goto bad;
    errno = 0;
    n = strtol (v, &end, 10);
    if (errno || *end || n < lo || n > hi)
        goto bad;
    *out = n;
    return 0;
bad:
    errno = EINVAL;
    return -1;
}

/* The rank's MPI_Abort: the step ends with its code. */
static void cmd_abort_step (struct pmi2_ctx *ctx, struct pmi2_task *t, int code,
                            const char *msg)
{
    char text[600];

    if (msg && *msg)
        snprintf (text, sizeof (text),
                  "rank %u called MPI_Abort with status %d: %.500s", t->rank,
                  code, msg);
    else
        snprintf (text, sizeof (text),
                  "rank %u called MPI_Abort with status %d", t->rank, code);
    t->aborted = true;
    mpi_host_abort (&ctx->base, t->rank, code ? code : 1, text);
}

/* ---- PMI-1 --------------------------------------------------------------- */

static void p1_reply (struct pmi2_ctx *ctx, struct pmi2_task *t,
                      const char *cmd, int rc, const char *msg)
{
    struct pmi_resp r;

    pmi_resp_init (&r, PMI_PROTO_1, cmd);
    pmi_resp_addint (&r, "rc", rc);
    if (msg)
        pmi_resp_addtext (&r, "msg", msg);
    pmi2_send (ctx, t, &r);
}

/* The version asked fixes the protocol: 1.x is PMI-1 (answered as 1.1),
 * 2.x PMI-2 from the next command on. */
static void p1_init (struct pmi2_ctx *ctx, struct pmi2_task *t,
                     const struct pmi_cmd *c)
{
    long v, sub;
    struct pmi_resp r;
    bool ok = cmd_int (c, "pmi_version", 0, 1000, &v) == 0
              && cmd_int (c, "pmi_subversion", 0, 1000, &sub) == 0
              && (v == 1 || v == 2);

    pmi_resp_init (&r, PMI_PROTO_1, "response_to_init");
    pmi_resp_addint (&r, "pmi_version", ok ? v : 1);
    pmi_resp_addint (&r, "pmi_subversion", ok && v == 2 ? 0 : 1);
    pmi_resp_addint (&r, "rc", ok ? 0 : -1);
    pmi2_send (ctx, t, &r);
    if (!ok) {
        cmd_warn (ctx, t, c, "unsupported PMI version (1.1 and 2.0 are)");
        return;
    }
    t->proto = v == 2 ? PMI_PROTO_2 : PMI_PROTO_1;
    t->connected = true;
    plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG, "PMI: rank %u speaks PMI-%ld",
                t->rank, v);
}

static void p1_get_maxes (struct pmi2_ctx *ctx, struct pmi2_task *t,
                          const struct pmi_cmd *c)
{
    struct pmi_resp r;

    pmi_resp_init (&r, PMI_PROTO_1, "maxes");
    pmi_resp_addint (&r, "rc", 0);
    pmi_resp_addint (&r, "kvsname_max", PMI_MAX_KVSNAME);
    pmi_resp_addint (&r, "keylen_max", PMI_MAX_KEYLEN);
    pmi_resp_addint (&r, "vallen_max", PMI_MAX_VALLEN);
    pmi2_send (ctx, t, &r);
}

static void p1_get_appnum (struct pmi2_ctx *ctx, struct pmi2_task *t,
                           const struct pmi_cmd *c)
{
    struct pmi_resp r;

    pmi_resp_init (&r, PMI_PROTO_1, "appnum");
    pmi_resp_addint (&r, "rc", 0);
    pmi_resp_addint (&r, "appnum", 0); /* one application per step */
    pmi2_send (ctx, t, &r);
}

static void p1_get_my_kvsname (struct pmi2_ctx *ctx, struct pmi2_task *t,
                               const struct pmi_cmd *c)
{
    struct pmi_resp r;

    pmi_resp_init (&r, PMI_PROTO_1, "my_kvsname");
    pmi_resp_addint (&r, "rc", 0);
    pmi_resp_add (&r, "kvsname", ctx->jobid);
    pmi2_send (ctx, t, &r);
}

static void p1_get_universe_size (struct pmi2_ctx *ctx, struct pmi2_task *t,
                                  const struct pmi_cmd *c)
{
    struct pmi_resp r;

    pmi_resp_init (&r, PMI_PROTO_1, "universe_size");
    pmi_resp_addint (&r, "rc", 0);
    pmi_resp_addint (&r, "size", ctx->base.ntasks);
    pmi2_send (ctx, t, &r);
}

static void p1_barrier_in (struct pmi2_ctx *ctx, struct pmi2_task *t,
                           const struct pmi_cmd *c)
{
    pmi2_fence_enter (ctx, t);
}

static void p1_put (struct pmi2_ctx *ctx, struct pmi2_task *t,
                    const struct pmi_cmd *c)
{
    const char *key = pmi_cmd_get (c, "key"), *val = pmi_cmd_get (c, "value");
    char why[128];

    if (!key || !val) {
        cmd_warn (ctx, t, c, "no key or value");
        p1_reply (ctx, t, "put_result", -1, "key and value are required");
        return;
    }
    if (pmi_batch_add (&ctx->batch, key, val) < 0) {
        snprintf (why, sizeof (why), "put of '%.40s' refused: %.60s", key,
                  errno == EINVAL ? "key or value too long" : strerror (errno));
        cmd_warn (ctx, t, c, why);
        p1_reply (ctx, t, "put_result", -1, why);
        return;
    }
    p1_reply (ctx, t, "put_result", 0, NULL);
}

static void p1_get (struct pmi2_ctx *ctx, struct pmi2_task *t,
                    const struct pmi_cmd *c)
{
    const char *key = pmi_cmd_get (c, "key");
    const char *val = key ? pmi_kvs_get (ctx->kvs, key) : NULL;
    struct pmi_resp r;

    pmi_resp_init (&r, PMI_PROTO_1, "get_result");
    if (val) {
        pmi_resp_addint (&r, "rc", 0);
        pmi_resp_add (&r, "value", val);
    } else {
        pmi_resp_addint (&r, "rc", -1);
        pmi_resp_add (&r, "msg", "key_not_found");
    }
    if (r.error) { /* a value PMI-1 cannot carry (put over PMI-2) */
        p1_reply (ctx, t, "get_result", -1, "value not representable");
        return;
    }
    pmi2_send (ctx, t, &r);
}

static void p1_finalize (struct pmi2_ctx *ctx, struct pmi2_task *t,
                         const struct pmi_cmd *c)
{
    t->finalized = true;
    p1_reply (ctx, t, "finalize_ack", 0, NULL);
}

/* MPICH's PMI_Abort then waits for an answer that never comes: the step's
 * abort kills it. */
static void p1_abort (struct pmi2_ctx *ctx, struct pmi2_task *t,
                      const struct pmi_cmd *c)
{
    long code;

    if (cmd_int (c, "exitcode", -2147483647L - 1, 2147483647L, &code) < 0)
        code = 1;
    cmd_abort_step (ctx, t, (int)code, pmi_cmd_get (c, "msg"));
}

static void p1_publish_name (struct pmi2_ctx *ctx, struct pmi2_task *t,
                             const struct pmi_cmd *c)
{
    struct pmi_resp r;
    const char *res = !strcmp (c->name, "publish_name")     ? "publish_result"
                      : !strcmp (c->name, "unpublish_name") ? "unpublish_result"
                                                            : "lookup_result";

    pmi_resp_init (&r, PMI_PROTO_1, res);
    pmi_resp_addint (&r, "rc", -1);
    pmi_resp_add (&r, "info", "fail");
    pmi_resp_add (&r, "msg", "name_service_not_supported");
    pmi2_send (ctx, t, &r);
}

static void p1_spawn (struct pmi2_ctx *ctx, struct pmi2_task *t,
                      const struct pmi_cmd *c)
{
    cmd_warn (ctx, t, c, "spawn is not supported");
    p1_reply (ctx, t, "spawn_result", -1, "spawn_not_supported");
}

static const struct pmi2_handler pmi1_handlers[] = {
    { "init", p1_init },
    { "get_maxes", p1_get_maxes },
    { "get_appnum", p1_get_appnum },
    { "get_my_kvsname", p1_get_my_kvsname },
    { "get_universe_size", p1_get_universe_size },
    { "barrier_in", p1_barrier_in },
    { "put", p1_put },
    { "get", p1_get },
    { "finalize", p1_finalize },
    { "abort", p1_abort },
    { "publish_name", p1_publish_name },
    { "unpublish_name", p1_publish_name },
    { "lookup_name", p1_publish_name },
    { "spawn", p1_spawn }, /* mcmd=spawn */
    { NULL, NULL },
};

/* ---- PMI-2 --------------------------------------------------------------- */

/* "<cmd>-response" with rc and, on error, errmsg. */
static void p2_reply (struct pmi2_ctx *ctx, struct pmi2_task *t,
                      const char *cmd, int rc, const char *msg)
{
    struct pmi_resp r;
    char name[64];

    snprintf (name, sizeof (name), "%s-response", cmd);
    pmi_resp_init (&r, PMI_PROTO_2, name);
    pmi_resp_addint (&r, "rc", rc);
    if (msg)
        pmi_resp_addtext (&r, "errmsg", msg);
    pmi2_send (ctx, t, &r);
}

static void p2_found (struct pmi2_ctx *ctx, struct pmi2_task *t,
                      const char *cmd, const char *val)
{
    struct pmi_resp r;

    pmi_resp_init (&r, PMI_PROTO_2, cmd);
    pmi_resp_addint (&r, "rc", 0);
    pmi_resp_add (&r, "found", val ? "TRUE" : "FALSE");
    if (val)
        pmi_resp_add (&r, "value", val);
    pmi2_send (ctx, t, &r);
}

static void p2_fullinit (struct pmi2_ctx *ctx, struct pmi2_task *t,
                         const struct pmi_cmd *c)
{
    struct pmi_resp r;
    long rank;

    if (cmd_int (c, "pmirank", 0, 0x7fffffff, &rank) == 0
        && (uint32_t)rank != t->rank)
        cmd_warn (ctx, t, c, "pmirank is not the task's rank");
    pmi_resp_init (&r, PMI_PROTO_2, "fullinit-response");
    pmi_resp_addint (&r, "rc", 0);
    pmi_resp_addint (&r, "pmi-version", 2);
    pmi_resp_addint (&r, "pmi-subversion", 0);
    pmi_resp_addint (&r, "rank", t->rank);
    pmi_resp_addint (&r, "size", ctx->base.ntasks);
    pmi_resp_addint (&r, "appnum", 0);
    pmi_resp_add (&r, "debugged", "FALSE");
    pmi_resp_add (&r, "pmiverbose", "FALSE");
    pmi2_send (ctx, t, &r);
}

static void p2_job_getid (struct pmi2_ctx *ctx, struct pmi2_task *t,
                          const struct pmi_cmd *c)
{
    struct pmi_resp r;

    pmi_resp_init (&r, PMI_PROTO_2, "job-getid-response");
    pmi_resp_addint (&r, "rc", 0);
    pmi_resp_add (&r, "jobid", ctx->jobid);
    pmi2_send (ctx, t, &r);
}

static void p2_getjobattr (struct pmi2_ctx *ctx, struct pmi2_task *t,
                           const struct pmi_cmd *c)
{
    const char *key = pmi_cmd_get (c, "key");
    char size[16];
    const char *val = NULL;

    snprintf (size, sizeof (size), "%u", ctx->base.ntasks);
    if (key && !strcmp (key, "PMI_process_mapping"))
        val = ctx->mapping;
    else if (key && !strcmp (key, "universeSize"))
        val = size;
    p2_found (ctx, t, "info-getjobattr-response", val);
}

static void p2_getnodeattr (struct pmi2_ctx *ctx, struct pmi2_task *t,
                            const struct pmi_cmd *c)
{
    const char *key = pmi_cmd_get (c, "key"), *wait = pmi_cmd_get (c, "wait");
    const char *val = key ? pmi_kvs_get (ctx->attrs, key) : NULL;

    if (!key || strlen (key) > PMI_MAX_KEYLEN) {
        cmd_warn (ctx, t, c, "no key, or too long");
        p2_reply (ctx, t, "info-getnodeattr", PMI2_ERR_INVALID_KEY, "bad key");
    } else if (!val && wait && !strcasecmp (wait, "TRUE")) {
        t->wait_attr = true; /* answered by the put */
        snprintf (t->attr_key, sizeof (t->attr_key), "%s", key);
    } else
        p2_found (ctx, t, "info-getnodeattr-response", val);
}

static void p2_putnodeattr (struct pmi2_ctx *ctx, struct pmi2_task *t,
                            const struct pmi_cmd *c)
{
    const char *key = pmi_cmd_get (c, "key"), *val = pmi_cmd_get (c, "value");

    if (!key || !val || pmi_kvs_put (ctx->attrs, key, val) < 0) {
        cmd_warn (ctx, t, c, "no key or value, too long, or too many");
        p2_reply (ctx, t, "info-putnodeattr", PMI2_ERR_INVALID_ARG,
                  "bad or too many node attributes");
        return;
    }
    p2_reply (ctx, t, "info-putnodeattr", 0, NULL);
    for (uint32_t i = 0; i < ctx->base.nlocal; i++) {
        struct pmi2_task *w = &ctx->local[i];
        if (w->wait_attr && !strcmp (w->attr_key, key)) {
            w->wait_attr = false;
            p2_found (ctx, w, "info-getnodeattr-response", val);
        }
    }
}

static void p2_kvs_put (struct pmi2_ctx *ctx, struct pmi2_task *t,
                        const struct pmi_cmd *c)
{
    const char *key = pmi_cmd_get (c, "key"), *val = pmi_cmd_get (c, "value");
    char why[128];

    if (!key || !val) {
        cmd_warn (ctx, t, c, "no key or value");
        p2_reply (ctx, t, "kvs-put", PMI2_ERR_INVALID_ARG,
                  "key and value are required");
        return;
    }
    if (pmi_batch_add (&ctx->batch, key, val) < 0) {
        snprintf (why, sizeof (why), "put of '%.40s' refused: %.60s", key,
                  errno == EINVAL ? "key or value too long" : strerror (errno));
        cmd_warn (ctx, t, c, why);
        p2_reply (ctx, t, "kvs-put", PMI2_ERR_INVALID_ARG, why);
        return;
    }
    p2_reply (ctx, t, "kvs-put", 0, NULL);
}

static void p2_kvs_fence (struct pmi2_ctx *ctx, struct pmi2_task *t,
                          const struct pmi_cmd *c)
{
    pmi2_fence_enter (ctx, t);
}

static void p2_kvs_get (struct pmi2_ctx *ctx, struct pmi2_task *t,
                        const struct pmi_cmd *c)
{
    const char *key = pmi_cmd_get (c, "key");

    p2_found (ctx, t, "kvs-get-response",
              key ? pmi_kvs_get (ctx->kvs, key) : NULL);
}

static void p2_finalize (struct pmi2_ctx *ctx, struct pmi2_task *t,
                         const struct pmi_cmd *c)
{
    t->finalized = true;
    p2_reply (ctx, t, "finalize", 0, NULL);
}

/* isworld=FALSE aborts only the caller, which then exits: task_exited
 * decides then. PMI-2 carries no exit code. */
static void p2_abort (struct pmi2_ctx *ctx, struct pmi2_task *t,
                      const struct pmi_cmd *c)
{
    const char *world = pmi_cmd_get (c, "isworld");

    if (world && !strcasecmp (world, "FALSE")) {
        cmd_warn (ctx, t, c, "aborts itself");
        return;
    }
    cmd_abort_step (ctx, t, 1, pmi_cmd_get (c, "msg"));
}

static void p2_unsupported (struct pmi2_ctx *ctx, struct pmi2_task *t,
                            const struct pmi_cmd *c)
{
    cmd_warn (ctx, t, c, "not supported");
    p2_reply (ctx, t, c->name, PMI2_ERR_OTHER, "not supported");
}

static const struct pmi2_handler pmi2_handlers[] = {
    { "fullinit", p2_fullinit },
    { "job-getid", p2_job_getid },
    { "info-getjobattr", p2_getjobattr },
    { "info-getnodeattr", p2_getnodeattr },
    { "info-putnodeattr", p2_putnodeattr },
    { "kvs-put", p2_kvs_put },
    { "kvs-fence", p2_kvs_fence },
    { "kvs-get", p2_kvs_get },
    { "finalize", p2_finalize },
    { "abort", p2_abort },
    { "spawn", p2_unsupported },
    { "name-publish", p2_unsupported },
    { "name-unpublish", p2_unsupported },
    { "name-lookup", p2_unsupported },
    { "job-connect", p2_unsupported },
    { "job-disconnect", p2_unsupported },
    { NULL, NULL },
};

/* ---- dispatch ------------------------------------------------------------ */

/* A command name fit to echo back in an answer's name. */
static bool cmd_name_sane (const char *name)
{
    size_t n = strlen (name);

    return n > 0 && n < 40
           && strspn (name, "abcdefghijklmnopqrstuvwxyz_-") == n;
}

void pmi2_reply_error (struct pmi2_ctx *ctx, struct pmi2_task *t,
                       const char *cmd, const char *msg)
{
    if (t->proto == PMI_PROTO_2)
        p2_reply (ctx, t, cmd && cmd_name_sane (cmd) ? cmd : "error", PMI2_FAIL,
                  msg);
    else
        p1_reply (ctx, t, "error", -1, msg);
    /* a client that only sends garbage would fill the log */
    if (++t->nbad > PMI2_BAD_MAX && t->fd >= 0) {
        plugin_log (ctx->base.env, PLUGIN_LOG_WARN,
                    "PMI: rank %u: %u bad commands: closing its PMI "
                    "connection",
                    t->rank, t->nbad);
        pmi2_task_close (ctx, t);
    }
}

void pmi2_fence_reply (struct pmi2_ctx *ctx, struct pmi2_task *t, int rc,
                       const char *msg)
{
    if (t->proto == PMI_PROTO_2)
        p2_reply (ctx, t, "kvs-fence", rc ? PMI2_ERR_OTHER : 0, msg);
    else
        p1_reply (ctx, t, "barrier_out", rc ? -1 : 0, msg);
}

void pmi2_cmd_handle (struct pmi2_ctx *ctx, struct pmi2_task *t,
                      const struct pmi_cmd *c)
{
    const struct pmi2_handler *h =
        t->proto == PMI_PROTO_2 ? pmi2_handlers : pmi1_handlers;

    plugin_log (ctx->base.env, PLUGIN_LOG_DEBUG, "PMI: rank %u: %.40s", t->rank,
                c->name);
    if (t->proto == PMI_PROTO_NONE && strcmp (c->name, "init") != 0) {
        cmd_warn (ctx, t, c, "command before init");
        pmi2_reply_error (ctx, t, c->name, "init first");
        return;
    }
    for (; h->name; h++)
        if (!strcmp (h->name, c->name))
            break;
    /* PMI-1's spawn is the multi-line mcmd=spawn, and only it */
    if (!h->name
        || (t->proto == PMI_PROTO_2 ? c->mcmd
                                    : c->mcmd != !strcmp (c->name, "spawn"))) {
        cmd_warn (ctx, t, c, "unknown command");
        pmi2_reply_error (ctx, t, c->name, "unknown command");
        return;
    }
    if ((h->fn == p1_barrier_in || h->fn == p2_kvs_fence) && t->in_fence) {
        cmd_warn (ctx, t, c, "already in a fence");
        pmi2_reply_error (ctx, t, c->name, "already in a fence");
        return;
    }
    h->fn (ctx, t, c);
}
