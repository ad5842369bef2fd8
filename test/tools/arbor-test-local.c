/* arbor-test-local - ask a node's daemons over their unix sockets, as
 * pam_arbor_adopt does, so tests can check who may ask what.
 *
 *   arbor-test-local jobs SOCKET UID    NODE_JOBS on the noded's socket
 *   arbor-test-local adopt SOCKET PID   STEPD_ADOPT on a stepd's socket
 *
 * Prints "jobs: 5 7 extern: 1 0" (newest first) or "adopted", exit 0; or
 * "error: TEXT", exit 1. Usage errors exit 2.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "rpc.h"

#define TIMEOUT_MS 10000

static int ask_jobs (const char *path, uint32_t uid)
{
    struct msg_node_jobs req = { .uid = uid };
    struct msg_node_jobs_reply r = { 0 };
    arbor_error_t err = { "" };

    if (rpc_call_unix (path, MSG_NODE_JOBS, &req, MSG_NODE_JOBS_REPLY, &r,
                       TIMEOUT_MS, &err)
        < 0) {
        printf ("error: %s\n", err.text);
        return 1;
    }
    printf ("jobs:");
    for (uint32_t i = 0; i < r.job_ids_count; i++)
        printf (" %u", r.job_ids[i]);
    printf (" extern:");
    for (uint32_t i = 0; i < r.extern_steps_count; i++)
        printf (" %u", r.extern_steps[i]);
    printf ("\n");
    proto_clear (MSG_NODE_JOBS_REPLY, &r);
    return 0;
}

static int ask_adopt (const char *path, uint32_t pid)
{
    struct msg_stepd_adopt req = { .pid = pid };
    struct msg_rc rc = { 0 };
    arbor_error_t err = { "" };

    if (rpc_call_unix (path, MSG_STEPD_ADOPT, &req, MSG_RC, &rc, TIMEOUT_MS,
                       &err)
        < 0) {
        printf ("error: %s\n", err.text);
        return 1;
    }
    proto_clear (MSG_RC, &rc);
    printf ("adopted\n");
    return 0;
}

int main (int argc, char **argv)
{
    if (argc != 4) {
        fprintf (stderr, "usage: arbor-test-local jobs|adopt SOCKET ID\n");
        return 2;
    }
    uint32_t id = (uint32_t)strtoul (argv[3], NULL, 10);
    if (strcmp (argv[1], "jobs") == 0)
        return ask_jobs (argv[2], id);
    if (strcmp (argv[1], "adopt") == 0)
        return ask_adopt (argv[2], id);
    fprintf (stderr, "arbor-test-local: unknown request '%s'\n", argv[1]);
    return 2;
}
