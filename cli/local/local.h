/* local.h - "arbor local", the emulated cluster: what the command line
 * asks for, and the run (local.c).
 *
 * cmd_local.c parses the command line into a struct local_opts and calls
 * local_run() (or, for --restart, local_ctl_request(): local_ctl.h; its
 * messages go through local_say(): local_base.h); everything else, the
 * directory and arbor.conf, munged, the daemons, the control socket and
 * the teardown, happens in cli/local/, one header per file, all standing
 * on local_base.h (the cluster's one record and the helpers every file
 * uses).
 */
#ifndef ARBOR_CLI_LOCAL_H
#define ARBOR_CLI_LOCAL_H

#include <stdbool.h>
#include <stddef.h>

/* 127.0.1.1 .. 127.0.17.32 (254 addresses per 127.0.N.x); the ctld keeps
 * one connection per node, so arbor local raises RLIMIT_NOFILE. */
#define LOCAL_MAX_NODES 4096

struct local_opts {
    unsigned nnodes;      /* -N */
    unsigned tree_width;  /* --tree-width, default 16 */
    unsigned cpus;        /* --cpus, default 4 */
    unsigned mem_mb;      /* --mem, default 4096 */
    const char *features; /* --features: every node's Features=; NULL */
    unsigned gpus;        /* --gres gpu:N: stand-in GPUs (local_gres.h) */
    bool nvml;            /* --gres nvml: the host's own GPUs */
    const char *dir;      /* --dir, NULL: a fresh one under $TMPDIR */
    bool keep;            /* --keep */
    bool debug;           /* --debug */
    bool conf_only;       /* --conf-only */
    bool netns;           /* --netns: nodes in their own network namespaces */
    char **sets;          /* --set KEY=VALUE, in order */
    size_t nsets;
    char **cmd;          /* CMD after "--", NULL-terminated, or NULL */
    const char *restart; /* --restart NAME: ask a running cluster */
    const char *signal;  /* --signal SIG for --restart */
};

/* Set up the cluster that 'o' describes (borrowed, not changed: the
 * caller frees o->sets afterwards), run o->cmd against it or serve until
 * SIGINT/SIGTERM/SIGHUP, and tear everything down. Returns the exit
 * status: CMD's (128 + signal if killed), 0 after serving, 1 on a failure
 * (said on stderr). */
int local_run (const struct local_opts *o);

#endif
