/* acct_fields.c - sacct's fields, the -o list and the layouts; see
 * acct_fields.h.
 *
 * The table is sorted by name, any case, as sacct's is: a prefix takes
 * the first field it begins in that order. Widths are sacct's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acct_fields.h"
#include "acct_tres.h"
#include "acct_text.h"
#include "jobattr.h"
#include "jobsel.h"
#include "jobview_acct.h"
#include "timestr.h"

/* ---- what a line shows ------------------------------------------------- */

static bool is_step (const struct acct_row *r)
{
    return r->step != NULL;
}

/* The job's record (every sacct line has its job's view)... */
static const struct msg_job_rec *rec_of (const struct acct_row *r)
{
    return &r->view->rec;
}

/* ... and what only accounting knows of the run. */
static const struct msg_acct_job *acct_of (const struct acct_row *r)
{
    return r->view->acct;
}

static void put_str (char *buf, size_t len, const char *s)
{
    snprintf (buf, len, "%s", s ? s : "");
}

static void put_u64 (char *buf, size_t len, uint64_t v)
{
    snprintf (buf, len, "%" PRIu64, v);
}

static uint64_t row_start (const struct acct_row *r)
{
    return is_step (r) ? r->step->start_time : rec_of (r)->start_time;
}

static uint64_t row_end (const struct acct_row *r)
{
    return is_step (r) ? r->step->end_time : rec_of (r)->end_time;
}

/* From start to end, or to now while it runs; 0 if it never started. */
static uint64_t row_elapsed (const struct acct_row *r)
{
    uint64_t start = row_start (r), end = row_end (r);

    if (!end)
        end = r->now > 0 ? (uint64_t)r->now : 0;
    return start && end > start ? end - start : 0;
}

/* A step that had no CPUs of its own counted has the job's. */
static uint32_t row_cpus (const struct acct_row *r)
{
    if (is_step (r) && r->step->alloc_cpus)
        return r->step->alloc_cpus;
    return jobview_acct_alloc_cpus (r->view);
}

/* Usage numbers exist for a step once a node reported them. */
static bool row_has_usage (const struct acct_row *r)
{
    return is_step (r) && r->step->nodes_reported > 0;
}

static uint64_t row_user_usec (const struct acct_row *r)
{
    return is_step (r) ? r->step->user_usec : r->user_usec;
}

static uint64_t row_sys_usec (const struct acct_row *r)
{
    return is_step (r) ? r->step->sys_usec : r->sys_usec;
}

static void f_account (const struct acct_row *r, char *b, size_t n)
{
    put_str (b, n, rec_of (r)->account);
}

static void f_alloc_cpus (const struct acct_row *r, char *b, size_t n)
{
    put_u64 (b, n, row_cpus (r));
}

static void f_array_job (const struct acct_row *r, char *b, size_t n)
{
    if (rec_of (r)->array_job_id)
        put_u64 (b, n, rec_of (r)->array_job_id);
    else
        put_str (b, n, "");
}

static void f_array_task (const struct acct_row *r, char *b, size_t n)
{
    if (rec_of (r)->array_job_id)
        put_u64 (b, n, rec_of (r)->array_task_id);
    else
        put_str (b, n, "");
}

static void f_ave_rss (const struct acct_row *r, char *b, size_t n)
{
    if (row_has_usage (r))
        acct_text_size_as (r->step->ave_rss_kb, ACCT_UNIT_K, r->units, b, n);
    else
        put_str (b, n, "");
}

static void f_cluster (const struct acct_row *r, char *b, size_t n)
{
    put_str (b, n, acct_of (r)->cluster);
}

static void f_cpu_time (const struct acct_row *r, char *b, size_t n)
{
    acct_text_duration (row_elapsed (r) * row_cpus (r), b, n);
}

static void f_cpu_time_raw (const struct acct_row *r, char *b, size_t n)
{
    put_u64 (b, n, row_elapsed (r) * row_cpus (r));
}

static void f_elapsed (const struct acct_row *r, char *b, size_t n)
{
    acct_text_duration (row_elapsed (r), b, n);
}

