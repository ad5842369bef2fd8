/* queue_fields.h - squeue's job fields: -o letters, -O names, headers,
 * and each field's text for one job (its view, jobview.h).
 *
 * The default formats are squeue 22.05's:
 *   plain    "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
 *   -l       "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
 *   --start  "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"
 * Values follow squeue: times used and limits as [D-]H:MM:SS ("M:SS"
 * under an hour; limits "UNLIMITED"), dates as YYYY-MM-DDTHH:MM:SS (or
 * SLURM_TIME_FORMAT) or "N/A", absent text as "(null)", %R a pending
 * job's "(Reason)" or the nodes, %p the priority over 2^32, %q (-O
 * QOS) the job's QOS ("normal" from a controller older than 2.14). See
 * fmt.h for the layout.
 */
#ifndef ARBOR_CLI_QUEUE_FIELDS_H
#define ARBOR_CLI_QUEUE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fmt.h"
#include "jobview.h"

#define QUEUE_FORMAT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define QUEUE_FORMAT_LONG "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
#define QUEUE_FORMAT_START "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"

/* squeue's fields: its own, then the job attributes (jobattr.h), ids
 * from QF_ATTR on. Made once; *n is how many. */
const struct fmt_def *queue_field_defs (size_t *n);

/* One line of the listing, as the value function reads it: one job of
 * a listing, or (squeue without -r, queue_fold.h) the pending tasks of
 * an array folded into one line, job the first of them. */
struct queue_row {
    const struct job_view *job; /* borrowed from the listing (job_list) */
    time_t now;
    const char *time_format; /* SLURM_TIME_FORMAT's strftime, or NULL */
    const char *folded;      /* %i of a folded line, "5_[2-9,12]"; NULL */
    const char *tasks;       /* its %K, "2-9,12"; NULL when not folded */
};

/* squeue's durations: M:SS, H:MM:SS, D-HH:MM:SS. */
const char *queue_duration (long s, char *buf, size_t len);

/* fmt_value_fn over a struct queue_row. */
const char *queue_field_value (int id, const void *row, char *buf, size_t len);
/* Field id's value as a number to sort by (ids, counts, times, state
 * order): true, or false for a field sorted as text. */
bool queue_field_number (int id, const struct queue_row *q, double *v);

#endif
