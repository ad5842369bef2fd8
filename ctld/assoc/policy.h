/* policy.h - the controller's site policy (issue 36): the associations
 * (assoc.h) loaded from the accounting database when the controller
 * starts and written back as sacctmgr changes them (assoc_serve.h), and
 * AccountingStorageEnforce, which says what a job is held to.
 *
 *   AccountingStorageEnforce=associations[,limits,qos,safe,nojobs,
 *                            nosteps,wckeys]
 * associations: a job's account must exist and its user be in it (a job
 * without -A takes the user's default account), else it is refused as
 * Slurm refuses it ("Invalid account or account/partition combination
 * specified"). qos: its QOS must be one its association may use.
 * limits and safe include associations and are accepted (their limits
 * come with issue 36 item 2); nojobs, nosteps and wckeys are accepted and
 * change nothing.
 * Without enforcement, -A stays a label, and a job without one still
 * takes its user's default account when the user has one.
 *
 * The first start with an empty database adds the cluster (ClusterName)
 * and the root account, as "sacctmgr add cluster" would.
 */
#ifndef ARBOR_CTLD_POLICY_H
#define ARBOR_CTLD_POLICY_H

#include "assoc/assoc.h"
#include "error.h"

struct ctld;
struct job;

#define POLICY_ASSOCIATIONS 0x1
#define POLICY_LIMITS 0x2
#define POLICY_QOS 0x4 /* also includes POLICY_ASSOCIATIONS */
#define POLICY_SAFE 0x8

struct policy {
    struct assoc assoc;
    unsigned enforce; /* POLICY_* */
};

/* AccountingStorageEnforce's words into flags. -1 with err naming an
 * unknown one. */
int policy_enforce_parse (const char *s, unsigned *out, arbor_error_t *err);

/* Make ctx->policy: from the accounting database when there is one
 * (ctx->acct), else empty. -1 with err. */
int policy_open (struct ctld *ctx, arbor_error_t *err);
void policy_close (struct ctld *ctx);

/* Write what a change touched ("kind/name" keys) to the database. */
struct assoc_touched;
void policy_save (struct ctld *ctx, const struct assoc_touched *t);

/* A new job's request from 'user', checked and completed as
 * AccountingStorageEnforce asks before the job is made (so that its
 * saved request, read back at a restart, says the same): the account
 * (its -A, else the user's default) and the QOS (its --qos, else the
 * user's default, else its account's or a parent's, else "normal"),
 * lower case, into req->account and req->qos. Refused with Slurm's
 * messages: "Invalid account or account/partition combination
 * specified" (associations), "Invalid qos specification" (a QOS that
 * does not exist; under qos, one the user's association may not use:
 * its own QOS list, else its account's or a parent's; none: every one).
 * 0, or -1 with errno EINVAL or ENOMEM and err. */
struct msg_job_alloc;
int policy_request (const struct ctld *ctx, const char *user,
                    struct msg_job_alloc *req, arbor_error_t *err);

/* QOS qos's Priority (0: none, or no such QOS); the highest of all. */
uint32_t policy_qos_priority (const struct ctld *ctx, const char *qos);
uint32_t policy_qos_top (const struct ctld *ctx);

#endif
