/* signame.c - parse and name signals for scancel -s and --signal; see
 * signame.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "signame.h"

#define WARN_DEFAULT_S 60
#define WARN_MAX_S 0xffff

static const struct {
    const char *name;
    int sig;
} signame_tab[] = {
    { "HUP", SIGHUP },       { "INT", SIGINT },   { "QUIT", SIGQUIT },
    { "ILL", SIGILL },       { "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
    { "BUS", SIGBUS },       { "FPE", SIGFPE },   { "KILL", SIGKILL },
    { "USR1", SIGUSR1 },     { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
    { "PIPE", SIGPIPE },     { "ALRM", SIGALRM }, { "TERM", SIGTERM },
    { "CHLD", SIGCHLD },     { "CONT", SIGCONT }, { "STOP", SIGSTOP },
    { "TSTP", SIGTSTP },     { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
    { "URG", SIGURG },       { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },
    { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF }, { "WINCH", SIGWINCH },
    { "IO", SIGIO },         { "PWR", SIGPWR },   { "SYS", SIGSYS },
};
#define SIGNAME_N (sizeof (signame_tab) / sizeof (signame_tab[0]))

int signame_parse (const char *s, int *sig)
{
    char *end;
    long v;

    if (!s || !*s)
        goto bad;
    if (*s >= '0' && *s <= '9') {
        errno = 0;
        v = strtol (s, &end, 10);
        if (errno || *end || v < 1 || v > SIGNAME_MAX)
            goto bad;
        *sig = (int)v;
        return 0;
    }
    if (!strncasecmp (s, "SIG", 3))
        s += 3;
    for (size_t i = 0; i < SIGNAME_N; i++) {
        if (!strcasecmp (s, signame_tab[i].name)) {
            *sig = signame_tab[i].sig;
            return 0;
        }
    }
bad:
    errno = EINVAL;
    return -1;
}

const char *signame_name (int sig, char *buf, size_t len)
{
    for (size_t i = 0; i < SIGNAME_N; i++) {
        if (signame_tab[i].sig == sig) {
            snprintf (buf, len, "%s", signame_tab[i].name);
            return buf;
        }
    }
    snprintf (buf, len, "%d", sig);
    return buf;
}

int signame_parse_warning (const char *spec, int allow_batch, int *sig,
                           uint32_t *secs, int *batch)
{
    char name[32];
    const char *at;
    size_t n;
    char *end;
    long t = WARN_DEFAULT_S;

    *batch = 0;
    if (!strncasecmp (spec, "R:", 2))
        spec += 2;
    else if (allow_batch && !strncasecmp (spec, "B:", 2)) {
        spec += 2;
        *batch = 1;
    }
    at = strchr (spec, '@');
    n = at ? (size_t)(at - spec) : strlen (spec);
    if (n == 0 || n >= sizeof (name))
        goto bad;
    memcpy (name, spec, n);
    name[n] = '\0';
    if (at) {
        errno = 0;
        t = strtol (at + 1, &end, 10);
        if (errno || end == at + 1 || *end || t < 0 || t > WARN_MAX_S)
            goto bad;
    }
    if (signame_parse (name, sig) < 0)
        goto bad;
    *secs = (uint32_t)t;
    return 0;
bad:
    errno = EINVAL;
    return -1;
}
