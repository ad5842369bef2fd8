/* conf.h - arbor.conf, Slurm's Key=Value style.
 *
 * One file describes the cluster to every daemon and command:
 *
 *   ClusterName=demo
 *   ControlAddr=127.0.0.1        # where arbor-ctld listens
 *   CtldPort=6817                # alias SlurmctldPort
 *   NodedPort=6818               # alias SlurmdPort
 *   TreeWidth=16
 *   KillWait=30
 *   LaunchTimeout=10             # seconds a launch fan-out may take
 *   SpoolDir=/var/spool/arbor/%n # %n: node name
 *   StateSaveLocation=/var/lib/arbor
 *   MungeSocket=/run/munge/munge.socket.2
 *   ArborUser=root               # alias SlurmUser: uid of the daemons
 *   CtldLogFile=/var/log/arbor/ctld.log
 *   NodedLogFile=/var/log/arbor/noded-%n.log
 *   DebugLevel=info              # ctld; NodedDebugLevel for noded/stepd
 *   CredExpire=300               # seconds a step credential stays valid
 *   StepdPath=/usr/sbin/arbor-stepd
 *   ProctrackType=proctrack/cgroup # or proctrack/pgid
 *   TaskPlugin=none              # or affinity (task/affinity)
 *   CgroupRoot=arbor             # cgroup subtree of the steps
 *   CgroupVersion=v2             # force v1 or v2 (default: detect)
 *   PluginDir=/usr/lib/arbor     # where <type>_<name>.so are found
 *   Epilog=/etc/arbor/epilog.sh  # run as root on each node at job end
 *   PrologEpilogTimeout=60       # seconds an epilog may run
 *   UnkillableStepTimeout=60     # seconds after SIGKILL before draining
 *   OverTimeLimit=0              # minutes a job may run past its limit
 *   KillOnBadExit=0              # 1: end a step when a task exits non-zero
 *   MaxJobCount=10000            # job records arbor-ctld keeps at once
 *   MaxSessionsPerUser=0         # ctld sessions of one uid (0: derived)
 *   MaxSessionsPerHost=0         # ctld sessions from one address (0: derived)
 *   SessionIdleTimeout=300       # s an idle ctld session lives (0: forever)
 *   MailProg=/bin/mail           # sends job mail (--mail-type)
 *   MailDomain=example.com       # user@DOMAIN when --mail-user is not given
 *   Licenses=fluent:30,ansys     # cluster-wide licenses (count default 1)
 *   GresTypes=gpu,nic            # generic resources Gres= may name
 *   ConstrainDevices=yes         # steps open only their resources' devices
 *   NodeName=n[1-4] NodeAddr=127.0.1.[1-4] CPUs=4 RealMemory=2000
 *       Gres=gpu:a100:4 Features=a100,ib  # see gres.conf(5) for devices
 *   PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
 * DefaultTime=60
 *
 * Keys are case-insensitive; '#' starts a comment; blank lines are ignored.
 * Every error names the file, the line and the key.
 */
#ifndef ARBOR_CONF_H
#define ARBOR_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

#define CONF_DEFAULT_CTLD_PORT 6817
#define CONF_DEFAULT_NODED_PORT 6818

struct conf_node {
    char *name;
    char *addr;           /* NodeAddr, defaults to the name */
    uint32_t cpus;        /* CPUs, default 1 */
    uint32_t real_memory; /* RealMemory in MB, default 1 */
    uint32_t cpu_speed;   /* CpuSpeed: relative speed of its cores, for
                             load-aware selection (ctld/sched/loadsel.h); 1 */
    uint32_t tmp_disk;    /* TmpDisk in MB (what --tmp asks); default 0 */
    char *features;       /* Features=a100,ib as written; NULL none */
    char *gres;           /* Gres=gpu:a100:4,nic:1 as written (gresspec.h);
                             NULL none */
};

struct conf_part {
    char *name;
    char **nodes; /* expanded Nodes= list; "ALL" means every node */
    size_t nnodes;
    bool is_default;
    uint32_t max_time;            /* minutes, TIME_INFINITE by default */
    uint32_t default_time;        /* minutes, defaults to max_time */
    uint32_t priority_tier;       /* PriorityTier: higher goes first; 1 */
    uint32_t priority_job_factor; /* PriorityJobFactor, default 1 */
};

/* Is 'word' one of LaunchParameters' comma-separated words? */
struct conf;
bool conf_launch_param (const struct conf *c, const char *word);

