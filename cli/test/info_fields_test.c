/* info_fields_test.c - sinfo's layouts (info_fields.c, info_rows.c,
 * fmt.c) on a made-up NODE_INFO_REPLY and two partitions: the default,
 * -s, -l, -N, -N -l and -R formats column by column as sinfo prints
 * them, field values (state abbreviations with '*', the default
 * partition's '*', limits, counts, "4+" minima, ranges, who set a reason
 * and when), widths and justification, -O names, which nodes share a
 * line (and -e), the -p/-t/-R/-d/-r filters, -S, and the errors for an
 * unknown field, name, state or sort key. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"
#include "fmt.h"
#include "info/info.h"
#include "states.h"
#include "timestr.h"

#define N 10
#define T_MAINT 1796034600u /* 2026-11-30T10:30:00Z */
#define T_LOST 1796041800u  /* 2026-11-30T12:30:00Z */
#define NOBODY 3999999u     /* a uid no test machine has */
#define NA UINT32_MAX

/* node1-4 a row of working nodes, node5 drained, node6 draining (a job
 * still there), node7 down and silent, node8 completing, node9 idle but
 * silent, node10 only in "batch". */
static char *names[N] = { "node1", "node2", "node3", "node4", "node5",
                          "node6", "node7", "node8", "node9", "node10" };
static char *states[N] = { "IDLE",  "IDLE",     "MIXED", "ALLOCATED",
                           "DRAIN", "DRAINING", "DOWN",  "COMPLETING",
                           "IDLE",  "IDLE" };
static char *reasons[N] = { "", "", "", "", "maint", "maint", "Not responding",
                            "", "", "" };
static char *addrs[N] = { "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4",
                          "10.0.0.5", "10.0.0.6", "10.0.0.7", "10.0.0.8",
                          "10.0.0.9", "" };
static char *parts[N] = { "debug,batch", "debug", "debug", "debug", "debug",
                          "debug",       "debug", "debug", "debug", "batch" };
static uint32_t cpus[N] = { 4, 4, 4, 4, 4, 4, 4, 4, 8, 4 };
static uint32_t alloc_cpus[N] = { 0, 0, 2, 4, 0, 1, 0, 4, 0, 0 };
static uint32_t mem[N] = { 1000, 1000, 1000, 1000, 1000,
                           1000, 1000, 1000, 2000, 1000 };
static uint32_t alloc_mem[N] = { 0, 0, 100, 200, 0, 50, 0, 0, 0, 0 };
static uint32_t loads[N] = { 1, 0, 150, 400, 0, 37, NA, 0, NA, 5 };
static uint32_t free_mems[N] = {
    900, 950, 800, 700, 990, 900, NA, 990, NA, 999
};
static uint32_t speeds[N] = { 0 };
static uint32_t silent[N] = { 0, 0, 0, 0, 0, 0, 1, 0, 1, 0 };
static uint32_t reason_uids[N] = { 0, 0, 0, 0, 0, 0, NOBODY, 0, 0, 0 };
static uint32_t reason_times[N] = { 0,       0,      0, 0, T_MAINT,
                                    T_MAINT, T_LOST, 0, 0, 0 };

static struct msg_node_info_reply reply (void)
{
    struct msg_node_info_reply r = { 0 };

#define SET(f, v) (r.f = v, r.f##_count = N)
    SET (names, names);
    SET (states, states);
    SET (reasons, reasons);
    SET (addrs, addrs);
    SET (partitions, parts);
    SET (cpus, cpus);
    SET (alloc_cpus, alloc_cpus);
    SET (real_memory, mem);
    SET (alloc_memory, alloc_mem);
    SET (cpu_loads, loads);
    SET (free_mems, free_mems);
    SET (cpu_speeds, speeds);
    SET (not_responding, silent);
    SET (reason_uids, reason_uids);
    SET (reason_times, reason_times);
#undef SET
    return r;
}