static void f_elapsed_raw (const struct acct_row *r, char *b, size_t n)
{
    put_u64 (b, n, row_elapsed (r));
}

/* A step is eligible and submitted when it starts. */
static void f_eligible (const struct acct_row *r, char *b, size_t n)
{
    uint64_t t = is_step (r) ? r->step->start_time : rec_of (r)->eligible_time;

    acct_text_time (t, r->time_format, b, n);
}

static void f_end (const struct acct_row *r, char *b, size_t n)
{
    acct_text_time (row_end (r), r->time_format, b, n);
}

static void f_exit_code (const struct acct_row *r, char *b, size_t n)
{
    if (is_step (r))
        acct_text_exit (r->step->exit_code, r->step->signal, b, n);
    else
        acct_text_exit (acct_of (r)->exit_code, acct_of (r)->signal, b, n);
}

static void f_gid (const struct acct_row *r, char *b, size_t n)
{
    if (is_step (r))
        put_str (b, n, "");
    else
        put_u64 (b, n, rec_of (r)->gid);
}

static void f_group (const struct acct_row *r, char *b, size_t n)
{
    if (is_step (r))
        put_str (b, n, "");
    else
        acct_group_name (rec_of (r)->gid, b, n);
}

/* "5", "4_2" for task 2 of array 4; steps add ".batch", ".0"... */
static void f_job_id (const struct acct_row *r, char *b, size_t n)
{
    const struct msg_job_rec *j = rec_of (r);
    uint32_t step = is_step (r) ? r->step->step_id : STEP_ID_ALL;

    if (j->array_job_id)
        jobsel_task_str (j->array_job_id, j->array_task_id, step, b, n);
    else
        jobsel_id_str (j->id, step, b, n);
}

static void f_job_id_raw (const struct acct_row *r, char *b, size_t n)
{
    jobsel_id_str (rec_of (r)->id, is_step (r) ? r->step->step_id : STEP_ID_ALL,
                   b, n);
}

static void f_job_name (const struct acct_row *r, char *b, size_t n)
{
    put_str (b, n, is_step (r) ? r->step->name : rec_of (r)->name);
}

static void f_max_rss (const struct acct_row *r, char *b, size_t n)
{
    if (row_has_usage (r))
        acct_text_size_as (r->step->max_rss_kb, ACCT_UNIT_K, r->units, b, n);
    else
        put_str (b, n, "");
}

static void f_max_rss_node (const struct acct_row *r, char *b, size_t n)
{
    put_str (b, n, row_has_usage (r) ? r->step->max_rss_node : "");
}

static void f_max_rss_task (const struct acct_row *r, char *b, size_t n)
{
    if (row_has_usage (r))
        put_u64 (b, n, r->step->max_rss_task);
    else
        put_str (b, n, "");
}

static void f_nnodes (const struct acct_row *r, char *b, size_t n)
{
    put_u64 (b, n, is_step (r) ? r->step->nnodes : rec_of (r)->nnodes);
}

/* sacct's words for a job that has no nodes yet. */
static void f_nodelist (const struct acct_row *r, char *b, size_t n)
{
    const char *nl = is_step (r) ? r->step->nodelist : rec_of (r)->nodelist;

    put_str (b, n, nl && *nl ? nl : is_step (r) ? "" : "None assigned");
}

static void f_ntasks (const struct acct_row *r, char *b, size_t n)
{
    if (is_step (r))
        put_u64 (b, n, r->step->ntasks);
    else
        put_str (b, n, "");
}

static void f_partition (const struct acct_row *r, char *b, size_t n)
{
    put_str (b, n, is_step (r) ? "" : rec_of (r)->partition);
}

/* Blank on a step's line, as sacct's. */
static void f_qos (const struct acct_row *r, char *b, size_t n)
{
    put_str (b, n, is_step (r) ? "" : jv_qos (r->view));
}

static void f_reason (const struct acct_row *r, char *b, size_t n)
{
    const char *why = rec_of (r)->reason;

    put_str (b, n, is_step (r) ? "" : why && *why ? why : "None");
}

