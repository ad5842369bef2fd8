/* jobattr.h - the job attributes every command shows the same way.
 *
 * An attribute that the job's record or request carries and that the
 * commands show as text, as given: its name (Slurm's, for squeue -O,
 * sacct -o and scontrol show job's KEY=value), squeue's -o letter and
 * column header, sacct's column width, its key in the --json documents,
 * and how it is read from a job view (jobview.h). squeue, sacct,
 * scontrol show job and the JSON writers take these from the table in
 * jobattr.c, so a new attribute is shown everywhere by one line there
 * (with its field in common/wire/proto_msgs.def and, for an option, its
 * line in opt_slurm.c's 'carried' table).
 */
#ifndef ARBOR_CLI_JOBATTR_H
#define ARBOR_CLI_JOBATTR_H
#include <stddef.h>

#include "jobview.h"

struct job_attr {
    const char *name;   /* "Comment" */
    const char *acct;   /* sacct -o's name where Slurm's differs; NULL:
                           name */
    bool own_line;      /* scontrol show job prints it as NAME=value on a
                           line of its own (else where scontrol has it) */
    char letter;        /* squeue -o's %letter; 0: none */
    const char *header; /* squeue's column header: "COMMENT" */
    int width;          /* sacct's column width; negative: left-aligned */
    const char *json;   /* its key in the --json documents: "comment" */
    size_t req_off;     /* where the request (struct msg_job_alloc) has it */
};

extern const struct job_attr job_attrs[];
extern const size_t job_nattrs;

/* Its text in job v; "" when v has none (NULL v: a record without the
 * job's, written before 2.12). */
const char *job_attr_text (const struct job_attr *a, const struct job_view *v);

#endif
