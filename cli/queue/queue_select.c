/* queue_select.c - arbor queue's -j, -p, -n, -q and -w; see
 * queue_select.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobsel.h"
#include "queue_select.h"

/* One -j word: "7" or "7_3" (a step, "7.1", is not a job). */
static int select_id (const char *word, struct queue_id *id, arbor_error_t *err)
{
    uint32_t step;

    if (jobsel_parse_id (word, &id->job, &id->task, &step) < 0
        || step != STEP_ID_ALL) {
        errno = EINVAL;
        return errprintf (err, "invalid job id '%s'", word);
    }
    return 0;
}

static int select_ids (struct queue_select *s, const char *jobs,
                       arbor_error_t *err)
{
    char *copy = strdup (jobs), *save = NULL;
    int rc = 0;

    s->ids = calloc (strlen (jobs) / 2 + 1, sizeof (*s->ids));
    if (!copy || !s->ids) {
        free (copy);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    for (char *w = strtok_r (copy, ",", &save); w && rc == 0;
         w = strtok_r (NULL, ",", &save))
        rc = select_id (w, &s->ids[s->nids++], err);
    if (rc == 0 && s->nids == 0) {
        errno = EINVAL;
        rc = errprintf (err, "invalid job id '%s'", jobs);
    }
    free (copy);
    return rc;
}

int queue_select_parse (struct queue_select *s, const char *jobs,
                        const char *partitions, const char *names,
                        const char *nodes, arbor_error_t *err)
{
    *s = (struct queue_select){ .partitions = partitions, .names = names };
    if ((jobs && select_ids (s, jobs, err) < 0)
        || (nodes && !(s->nodes = hostlist_create (nodes, err)))) {
        queue_select_clear (s);
        return -1;
    }
    return 0;
}

void queue_select_clear (struct queue_select *s)
{
    int e = errno;

    if (!s)
        return;
    free (s->ids);
    hostlist_destroy (s->nodes);
    *s = (struct queue_select){ 0 };
    errno = e;
}

uint32_t *queue_select_job_ids (const struct queue_select *s, uint32_t *n)
{
    uint32_t *v = calloc (s->nids + 1, sizeof (*v));

    if (!v)
        return NULL;
    for (size_t k = 0; k < s->nids; k++)
        v[k] = s->ids[k].job;
    *n = (uint32_t)s->nids;
    return v;
}

bool queue_select_id (const struct queue_select *s, uint32_t job,
                      uint32_t array, uint32_t task)
{
    if (s->nids == 0)
        return true;
    for (size_t k = 0; k < s->nids; k++) {
        const struct queue_id *id = &s->ids[k];
        if (id->task == JOBSEL_NO_TASK
                ? id->job == job || (array && id->job == array)
                : array && id->job == array && id->task == task)
            return true;
    }
    return false;
}

/* Does hostlist 'list' name one of -w's nodes? */
static bool select_on_nodes (const struct queue_select *s, const char *list)
{
    struct hostlist *hl;
    bool hit = false;

    if (!*list || !(hl = hostlist_create (list, NULL)))
        return false;
    for (size_t k = 0; k < hostlist_count (hl) && !hit; k++)
        hit = hostlist_find (s->nodes, hostlist_nth (hl, k)) >= 0;
    hostlist_destroy (hl);
    return hit;
}

static bool select_where (const struct queue_select *s, const char *partition,
                          const char *name, const char *nodelist)
{
    return (!s->partitions || jobsel_in_list (s->partitions, partition, false))
           && (!s->names || jobsel_in_list (s->names, name, false))
           && (!s->nodes || select_on_nodes (s, nodelist));
}

bool queue_select_job (const struct queue_select *s, const struct job_view *v)
{
    return queue_select_id (s, v->rec.id, v->rec.array_job_id,
                            v->rec.array_task_id)
           && (!s->qos || jobsel_in_list (s->qos, jv_qos (v), true))
           && select_where (s, jv_str (v->rec.partition), jv_str (v->rec.name),
                            jv_str (v->rec.nodelist));
}

bool queue_select_step (const struct queue_select *s,
                        const struct msg_step_info_reply *r, uint32_t i)
{
    return queue_select_id (s, r->job_ids[i], PROTO_NUM (r, array_job_ids, i),
                            PROTO_NUM (r, array_task_ids, i))
           && select_where (s, PROTO_STR (r, partitions, i),
                            PROTO_STR (r, names, i),
                            PROTO_STR (r, nodelists, i));
}
