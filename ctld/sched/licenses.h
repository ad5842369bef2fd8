/* licenses.h - the cluster's licenses (arbor.conf Licenses=), counted by
 * the scheduler as one more resource, cluster-wide rather than per node.
 *
 * A job asks for them with -L (common/spec/licspec.h): all of a list ("a:2,b"),
 * or any one of it ("a:2|b"), tried in the order given. At submission
 * every name must be configured and every count within its total, else
 * the job is refused ("Invalid license specification"). The strict pass
 * (sched.c) starts a job only when the licenses of one of its choices are
 * free; a job that waits for them shows reason "Licenses", and does not
 * hold back the jobs behind it in its partition (its cores are not what
 * it waits for) except those that want the same licenses: those wait
 * too, so that small requests never starve a large one. Backfill plans
 * with them (licenses_plan.h): a job starts early only if it delays no
 * job planned before it, licenses included.
 *
 * A job takes its licenses when it starts (job_start) and holds them
 * while it runs and while it completes, as Slurm does: they go back when
 * its last node's share does (its epilogs are done). A suspended job
 * keeps them. The choice it holds is in its state record, so a restarted
 * controller counts them again from its running and completing jobs.
 *
 * SIGHUP and arbor control reconfigure read Licenses= again: totals
 * change at once; what jobs hold is kept, even of a license no longer
 * configured (listed with Total=0 until given back), and pending jobs
 * asking for one wait (reason "Licenses").
 */
#ifndef ARBOR_CTLD_LICENSES_H
#define ARBOR_CTLD_LICENSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "proto.h"

struct ctld;
struct job;

struct lic {
    char *name;
    uint32_t total; /* configured; 0 when no longer configured */
    uint64_t used;  /* held by running and completing jobs */
    bool claimed;   /* this strict pass: a job before wants it and waits */
};

/* ctx->licenses: sorted by name. */
struct licenses {
    struct lic *v;
    size_t n;
};

/* The pool from ctx->conf->licenses (checked when arbor.conf was read).
 * -1 with errno ENOMEM and err. */
int licenses_configure (struct ctld *ctx, arbor_error_t *err);
/* Licenses= read again from arbor.conf (its path in ctx->conf); the
 * pool keeps what jobs hold. -1 with err (nothing changed). */
int licenses_reconfigure (struct ctld *ctx, arbor_error_t *err);
void licenses_destroy (struct licenses *l);
/* Index of 'name' in the pool, or -1. */
long licenses_find (const struct licenses *l, const char *name);

/* ---- a job's licenses (job->lic asked, job->lic_held held) ------------ */

/* Parse req->licenses into j->lic. -1 with errno EINVAL and err
 * ("Invalid license specification: ..."), or ENOMEM. */
int licenses_job_init (struct job *j, const struct msg_job_alloc *req,
                       arbor_error_t *err);
/* Submission: every license j names is configured and no count is above
 * its total. -1 with errno EINVAL and err. */
int licenses_check (const struct ctld *ctx, const struct job *j,
                    arbor_error_t *err);
/* The strict pass: licenses_pass_begin once, then licenses_admit for each
 * job in order before its cores are looked at. false: it must wait (its
 * reason is set to "Licenses", and what it wants is claimed for the rest
 * of the pass). */
void licenses_pass_begin (struct ctld *ctx);
bool licenses_admit (struct ctld *ctx, struct job *j);
/* One of j's choices is free now (no claims looked at: backfill). */
bool licenses_free (const struct ctld *ctx, const struct job *j);
/* Take the first free choice of j's (job_start). -1 with errno EAGAIN
 * if none is (nothing taken). */
int licenses_take (struct ctld *ctx, struct job *j);
/* A share of j's went back (job_node_release): once all have, so do its
 * licenses. */
void licenses_node_released (struct ctld *ctx, struct job *j);
/* Restore: j, its allocation restored, holds 'held' again (its state
 * record's text; NULL or "" none) if it still holds a node's share. Text
 * that does not parse, or no memory, is logged: j then holds nothing. */
void licenses_restore (struct ctld *ctx, struct job *j, const char *held);
/* What j holds as text ("a:2,b:1", "" none). NULL with errno ENOMEM. */
char *licenses_held_text (const struct job *j);
/* What the commands show: what j holds, else what it asked for. Caller
 * frees; NULL ENOMEM. */
char *licenses_shown (const struct job *j);

/* LIC_INFO's answer. -1 with errno ENOENT (an unknown name) or ENOMEM,
 * and err. */
int licenses_info (const struct ctld *ctx, const struct msg_lic_info *m,
                   struct msg_lic_info_reply *r, arbor_error_t *err);
/* serve.c's handler of LIC_INFO (any user): the answer, or RC. */
struct conn;
struct frame;
void licenses_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                      void *arg);

#endif
