/* steprec.c - a step's record: made for n nodes, counted, freed. Below
 * both step.c (the steps' life) and step_layout.c (where a new one runs),
 * so that neither calls the other for it.
 */
#include <errno.h>
#include <stdlib.h>

#include "job/job.h"
#include "job/step.h"
#include "job/steprec.h"

void step_destroy (struct step *s)
{
    int saved = errno;

    if (!s)
        return;
    free (s->name);
    free (s->jnodes);
    free (s->tasks);
    free (s->cpus);
    if (s->cores)
        for (size_t i = 0; i < s->nnodes; i++)
            free (s->cores[i]);
    free (s->cores);
    for (size_t i = 0; s->gres && i < s->nnodes; i++)
        free (s->gres[i]);
    free (s->gres);
    free (s->gpu_bind);
    free (s->done);
    free (s->nodelist);
    free (s);
    errno = saved;
}

struct step *step_alloc (size_t n)
{
    struct step *s = calloc (1, sizeof (*s));

    if (!s)
        return NULL;
    s->nnodes = n;
    s->jnodes = calloc (n ? n : 1, sizeof (*s->jnodes));
    s->tasks = calloc (n ? n : 1, sizeof (*s->tasks));
    s->cpus = calloc (n ? n : 1, sizeof (*s->cpus));
    s->done = calloc (n ? n : 1, sizeof (*s->done));
    s->cores = calloc (n ? n : 1, sizeof (*s->cores));
    if (!s->jnodes || !s->tasks || !s->cpus || !s->done || !s->cores) {
        step_destroy (s);
        errno = ENOMEM;
        return NULL;
    }
    return s;
}

size_t steps_count (const struct job *j)
{
    size_t n = 0;

    for (const struct step *s = j->steps; s; s = s->next)
        n++;
    return n;
}
