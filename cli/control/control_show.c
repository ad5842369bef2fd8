/* control_show.c - arbor control show ... and arbor control ping; see
 * control_show.h.
 *
 * Each show_<entity>() is a short chain: parse the argument, ask the
 * controller (JOB_INFO, STEP_INFO, NODE_INFO; partitions also read the
 * client's arbor.conf), build a view per record (control_job.h,
 * control_node.h), then print it as text (control_rec.h) or gather it
 * into a --json document (control_json.h). show config, hostnames and
 * hostlist need no controller. Errors go out as scontrol words them and
 * give exit status 1; die() is kept for what scontrol itself treats as
 * fatal (no controller, out of memory).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client.h"
#include "conf.h"
#include "control_config.h"
#include "control_hosts.h"
#include "control_job.h"
#include "control_json.h"
#include "control_node.h"
#include "control_show.h"
#include "json/json_doc.h"
#include "jobinfo.h"
#include "jobsel.h"
#include "queue/queue_fold.h"
#include "log.h"

/* One show: its options and the connection, opened on first use. */
struct show_ctx {
    const struct control_show_opts *o;
    struct client cl;
    bool open;
    struct json_stream *doc; /* --json: the document, written as made */
};

static void show_open (struct show_ctx *s)
{
    arbor_error_t err;

    if (s->open)
        return;
    if (client_open (&s->cl, &err) < 0)
        die ("%s", err.text);
    s->open = true;
}

/* Start the --json document (no-op without --json). */
static void show_json_begin (struct show_ctx *s, const char *schema,
                             const char *list)
{
    if (s->o->json
        && !(s->doc = json_stream_create (schema, CONTROL_JSON_VERSION, list)))
        die ("out of memory");
}

/* Add a record to the document (consumed); NULL is out of memory. */
static void show_json_add (struct show_ctx *s, json_t *rec)
{
    if (json_stream_add (s->doc, rec) < 0)
        die ("out of memory");
}

static void show_json_end (struct show_ctx *s)
{
    if (!s->doc)
        return;
    if (json_stream_write (s->doc, stdout) < 0)
        die ("write: %s", strerror (errno));
    json_stream_destroy (s->doc);
    s->doc = NULL;
}

/* Print a filled record and empty it for the next. */
static void show_rec_print (struct show_ctx *s, struct control_rec *rec)
{
    char *text = control_rec_text (rec, s->o->oneliner);

    if (!text)
        die ("out of memory");
    fputs (text, stdout);
    free (text);
    control_rec_clear (rec);
}

/* ---- show job ------------------------------------------------------------ */

/* The ids of job j's running steps, "5.extern,5.batch,5.0" (show -d
 * job). Caller frees. */
