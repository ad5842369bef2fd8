/* acct_fields.h - sacct's fields and its two layouts.
 *
 * A field has sacct's name, its default width (negative: left-aligned,
 * as JobID) and the text it shows on a job's line or on a step's line,
 * computed from the job's view (its record and its accounting record,
 * jobview_acct.h) and, on a step's line, its ACCT_STEP alone. Fields
 * that sacct leaves blank on one kind of line are blank here too (NTasks
 * and MaxRSS on the job's line, Partition and User on a step's).
 *
 * -o/--format lists field names, any case, each optionally followed by
 * %N for a width (%-N: left-aligned); a name that is no field's is taken
 * as the first field it begins ("elap" is Elapsed), as sacct does; "ALL"
 * is every field.
 *
 * Layouts: the table (a header, a line of dashes, then each value cut
 * to its column with a '+' marking the cut, every column followed by a
 * space), and the parsable ones ('|' after every value, -p; between
 * values, -P), never cut.
 */
#ifndef ARBOR_CLI_ACCT_FIELDS_H
#define ARBOR_CLI_ACCT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "acct_group.h" /* acct_group_name, for those who show a group */
#include "error.h"
#include "jobview.h"
#include "proto.h"

#define ACCT_DEFAULT_FORMAT \
    "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"
#define ACCT_BRIEF_FORMAT "JobID,State,ExitCode"
/* sacct's --long list, less the fields Arbor does not measure (virtual
 * memory, pages, disk I/O, energy, CPU frequency, TRES). */
#define ACCT_LONG_FORMAT                                                    \
    "JobID,JobIDRaw,JobName,Partition,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS," \
    "NTasks,AllocCPUS,Elapsed,State,ExitCode,ReqMem"

/* One line of output: a job, or one of its steps. */
struct acct_row {
    const struct job_view *view;      /* the job's (jobview_acct.h), with
                                         view->acct; a step's line shows
                                         its job's account too */
    const struct msg_acct_step *step; /* NULL: the job's own line */
    uint64_t user_usec, sys_usec;     /* job line: its steps' sums */
    time_t now;                       /* what still runs, runs until now */
    const char *time_format;          /* strftime format, NULL: sacct's */
    char units;                       /* --units: sizes in K, M, G, T or
                                         P; 0: each scaled to fit */
    const void *ext; /* another table's row (sstat: a struct stat_step);
                        view and step are then NULL */
};

#define ACCT_VALUE_MAX 4096

enum {
    ACCT_F_NUMBER = 1 << 0,    /* never cut */
    ACCT_F_STEP_SUMS = 1 << 1, /* the job's line sums its steps' */
};

struct job_attr;

struct acct_field {
    const char *name;
    int width; /* negative: left-aligned */
    unsigned flags;
    /* The value into buf; "" for blank. */
    void (*render) (const struct acct_row *r, char *buf, size_t len);
    /* Or, instead, a job attribute (jobattr.h): its text, blank on a
     * step's line. */
    const struct job_attr *attr;
};

struct acct_column {
    const struct acct_field *field;
    int width; /* as the field's, or the %N given */
};

struct acct_format {
    struct acct_column *cols;
    size_t ncols;
};

/* A table of fields, sorted by name: sacct's (its own and the job
 * attributes of jobattr.h), or another command's with the same layouts
 * (sstat, stat_fields.h). */
struct acct_table {
    const struct acct_field *fields;
    size_t n;
};

/* The field 'name' names (exactly, else as a prefix, any case), or
 * NULL. */
const struct acct_field *acct_field_find (const char *name);

/* Append the columns of comma-separated 'list' to fmt. 0, or -1 with
 * errno (EINVAL, ENOMEM) and err ("Invalid field requested: \"foo\"");
 * fmt is then as it was. */
int acct_format_parse (struct acct_format *fmt, const char *list,
                       arbor_error_t *err);
/* The same with the fields of table t. */
int acct_format_parse_in (struct acct_format *fmt, const char *list,
                          const struct acct_table *t, arbor_error_t *err);
void acct_format_clear (struct acct_format *fmt);

/* Does a column need the steps even when they are not shown (-X): the
 * job's TotalCPU, UserCPU and SystemCPU are its steps' sums. */
bool acct_format_needs_steps (const struct acct_format *fmt);

/* -e: every field name, four to a line. */
void acct_fields_list (FILE *f);
void acct_fields_list_in (FILE *f, const struct acct_table *t);

/* The value of field 'fd' for row r into buf (ACCT_VALUE_MAX is always
 * enough). Returns buf. */
const char *acct_field_value (const struct acct_field *fd,
                              const struct acct_row *r, char *buf, size_t len);

enum acct_layout {
    ACCT_TABLE,
    ACCT_PARSABLE,  /* -p: '|' after each value */
    ACCT_PARSABLE2, /* -P: '|' between values */
};

void acct_print_header (FILE *f, const struct acct_format *fmt,
                        enum acct_layout layout);
void acct_print_row (FILE *f, const struct acct_format *fmt,
                     enum acct_layout layout, const struct acct_row *r);

#endif
