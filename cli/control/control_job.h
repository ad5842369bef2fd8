/* control_job.h - what arbor control show job and show step say about a
 * job or a step, read from its job view (jobview.h) / a STEP_INFO_REPLY,
 * and their text records.
 *
 * A control_job gathers the facts scontrol shows of one job view (with
 * what is worked out here: the group's name, the batch host, the exit
 * code split into status and signal); a control_step those of one reply
 * entry (each list read only within its own count, so an older
 * controller's shorter lists give zeros and empty text). The text (here)
 * and the JSON (control_json.h) are both built from them, so they cannot
 * disagree. Pure functions, unit tested.
 */
#ifndef ARBOR_CLI_CONTROL_JOB_H
#define ARBOR_CLI_CONTROL_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "control_rec.h"
#include "jobview.h"
#include "proto.h"

#define CONTROL_HOST_MAX 256

/* One job. Text is borrowed from the view (never NULL: "" if absent). */
struct control_job {
    uint32_t job_id;
    uint32_t array_job_id; /* 0: not an array task */
    uint32_t array_task_id;
    const char *array_tasks; /* a pending array's folded record: its task
                                ids, "2-7,9" (ArrayTaskId=); NULL for one
                                job or task. The caller's, as steps */
    const char *name;
    const char *user;
    uint32_t uid, gid;
    char group[64];    /* gid's name on this host, or the number */
    uint32_t priority; /* a pending job's; 0 once it runs */
    int32_t nice;
    const char *account;
    const char *qos; /* "normal" when the record has none (jv_qos) */
    const char *state;
    const char *reason;
    const char *dependency;
    bool requeue;
    uint32_t restarts;
    bool batch;
    int32_t exit_status, exit_signal; /* from the 128+signal convention */
    int64_t run_secs;                 /* started: until its end or now */
    uint32_t time_limit;              /* minutes or TIME_INFINITE */
    uint64_t submit_time, eligible_time, start_time, end_time; /* 0 none */
    uint64_t expected_start; /* pending: planned by backfill, 0 none */
    const char *partition;
    const char *submit_host;
    const char *req_nodelist, *exc_nodelist;
    const char *nodelist;
    char batch_host[CONTROL_HOST_MAX]; /* its first node, or "" */
    uint32_t nnodes, ncpus, ntasks, cpus_per_task;
    uint64_t mem_per_node, mem_per_cpu; /* MB asked for, 0 none */
    uint64_t mem_total;                 /* MB: what TRES calls mem */
    const char *command;
    const char *licenses; /* held, else asked: "a:2,b:1"; "" none */
    const char *features; /* -C as given; "" none */
    const char *tres_per_node, *tres_per_job, *tres_per_task; /* "gres/gpu:2";
                                                                 "" none */
    const char *gres_alloc; /* held: "gres/gpu=2"; "" none */
    char *const *node_gres; /* per node of nodelist: gresalloc text */
    uint32_t nnode_gres;
    char *const *node_gres_shown; /* the same as -d prints it, with types
                                     ("gpu:a100:2(IDX:0-1)"); a 2.13
                                     controller of before: none */
    uint32_t nnode_gres_shown;
    bool details;          /* -d: per node GRES lines */
    uint32_t time_min;     /* --time-min, minutes, 0 none */
    uint32_t min_cpus;     /* --mincpus, 0 none */
    uint64_t min_tmp;      /* --tmp, MB, 0 none */
    uint32_t nnodes_max;   /* a pending -N MIN-MAX's MAX, 0 none */
    const char *mail_user; /* --mail-user, "" none */
    uint32_t mail_type;    /* MAIL_* (mailtype.h), 0 none */
    const char *work_dir;
    const char *std_in, *std_out, *std_err; /* batch jobs; else "" */
    uint32_t nsteps;                        /* running steps */
    const struct job_view *view; /* the job attributes' (jobattr.h) */
    const char *steps; /* their ids, "5.batch,5.0" ("" none), shown after
                          RunningSteps= when not NULL (-d); the caller's,
                          control_job_get leaves it NULL */
};

/* Fill 'j' from the job view 'v' (j borrows its text: valid while v
 * is); 'now' gives a running job its RunTime. */
void control_job_get (const struct job_view *v, time_t now,
                      struct control_job *j);

/* Add j's lines to 'rec' in scontrol's order. 0, or -1 with errno
 * ENOMEM. */
int control_job_text (const struct control_job *j, struct control_rec *rec);

/* One running step. */
struct control_step {
    uint32_t job_id;
    uint32_t step_id; /* as on the wire: STEP_ID_BATCH ... */
    char id[48];      /* "5.0", "5.batch", "5_3.0" for an array task */
    uint32_t array_job_id, array_task_id;
    const char *name;
    const char *user;
    uint32_t uid;
    const char *partition;
    uint64_t start_time;
    const char *nodelist;
    uint32_t nnodes, ncpus, ntasks;
    uint64_t mem_mb; /* on all its nodes */
};

void control_step_get (const struct msg_step_info_reply *r, uint32_t i,
                       struct control_step *s);

int control_step_text (const struct control_step *s, struct control_rec *rec);

#endif
