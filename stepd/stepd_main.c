/* stepd_main.c - arbor-stepd's main: parse the arguments, assemble the
 * step daemon (stepd_load, stepd_start), run it, take it apart.
 *
 *     arbor-stepd -f CONF -n NODE [-v]... [--spawner]
 *
 * Started by arbor-noded only, with fd 0 a socketpair to it; see stepd.c
 * for the story and lifecycle.c for its end. With --spawner, fd 0 is the
 * noded's spawner socket instead, and each stepd is a fork of this one
 * (spawner.c).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "driver.h"
#include "spawner.h"

static void usage (void)
{
    fprintf (stderr, "Usage: arbor-stepd -f CONF -n NODE [-v]... [--spawner]\n"
                     "Started by arbor-noded with STEPD_INIT on fd 0.\n");
    exit (2);
}

/* fds 1 and 2 must be taken, so task pipes never land on them. */
static void fix_stdio (void)
{
    for (int fd = 1; fd <= 2; fd++)
        if (fcntl (fd, F_GETFD) < 0 && open ("/dev/null", O_RDWR) != fd)
            exit (1);
}

/* A spawner's child is a stepd: its /proc/PID/cmdline loses "--spawner"
 * and reads as an exec'd stepd's (tools and tests tell the two apart by
 * it). Only trailing arguments can be blanked without leaving a hole. */
static void drop_spawner_arg (int argc, char **argv)
{
    for (int i = argc - 1; i > 0 && !strcmp (argv[i], "--spawner"); i--)
        memset (argv[i], 0, strlen (argv[i]));
}

/* Serve as the spawner; returns in each forked child only (true), false
 * when the spawner is done (*rc its exit status). */
static bool spawn_children (struct stepd *sd, int argc, char **argv, int *rc)
{
    arbor_error_t err = { "" };
    int got = spawner_run (sd, STDIN_FILENO, &err);

    if (got > 0) {
        drop_spawner_arg (argc, argv);
        return true;
    }
    if (got < 0)
        log_err ("%s", err.text);
    *rc = got < 0;
    return false;
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "spawner", no_argument, NULL, 'S' },
        { NULL, 0, NULL, 0 },
    };
    const char *path = NULL, *node = NULL;
    arbor_error_t err = { "" };
    struct stepd *sd;
    int opt, verbose = 0, rc = 1;
    bool spawner = false;

    while ((opt = getopt_long (argc, argv, "+f:n:vh", longopts, NULL)) != -1) {
        if (opt == 'f')
            path = optarg;
        else if (opt == 'n')
            node = optarg;
        else if (opt == 'v')
            verbose++;
        else if (opt == 'S')
            spawner = true;
        else
            usage ();
    }
    if (!node || optind != argc)
        usage ();
    fix_stdio ();
    signal (SIGPIPE, SIG_IGN);
    signal (SIGHUP, SIG_IGN);
    log_open ("arbor-stepd", LOG_LVL_INFO, NULL); /* until the node's */
    if (!(sd = stepd_load (path, node, verbose, &err))) {
        log_err ("%s", err.text);
        return 1;
    }
    if (spawner && !spawn_children (sd, argc, argv, &rc))
        goto done;
    if (stepd_start (sd, STDIN_FILENO, &err) < 0)
        log_err ("%s", err.text);
    else
        rc = stepd_run (sd);
done:
    stepd_destroy (sd);
    log_close ();
#ifndef __SANITIZE_ADDRESS__ /* there, exit runs the leak check */
    /* A stepd forked by the spawner (or the spawner) ends without the
     * exit handlers and library destructors: there is nothing for them
     * to flush or release, and in a forked process each would first
     * fault in its code. */
    if (spawner)
        _exit (rc);
#endif
    return rc;
}