static struct conf_part conf_parts[] = {
    { .name = "debug",
      .is_default = true,
      .max_time = 60,
      .default_time = 30,
      .priority_tier = 1,
      .priority_job_factor = 1 },
    { .name = "batch",
      .max_time = TIME_INFINITE,
      .default_time = TIME_INFINITE,
      .priority_tier = 2,
      .priority_job_factor = 3 },
};
static struct conf conf = { .cluster_name = "arbor",
                            .noded_port = 6818,
                            .parts = conf_parts,
                            .nparts = 2 };

struct view {
    bool lng;                /* spec is a -O list */
    bool node_view;          /* -N */
    bool exact;              /* -e */
    bool noheader;           /* -h */
    const char *sort;        /* -S; NULL: sinfo's default */
    const char *partitions;  /* -p */
    const char *states;      /* -t */
    bool reasons;            /* -R */
    bool dead, live;         /* -d, -r */
    const char *time_format; /* SLURM_TIME_FORMAT */
};

/* What arbor info prints for format 'spec' (and 'v'), as cmd_info.c
 * builds it. Caller frees. */
static char *table (const char *spec, struct view v)
{
    struct msg_node_info_reply r = reply ();
    struct info_data d = {
        .r = &r, .conf = &conf, .exact = v.exact, .time_format = v.time_format
    };
    struct info_states st;
    struct info_filter flt = { .partitions = v.partitions,
                               .states = v.states ? &st : NULL,
                               .reasons = v.reasons,
                               .responding = v.dead   ? 0
                                             : v.live ? 1
                                                      : -1 };
    struct info_rows rows;
    struct info_sort keys;
    struct fmt f;
    arbor_error_t err;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&buf, &len);

    assert_non_null (out);
    if (v.lng)
        assert_int_equal (
            fmt_parse_long (spec, info_fields, info_nfields, &f, &err), 0);
    else
        assert_int_equal (info_format_parse (spec, &f, &err), 0);
    assert_int_equal (info_sort_parse (v.sort        ? v.sort
                                       : v.node_view ? INFO_SORT_NODE
                                                     : INFO_SORT,
                                       &keys, &err),
                      0);
    if (v.states)
        assert_int_equal (info_states_parse (v.states, &st, &err), 0);
    assert_int_equal (info_data_users (&d), 0);
    assert_int_equal (info_rows_build (&d, &f, &flt, v.node_view, &rows), 0);
    info_rows_sort (&rows, &keys);
    info_format_widths (&f, &rows);
    if (!v.noheader)
        fmt_print_header (out, &f);
    for (size_t k = 0; k < rows.n; k++)
        fmt_print_row (out, &f, info_field_value, &rows.v[k]);
    fclose (out);
    info_rows_free (&rows);
    info_data_free (&d);
    fmt_free (&f);
    return buf;
}

#define VIEW(...) ((struct view){ __VA_ARGS__ })

static void expect (const char *spec, struct view v, const char *want)
{
    char *got = table (spec, v);

    if (getenv ("SHOW"))
        printf ("==== %s\n%s", spec, got);
    else if (strcmp (got, want))
        fail_msg ("format \"%s\":\n--- got\n%s--- want\n%s", spec, got, want);
    free (got);
}

/* The value of -o letter 'c' for 'row'. */
static void info_fields_value_is (const struct info_row *row, char c,
                                  const char *want)
{
    char buf[256];

    for (size_t k = 0; k < info_nfields; k++)
        if (info_fields[k].letter == c) {
            assert_string_equal (
                info_field_value (info_fields[k].id, row, buf, sizeof (buf)),
                want);
            return;
        }
    fail_msg ("no letter %c", c);
}

/* sinfo's default: a line per partition and state, partitions as
 * configured (the default one with '*'), states in -t's reverse order;
 * a silent node apart with its '*'. */