static void f_req_cpus (const struct acct_row *r, char *b, size_t n)
{
    put_u64 (b, n, is_step (r) ? row_cpus (r) : acct_of (r)->req_cpus);
}

/* The job's whole request, as sacct 21.08 and later show it: per node
 * times nodes, or per CPU times CPUs. */
static void f_req_mem (const struct acct_row *r, char *b, size_t n)
{
    const struct msg_acct_job *j = acct_of (r);
    uint32_t cpus = jobview_acct_alloc_cpus (r->view);
    uint64_t times =
        j->mem_per_cpu ? (cpus ? cpus : j->req_cpus) : rec_of (r)->nnodes;

    if (is_step (r))
        put_str (b, n, "");
    else
        acct_text_size_as (j->req_mem_mb * (times ? times : 1), ACCT_UNIT_M,
                           r->units, b, n);
}

/* sacct's AllocTRES: what the job (or step) held, as key=value. A step
 * without a memory request of its own has its nodes' share of the job's. */
static void f_alloc_tres (const struct acct_row *r, char *b, size_t n)
{
    uint32_t cpus = row_cpus (r), jnodes = rec_of (r)->nnodes,
             nodes = is_step (r) ? r->step->nnodes : jnodes;
    uint64_t mem = acct_of (r)->alloc_mem_mb;
    char size[32], gres[512];

    if (is_step (r))
        mem = r->step->req_mem_mb ? r->step->req_mem_mb * nodes
              : jnodes            ? mem / jnodes * nodes
                                  : 0;
    if (!cpus) {
        put_str (b, n, "");
        return;
    }
    acct_text_size (mem, ACCT_UNIT_M, size, sizeof (size));
    if (is_step (r))
        snprintf (b, n, "cpu=%u,mem=%s,node=%u", cpus, size, nodes);
    else
        snprintf (b, n, "billing=%u,cpu=%u%s,mem=%s,node=%u", cpus, cpus,
                  acct_tres_gres_alloc (rec_of (r), gres, sizeof (gres)), size,
                  nodes);
}

/* sacct's ReqTRES: what the job asked for, as key=value (its line only). */
static void f_req_tres (const struct acct_row *r, char *b, size_t n)
{
    const struct msg_acct_job *j = acct_of (r);
    uint32_t nodes = rec_of (r)->nnodes ? rec_of (r)->nnodes : 1;
    char size[32], gres[512];

    if (is_step (r)) {
        put_str (b, n, "");
        return;
    }
    acct_text_size (j->req_mem_mb * (j->mem_per_cpu ? j->req_cpus : nodes),
                    ACCT_UNIT_M, size, sizeof (size));
    snprintf (b, n, "billing=%u,cpu=%u%s,mem=%s,node=%u", j->req_cpus,
              j->req_cpus, acct_tres_gres_req (r->view, gres, sizeof (gres)),
              size, nodes);
}

static void f_start (const struct acct_row *r, char *b, size_t n)
{
    acct_text_time (row_start (r), r->time_format, b, n);
}

static void f_state (const struct acct_row *r, char *b, size_t n)
{
    put_str (b, n, is_step (r) ? r->step->state : acct_of (r)->state);
}

static void f_submit (const struct acct_row *r, char *b, size_t n)
{
    uint64_t t = is_step (r) ? r->step->start_time : rec_of (r)->submit_time;

    acct_text_time (t, r->time_format, b, n);
}

static void f_system_cpu (const struct acct_row *r, char *b, size_t n)
{
    acct_text_cpu (row_sys_usec (r), b, n);
}

static void f_timelimit (const struct acct_row *r, char *b, size_t n)
{
    if (is_step (r) || rec_of (r)->time_limit == 0)
        put_str (b, n, "");
    else
        timestr_format (rec_of (r)->time_limit, b, n);
}

static void f_timelimit_raw (const struct acct_row *r, char *b, size_t n)
{
    uint32_t limit = rec_of (r)->time_limit;

    if (is_step (r) || limit == 0)
        put_str (b, n, "");
    else if (limit == TIME_INFINITE)
        put_str (b, n, "UNLIMITED");
    else
        put_u64 (b, n, limit);
}

