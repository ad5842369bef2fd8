/* stepd_ask.h - a user's request about their own step, relayed to its
 * stepd's socket (sstat's STEP_STAT: stepd_stat.h, sattach's STEP_ATTACH:
 * stepd_attach.h).
 */
#ifndef ARBOR_NODED_STEPD_ASK_H
#define ARBOR_NODED_STEPD_ASK_H

#include <stdint.h>

#include "proto.h"

struct noded;
struct conn;

/* A user's request 'msg' (of 'type', copied) about their step (job,
 * step), from c: answered ESRCH when the step has no stepd here, EPERM
 * (logged) unless the sender owns the step or is root/ArborUser; else
 * relayed to the stepd's socket, and its answer of 'resp_type' (MSG_RC:
 * an RC, its text kept) goes back to c with f's matchtag, or an RC saying
 * why there is none (no answer within 'timeout' s: ETIMEDOUT). */
void stepd_ask_relay (struct noded *nd, struct conn *c, const struct frame *f,
                      uint32_t job, uint32_t step, int type, const void *msg,
                      int resp_type, double timeout);
/* The asker's connection closed: drop its requests. */
void stepd_ask_conn_closed (struct noded *nd, struct conn *c);
void stepd_ask_destroy_all (struct noded *nd);

#endif
