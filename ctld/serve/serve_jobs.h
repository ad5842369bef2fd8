/* serve_jobs.h - the handlers of serve_jobs.c (rpc_handler_f, for serve.c's
 * dispatch table): users' requests about their jobs and steps: allocate, create
 * and complete steps, act on, update, wait for, attach to and cancel jobs.
 */
#ifndef ARBOR_CTLD_SERVE_JOBS_H
#define ARBOR_CTLD_SERVE_JOBS_H

#include "conn.h"

void serve_job_alloc_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg);
void serve_step_create_cb (struct conn *c, const struct frame *f, void *msg,
                           void *arg);
void serve_step_complete_cb (struct conn *c, const struct frame *f, void *msg,
                             void *arg);
void serve_job_action_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg);
void serve_job_update_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg);
void serve_job_wait_cb (struct conn *c, const struct frame *f, void *msg,
                        void *arg);
void serve_job_complete_cb (struct conn *c, const struct frame *f, void *msg,
                            void *arg);
void serve_job_attach_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg);
void serve_job_cancel_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg);

#endif