static void f_total_cpu (const struct acct_row *r, char *b, size_t n)
{
    acct_text_cpu (row_user_usec (r) + row_sys_usec (r), b, n);
}

static void f_uid (const struct acct_row *r, char *b, size_t n)
{
    if (is_step (r))
        put_str (b, n, "");
    else
        put_u64 (b, n, rec_of (r)->uid);
}

static void f_user (const struct acct_row *r, char *b, size_t n)
{
    const struct msg_job_rec *j = rec_of (r);
    struct passwd *pw;

    if (is_step (r))
        put_str (b, n, "");
    else if (j->user && *j->user)
        put_str (b, n, j->user);
    else if ((pw = getpwuid ((uid_t)j->uid)))
        put_str (b, n, pw->pw_name);
    else
        put_u64 (b, n, j->uid);
}

static void f_user_cpu (const struct acct_row *r, char *b, size_t n)
{
    acct_text_cpu (row_user_usec (r), b, n);
}

static void f_work_dir (const struct acct_row *r, char *b, size_t n)
{
    put_str (b, n, is_step (r) ? "" : r->view->req.cwd);
}

/* Sorted by name, any case (prefixes take the first match). */
static const struct acct_field acct_fields[] = {
    { "Account", 10, 0, f_account, NULL },
    { "AllocCPUS", 10, ACCT_F_NUMBER, f_alloc_cpus, NULL },
    { "AllocTRES", 10, 0, f_alloc_tres, NULL },
    { "ArrayJobID", 12, ACCT_F_NUMBER, f_array_job, NULL },
    { "ArrayTaskID", 12, ACCT_F_NUMBER, f_array_task, NULL },
    { "AveRSS", 10, 0, f_ave_rss, NULL },
    { "Cluster", 10, 0, f_cluster, NULL },
    { "CPUTime", 10, 0, f_cpu_time, NULL },
    { "CPUTimeRAW", 10, ACCT_F_NUMBER, f_cpu_time_raw, NULL },
    { "Elapsed", 10, 0, f_elapsed, NULL },
    { "ElapsedRaw", 10, ACCT_F_NUMBER, f_elapsed_raw, NULL },
    { "Eligible", 19, 0, f_eligible, NULL },
    { "End", 19, 0, f_end, NULL },
    { "ExitCode", 8, 0, f_exit_code, NULL },
    { "GID", 6, ACCT_F_NUMBER, f_gid, NULL },
    { "Group", 9, 0, f_group, NULL },
    { "JobID", -12, 0, f_job_id, NULL },
    { "JobIDRaw", -12, 0, f_job_id_raw, NULL },
    { "JobName", 10, 0, f_job_name, NULL },
    { "MaxRSS", 10, 0, f_max_rss, NULL },
    { "MaxRSSNode", 10, 0, f_max_rss_node, NULL },
    { "MaxRSSTask", 10, ACCT_F_NUMBER, f_max_rss_task, NULL },
    { "NCPUS", 10, ACCT_F_NUMBER, f_alloc_cpus, NULL },
    { "NNodes", 8, ACCT_F_NUMBER, f_nnodes, NULL },
    { "NodeList", 15, 0, f_nodelist, NULL },
    { "NTasks", 8, ACCT_F_NUMBER, f_ntasks, NULL },
    { "Partition", 10, 0, f_partition, NULL },
    { "QOS", 10, 0, f_qos, NULL },
    { "Reason", 22, 0, f_reason, NULL },
    { "ReqCPUS", 8, ACCT_F_NUMBER, f_req_cpus, NULL },
    { "ReqMem", 10, 0, f_req_mem, NULL },
    { "ReqTRES", 10, 0, f_req_tres, NULL },
    { "Start", 19, 0, f_start, NULL },
    { "State", 10, 0, f_state, NULL },
    { "Submit", 19, 0, f_submit, NULL },
    { "SystemCPU", 10, ACCT_F_STEP_SUMS, f_system_cpu, NULL },
    { "Timelimit", 10, 0, f_timelimit, NULL },
    { "TimelimitRaw", 10, 0, f_timelimit_raw, NULL },
    { "TotalCPU", 10, ACCT_F_STEP_SUMS, f_total_cpu, NULL },
    { "UID", 6, ACCT_F_NUMBER, f_uid, NULL },
    { "User", 9, 0, f_user, NULL },
    { "UserCPU", 10, ACCT_F_STEP_SUMS, f_user_cpu, NULL },
    { "WorkDir", 20, 0, f_work_dir, NULL },
};

