/* trigger.c - event triggers: their records, the requests that set, list
 * and clear them, and their place in the state database. What fires
 * them and runs their programs is trigger_event.c's. See trigger.h for
 * the rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conn.h"
#include "ctld.h"
#include "ident.h"
#include "job/job.h"
#include "log.h"
#include "nodes/node.h"
#include "state/persist.h"
#include "state/persist_private.h"
#include "proto.h"
#include "notify/spawn.h"
#include "state/store.h"
#include "notify/trigger.h"
#include "notify/trigger_private.h"
#include "trigtype.h"
#include "job/jobs.h"

struct triggers *triggers_create (void)
{
    struct triggers *ts = calloc (1, sizeof (*ts));

    if (ts) {
        ts->tail = &ts->head;
        ts->next_id = 1;
    }
    return ts;
}

void trigger_free (struct trigger *t)
{
    if (!t)
        return;
    free (t->res_id);
    free (t->nodes);
    free (t->program);
    free (t->arg);
    free (t);
}

void triggers_destroy (struct triggers *ts)
{
    int saved = errno;

    if (!ts)
        return;
    while (ts->head) {
        struct trigger *t = ts->head;
        ts->head = t->next;
        spawn_cancel (t->proc, false); /* let it finish */
        trigger_free (t);
    }
    free (ts->nodes.last);
    free (ts->nodes.idle_since);
    free (ts->nodes.down);
    free (ts->nodes.up);
    free (ts->nodes.drained);
    free (ts);
    errno = saved;
}

static bool trigger_admin (const struct ctld *ctx, uid_t uid)
{
    return uid == 0 || uid == ctx->priv_uid;
}

/* ---- the state database -------------------------------------------- */

void trigger_persist (struct ctld *ctx, const struct trigger *t)
{
    struct persist *p = ctx->persist;
    struct msg_trigger_rec r = {
        .id = t->id,
        .res_type = t->res_type,
        .res_id = t->res_id,
        .types = t->types,
        .offset = t->offset,
        .flags = t->flags,
        .uid = (uint32_t)t->uid,
        .gid = (uint32_t)t->gid,
        .program = t->program,
        .state = t->state == TRIGGER_FIRED,
        .run_at = (uint64_t)t->run_at,
        .arg = t->arg ? t->arg : "",
        .last_fired = (uint64_t)t->last_fired,
    };
    char key[32], *buf = NULL;
    size_t len = 0;

    if (!p)
        return;
    snprintf (key, sizeof (key), "trigger/%u", t->id);
    if (proto_encode (MSG_TRIGGER_REC, &r, &buf, &len) < 0
        || store_put (p->store, key, KIND_TRIGGER, t->id, buf, len) < 0)
        log_err ("state: cannot save %s: %s", key, strerror (errno));
    else
        store_commit_soon (p->store); /* rare, and a user waits on it */
    free (buf);
}

void trigger_persist_gone (struct ctld *ctx, const struct trigger *t)
{
    struct persist *p = ctx->persist;
    char key[32];

    if (!p)
        return;
    snprintf (key, sizeof (key), "trigger/%u", t->id);
    if (store_del (p->store, key) < 0)
        log_err ("state: cannot delete %s: out of memory", key);
    else
        store_commit_soon (p->store);
}

void trigger_remove (struct ctld *ctx, struct trigger *t)
{
    struct triggers *ts = ctx->triggers;
    struct trigger **pp;

    trigger_persist_gone (ctx, t);
    if (t->proc) { /* freed by its program's end (trigger_event.c) */
        t->cleared = true;
        return;
    }
    for (pp = &ts->head; *pp && *pp != t; pp = &(*pp)->next)
        ;
    if (!*pp)
        return;
    *pp = t->next;
    if (ts->tail == &t->next)
        ts->tail = pp;
    ts->n--;
    trigger_free (t);
}