/* PrologFlags: the Prolog (and the extern step) at allocation time,
 * on every node, before the job is granted; Contain also starts an
 * extern step on each node for the life of the job. */
#define CONF_PROLOG_ALLOC 1u
#define CONF_PROLOG_CONTAIN 2u

struct conf {
    char *path;
    char *cluster_name; /* default "arbor" */
    char *control_addr; /* default "127.0.0.1" */
    uint16_t ctld_port;
    uint16_t noded_port;
    uint32_t tree_width;       /* default 16, >= 1 */
    uint32_t kill_wait;        /* seconds, default 30 */
    uint32_t launch_timeout;   /* seconds, default 10 */
    uint32_t cred_expire;      /* seconds, default 300 */
    char *spool_dir;           /* may hold %n; default /var/spool/arbor/%n */
    char *state_save_location; /* default /var/lib/arbor */
    char *munge_socket;        /* NULL: libmunge's default */
    char *arbor_user;          /* default "root" */
    char *noded_user;          /* NodedUser: the noded's uid, default
                                * "root"; connections to a noded are
                                * keyed for it (session.h) */
    char *ctld_log_file;       /* NULL: stderr */
    char *noded_log_file;      /* may hold %n; NULL: stderr */
    int debug_level;           /* LOG_LVL_*, default info */
    int noded_debug_level;     /* default info */
    char *stepd_path;          /* NULL: arbor-stepd beside arbor-noded */
    char *proctrack_type;      /* default "proctrack/cgroup" */
    char *task_plugin;         /* default "none" */
    char *cgroup_root;         /* default "arbor" */
    char *cgroup_version;      /* NULL: detect; "v1" or "v2" to force */
    char *plugin_dir;          /* NULL: beside the programs, see plugin.h */
    char *epilog;              /* NULL: none */
    char *prolog;              /* NULL: none */
    uint32_t prolog_flags;     /* CONF_PROLOG_*: PrologFlags */
    uint32_t prolog_epilog_timeout;   /* seconds, default 60 */
    char *task_prolog;                /* TaskProlog: as the user before each
                                         task (stepd/task_prolog.c); NULL none */
    char *task_epilog;                /* TaskEpilog: ... after each task */
    char *propagate_rlimits;          /* PropagateResourceLimits (rlimits.h);
                                         NULL: ALL */
    char *propagate_rlimits_except;   /* PropagateResourceLimitsExcept */
    uint32_t unkillable_step_timeout; /* seconds, default 60 */
    uint32_t over_time_limit;         /* minutes, default 0 */
    uint32_t kill_on_bad_exit;        /* 0 or 1, default 0 */
    uint32_t max_job_count;     /* job records the ctld keeps, default 10000 */
    uint32_t max_sessions_user; /* ctld sessions of one uid; 0: derived */
    uint32_t max_sessions_host; /* ... from one address; 0: derived */
    uint32_t session_idle_timeout; /* s; 0: sessions never idle out */
    uint32_t min_job_age;    /* s an ended job stays listed, default 300 */
    char *mail_prog;         /* MailProg: job mail (ctld/notify/mail.h); NULL:
                                /bin/mail */
    char *mail_domain;       /* MailDomain: added to the default --mail-user
                                ("user@DOMAIN"); NULL: none */
    char *acct_storage_type; /* AccountingStorageType: NULL or
                                "accounting_storage/sqlite" (the default),
                                or "accounting_storage/none" */
    char *acct_storage_loc;  /* its database file; NULL:
                                StateSaveLocation/arbor_acct.db */
    char *acct_storage_enforce; /* AccountingStorageEnforce: NULL none, or
                                   "associations,limits,..."
                                   (ctld/assoc/policy.h) */
    char *scheduler_type;       /* NULL: "sched/builtin"; or "sched/backfill" */
    char *scheduler_params; /* SchedulerParameters (ctld/sched/backfill.h) */
    char *cpu_hours_limits_file; /* ctld/sched/cpulimits.h; NULL: no limits */
    /* Priority (ctld/sched/prio.h) */
    char *priority_type;          /* NULL: "priority/basic" */
    uint32_t priority_weight_age; /* PriorityWeight*, default 0 */
    uint32_t priority_weight_job_size;
    uint32_t priority_weight_partition;
    uint32_t priority_weight_qos; /* PriorityWeightQOS (ctld/sched/prio.h) */
    uint32_t priority_max_age;    /* minutes, default 7 days */
    bool priority_favor_small;    /* small jobs get the larger size factor */
    char *priority_presets;       /* priority/wait: "default:Y,user:Y..." */
    double priority_wait_weight;  /* priority/wait: k, default 1 */
    double priority_threshold;    /* priority/wait: P_th; 0: none */
    char *select_load_params; /* SelectLoadParameters (ctld/sched/loadsel.h);
                                 NULL: load-blind selection */
    uint32_t node_register_interval; /* s between a noded's registrations
                                        (load, memory, jobs); default 30 */
    uint32_t max_array_size; /* array indexes are below it, default 1001 */
    uint32_t job_requeue;    /* 1 (default): batch jobs are requeued on a
                                node failure unless --no-requeue */
    char *mpi_default;       /* MpiDefault, canonical (conf_mpi_type);
                              * default "none" */
    char *mpi_params;        /* MpiParams, NULL: none */
    char *launch_params;     /* LaunchParameters, NULL: none; Arbor acts on
                                use_interactive_step (see conf_launch_param) */
    char *licenses;          /* Licenses=NAME[:COUNT],...: the cluster's
                                licenses (ctld/sched/licenses.h); NULL none */
    char *gres_types;        /* GresTypes=gpu,nic: the resources Gres= and
                                gres.conf may name (gpu too, as Slurm);
                                NULL none */
    bool constrain_devices;  /* ConstrainDevices: a step's processes open
                                only the device files of its resources */
    bool nodes_share_host;   /* NodesShareHost: every node runs on this one
                                host (arbor local --netns); conf_node_nests */
    struct conf_node *nodes;
    size_t nnodes;
    struct conf_part *parts;
    size_t nparts;
    char **raw_keys; /* global keys as set: canonical name ... */
    char **raw_vals; /* ... and value, for conf_get() */
    size_t nraw;
};

