/* serve_private.h - what serve.c gives its handler files (serve_jobs.c,
 * serve_query.c, serve_nodes.c): the answers and checks every handler
 * uses. The handlers themselves are in each file's header, for serve.c's
 * dispatch table.
 */
#ifndef ARBOR_CTLD_SERVE_PRIVATE_H
#define ARBOR_CTLD_SERVE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conn.h"
#include "proto.h"

struct ctld;
struct job;

/* s, or "" for NULL. */
const char *serve_nz (const char *s);
/* root or ArborUser. */
bool serve_is_priv (const struct ctld *ctx, uid_t uid);
/* Send the answer 'msg' of 'type' to request f; if it cannot be sent,
 * answer an RC error saying why instead. -1 with errno when the request
 * got that error (or nothing could be sent at all). */
int serve_reply (struct conn *c, const struct frame *f, int type,
                 const void *msg);
/* Refuse request f with EPERM and 'text', logged as a security event. */
void serve_denied (struct conn *c, const struct frame *f, const char *text);
/* The job 'id' if 'f' may act on it; else answers the request and NULL. */
struct job *serve_owned_job (struct ctld *ctx, struct conn *c,
                             const struct frame *f, uint32_t id);
/* Answer JOB_SUBMITTED for job_id (0: RC 0 for a change), or with
 * 'pending' the JOB_PENDING of a queued allocation, once it is durable. */
void serve_submitted (struct ctld *ctx, struct conn *c, const struct frame *f,
                      uint32_t job_id, bool pending);
/* While the state database cannot be written, refuse f saying why: true
 * when it was refused. */
bool serve_unwritable (struct ctld *ctx, struct conn *c, const struct frame *f);

#endif