/* Link t at the end (its id is the largest). */
static void trigger_link (struct triggers *ts, struct trigger *t)
{
    t->next = NULL;
    *ts->tail = t;
    ts->tail = &t->next;
    ts->n++;
    if (t->id >= ts->next_id)
        ts->next_id = t->id + 1;
}

/* ---- checks --------------------------------------------------------- */

/* May uid (of group gid and the groups of 'id') execute a file 'st'? */
static bool trigger_may_exec (const struct stat *st, uid_t uid, gid_t gid,
                              const struct ident *id)
{
    bool member = st->st_gid == gid;

    if (uid == 0)
        return (st->st_mode & 0111) != 0;
    if (st->st_uid == uid)
        return (st->st_mode & 0100) != 0;
    for (uint32_t i = 0; id && !member && i < id->ngids; i++)
        member = id->gids[i] == (uint32_t)st->st_gid;
    if (member)
        return (st->st_mode & 0010) != 0;
    return (st->st_mode & 0001) != 0;
}

int trigger_prog_ok (const char *program, uid_t uid, gid_t gid,
                     const struct ident *id, arbor_error_t *err)
{
    char path[TRIGGER_PROG_MAX + 1];
    size_t n = program ? strcspn (program, " \t") : 0;
    struct stat st;

    errno = EINVAL;
    if (!program || program[0] != '/')
        return errprintf (err, "the program must be an absolute path");
    if (n > TRIGGER_PROG_MAX || strlen (program) > TRIGGER_PROG_MAX)
        return errprintf (err, "the program is longer than %d characters",
                          TRIGGER_PROG_MAX);
    memcpy (path, program, n);
    path[n] = '\0';
    if (stat (path, &st) < 0) {
        int e = errno;
        errprintf (err, "program %.100s: %s", path, strerror (e));
        errno = e == EACCES ? EACCES : ENOENT;
        return -1;
    }
    if (!S_ISREG (st.st_mode))
        return errprintf (err, "program %.100s is not a regular file", path);
    if (!trigger_may_exec (&st, uid, gid, id)) {
        errno = EACCES;
        return errprintf (err, "program %.100s is not executable by uid %u",
                          path, (unsigned)uid);
    }
    return 0;
}

/* Who may set triggers at all: everyone when we can run programs as
 * their owners (root); else only the user we run as. */
static int trigger_may_set (const struct ctld *ctx, uid_t uid,
                            arbor_error_t *err)
{
    uid_t me = geteuid ();

    if (me == 0 || uid == me)
        return 0;
    errno = EPERM;
    return errprintf (err,
                      "only uid %u may set triggers: the controller does not "
                      "run as root, and cannot run programs as other users",
                      (unsigned)me);
}

/* The count limits: TRIGGERS_MAX in all, TRIGGERS_USER_MAX a user. */
static int trigger_check_room (const struct ctld *ctx, uid_t uid,
                               arbor_error_t *err)
{
    const struct triggers *ts = ctx->triggers;
    size_t mine = 0;

    for (const struct trigger *t = ts->head; t; t = t->next)
        mine += t->uid == uid && !t->cleared;
    errno = EAGAIN;
    if (ts->n >= TRIGGERS_MAX)
        return errprintf (err, "%d triggers are set already: no more may be",
                          TRIGGERS_MAX);
    if (!trigger_admin (ctx, uid) && mine >= TRIGGERS_USER_MAX)
        return errprintf (err, "uid %u has %zu triggers: at most %d each",
                          (unsigned)uid, mine, TRIGGERS_USER_MAX);
    return 0;
}

