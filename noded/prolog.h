/* prolog.h - the Prolog, once per job (and run) on this node.
 *
 * Slurm's Prolog runs as root on a node before the first step of a job
 * there. Here every way a job's first work reaches the node asks for it
 * with prolog_ensure: JOB_PROLOG from the controller at allocation time
 * (PrologFlags=Alloc or Contain), or the first LAUNCH of the job (the
 * batch step, a step, the extern step) otherwise. The first caller starts
 * the Prolog (epilog.h's runner: no shell, own process group, output to
 * the node's log, PrologEpilogTimeout); later callers wait for the same
 * run; once it has ended they are answered at once. A failure is
 * remembered for the job and reported to the controller (PROLOG_FAILED),
 * which drains the node and requeues the job. JOB_TERMINATE forgets the
 * job (prolog_forget) once its epilog is under way.
 */
#ifndef ARBOR_NODED_PROLOG_H
#define ARBOR_NODED_PROLOG_H

#include <stdint.h>
#include <sys/types.h>

struct noded;
struct prolog_wait;

#define PROLOG_TIMED_OUT "Prolog timed out"
#define PROLOG_ERROR "Prolog error"

/* What the Prolog is told about the job. */
struct prolog_job {
    uint32_t job_id;
    uint32_t restarts; /* the job's run */
    uid_t uid;
    gid_t gid;
    const char *user;
    char *const *env; /* more variables (the controller's), or NULL */
    uint32_t env_count;
};

/* errnum 0: the Prolog succeeded (or none is configured); else why not
 * ("Prolog error", "Prolog timed out"). The wait handle is invalid from
 * the moment the callback starts. */
typedef void (*prolog_done_f) (int errnum, const char *why, void *arg);

/* Make sure the Prolog ran for pj's job and run. Returns NULL after
 * calling cb at once (no Prolog, or it ended already), or a wait handle
 * (cb comes later; prolog_wait_cancel drops it). NULL with cb called
 * with the error when the Prolog cannot even start. */
struct prolog_wait *prolog_ensure (struct noded *nd,
                                   const struct prolog_job *pj,
                                   prolog_done_f cb, void *arg);
void prolog_wait_cancel (struct prolog_wait *w);
/* JOB_PROLOG on connection c: answered with RC once the Prolog ended. */
struct conn;
struct frame;
struct msg_job_prolog;
void prolog_handle (struct noded *nd, struct conn *c, const struct frame *f,
                    const struct msg_job_prolog *m);
/* c is closing: its JOB_PROLOGs will not be answered. */
void prolog_conn_closed (struct noded *nd, struct conn *c);
/* The job is over here: forget its Prolog state (a Prolog still running
 * is killed, its waiters told "the job ended"). */
void prolog_forget (struct noded *nd, uint32_t job_id);
/* Free everything (the noded stops): running Prologs are killed. */
void prolog_destroy_all (struct noded *nd);

#endif