static void test_default (void **state)
{
    (void)state;
    expect (INFO_FORMAT, VIEW (0),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "debug*       up    1:00:00      1   comp node8\n"
            "debug*       up    1:00:00      1   drng node6\n"
            "debug*       up    1:00:00      1  drain node5\n"
            "debug*       up    1:00:00      1    mix node3\n"
            "debug*       up    1:00:00      1  alloc node4\n"
            "debug*       up    1:00:00      2   idle node[1-2]\n"
            "debug*       up    1:00:00      1  idle* node9\n"
            "debug*       up    1:00:00      1  down* node7\n"
            "batch        up   infinite      2   idle node[1,10]\n");
}

/* -s, -l, -N, -N -l, -R and -R -l as sinfo prints them. */
static void test_layouts (void **state)
{
    (void)state;
    expect (INFO_FORMAT_SUMMARIZE, VIEW (0),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T)  NODELIST\n"
            "debug*       up    1:00:00          3/3/3/9  node[1-9]\n"
            "batch        up   infinite          0/2/0/2  node[1,10]\n");
    expect (INFO_FORMAT_LONG, VIEW (0),
            "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROU"
            "PS  NODES       STATE NODELIST\n"
            "debug*       up    1:00:00 1-infinite   no       NO        a"
            "ll      1  completing node8\n"
            "debug*       up    1:00:00 1-infinite   no       NO        a"
            "ll      1    draining node6\n"
            "debug*       up    1:00:00 1-infinite   no       NO        a"
            "ll      1     drained node5\n"
            "debug*       up    1:00:00 1-infinite   no       NO        a"
            "ll      1       mixed node3\n"
            "debug*       up    1:00:00 1-infinite   no       NO        a"
            "ll      1   allocated node4\n"
            "debug*       up    1:00:00 1-infinite   no       NO        a"
            "ll      2        idle node[1-2]\n"
            "debug*       up    1:00:00 1-infinite   no       NO        a"
            "ll      1       idle* node9\n"
            "debug*       up    1:00:00 1-infinite   no       NO        a"
            "ll      1       down* node7\n"
            "batch        up   infinite 1-infinite   no       NO        a"
            "ll      2        idle node[1,10]\n");
    expect (INFO_FORMAT_NODE, VIEW (.node_view = true),
            "NODELIST   NODES PARTITION STATE \n"
            "node1          1 debug*    idle  \n"
            "node1          1 batch     idle  \n"
            "node2          1 debug*    idle  \n"
            "node3          1 debug*    mix   \n"
            "node4          1 debug*    alloc \n"
            "node5          1 debug*    drain \n"
            "node6          1 debug*    drng  \n"
            "node7          1 debug*    down* \n"
            "node8          1 debug*    comp  \n"
            "node9          1 debug*    idle* \n"
            "node10         1 batch     idle  \n");
    expect (INFO_FORMAT_NODE_LONG, VIEW (.node_view = true),
            "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY "
            "TMP_DISK WEIGHT AVAIL_FE REASON              \n"
            "node1          1 debug*           idle    4    4:1:1   1000 "
            "       0      1   (null) none                \n"
            "node1          1 batch            idle    4    4:1:1   1000 "
            "       0      1   (null) none                \n"
            "node2          1 debug*           idle    4    4:1:1   1000 "
            "       0      1   (null) none                \n"
            "node3          1 debug*          mixed    4    4:1:1   1000 "
            "       0      1   (null) none                \n"
            "node4          1 debug*      allocated    4    4:1:1   1000 "
            "       0      1   (null) none                \n"
            "node5          1 debug*        drained    4    4:1:1   1000 "
            "       0      1   (null) maint               \n"
            "node6          1 debug*       draining    4    4:1:1   1000 "
            "       0      1   (null) maint               \n"
            "node7          1 debug*          down*    4    4:1:1   1000 "
            "       0      1   (null) Not responding      \n"
            "node8          1 debug*     completing    4    4:1:1   1000 "
            "       0      1   (null) none                \n"
            "node9          1 debug*          idle*    8    8:1:1   2000 "
            "       0      1   (null) none                \n"
            "node10         1 batch            idle    4    4:1:1   1000 "
            "       0      1   (null) none                \n");
    expect (INFO_FORMAT_REASONS, VIEW (.reasons = true),
            "REASON               USER      TIMESTAMP           NODELIST"
            "\n"
            "maint                root      2026-11-30T10:30:00 node[5-6]"
            "\n"
            "Not responding       3999999   2026-11-30T12:30:00 node7\n");
    expect (INFO_FORMAT_REASONS_LONG, VIEW (.reasons = true),
            "REASON               USER         TIMESTAMP           STATE "
            " NODELIST\n"
            "maint                root(0)      2026-11-30T10:30:00 drng  "
            " node6\n"
            "maint                root(0)      2026-11-30T10:30:00 drain "
            " node5\n"
            "Not responding       3999999(3999 2026-11-30T12:30:00 down* "
            " node7\n");
}

