/* reap.h - the end of each task: reap it, keep what it used (reap.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_REAP_H
#define ARBOR_STEPD_REAP_H

struct msg_step_complete;
struct stepd;

/* Every child is reaped by one SIGCHLD watcher on the stepd's
 * loop (not libev's default loop, whose own reaping drops the rusage),
 * with wait4. reap_start before the first task is made; the watcher does
 * not keep the loop alive. */
void reap_start (struct stepd *sd);
void reap_stop (struct stepd *sd);
/* The exit code srun reports for wait status 'status': 128+signal, else
 * the exit status. */
int reap_rc (int status);
/* STEP_COMPLETE's exit_code, signal and usage fields from the reaped
 * tasks (the rest of m is left alone). */
void reap_account (const struct stepd *sd, struct msg_step_complete *m);

#endif