/* Load 'path' (NULL: conf_default_path()). Returns NULL with errno and
 * err ("arbor.conf:12: CPUs: 'x' is not a number") on failure. */
struct conf *conf_load (const char *path, arbor_error_t *err);
/* Parse text as if read from 'name' (used by tests and arbor local). */
struct conf *conf_parse (const char *text, const char *name,
                         arbor_error_t *err);
void conf_destroy (struct conf *c);

/* $ARBOR_CONF, else $SLURM_CONF, else ARBOR_SYSCONFDIR/arbor.conf.
 * Borrowed. */
const char *conf_default_path (void);

/* Borrowed lookups; NULL / -1 if absent. */
const struct conf_node *conf_node_find (const struct conf *c, const char *name);
int conf_node_index (const struct conf *c, const char *name);
const struct conf_part *conf_part_find (const struct conf *c, const char *name);
const struct conf_part *conf_part_default (const struct conf *c);

/* The canonical name of an MPI type as --mpi, MpiDefault or
 * SLURM_MPI_TYPE write it: "none", "pmix" (also Slurm's "pmix_v3",
 * "pmix_v4", "pmix_v5"), "pmi2"; NULL with errno EINVAL for anything
 * else. Borrowed constant. */
const char *conf_mpi_type (const char *spec);

/* Expand %n in 'pattern' with 'node' (and %% to %). Caller frees. */
char *conf_expand (const char *pattern, const char *node);

/* Is 'name' one of GresTypes' resources (any case, as Slurm)? */
bool conf_gres_type (const struct conf *c, const char *name);

/* The value of a global key as written (Key or its Slurm alias, any case),
 * or NULL if the file did not set it. Borrowed. Plugins read their keys
 * through this (struct plugin_env's conf_get). */
const char *conf_get (const struct conf *c, const char *key);

/* uid of ArborUser, or -1 if the user does not exist. */
long conf_arbor_uid (const struct conf *c);
/* The uid of NodedUser, or -1 if unknown. */
long conf_noded_uid (const struct conf *c);
/* A user's uid by name (a numeric name is a uid), or -1 if unknown. */
long conf_user_uid (const char *user);

/* The emulation rule: true when 'node' is configured with a loopback
 * NodeAddr (127.0.0.0/8, ::1 or "localhost"; NodeAddr defaults to the
 * node's name), or NodesShareHost=YES (arbor local --netns: each node in
 * its own network namespace, all on one kernel). Such nodes are arbor
 * local's emulated nodes, several per host, so each needs its own
 * node_<name> cgroup level. Real nodes never listen on loopback addresses.
 * Unknown node: false. */
bool conf_node_nests (const struct conf *c, const char *node);

#endif