static void test_values (void **state)
{
    (void)state;
    expect ("%P %a %l %D %t %N %c %m %e %O %E %H %T %C", VIEW (0),
            "PARTITION AVAIL TIMELIMIT NODES STATE NODELIST CPUS MEMORY F"
            "REE_MEM CPU_LOAD REASON TIMESTAMP STATE CPUS(A/I/O/T)\n"
            "debug* up 1:00:00 1 comp node8 4 1000 990 0.00 none Unknown "
            "completing 4/0/0/4\n"
            "debug* up 1:00:00 1 drng node6 4 1000 900 0.37 maint 2026-11"
            "-30T10:30:00 draining 1/0/3/4\n"
            "debug* up 1:00:00 1 drain node5 4 1000 990 0.00 maint 2026-1"
            "1-30T10:30:00 drained 0/0/4/4\n"
            "debug* up 1:00:00 1 mix node3 4 1000 800 1.50 none Unknown m"
            "ixed 2/2/0/4\n"
            "debug* up 1:00:00 1 alloc node4 4 1000 700 4.00 none Unknown"
            " allocated 4/0/0/4\n"
            "debug* up 1:00:00 2 idle node[1-2] 4 1000 900-950 0.00-0.01 "
            "none Unknown idle 0/8/0/8\n"
            "debug* up 1:00:00 1 idle* node9 8 2000 N/A N/A none Unknown "
            "idle* 0/8/0/8\n"
            "debug* up 1:00:00 1 down* node7 4 1000 N/A N/A Not respondin"
            "g 2026-11-30T12:30:00 down* 0/0/4/4\n"
            "batch up infinite 2 idle node[1,10] 4 1000 900-999 0.01-0.05"
            " none Unknown idle 0/8/0/8\n");
    expect ("%R|%L|%p|%I|%s|%r|%h|%g|%S|%B|%M|%V|%A|%F|%X|%Y|%Z|%z|%w|%d|%f"
            "|%b|%G",
            VIEW (0),
            "PARTITION|DEFAULTTIME|PRIO_TIER|PRIO_JOB_FACTOR|JOB_SIZE|ROO"
            "T|OVERSUBSCRIBE|GROUPS|ALLOCNODES|MAX_CPUS_PER_NODE|PREEMPT_"
            "MODE|CLUSTER|NODES(A/I)|NODES(A/I/O/T)|SOCKETS|CORES|THREADS"
            "|S:C:T|WEIGHT|TMP_DISK|AVAIL_FEATURES|ACTIVE_FEATURES|GRES\n"
            "debug|30:00|1|1|1-infinite|no|NO|all|all|UNLIMITED|OFF|arbor"
            "|3/3|3/3/3/9|4+|1|1|4+:1:1|1|0|(null)|(null)|(null)\n"
            "batch|infinite|2|3|1-infinite|no|NO|all|all|UNLIMITED|OFF|ar"
            "bor|0/2|0/2/0/2|4|1|1|4:1:1|1|0|(null)|(null)|(null)\n");
    expect ("%N|%n|%o|%u|%U|%H|%E", VIEW (.node_view = true),
            "NODELIST|HOSTNAMES|NODE_ADDR|USER|USER|TIMESTAMP|REASON\n"
            "node1|node1|10.0.0.1|Unknown|Unknown|Unknown|none\n"
            "node2|node2|10.0.0.2|Unknown|Unknown|Unknown|none\n"
            "node3|node3|10.0.0.3|Unknown|Unknown|Unknown|none\n"
            "node4|node4|10.0.0.4|Unknown|Unknown|Unknown|none\n"
            "node5|node5|10.0.0.5|root|root(0)|2026-11-30T10:30:00|maint"
            "\n"
            "node6|node6|10.0.0.6|root|root(0)|2026-11-30T10:30:00|maint"
            "\n"
            "node7|node7|10.0.0.7|3999999|3999999(3999999)|2026-11-30T12:"
            "30:00|Not responding\n"
            "node8|node8|10.0.0.8|Unknown|Unknown|Unknown|none\n"
            "node9|node9|10.0.0.9|Unknown|Unknown|Unknown|none\n"
            "node10|node10|node10|Unknown|Unknown|Unknown|none\n");
    expect ("%D", VIEW (.noheader = true), "10\n");
    expect ("%D %c", VIEW (.noheader = true), "10 4+\n");
    expect ("%D %c", VIEW (.noheader = true, .exact = true),
            "9 4\n"
            "1 8\n");
    expect ("%5D|%.5D|%3N|%.3t|%%|%4P|", VIEW (0),
            "NODES|NODES|NOD|STA|%|PART|\n"
            "1    |    1|nod|com|%|debu|\n"
            "1    |    1|nod|drn|%|debu|\n"
            "1    |    1|nod|dra|%|debu|\n"
            "1    |    1|nod|mix|%|debu|\n"
            "1    |    1|nod|all|%|debu|\n"
            "2    |    2|nod|idl|%|debu|\n"
            "1    |    1|nod|idl|%|debu|\n"
            "1    |    1|nod|dow|%|debu|\n"
            "2    |    2|nod|idl|%|batc|\n");
    expect ("%H", VIEW (.reasons = true, .time_format = "%d.%m. %H:%M"),
            "TIMESTAMP\n"
            "30.11. 10:30\n"
            "30.11. 12:30\n");
}

