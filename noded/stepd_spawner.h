/* stepd_spawner.h - the node's stepd spawner: a helper process that forks
 * the stepds (stepd_spawn.c asks it; without one, stepds are exec'd).
 */
#ifndef ARBOR_NODED_STEPD_SPAWNER_H
#define ARBOR_NODED_STEPD_SPAWNER_H

struct noded;
struct stepd_rec;

/* Start the node's stepd spawner (and make the noded a child subreaper).
 * A spawner that cannot start is logged, not fatal: stepds are exec'd.
 * -1 with errno ENOMEM only. */
int spawner_create (struct noded *nd);
/* Ask the spawner for a stepd with 'fd' as its fd 0 (fd stays ours to
 * close); 'mpi' is the step's MPI type (the spawner loads its plugin
 * first; NULL or "none": none). 0 once asked (s->spawned; the pid comes
 * with stepd_spawned), -1 when there is no spawner to ask: exec the
 * stepd instead. */
int spawner_spawn (struct noded *nd, struct stepd_rec *s, int fd,
                   const char *mpi);
/* Let the spawner go (it exits; its stepds run on). NULL-safe. */
void spawner_destroy (struct noded *nd);

#endif
