/* nodecomm.h - messages to nodeds (transport only).
 */
#ifndef ARBOR_CTLD_NODECOMM_H
#define ARBOR_CTLD_NODECOMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctld;
struct nodecomm;
struct nodecomm_req;
struct request_retry;

#define CTLD_PROBE_TIMEOUT 5 /* s a probe waits for its answer */
#define CTLD_KILL_TIMEOUT 10 /* s to wait for a noded's answer */

/* Where messages to nodeds go instead of the network (nodecomm_set_sink):
 * 'msg' is a struct msg_<type>, borrowed for the call. */
typedef void (*node_send_f) (struct ctld *ctx, size_t node, int type,
                             const void *msg, void *arg);

/* nodecomm.c is transport only. Each message's outcome goes to the
 * sender's callback: errnum 0 when the noded answered RC 0, else its RC
 * error or why there was no answer (text); 'answered' when the noded
 * answered at all (it is alive). Never called from inside the sending
 * call, nor with a sink set; res is borrowed for the call. */
struct nodecomm_result {
    size_t node;     /* node index */
    int type;        /* the message sent */
    uint32_t job_id; /* its job (0 for a probe) */
    int errnum;
    const char *text; /* errnum != 0: why */
    bool answered;
};
typedef void (*nodecomm_f) (struct ctld *ctx, const struct nodecomm_result *res,
                            void *arg);

/* Send a probe (STEP_KILL of job 0, signal 0: answered by any live
 * noded, touches nothing) to node index 'node', waiting at most
 * CTLD_PROBE_TIMEOUT s. */
void nodecomm_probe (struct ctld *ctx, size_t node, nodecomm_f cb, void *arg);
/* Send 'msg' (a struct msg_<type>, copied: STEP_KILL, STEP_TERMINATE,
 * JOB_TERMINATE or CRED_KEY) to node index 'node' without blocking, waiting at
 * most CTLD_KILL_TIMEOUT s for its answer, or hand it to the sink when set. */
void nodecomm_send (struct ctld *ctx, size_t node, int type, const void *msg,
                    nodecomm_f cb, void *arg);
/* A failed attempt of a retried message (res as the callback would get
 * it; 'req' the message, for nodecomm_set_msg): true sends it again after
 * the retry's pause, false ends it with this failure (the callback then
 * gets the same result). It may not cancel the message. */
typedef bool (*nodecomm_again_f) (struct ctld *ctx,
                                  const struct nodecomm_result *res,
                                  struct nodecomm_req *req, void *arg);
/* nodecomm_send, tried again as 'retry' (common/wire/request.h) and
 * 'again' say, each attempt waiting at most CTLD_KILL_TIMEOUT s. The
 * message, until its callback starts (or it is cancelled); NULL when it
 * went to the sink, or could not start (logged; no callback then). */
struct nodecomm_req *nodecomm_send_retry (struct ctld *ctx, size_t node,
                                          int type, const void *msg,
                                          const struct request_retry *retry,
                                          nodecomm_again_f again, nodecomm_f cb,
                                          void *arg);
/* Send 'msg' (a struct msg_<type> of the same type, copied) instead in
 * the attempts to come (from 'again'). 0, or -1 with errno. */
int nodecomm_set_msg (struct nodecomm_req *req, const void *msg);
/* Give up message 'req' (NULL accepted): its callback is never called. */
void nodecomm_cancel (struct ctld *ctx, struct nodecomm_req *req);
/* Send LAUNCH (a batch step's, copied) to node index 'node', waiting at
 * most timeout_ms for its LAUNCH_REPLY; the result's errnum and text are
 * the reply's (its first failed node's reason). */
struct msg_launch;
void nodecomm_launch (struct ctld *ctx, size_t node, const struct msg_launch *m,
                      uint32_t timeout_ms, nodecomm_f cb, void *arg);
/* What a launch of the controller's own (batch, extern step) may take:
 * LaunchTimeout, plus PrologEpilogTimeout when a Prolog is configured
 * (the node runs it before the stepd). Milliseconds. */
struct conf;
uint32_t launch_budget_ms (const struct conf *conf);
/* nodecomm_send with its own bound on the answer (JOB_PROLOG: the
 * Prolog's run). */
void nodecomm_send_timeout (struct ctld *ctx, size_t node, int type,
                            const void *msg, double timeout, nodecomm_f cb,
                            void *arg);
/* Ask every node to register now (NODE_REREGISTER): at the controller's
 * start, so that nodes are known in a second, not in NodeRegisterInterval. */
void nodecomm_reregister_all (struct ctld *ctx, const char *reason);
/* Send STEP_KILL(job, step, sig, revoke) to node index 'node'. */
void nodecomm_step_kill (struct ctld *ctx, size_t node, uint32_t job,
                         uint32_t step, int sig, bool revoke, nodecomm_f cb,
                         void *arg);
/* Messages to nodeds: ctx->nodecomm. NULL with errno ENOMEM. Destroy
 * cancels every message in flight (no callback is called any more);
 * messages sent after it (ctx->nodecomm NULL) are dropped. NULL accepted,
 * errno kept. */
struct nodecomm *nodecomm_create (void);
void nodecomm_destroy (struct nodecomm *nc);
/* Hand every message to 'sink' instead of the network (unit tests). */
void nodecomm_set_sink (struct nodecomm *nc, node_send_f sink, void *arg);

#endif