static void test_long_names (void **state)
{
    (void)state;
    expect ("Partition:10,Nodes,StateCompact:.8,NodeList", VIEW (.lng = true),
            "PARTITION NODES                  STATENODELIST            \n"
            "debug*    1                       compnode8               \n"
            "debug*    1                       drngnode6               \n"
            "debug*    1                      drainnode5               \n"
            "debug*    1                        mixnode3               \n"
            "debug*    1                      allocnode4               \n"
            "debug*    2                       idlenode[1-2]           \n"
            "debug*    1                      idle*node9               \n"
            "debug*    1                      down*node7               \n"
            "batch     2                       idlenode[1,10]          \n");
    expect ("NodeList:8,StateLong:12,StateComplete,CPUsState,AllocMem:.9,"
            "Port:.6,Cluster:.7",
            VIEW (.lng = true, .node_view = true),
            "NODELISTSTATE       STATECOMPLETE       CPUS(A/I/O/T)       "
            " ALLOCMEM  PORTCLUSTER\n"
            "node1   idle        idle                0/4/0/4             "
            "        0  6818  arbor\n"
            "node2   idle        idle                0/4/0/4             "
            "        0  6818  arbor\n"
            "node3   mixed       mixed               2/2/0/4             "
            "      100  6818  arbor\n"
            "node4   allocated   allocated           4/0/0/4             "
            "      200  6818  arbor\n"
            "node5   drained     idle+drain          0/0/4/4             "
            "        0  6818  arbor\n"
            "node6   draining    mixed+drain         1/0/3/4             "
            "       50  6818  arbor\n"
            "node7   down*       down+not_responding 0/0/4/4             "
            "        0  6818  arbor\n"
            "node8   completing  allocated+completing4/0/0/4             "
            "        0  6818  arbor\n"
            "node9   idle*       idle+not_responding 0/8/0/8             "
            "        0  6818  arbor\n"
            "node10  idle        idle                0/4/0/4             "
            "        0  6818  arbor\n");
    expect ("reason:15,user:8,userlong:12,timestamp",
            VIEW (.lng = true, .reasons = true),
            "REASON         USER    USER        TIMESTAMP           \n"
            "maint          root    root(0)     2026-11-30T10:30:00 \n"
            "Not responding 3999999 3999999(39992026-11-30T12:30:00 \n");
}