static char *show_job_steps (struct show_ctx *s, const struct control_job *j)
{
    struct msg_step_info req = { .job_ids = (uint32_t *)&j->job_id,
                                 .job_ids_count = 1 };
    struct msg_step_info_reply r;
    struct control_step st;
    arbor_error_t err;
    char *list = NULL;
    size_t len = 0;
    FILE *f;

    if (client_call (&s->cl, MSG_STEP_INFO, &req, MSG_STEP_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("slurm_get_job_steps error: %s", err.text);
    if (!(f = open_memstream (&list, &len)))
        die ("out of memory");
    for (uint32_t i = 0; i < r.job_ids_count; i++) {
        control_step_get (&r, i, &st);
        if (st.job_id == j->job_id)
            fprintf (f, "%s%s", ftell (f) ? "," : "", st.id);
    }
    if (fclose (f) != 0)
        die ("out of memory");
    proto_clear (MSG_STEP_INFO_REPLY, &r);
    return list;
}

/* Job 'v'; 'tasks' ("2-7") when it stands for a folded pending array,
 * else NULL. */
static void show_job_one (struct show_ctx *s, const struct job_view *v,
                          const char *tasks)
{
    struct control_rec rec = { 0 };
    struct control_job j;
    char *steps = NULL;

    control_job_get (v, time (NULL), &j);
    j.array_tasks = tasks;
    j.details = s->o->details;
    if (s->o->json) {
        show_json_add (s, control_json_job (&j));
        return;
    }
    if (s->o->details)
        j.steps = steps = show_job_steps (s, &j);
    if (control_job_text (&j, &rec) < 0)
        die ("out of memory");
    free (steps);
    show_rec_print (s, &rec);
}

/* "5", or "5_3" for one task of array 5: the JOB_INFO to send and the
 * task to keep (JOBSEL_NO_TASK: all). -1 if not a job id. */
static int show_job_id (const char *arg, uint32_t *job, uint32_t *task)
{
    uint32_t step;

    if (jobsel_parse_id (arg, job, task, &step) < 0 || step != STEP_ID_ALL)
        return -1;
    return 0;
}

static bool show_job_wanted (const struct job_view *v, uint32_t job,
                             uint32_t task)
{
    if (task == JOBSEL_NO_TASK)
        return true;
    return v->rec.array_job_id == job && v->rec.array_task_id == task;
}

/* The lines' views lie in one job_list, in the controller's order: their
 * addresses are that order. */
static int show_line_cmp (const void *a, const void *b)
{
    const struct job_view *x = ((const struct queue_row *)a)->job,
                          *y = ((const struct queue_row *)b)->job;

    return x < y ? -1 : x > y;
}

/* The records to show, in the controller's order: without a task named,
 * an array's pending tasks that never started are one record
 * (ArrayTaskId=0-7), as Slurm keeps them until they start; squeue folds
 * them the same way (queue_fold.h). Returns how many were shown. */
static uint32_t show_job_records (struct show_ctx *s,
                                  const struct job_list *jobs, uint32_t job,
                                  uint32_t task)
{
    struct queue_row proto = { .now = time (NULL) };
    struct queue_lines l;
    bool *keep = calloc (jobs->n + 1, sizeof (*keep));
    size_t shown;

    if (!keep)
        die ("out of memory");
    for (size_t i = 0; i < jobs->n; i++)
        keep[i] = show_job_wanted (&jobs->jobs[i], job, task);
    if (queue_lines_build (&proto, jobs, keep, task == JOBSEL_NO_TASK, 0, &l)
        < 0)
        die ("out of memory");
    free (keep);
    qsort (l.v, l.n, sizeof (*l.v), show_line_cmp);
    for (shown = 0; shown < l.n; shown++)
        show_job_one (s, l.v[shown].job, l.v[shown].tasks);
    queue_lines_free (&l);
    return (uint32_t)shown;
}

static int show_job (struct show_ctx *s, const char *arg)
{
    struct msg_job_info req = { .job_id = 0 };
    struct job_list jobs;
    uint32_t task = JOBSEL_NO_TASK, shown;
    arbor_error_t err;

    if (arg && show_job_id (arg, &req.job_id, &task) < 0) {
        fprintf (stderr, "slurm_load_jobs error: Invalid job id specified\n");
        return 1;
    }
    show_open (s);
    if (jobinfo_fetch (&s->cl, &req, &jobs, &err) < 0) {
        if (errno == ENOENT) {
            fprintf (stderr,
                     "slurm_load_jobs error: Invalid job id specified\n");
            return 1;
        }
        die ("slurm_load_jobs error: %s", err.text);
    }
    show_json_begin (s, "arbor.control.job", "jobs");
    shown = show_job_records (s, &jobs, req.job_id, task);
    job_list_clear (&jobs);
    if (shown == 0 && arg) {
        json_stream_destroy (s->doc);
        s->doc = NULL;
        fprintf (stderr, "slurm_load_jobs error: Invalid job id specified\n");
        return 1;
    }
    if (shown == 0 && !s->o->json)
        printf ("No jobs in the system\n");
    show_json_end (s);
    return 0;
}

/* ---- show step ----------------------------------------------------------- */

static int show_step (struct show_ctx *s, const char *arg)
{
    uint32_t job = 0, task = JOBSEL_NO_TASK, step = STEP_ID_ALL, shown = 0;
    struct msg_step_info req = { .job_ids_count = 0 };
    struct msg_step_info_reply r;
    struct control_rec rec = { 0 };
    struct control_step st;
    arbor_error_t err;

    if (arg && jobsel_parse_id (arg, &job, &task, &step) < 0) {
        fprintf (stderr,
                 "slurm_get_job_steps error: Invalid job id specified\n");
        return 1;
    }
    if (arg) {
        req.job_ids = &job;
        req.job_ids_count = 1;
    }
    show_open (s);
    if (client_call (&s->cl, MSG_STEP_INFO, &req, MSG_STEP_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("slurm_get_job_steps error: %s", err.text);
    show_json_begin (s, "arbor.control.step", "steps");
    for (uint32_t i = 0; i < r.job_ids_count; i++) {
        control_step_get (&r, i, &st);
        if (arg && task != JOBSEL_NO_TASK
            && (st.array_job_id != job || st.array_task_id != task))
            continue;
        if (step != STEP_ID_ALL && st.step_id != step)
            continue;
        shown++;
        if (s->o->json) {
            show_json_add (s, control_json_step (&st));
            continue;
        }
        if (control_step_text (&st, &rec) < 0)
            die ("out of memory");
        show_rec_print (s, &rec);
    }
    proto_clear (MSG_STEP_INFO_REPLY, &r);
    if (shown == 0 && arg) {
        json_stream_destroy (s->doc);
        s->doc = NULL;
        printf ("Job step %s not found\n", arg);
        return 1;
    }
    if (shown == 0 && !s->o->json)
        printf ("No job steps in the system\n");
    show_json_end (s);
    return 0;
}

/* ---- show node ----------------------------------------------------------- */

/* NODE_INFO for 'list' ("" all) into r. 0; 1 (said) for an unknown node;
 * dies on other errors. */
static int show_node_info (struct show_ctx *s, const char *list,
                           struct msg_node_info_reply *r)
{
    static const char unknown[] = "invalid node name ";
    struct msg_node_info req = { .nodelist = (char *)list };
    arbor_error_t err;

    show_open (s);
    if (client_call (&s->cl, MSG_NODE_INFO, &req, MSG_NODE_INFO_REPLY, r,
                     CLIENT_TIMEOUT_MS, &err)
        == 0)
        return 0;
    if (errno == ENOENT && !strncmp (err.text, unknown, strlen (unknown))) {
        printf ("Node %s not found\n", err.text + strlen (unknown));
        return 1;
    }
    if (errno == EINVAL && *list) {
        fprintf (stderr, "Invalid node list %s: %s\n", list, err.text);
        return 1;
    }
    die ("slurm_load_node error: %s", err.text);
}

static int show_node (struct show_ctx *s, const char *arg)
{
    struct msg_node_info_reply r;
    struct control_rec rec = { 0 };
    struct control_node n;

    if (show_node_info (s, arg ? arg : "", &r) != 0)
        return 1;
    show_json_begin (s, "arbor.control.node", "nodes");
    for (uint32_t i = 0; i < r.names_count; i++) {
        control_node_get (&r, i, &n);
        if (s->o->json) {
            show_json_add (s, control_json_node (&n));
            continue;
        }
        if (control_node_text (&n, s->o->details, &rec) < 0)
            die ("out of memory");
        show_rec_print (s, &rec);
    }
    if (r.names_count == 0 && !s->o->json)
        printf ("No nodes in the system\n");
    proto_clear (MSG_NODE_INFO_REPLY, &r);
    show_json_end (s);
    return 0;
}

/* ---- show partition ------------------------------------------------------ */

static int show_part (struct show_ctx *s, const char *name)
{
    struct msg_node_info_reply r;
    struct control_rec rec = { 0 };
    struct control_part v;
    const struct conf *c;
    size_t shown = 0;

    show_open (s);
    c = s->cl.conf;
    if (name && !conf_part_find (c, name)) {
        printf ("Partition %s not found\n", name);
        return 1;
    }
    if (show_node_info (s, "", &r) != 0)
        return 1;
    show_json_begin (s, "arbor.control.partition", "partitions");
    for (size_t i = 0; i < c->nparts; i++) {
        if (name && strcmp (name, c->parts[i].name))
            continue;
        if (control_part_get (&c->parts[i], &r, &v) < 0)
            die ("out of memory");
        if (s->o->json)
            show_json_add (s, control_json_part (&v));
        else if (control_part_text (&v, &rec) < 0)
            die ("out of memory");
        else
            show_rec_print (s, &rec);
        control_part_clear (&v);
        shown++;
    }
    if (shown == 0 && !s->o->json)
        printf ("No partitions in the system\n");
    proto_clear (MSG_NODE_INFO_REPLY, &r);
    show_json_end (s);
    return 0;
}

/* ---- show config, hostnames, hostlist: local -------------------------- */

static int show_config (struct show_ctx *s, const char *arg)
{
    arbor_error_t err;
    struct conf *c;
    char now[64];
    char **lines;
    size_t n;

    (void)s;
    (void)arg; /* scontrol ignores a word after "show config" too */
    if (!(c = conf_load (conf_default_path (), &err)))
        die ("%s", err.text);
    if (!(lines = control_config_lines (c, &n)))
        die ("out of memory");
    printf ("Configuration data as of %s\n",
            control_time ((uint64_t)time (NULL), now, sizeof (now)));
    for (size_t i = 0; i < n; i++)
        printf ("%s\n", lines[i]);
    control_config_free (lines, n);
    conf_destroy (c);
    return 0;
}

/* show hostnames [LIST]: LIST, else the job's nodes, as scontrol. */
static int show_hostnames (struct show_ctx *s, const char *arg)
{
    const char *list = arg ? arg : getenv ("SLURM_JOB_NODELIST");
    arbor_error_t err;

    (void)s;
    if (!list || !*list) {
        fprintf (stderr, "show hostnames: no host list given and "
                         "SLURM_JOB_NODELIST is not set\n");
        return 1;
    }
    if (control_hostnames (list, stdout, &err) < 0) {
        fprintf (stderr, "Invalid hostlist: %s (%s)\n", list, err.text);
        return 1;
    }
    return 0;
}

static int show_hostlist (struct show_ctx *s, const char *arg)
{
    arbor_error_t err;

    (void)s;
    if (!arg || !*arg) {
        fprintf (stderr, "show hostlist: a host list is required\n");
        return 1;
    }
    if (control_hostlist (arg, stdout, &err) < 0) {
        fprintf (stderr, "Invalid hostlist: %s (%s)\n", arg, err.text);
        return 1;
    }
    return 0;
}

/* ---- dispatch ------------------------------------------------------------ */

/* The entities, as scontrol: any case, abbreviated down to 'min'
 * letters, or with a plural 's' ("nodes", "jobs"). */
static const struct show_entity {
    const char *name;
    size_t min;
    bool json; /* has a --json document */
    int (*fn) (struct show_ctx *s, const char *arg);
} show_entities[] = {
    { "job", 1, true, show_job },
    { "step", 2, true, show_step },
    { "node", 1, true, show_node },
    { "partition", 1, true, show_part },
    { "config", 1, false, show_config },
    { "hostnames", 5, false, show_hostnames },
    { "hostlist", 5, false, show_hostlist },
};

static const struct show_entity *show_entity_find (const char *word)
{
    size_t n = strlen (word);

    for (size_t i = 0; i < sizeof (show_entities) / sizeof (*show_entities);
         i++) {
        const struct show_entity *e = &show_entities[i];
        size_t len = strlen (e->name);
        if ((n >= e->min && n <= len && !strncasecmp (word, e->name, n))
            || (n == len + 1 && !strncasecmp (word, e->name, len)
                && (word[len] == 's' || word[len] == 'S')))
            return e;
    }
    return NULL;
}

int control_show (const struct control_show_opts *o, int argc, char **argv)
{
    struct show_ctx s = { .o = o };
    const struct show_entity *e;
    int rc;

    if (argc < 1) {
        fprintf (stderr, "too few arguments for keyword:show\n");
        return 1;
    }
    if (!(e = show_entity_find (argv[0]))) {
        fprintf (stderr,
                 "invalid entity: %s for keyword: show (job, step, node, "
                 "partition, config, hostnames or hostlist)\n",
                 argv[0]);
        return 1;
    }
    if (argc > 2) {
        fprintf (stderr, "too many arguments for keyword:show %s\n", e->name);
        return 1;
    }
    if (o->json && !e->json) {
        fprintf (stderr, "--json: show %s has no JSON document\n", e->name);
        return 1;
    }
    rc = e->fn (&s, argc > 1 ? argv[1] : NULL);
    if (s.open)
        client_close (&s.cl);
    return rc;
}

/* ---- ping ---------------------------------------------------------------- */

int control_ping (void)
{
    /* JOB_INFO for job id 0 in the list: no job has it, so the answer is
     * empty: the cheapest full round trip (connect, authenticate, ask). */
    uint32_t none = 0;
    struct msg_job_info req = { .job_ids = &none, .job_ids_count = 1 };
    struct msg_job_info_reply r;
    struct client cl;
    arbor_error_t err;
    struct conf *c;
    bool up = false;

    if (!(c = conf_load (conf_default_path (), &err)))
        die ("%s", err.text);
    if (client_open (&cl, &err) == 0) {
        up = client_call (&cl, MSG_JOB_INFO, &req, MSG_JOB_INFO_REPLY, &r,
                          CLIENT_TIMEOUT_MS, &err)
             == 0;
        if (up)
            proto_clear (MSG_JOB_INFO_REPLY, &r);
        client_close (&cl);
    }
    printf ("Slurmctld(primary) at %s is %s\n", c->control_addr,
            up ? "UP" : "DOWN");
    conf_destroy (c);
    return up ? 0 : 1;
}