/* The resource: a job the sender may watch, or nodes. */
static int trigger_check_res (struct ctld *ctx, struct trigger *t, uid_t uid,
                              arbor_error_t *err)
{
    struct job *j;
    size_t n = 0, *idx;
    char *end;

    errno = EINVAL;
    if (t->res_type == TRIG_RES_JOB) {
        if ((t->types & ~TRIG_JOB_TYPES) || !t->types)
            return errprintf (err, "a job trigger watches --fini, --time, "
                                   "--down, --up or --fail");
        t->job_id = (uint32_t)strtoul (t->res_id, &end, 10);
        if (*end || !t->job_id || !(j = job_find (ctx, t->job_id))) {
            errno = ENOENT;
            return errprintf (err, "Invalid job id %s", t->res_id);
        }
        if (!job_access (ctx, j, uid)) {
            errno = EPERM;
            return errprintf (err,
                              "job %u is not yours: only its owner, "
                              "root or ArborUser may set its triggers",
                              j->id);
        }
        if (!job_is_active (j)) {
            errno = EALREADY;
            return errprintf (err, "job %u has already finished", j->id);
        }
        return 0;
    }
    if (t->res_type != TRIG_RES_NODE)
        return errprintf (err, "unknown resource type %u", t->res_type);
    if ((t->types & ~TRIG_NODE_TYPES) || !t->types)
        return errprintf (err, "a node trigger watches --down, --up, "
                               "--drained, --fail or --idle");
    if (!strcmp (t->res_id, "*"))
        return 0;
    if (!(idx = nodes_select (ctx, t->res_id, &n, err)))
        return -1;
    if ((t->nodes = calloc (ctx->nnodes + 1, sizeof (bool))))
        for (size_t i = 0; i < n; i++)
            t->nodes[idx[i]] = true;
    free (idx);
    if (!t->nodes) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    return 0;
}

/* An identical trigger of the same owner exists already. */
static bool trigger_dup (const struct triggers *ts, const struct trigger *t)
{
    for (const struct trigger *o = ts->head; o; o = o->next)
        if (!o->cleared && o->uid == t->uid && o->res_type == t->res_type
            && o->types == t->types && o->offset == t->offset
            && o->flags == t->flags && !strcmp (o->res_id, t->res_id)
            && !strcmp (o->program, t->program))
            return true;
    return false;
}

/* A new trigger from 'm', sent by uid/gid: checked, not yet linked.
 * NULL with errno and err. */
static struct trigger *trigger_from_msg (struct ctld *ctx,
                                         const struct msg_trigger_set *m,
                                         uid_t uid, gid_t gid,
                                         arbor_error_t *err)
{
    struct trigger *t = calloc (1, sizeof (*t));
    const struct ident *id = ident_get (ctx->idents, uid, gid, time (NULL));

    if (!t || !(t->res_id = strdup (m->res_id ? m->res_id : ""))
        || !(t->program = strdup (m->program ? m->program : ""))) {
        trigger_free (t);
        errno = ENOMEM;
        errprintf (err, "out of memory");
        return NULL;
    }
    t->res_type = m->res_type;
    t->types = m->types;
    t->offset = m->offset;
    t->flags = m->flags & TRIG_FLAG_PERM;
    t->uid = uid;
    t->gid = gid;
    t->ctx = ctx;
    if (trigger_may_set (ctx, uid, err) < 0
        || trigger_check_room (ctx, uid, err) < 0
        || trigger_check_res (ctx, t, uid, err) < 0
        || trigger_prog_ok (t->program, uid, gid, id, err) < 0)
        goto fail;
    errno = EINVAL;
    if (m->offset < -TRIG_OFFSET_MAX || m->offset > TRIG_OFFSET_MAX) {
        errprintf (err, "the offset must be within +-%d s", TRIG_OFFSET_MAX);
        goto fail;
    }
    if (trigger_dup (ctx->triggers, t)) {
        errno = EEXIST;
        errprintf (err, "Duplicate event trigger");
        goto fail;
    }
    return t;
fail:;
    int e = errno;
    trigger_free (t);
    errno = e;
    return NULL;
}

/* ---- requests ------------------------------------------------------- */