static void test_filters (void **state)
{
    (void)state;
    expect ("%P %t %N", VIEW (.partitions = "batch"),
            "PARTITION STATE NODELIST\n"
            "batch idle node[1,10]\n");
    expect ("%P %t %N", VIEW (.states = "idle"),
            "PARTITION STATE NODELIST\n"
            "debug* idle node[1-2]\n"
            "debug* idle* node9\n"
            "batch idle node[1,10]\n");
    expect ("%P %t %N", VIEW (.states = "DRAIN,down"),
            "PARTITION STATE NODELIST\n"
            "debug* drng node6\n"
            "debug* drain node5\n"
            "debug* down* node7\n");
    expect ("%P %t %N", VIEW (.states = "idle&no_respond"),
            "PARTITION STATE NODELIST\n"
            "debug* idle* node9\n");
    expect ("%P %t %N", VIEW (.states = "maint"), "PARTITION STATE NODELIST\n");
    expect ("%P %t %N", VIEW (.dead = true),
            "PARTITION STATE NODELIST\n"
            "debug* idle* node9\n"
            "debug* down* node7\n");
    expect ("%P %t %N", VIEW (.live = true, .partitions = "debug"),
            "PARTITION STATE NODELIST\n"
            "debug* comp node8\n"
            "debug* drng node6\n"
            "debug* drain node5\n"
            "debug* mix node3\n"
            "debug* alloc node4\n"
            "debug* idle node[1-2]\n");
    expect ("%P %t %N", VIEW (.partitions = "nosuch"),
            "PARTITION STATE NODELIST\n");
    expect ("%D %N", VIEW (.partitions = "batch,debug"),
            "NODES NODELIST\n"
            "10 node[1-10]\n");
}

static void test_sort (void **state)
{
    (void)state;
    expect ("%P %t %N", VIEW (.sort = "-P,t"),
            "PARTITION STATE NODELIST\n"
            "debug* down* node7\n"
            "debug* idle node[1-2]\n"
            "debug* idle* node9\n"
            "debug* alloc node4\n"
            "debug* mix node3\n"
            "debug* drain node5\n"
            "debug* drng node6\n"
            "debug* comp node8\n"
            "batch idle node[1,10]\n");
    expect ("%N %c %O", VIEW (.node_view = true, .sort = "-c,N"),
            "NODELIST CPUS CPU_LOAD\n"
            "node9 8 N/A\n"
            "node1 4 0.01\n"
            "node2 4 0.00\n"
            "node3 4 1.50\n"
            "node4 4 4.00\n"
            "node5 4 0.00\n"
            "node6 4 0.37\n"
            "node7 4 N/A\n"
            "node8 4 0.00\n"
            "node10 4 0.05\n");
    expect ("%N %H", VIEW (.reasons = true, .node_view = true, .sort = "-H"),
            "NODELIST TIMESTAMP\n"
            "node7 2026-11-30T12:30:00\n"
            "node5 2026-11-30T10:30:00\n"
            "node6 2026-11-30T10:30:00\n");
}

