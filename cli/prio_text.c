/* prio_text.c - sprio's table: which columns, and each cell's text.
 *
 * A table is a layout (the columns, chosen from the options and the
 * weights) printed for a header row, a weights row or job rows. Every
 * cell is cut or padded to its column and cells are joined by one space,
 * as sprio's "%.15i %9r %.10Y ..." formats print them. See prio_text.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobsel.h"
#include "prio_text.h"

enum prio_field {
    PRIO_JOBID,
    PRIO_PARTITION,
    PRIO_USER,
    PRIO_PRIORITY,
    PRIO_SITE,
    PRIO_AGE,
    PRIO_JOBSIZE,
    PRIO_PART, /* the partition factor, titled PARTITION too */
    PRIO_QOS,  /* the QOS factor (2.14) */
    PRIO_NICE,
    PRIO_PRESET,  /* priority/wait: Y */
    PRIO_WAIT,    /* priority/wait: k t E */
    PRIO_RESERVE, /* priority/wait: P reached P_th */
    PRIO_NFIELDS,
};

/* sprio 22.05's titles, widths and alignment. 'number' columns are
 * left-aligned under -n, as sprio's normalized formats ("%10y") are. */
static const struct prio_column {
    const char *title;
    int width;
    bool right;
    bool number;
} prio_columns[PRIO_NFIELDS] = {
    [PRIO_JOBID] = { "JOBID", 15, true, false },
    [PRIO_PARTITION] = { "PARTITION", 9, false, false },
    [PRIO_USER] = { "USER", 8, true, false },
    [PRIO_PRIORITY] = { "PRIORITY", 10, true, true },
    [PRIO_SITE] = { "SITE", 10, true, false },
    [PRIO_AGE] = { "AGE", 10, true, true },
    [PRIO_JOBSIZE] = { "JOBSIZE", 10, true, true },
    [PRIO_PART] = { "PARTITION", 10, true, true },
    [PRIO_QOS] = { "QOS", 10, true, true },
    [PRIO_NICE] = { "NICE", 11, true, false },
    [PRIO_PRESET] = { "PRESET", 10, true, true },
    [PRIO_WAIT] = { "WAIT", 10, true, true },
    [PRIO_RESERVE] = { "RESERVE", 7, true, false },
};

/* The columns of one table, in order. */
struct prio_layout {
    enum prio_field cols[PRIO_NFIELDS];
    size_t n;
    bool norm;
    bool wait; /* priority/wait: P, Y and k t E in thousandths */
};

/* Row numbers standing for the header and the weights line. */
#define PRIO_ROW_HEADER UINT32_MAX
#define PRIO_ROW_WEIGHTS (UINT32_MAX - 1)

/* The largest priority, which -n divides by (sprio's 0xffffffff). */
#define PRIO_MAX 4294967295.0

const char *prio_text_unsupported (const char *type, char *buf, size_t len)
{
    if (!type || strcasecmp (type, "priority/basic") != 0)
        return NULL;
    snprintf (buf, len,
              "You are not running a supported priority plugin\n(%s).\n"
              "Only 'priority/multifactor' is supported.\n",
              type);
    return buf;
}

/* The configured weight of a factor column; 0 for the others. */
static uint32_t prio_weight (const struct msg_prio_info_reply *r,
                             enum prio_field f)
{
    switch (f) {
    case PRIO_AGE: return r->weight_age;
    case PRIO_JOBSIZE: return r->weight_job_size;
    case PRIO_PART: return r->weight_partition;
    case PRIO_QOS: return r->weight_qos;
    default: return 0;
    }
}

/* Job i's weighted value of a factor column. */
static uint32_t prio_factor (const struct msg_prio_info_reply *r,
                             enum prio_field f, uint32_t i)
{
    switch (f) {
    case PRIO_AGE: return PROTO_NUM (r, age, i);
    case PRIO_JOBSIZE: return PROTO_NUM (r, job_size, i);
    case PRIO_PART: return PROTO_NUM (r, part, i);
    case PRIO_QOS: return PROTO_NUM (r, qos, i);
    default: return 0;
    }
}

