/* client.h - the commands' connection to arbor-ctld.
 *
 * client_open() loads arbor.conf (conf_default_path()), opens munge and
 * connects to ControlAddr:CtldPort; requests then go over that one blocking
 * connection with rpc_send()/rpc_recv(). An allocation made with
 * client_alloc() lives as long as the connection (or until JOB_COMPLETE),
 * so commands keep the client open while the job is in use.
 */
#ifndef ARBOR_CLI_CLIENT_H
#define ARBOR_CLI_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include "error.h"
#include "proto.h"
#include "rpc.h"

struct conf;
struct auth;

struct client {
    struct conf *conf;
    struct auth *auth;
    struct rpc_chan ch; /* blocking session with the ctld; ch.fd -1 if
                         * none (common/wire/rpc.h) */
    uint32_t matchtag;  /* last tag used */
    uint32_t alloc_tag; /* tag of our JOB_ALLOC, 0 if none */
    int notice_errnum;  /* last notice (unsolicited RC), 0 if none */
    bool say_pending;   /* client_alloc also says "Pending job
                           allocation N" (salloc) */
    char notice[160];   /* its text: "Job 5 cancelled" */
};

#define CLIENT_TIMEOUT_MS 30000
/* How long a queued job's requester tries to reach a controller that went
 * away (persist.h's PERSIST_REATTACH_GRACE keeps the job that long). */
#define CLIENT_REATTACH_S 60

/* 0, or -1 with errno and err ("connect 127.0.0.1:6817: Connection
 * refused"). On failure 'c' is left closed. */
int client_open (struct client *c, arbor_error_t *err);
void client_close (struct client *c);

/* Answers are matched to requests by matchtag. A frame with another tag
 * is not an answer: an RC error carrying the tag of our JOB_ALLOC is the
 * controller telling us our job ended ("Job 5 cancelled", "Job 5 time
 * limit reached"): it is printed once as "arbor: error: TEXT" and kept in
 * notice/notice_errnum; anything else is dropped. */

/* Send 'req' and wait for one answer of 'resp_type' (decoded into resp,
 * caller proto_clear()s it). An RC with errnum != 0 gives -1 with that
 * errno and its text; a plain success RC is accepted when resp_type is
 * MSG_RC. timeout_ms <= 0 waits forever. */
int client_call (struct client *c, int req_type, const void *req, int resp_type,
                 void *resp, int timeout_ms, arbor_error_t *err);
/* The controller connection was lost (it restarted): open a new one (one
 * try, connect and answer each within timeout_ms) and, when job_id is not
 * 0, attach to that allocation of ours (JOB_ATTACH), whose notices then
 * come on it. -1 with errno and err. */
int client_reconnect (struct client *c, uint32_t job_id, int timeout_ms,
                      arbor_error_t *err);
/* Is errnum a lost connection (worth client_reconnect), not an answer? */
bool client_conn_lost (int errnum);

/* JOB_ALLOC: wait (forever) through JOB_PENDING answers until
 * JOB_ALLOCATED. When the job has to wait, prints "job N queued and
 * waiting for resources" once (after "Pending job allocation N" with
 * say_pending) and "job N has been allocated resources" when it is, as
 * srun and salloc do. A queued job's wait survives a controller restart:
 * the connection is opened again and the job attached (JOB_ATTACH). */
int client_alloc (struct client *c, const struct msg_job_alloc *req,
                  struct msg_job_allocated *out, arbor_error_t *err);

/* STEP_CREATE, retrying every 200 ms while the ctld answers EBUSY (message
 * "arbor: Job N step creation temporarily disabled, retrying" once). */
int client_step_create (struct client *c, const struct msg_step_create *req,
                        struct msg_step_created *out, arbor_error_t *err);
/* The same, as srun --immediate[=secs] bounds it: immediate < 0 retries
 * for ever (client_step_create), 0 not at all, N for N seconds; then -1
 * with errno EBUSY and the controller's reason in err. */
int client_step_create_within (struct client *c,
                               const struct msg_step_create *req,
                               struct msg_step_created *out, int immediate,
                               arbor_error_t *err);

/* STEP_COMPLETE (node "") and JOB_COMPLETE; answers are awaited briefly
 * and failures only reported through the return value. oom: a task was
 * reported killed for memory (the job ends OUT_OF_MEMORY even when the
 * nodes' own reports of it come late). exit_code and signal say how the
 * task that decided rc ended: its exit status, or the signal that killed
 * it (then rc is 128+signal and exit_code 0), for accounting's
 * ExitCode. */
int client_step_complete (struct client *c, uint32_t job_id, uint32_t step_id,
                          int rc, bool oom, int exit_code, int signal,
                          arbor_error_t *err);
int client_job_complete (struct client *c, uint32_t job_id, int rc, int signal,
                         arbor_error_t *err);
/* STEP_COMPLETE and JOB_COMPLETE of a job that was the step's own, sent
 * together: the answers come back in one round trip. -1 with errno and
 * err (naming which failed) if either failed; a lost connection's errno
 * is the caller's cue to reconnect and send them again. */
int client_step_job_complete (struct client *c,
                              const struct msg_step_complete *step,
                              const struct msg_job_complete *job,
                              arbor_error_t *err);

/* The answer to an ACCT_QUERY: the records of every ACCT_REPLY frame,
 * decoded, in the order they came. Owned; client_acct_clear frees. */
struct acct_result {
    struct msg_acct_job *jobs;
    size_t njobs;
    struct msg_acct_step *steps;
    size_t nsteps;
};

/* Send 'q' and collect ACCT_REPLY frames until one has 'more' false
 * (each awaited CLIENT_TIMEOUT_MS). 0, or -1 with errno and err (an RC
 * answer gives its errno and text; a record that does not decode,
 * EPROTO); *out is then empty. */
int client_acct_query (struct client *c, const struct msg_acct_query *q,
                       struct acct_result *out, arbor_error_t *err);
void client_acct_clear (struct acct_result *r);

/* The connection is readable while no request is outstanding: read one
 * frame and handle it as a notice. 0, or -1 with errno and err when the
 * connection closed or failed (the caller stops watching it). */
int client_read_notice (struct client *c, arbor_error_t *err);

/* The local address of the ctld connection, dotted quad, into buf. */
int client_local_addr (const struct client *c, char *buf, size_t len);

/* The address to reach node 'name' at: its NodeAddr in a NODE_INFO
 * answer, else the name itself. Borrowed from r or name. */
const char *client_node_addr (const struct msg_node_info_reply *r,
                              const char *name);

/* SLURM_JOB_START_TIME, _END_TIME, _PARTITION and _ACCOUNT of job_id
 * into *vars from the controller's record (one JOB_INFO), replacing
 * what is there or not (export_job). 0; 1 when the controller could not
 * say (err says why; nothing set); -1 with errno ENOMEM. */
int client_job_env (struct client *c, uint32_t job_id, char ***vars,
                    bool replace, arbor_error_t *err);

/* True if uid is root or ArborUser. */
bool client_uid_privileged (const struct client *c, uid_t uid);

#endif