void trigger_set_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg)
{
    struct ctld *ctx = arg;
    struct msg_trigger_set_reply r = { 0 };
    char why[320];
    arbor_error_t err = { "" };
    struct trigger *t;
    int e;

    if ((e = persist_writable (ctx, why, sizeof (why)))) {
        conn_send_rc (c, f->matchtag, e, "cannot record the change: %s", why);
        return;
    }
    if (!(t = trigger_from_msg (ctx, msg, f->uid, f->gid, &err))) {
        e = errno ? errno : EINVAL;
        if (e == EPERM)
            log_security ("trigger from %s (uid %u) refused: %s", conn_peer (c),
                          (unsigned)f->uid, err.text);
        conn_send_rc (c, f->matchtag, e, "%s", err.text);
        return;
    }
    t->id = ctx->triggers->next_id;
    trigger_link (ctx->triggers, t);
    trigger_persist (ctx, t);
    log_info ("trigger %u set by uid %u: %s %s, program %s", t->id,
              (unsigned)t->uid, trigtype_res_str (t->res_type), t->res_id,
              t->program);
    r.trig_id = t->id;
    if (conn_send (c, MSG_TRIGGER_SET_REPLY, f->matchtag, FRAME_F_RESPONSE, &r)
        < 0)
        log_err ("trigger %u: cannot answer %s: %s", t->id, conn_peer (c),
                 strerror (errno));
}

/* Does t pass the filters of a GET or CLEAR (0, 0, UINT32_MAX: any)? */
static bool trigger_matches (const struct trigger *t, uint32_t id,
                             uint32_t job_id, uint32_t uid)
{
    return (!id || t->id == id)
           && (!job_id || (t->res_type == TRIG_RES_JOB && t->job_id == job_id))
           && (uid == UINT32_MAX || (uint32_t)t->uid == uid);
}

/* Listed: armed ones, and PERM ones whatever their state, as strigger
 * --get shows them; not those cleared. */
static bool trigger_listed (const struct trigger *t)
{
    return !t->cleared
           && (t->state == TRIGGER_ARMED || (t->flags & TRIG_FLAG_PERM));
}

static int trigger_reply_alloc (struct msg_trigger_get_reply *r, size_t n)
{
    r->trig_ids = calloc (n + 1, sizeof (uint32_t));
    r->res_types = calloc (n + 1, sizeof (uint32_t));
    r->res_ids = calloc (n + 1, sizeof (char *));
    r->types = calloc (n + 1, sizeof (uint32_t));
    r->offsets = calloc (n + 1, sizeof (int32_t));
    r->uids = calloc (n + 1, sizeof (uint32_t));
    r->users = calloc (n + 1, sizeof (char *));
    r->flags = calloc (n + 1, sizeof (uint32_t));
    r->programs = calloc (n + 1, sizeof (char *));
    return r->trig_ids && r->res_types && r->res_ids && r->types && r->offsets
                   && r->uids && r->users && r->flags && r->programs
               ? 0
               : -1;
}

static void trigger_reply_fill (struct ctld *ctx,
                                const struct msg_trigger_get *m,
                                struct msg_trigger_get_reply *r)
{
    uint32_t k = 0;

    for (const struct trigger *t = ctx->triggers->head; t; t = t->next) {
        if (!trigger_listed (t)
            || !trigger_matches (t, m->trig_id, m->job_id, m->uid))
            continue;
        const struct ident *id =
            ident_get (ctx->idents, t->uid, t->gid, time (NULL));
        r->trig_ids[k] = t->id;
        r->res_types[k] = t->res_type;
        r->res_ids[k] = t->res_id; /* borrowed */
        r->types[k] = t->types;
        r->offsets[k] = t->offset;
        r->uids[k] = (uint32_t)t->uid;
        r->users[k] = strdup (id && id->user ? id->user : "unknown");
        r->flags[k] = t->flags;
        r->programs[k] = t->program; /* borrowed */
        k++;
    }
    r->trig_ids_count = r->res_types_count = r->res_ids_count = r->types_count =
        r->offsets_count = r->uids_count = r->users_count = r->flags_count =
            r->programs_count = k;
}