static bool prio_any_nice (const struct msg_prio_info_reply *r,
                           const uint32_t *rows, size_t nrows)
{
    for (size_t k = 0; k < nrows; k++) {
        if (PROTO_NUM (r, nice, rows[k]) != 0)
            return true;
    }
    return false;
}

static bool prio_is_wait (const struct msg_prio_info_reply *r)
{
    return r->type && !strcmp (r->type, "priority/wait");
}

static void prio_layout_choose (const struct msg_prio_info_reply *r,
                                const struct prio_view *v, const uint32_t *rows,
                                size_t nrows, struct prio_layout *l)
{
    static const enum prio_field factors[] = { PRIO_AGE, PRIO_JOBSIZE,
                                               PRIO_PART, PRIO_QOS };

    l->n = 0;
    l->norm = v->norm;
    l->wait = prio_is_wait (r);
    l->cols[l->n++] = PRIO_JOBID;
    l->cols[l->n++] = PRIO_PARTITION;
    if (v->longfmt || v->users)
        l->cols[l->n++] = PRIO_USER;
    l->cols[l->n++] = PRIO_PRIORITY;
    if (l->wait) {
        l->cols[l->n++] = PRIO_PRESET;
        l->cols[l->n++] = PRIO_WAIT;
        l->cols[l->n++] = PRIO_RESERVE;
        if (v->longfmt || (!v->weights_only && prio_any_nice (r, rows, nrows)))
            l->cols[l->n++] = PRIO_NICE;
        return;
    }
    if (!v->norm)
        l->cols[l->n++] = PRIO_SITE;
    for (size_t k = 0; k < sizeof (factors) / sizeof (factors[0]); k++) {
        if (v->longfmt || prio_weight (r, factors[k]))
            l->cols[l->n++] = factors[k];
    }
    /* A NICE column of zeros says nothing, so the default table has one
     * only when some job was niced; -w shows no job, so none then. */
    if (!v->norm
        && (v->longfmt || (!v->weights_only && prio_any_nice (r, rows, nrows))))
        l->cols[l->n++] = PRIO_NICE;
}

/* Thousandths as a decimal: 12958 -> "12.958". */
static const char *prio_milli_cell (uint32_t v, char *buf, size_t len)
{
    snprintf (buf, len, "%u.%03u", v / 1000, v % 1000);
    return buf;
}

/* The weights row's cell: the weight of a factor, blank elsewhere;
 * under priority/wait, the threshold P_th under PRIORITY. */
static const char *prio_weight_cell (const struct msg_prio_info_reply *r,
                                     const struct prio_layout *l,
                                     enum prio_field f, char *buf, size_t len)
{
    if (l->wait && f == PRIO_PRIORITY)
        return r->threshold ? prio_milli_cell (r->threshold, buf, len) : "none";
    switch (f) {
    case PRIO_JOBID: return "Weights";
    case PRIO_SITE: return "1";
    case PRIO_AGE:
    case PRIO_JOBSIZE:
    case PRIO_PART:
    case PRIO_QOS: snprintf (buf, len, "%u", prio_weight (r, f)); return buf;
    default: return "";
    }
}

/* Priority, weighted or (-n) as a fraction of the largest. sprio prints
 * the fraction with 14 decimals and lets the column cut it. */
static const char *prio_priority_cell (const struct msg_prio_info_reply *r,
                                       bool norm, uint32_t i, char *buf,
                                       size_t len)
{
    uint32_t p = PROTO_NUM (r, priorities, i);

    if (prio_is_wait (r))
        return prio_milli_cell (p, buf, len);
    if (norm)
        snprintf (buf, len, "%16.14f", p / PRIO_MAX);
    else
        snprintf (buf, len, "%u", p);
    return buf;
}

