/* stat_fields.c - see stat_fields.h. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "acct/acct_text.h"
#include "jobsel.h"
#include "stat_fields.h"
#include "stat_step.h"

static const struct stat_step *step_of (const struct acct_row *r)
{
    return r->ext;
}

static void put_u64 (char *b, size_t n, uint64_t v)
{
    snprintf (b, n, "%" PRIu64, v);
}

/* The three ways a measure's values show, value first. */
static void count (uint64_t v, char *b, size_t n)
{
    put_u64 (b, n, v);
}

static void size_kb (uint64_t kb, char *b, size_t n)
{
    acct_text_size (kb, ACCT_UNIT_K, b, n);
}

static void cpu_cs (uint64_t cs, char *b, size_t n)
{
    acct_text_cpu (cs * 10000, b, n);
}

/* Max<X>, Max<X>Node, Max<X>Task, Ave<X> for one measure: 'show' prints
 * its values. */
#define MEASURE_FIELDS(fn, member, show)                                 \
    static void f_max_##fn (const struct acct_row *r, char *b, size_t n) \
    {                                                                    \
        show (step_of (r)->member.ext.value, b, n);                      \
    }                                                                    \
    static void f_max_##fn##_node (const struct acct_row *r, char *b,    \
                                   size_t n)                             \
    {                                                                    \
        snprintf (b, n, "%s", step_of (r)->member.ext.node);             \
    }                                                                    \
    static void f_max_##fn##_task (const struct acct_row *r, char *b,    \
                                   size_t n)                             \
    {                                                                    \
        if (step_of (r)->member.ext.set)                                 \
            put_u64 (b, n, step_of (r)->member.ext.task);                \
    }                                                                    \
    static void f_ave_##fn (const struct acct_row *r, char *b, size_t n) \
    {                                                                    \
        show (stat_step_ave (step_of (r), &step_of (r)->member), b, n);  \
    }

MEASURE_FIELDS (cpu, cpu_cs, cpu_cs)
MEASURE_FIELDS (rss, rss_kb, size_kb)
MEASURE_FIELDS (vsize, vsize_kb, size_kb)
MEASURE_FIELDS (pages, pages, count)
MEASURE_FIELDS (read, read_kb, size_kb)
MEASURE_FIELDS (write, write_kb, size_kb)

static void f_job_id (const struct acct_row *r, char *b, size_t n)
{
    jobsel_id_str (step_of (r)->job_id, step_of (r)->step_id, b, n);
}

static void f_nodelist (const struct acct_row *r, char *b, size_t n)
{
    snprintf (b, n, "%s", step_of (r)->nodelist);
}

static void f_ntasks (const struct acct_row *r, char *b, size_t n)
{
    put_u64 (b, n, step_of (r)->ntasks);
}

static void f_pids (const struct acct_row *r, char *b, size_t n)
{
    snprintf (b, n, "%s", step_of (r)->pids);
}

/* Sorted by name, any case (prefixes take the first match). MinCPU is
 * the task with the least CPU: f_max_cpu* show that extreme. */
static const struct acct_field stat_fields[] = {
    { "AveCPU", 10, 0, f_ave_cpu, NULL },
    { "AveDiskRead", 14, 0, f_ave_read, NULL },
    { "AveDiskWrite", 14, 0, f_ave_write, NULL },
    { "AvePages", 10, ACCT_F_NUMBER, f_ave_pages, NULL },
    { "AveRSS", 10, 0, f_ave_rss, NULL },
    { "AveVMSize", 10, 0, f_ave_vsize, NULL },
    { "JobID", -12, 0, f_job_id, NULL },
    { "MaxDiskRead", 14, 0, f_max_read, NULL },
    { "MaxDiskReadNode", 15, 0, f_max_read_node, NULL },
    { "MaxDiskReadTask", 15, ACCT_F_NUMBER, f_max_read_task, NULL },
    { "MaxDiskWrite", 14, 0, f_max_write, NULL },
    { "MaxDiskWriteNode", 16, 0, f_max_write_node, NULL },
    { "MaxDiskWriteTask", 16, ACCT_F_NUMBER, f_max_write_task, NULL },
    { "MaxPages", 10, ACCT_F_NUMBER, f_max_pages, NULL },
    { "MaxPagesNode", 14, 0, f_max_pages_node, NULL },
    { "MaxPagesTask", 14, ACCT_F_NUMBER, f_max_pages_task, NULL },
    { "MaxRSS", 10, 0, f_max_rss, NULL },
    { "MaxRSSNode", 10, 0, f_max_rss_node, NULL },
    { "MaxRSSTask", 10, ACCT_F_NUMBER, f_max_rss_task, NULL },
    { "MaxVMSize", 10, 0, f_max_vsize, NULL },
    { "MaxVMSizeNode", 14, 0, f_max_vsize_node, NULL },
    { "MaxVMSizeTask", 14, ACCT_F_NUMBER, f_max_vsize_task, NULL },
    { "MinCPU", 10, 0, f_max_cpu, NULL },
    { "MinCPUNode", 10, 0, f_max_cpu_node, NULL },
    { "MinCPUTask", 10, ACCT_F_NUMBER, f_max_cpu_task, NULL },
    { "Nodelist", 20, 0, f_nodelist, NULL },
    { "NTasks", 8, ACCT_F_NUMBER, f_ntasks, NULL },
    { "Pids", 20, 0, f_pids, NULL },
};

const struct acct_table stat_table = {
    stat_fields, sizeof (stat_fields) / sizeof (stat_fields[0])
};
