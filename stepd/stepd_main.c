/* stepd_main.c - arbor-stepd's main: parse the arguments, assemble the
 * step daemon (stepd_create), run it, take it apart.
 *
 *     arbor-stepd -f CONF -n NODE [-v]...
 *
 * Started by arbor-noded only, with fd 0 a socketpair to it; see stepd.c
 * for the story and lifecycle.c for its end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"
#include "stepd.h"

static void usage (void)
{
    fprintf (stderr, "Usage: arbor-stepd -f CONF -n NODE [-v]...\n"
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

int main (int argc, char **argv)
{
    const char *path = NULL, *node = NULL;
    arbor_error_t err = { "" };
    struct stepd *sd;
    int opt, verbose = 0, rc;

    while ((opt = getopt (argc, argv, "f:n:vh")) != -1) {
        if (opt == 'f')
            path = optarg;
        else if (opt == 'n')
            node = optarg;
        else if (opt == 'v')
            verbose++;
        else
            usage ();
    }
    if (!node || optind != argc)
        usage ();
    fix_stdio ();
    signal (SIGPIPE, SIG_IGN);
    signal (SIGHUP, SIG_IGN);
    log_open ("arbor-stepd", LOG_LVL_INFO, NULL); /* until the node's */
    if (!(sd = stepd_create (path, node, verbose, STDIN_FILENO, &err))) {
        log_err ("%s", err.text);
        return 1;
    }
    rc = stepd_run (sd);
    stepd_destroy (sd);
    log_close ();
    return rc;
}