static void trigger_reply_free (struct msg_trigger_get_reply *r)
{
    for (uint32_t i = 0; r->users && i < r->users_count; i++)
        free (r->users[i]);
    free (r->trig_ids);
    free (r->res_types);
    free (r->res_ids);
    free (r->types);
    free (r->offsets);
    free (r->uids);
    free (r->users);
    free (r->flags);
    free (r->programs);
}

void trigger_get_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg)
{
    struct ctld *ctx = arg;
    struct msg_trigger_get_reply r = { 0 };

    if (trigger_reply_alloc (&r, ctx->triggers->n) < 0) {
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
    } else {
        trigger_reply_fill (ctx, msg, &r);
        if (conn_send (c, MSG_TRIGGER_GET_REPLY, f->matchtag, FRAME_F_RESPONSE,
                       &r)
            < 0)
            conn_send_rc (c, f->matchtag, errno, "cannot answer: %s",
                          strerror (errno));
    }
    trigger_reply_free (&r);
}

void trigger_clear_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg)
{
    struct ctld *ctx = arg;
    const struct msg_trigger_clear *m = msg;
    unsigned cleared = 0, denied = 0;
    struct trigger *t, *next;

    if (!m->trig_id && !m->job_id && m->uid == UINT32_MAX) {
        conn_send_rc (c, f->matchtag, EINVAL,
                      "name the triggers to clear: --id, --jobid or --user");
        return;
    }
    for (t = ctx->triggers->head; t; t = next) {
        next = t->next;
        if (t->cleared || !trigger_matches (t, m->trig_id, m->job_id, m->uid))
            continue;
        if (t->uid != f->uid && !trigger_admin (ctx, f->uid)) {
            denied++;
            continue;
        }
        log_info ("trigger %u cleared by uid %u", t->id, (unsigned)f->uid);
        trigger_remove (ctx, t);
        cleared++;
    }
    if (denied && !cleared) {
        log_security ("trigger clear from %s (uid %u) refused: not its owner",
                      conn_peer (c), (unsigned)f->uid);
        conn_send_rc (c, f->matchtag, EPERM,
                      "Access/permission denied: only a trigger's owner, root "
                      "or ArborUser may clear it");
    } else if (!cleared)
        conn_send_rc (c, f->matchtag, ESRCH, "no such trigger");
    else
        conn_send_rc (c, f->matchtag, 0, "%u trigger%s cleared", cleared,
                      cleared == 1 ? "" : "s");
}

/* ---- the restore ---------------------------------------------------- */

int trigger_restore (struct ctld *ctx, const struct msg_trigger_rec *r,
                     arbor_error_t *err)
{
    struct trigger *t = calloc (1, sizeof (*t));
    char *end;

    if (!t || !(t->res_id = strdup (r->res_id ? r->res_id : ""))
        || !(t->program = strdup (r->program ? r->program : ""))
        || (r->arg && *r->arg && !(t->arg = strdup (r->arg)))) {
        trigger_free (t);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    t->id = r->id;
    t->res_type = r->res_type;
    t->types = r->types & TRIG_KNOWN;
    t->flags = r->flags & TRIG_FLAG_PERM;
    t->offset = r->offset;
    t->uid = (uid_t)r->uid;
    t->gid = (gid_t)r->gid;
    t->state = r->state == 1 ? TRIGGER_FIRED : TRIGGER_ARMED;
    t->run_at = (time_t)r->run_at;
    t->last_fired = (time_t)r->last_fired;
    t->ctx = ctx;
    if (t->res_type == TRIG_RES_JOB)
        t->job_id = (uint32_t)strtoul (t->res_id, &end, 10);
    else if (strcmp (t->res_id, "*") != 0) {
        size_t n = 0, *idx = nodes_select (ctx, t->res_id, &n, err);
        if (!idx || !(t->nodes = calloc (ctx->nnodes + 1, sizeof (bool)))) {
            free (idx);
            trigger_free (t);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            t->nodes[idx[i]] = true;
        free (idx);
    }
    trigger_link (ctx->triggers, t);
    return 0;
}