#define ACCT_NFIXED (sizeof (acct_fields) / sizeof (acct_fields[0]))

static int field_cmp (const void *a, const void *b)
{
    return strcasecmp (((const struct acct_field *)a)->name,
                       ((const struct acct_field *)b)->name);
}

/* sacct's table: its own fields and the job attributes (jobattr.h),
 * sorted by name, made once. */
static const struct acct_table *sacct_table (void)
{
    static struct acct_field all[ACCT_NFIXED + 32];
    static struct acct_table t;
    size_t n = ACCT_NFIXED;

    if (t.n)
        return &t;
    memcpy (all, acct_fields, sizeof (acct_fields));
    for (size_t i = 0; i < job_nattrs && n < sizeof (all) / sizeof (all[0]);
         i++)
        all[n++] =
            (struct acct_field){ .name = job_attrs[i].acct ? job_attrs[i].acct
                                                           : job_attrs[i].name,
                                 .width = job_attrs[i].width,
                                 .attr = &job_attrs[i] };
    qsort (all, n, sizeof (all[0]), field_cmp);
    t = (struct acct_table){ all, n };
    return &t;
}

const char *acct_field_value (const struct acct_field *fd,
                              const struct acct_row *r, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (fd->attr) /* the job's line shows it; a step's is blank */
        put_str (buf, len,
                 is_step (r) ? "" : job_attr_text (fd->attr, r->view));
    else
        fd->render (r, buf, len);
    return buf;
}

/* ---- -o ---------------------------------------------------------------- */

static const struct acct_field *table_find (const struct acct_table *t,
                                            const char *name)
{
    size_t n = strlen (name);

    for (size_t i = 0; i < t->n; i++)
        if (!strcasecmp (t->fields[i].name, name))
            return &t->fields[i];
    for (size_t i = 0; n && i < t->n; i++)
        if (!strncasecmp (t->fields[i].name, name, n))
            return &t->fields[i];
    return NULL;
}

const struct acct_field *acct_field_find (const char *name)
{
    return table_find (sacct_table (), name);
}

static int acct_format_add (struct acct_format *fmt,
                            const struct acct_field *fd, int width)
{
    struct acct_column *c = realloc (fmt->cols, (fmt->ncols + 1) * sizeof (*c));

    if (!c)
        return -1;
    fmt->cols = c;
    c[fmt->ncols].field = fd;
    c[fmt->ncols].width = width ? width : fd->width;
    fmt->ncols++;
    return 0;
}

/* One "Name[%N]" item. 0, or -1 with errno and err. */
static int acct_format_item (struct acct_format *fmt,
                             const struct acct_table *t, char *item,
                             arbor_error_t *err)
{
    char *pct = strchr (item, '%'), *end;
    const struct acct_field *fd;
    long width = 0;

    if (pct) {
        *pct = '\0';
        errno = 0;
        width = strtol (pct + 1, &end, 10);
        if (errno || end == pct + 1 || *end || width == 0 || width > 1000
            || width < -1000) {
            errno = EINVAL;
            return errprintf (err, "Invalid field width in \"%s%%%s\"", item,
                              pct + 1);
        }
    }
    if (!strcasecmp (item, "ALL")) {
        for (size_t i = 0; i < t->n; i++)
            if (acct_format_add (fmt, &t->fields[i], (int)width) < 0)
                return errprintf (err, "out of memory");
        return 0;
    }
    if (!(fd = table_find (t, item))) {
        errno = EINVAL;
        return errprintf (err, "Invalid field requested: \"%s\"", item);
    }
    if (acct_format_add (fmt, fd, (int)width) < 0)
        return errprintf (err, "out of memory");
    return 0;
}

