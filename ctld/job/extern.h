/* extern.h - the extern step (PrologFlags=Contain).
 *
 * With PrologFlags=Contain every node of a job runs an extern step for
 * the life of the job: a stepd holding a container and no task, where
 * ssh sessions of the job's user are adopted (pam_arbor_adopt), so that
 * they are contained, accounted and ended with the job. The controller
 * starts it when the job gets its nodes: the extern step's credential is
 * signed, and LAUNCH goes to the job's first node with every node in its
 * slice (the nodeds' tree fans it out; each node runs the job's Prolog
 * before its extern stepd, prolog.h). The job is granted once every node
 * answered; a node that failed fails the job (its Prolog failing drains
 * the node and requeues the job instead). The extern stepds end with the
 * job (JOB_TERMINATE).
 */
#ifndef ARBOR_CTLD_EXTERN_H
#define ARBOR_CTLD_EXTERN_H

#include <stdbool.h>

struct ctld;
struct job;

/* Job j just started: true if its extern step is being launched (the
 * grant comes when it runs everywhere), false without Contain. */
bool extern_start (struct ctld *ctx, struct job *j);

#endif