static const char *prio_factor_cell (const struct msg_prio_info_reply *r,
                                     bool norm, enum prio_field f, uint32_t i,
                                     char *buf, size_t len)
{
    uint32_t value = prio_factor (r, f, i), weight = prio_weight (r, f);

    if (norm)
        snprintf (buf, len, "%.7f", weight ? (double)value / weight : 0.0);
    else
        snprintf (buf, len, "%u", value);
    return buf;
}

static const char *prio_job_cell (const struct msg_prio_info_reply *r,
                                  bool norm, enum prio_field f, uint32_t i,
                                  char *buf, size_t len)
{
    switch (f) {
    case PRIO_JOBID: snprintf (buf, len, "%u", r->job_ids[i]); return buf;
    case PRIO_PARTITION: return PROTO_STR (r, partitions, i);
    case PRIO_USER: return PROTO_STR (r, users, i);
    case PRIO_PRIORITY: return prio_priority_cell (r, norm, i, buf, len);
    case PRIO_SITE: return "0";
    case PRIO_NICE:
        snprintf (buf, len, "%d", (int)PROTO_NUM (r, nice, i));
        return buf;
    case PRIO_PRESET:
        return prio_milli_cell (PROTO_NUM (r, preset, i), buf, len);
    case PRIO_WAIT: return prio_milli_cell (PROTO_NUM (r, wait, i), buf, len);
    case PRIO_RESERVE: return PROTO_NUM (r, reserve, i) ? "yes" : "no";
    default: return prio_factor_cell (r, norm, f, i, buf, len);
    }
}

/* One line: the header, the weights or job 'row' of 'r'. */
static void prio_line (FILE *f, const struct msg_prio_info_reply *r,
                       const struct prio_layout *l, uint32_t row)
{
    char buf[64];

    for (size_t k = 0; k < l->n; k++) {
        const struct prio_column *c = &prio_columns[l->cols[k]];
        bool right = c->right && !(l->norm && c->number);
        const char *text;

        if (row == PRIO_ROW_HEADER)
            text = c->title;
        else if (row == PRIO_ROW_WEIGHTS)
            text = prio_weight_cell (r, l, l->cols[k], buf, sizeof (buf));
        else
            text =
                prio_job_cell (r, l->norm, l->cols[k], row, buf, sizeof (buf));
        fprintf (f, right ? "%s%*.*s" : "%s%-*.*s", k ? " " : "", c->width,
                 c->width, text);
    }
    fputc ('\n', f);
}

/* The jobs of 'r' that pass -p, in the reply's (scheduling) order.
 * Returns how many. */
static size_t prio_rows (const struct msg_prio_info_reply *r,
                         const struct prio_view *v, uint32_t *rows)
{
    size_t n = 0;

    for (uint32_t i = 0; i < r->job_ids_count; i++) {
        if (v->partitions
            && !jobsel_in_list (v->partitions, PROTO_STR (r, partitions, i),
                                false))
            continue;
        rows[n++] = i;
    }
    return n;
}

int prio_text_print (FILE *f, const struct msg_prio_info_reply *r,
                     const struct prio_view *v)
{
    uint32_t *rows = calloc (r->job_ids_count + 1, sizeof (*rows));
    struct prio_layout l;
    size_t n;

    if (!rows) {
        errno = ENOMEM;
        return -1;
    }
    n = prio_rows (r, v, rows);
    if (v->jobs && n == 0) {
        /* sprio says so instead of printing an empty table */
        fputs ("Unable to find jobs matching user/id(s) specified\n", f);
        free (rows);
        return 0;
    }
    prio_layout_choose (r, v, rows, n, &l);
    if (!v->noheader)
        prio_line (f, r, &l, PRIO_ROW_HEADER);
    if (v->weights_only)
        prio_line (f, r, &l, PRIO_ROW_WEIGHTS);
    else
        for (size_t k = 0; k < n; k++)
            prio_line (f, r, &l, rows[k]);
    free (rows);
    return 0;
}