/* What an older controller does not send (no not_responding, no reason
 * owners): responding nodes, "Unknown" owners; a state this client does
 * not know, in lower case. */
static void test_older_controller (void **state)
{
    struct msg_node_info_reply r = reply ();
    struct info_data d = { .r = &r, .conf = &conf };
    struct info_row row = { .d = &d, .part = 0 };
    uint32_t i = 4, uid;
    const char *user;
    char buf[64], num[16], *st[N];

    (void)state;
    memcpy (st, states, sizeof (st));
    r.states = st;
    row.nodes = &i;
    row.nnodes = 1;
    r.not_responding_count = 0;
    r.reason_uids_count = 0;
    r.reason_times_count = 0;
    assert_false (info_reason_by (&d, 4, &uid, &user, num, sizeof (num)));
    assert_int_equal (info_data_users (&d), 0);
    i = 6;
    assert_true (info_node_responding (&r, 6));
    info_fields_value_is (&row, 't', "down");
    info_fields_value_is (&row, 'u', "Unknown");
    info_fields_value_is (&row, 'H', "Unknown");
    info_fields_value_is (&row, 'E', "Not responding");
    st[6] = "FUTURE";
    assert_int_equal (info_node_state (&r, 6), NODE_STATE_COUNT);
    assert_string_equal (info_state_name (&r, 6, false, buf, sizeof (buf)),
                         "future");
    info_fields_value_is (&row, 'T', "future");
    info_data_free (&d);
}

/* Unknown letters, names, states and sort keys are errors naming them;
 * nothing is half parsed. */
static void test_errors (void **state)
{
    struct info_states st;
    struct info_sort keys;
    struct fmt f;
    arbor_error_t err;

    (void)state;
    assert_int_equal (info_format_parse ("%P %y %N", &f, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "invalid field in format '%y'");
    assert_null (f.v);
    assert_int_equal (fmt_parse_long ("Partition,Bogus:5", info_fields,
                                      info_nfields, &f, &err),
                      -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "'Bogus'"));
    assert_int_equal (info_format_parse ("%#P %.#N", &f, &err), 0);
    assert_int_equal (f.v[0].width, INFO_WIDTH_AUTO);
    assert_int_equal (f.v[2].width, INFO_WIDTH_AUTO);
    assert_true (f.v[2].right);
    fmt_free (&f);

    assert_int_equal (info_states_parse ("idle,sleepy", &st, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "Invalid node state specified: sleepy");
    assert_int_equal (info_states_parse ("idle&drain,down", &st, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (info_states_parse ("IDLE,Drng,,mixed", &st, &err), 0);
    assert_int_equal (st.n, 3);
    assert_false (st.all);

    assert_int_equal (info_sort_parse ("P,Q", &keys, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "Invalid sort specification: Q");
    assert_int_equal (info_sort_parse ("#N", &keys, &err), -1);
    assert_string_equal (err.text, "Invalid sort specification: #N");
    assert_int_equal (info_sort_parse ("-tt", &keys, &err), -1);
    assert_int_equal (info_sort_parse ("+#P,-t,,N", &keys, &err), 0);
    assert_int_equal (keys.n, 3);
    assert_true (keys.conf_order[0]);
    assert_true (keys.desc[1]);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_default),
        cmocka_unit_test (test_layouts),
        cmocka_unit_test (test_values),
        cmocka_unit_test (test_long_names),
        cmocka_unit_test (test_filters),
        cmocka_unit_test (test_sort),
        cmocka_unit_test (test_older_controller),
        cmocka_unit_test (test_errors),
    };
    setenv ("TZ", "UTC", 1); /* %H's text */
    return cmocka_run_group_tests (tests, NULL, NULL);
}