int acct_format_parse (struct acct_format *fmt, const char *list,
                       arbor_error_t *err)
{
    return acct_format_parse_in (fmt, list, sacct_table (), err);
}

int acct_format_parse_in (struct acct_format *fmt, const char *list,
                          const struct acct_table *t, arbor_error_t *err)
{
    size_t before = fmt->ncols;
    char *copy = strdup (list), *save = NULL;

    if (!copy)
        return errprintf (err, "out of memory");
    for (char *item = strtok_r (copy, ",", &save); item;
         item = strtok_r (NULL, ",", &save)) {
        item += strspn (item, " \t");
        if (*item && acct_format_item (fmt, t, item, err) < 0) {
            int e = errno;
            fmt->ncols = before; /* no side effect on failure */
            free (copy);
            errno = e;
            return -1;
        }
    }
    free (copy);
    return 0;
}

bool acct_format_needs_steps (const struct acct_format *fmt)
{
    for (size_t i = 0; i < fmt->ncols; i++)
        if (fmt->cols[i].field->flags & ACCT_F_STEP_SUMS)
            return true;
    return false;
}

void acct_format_clear (struct acct_format *fmt)
{
    free (fmt->cols);
    fmt->cols = NULL;
    fmt->ncols = 0;
}

void acct_fields_list (FILE *f)
{
    acct_fields_list_in (f, sacct_table ());
}

void acct_fields_list_in (FILE *f, const struct acct_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        if (i > 0)
            fputc (i % 4 ? ' ' : '\n', f);
        fprintf (f, "%-17s", t->fields[i].name);
    }
    fputc ('\n', f);
}

/* ---- layouts ----------------------------------------------------------- */

/* After value i of n: '|' (-p: always; -P: not after the last). */
static void acct_parsable_sep (FILE *f, enum acct_layout layout, size_t i,
                               size_t n)
{
    if (layout == ACCT_PARSABLE || i + 1 < n)
        fputc ('|', f);
}

void acct_print_header (FILE *f, const struct acct_format *fmt,
                        enum acct_layout layout)
{
    for (size_t i = 0; i < fmt->ncols; i++) {
        const struct acct_column *c = &fmt->cols[i];
        int w = abs (c->width);
        if (layout != ACCT_TABLE) {
            fputs (c->field->name, f);
            acct_parsable_sep (f, layout, i, fmt->ncols);
        } else if (c->width < 0)
            fprintf (f, "%-*.*s ", w, w, c->field->name);
        else
            fprintf (f, "%*.*s ", w, w, c->field->name);
    }
    fputc ('\n', f);
    if (layout != ACCT_TABLE)
        return;
    for (size_t i = 0; i < fmt->ncols; i++) {
        for (int k = 0; k < abs (fmt->cols[i].width); k++)
            fputc ('-', f);
        fputc (' ', f);
    }
    fputc ('\n', f);
}

/* A table cell: too long a text is cut with '+' as its last character;
 * numbers are never cut. */
static void acct_print_cell (FILE *f, const struct acct_column *c, char *val)
{
    int w = abs (c->width);

    if (!(c->field->flags & ACCT_F_NUMBER) && (int)strlen (val) > w) {
        val[w - 1] = '+';
        val[w] = '\0';
    }
    if (c->width < 0)
        fprintf (f, "%-*s ", w, val);
    else
        fprintf (f, "%*s ", w, val);
}

void acct_print_row (FILE *f, const struct acct_format *fmt,
                     enum acct_layout layout, const struct acct_row *r)
{
    char val[ACCT_VALUE_MAX];

    for (size_t i = 0; i < fmt->ncols; i++) {
        const struct acct_column *c = &fmt->cols[i];
        acct_field_value (c->field, r, val, sizeof (val));
        if (layout == ACCT_TABLE)
            acct_print_cell (f, c, val);
        else {
            fputs (val, f);
            acct_parsable_sep (f, layout, i, fmt->ncols);
        }
    }
    fputc ('\n', f);
}
