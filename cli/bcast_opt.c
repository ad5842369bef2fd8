/* bcast_opt.c - sbcast's and sgather's options and paths (bcast_opt.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bcast_opt.h"
#include "jobsel.h"
#include "log.h"
#include "proto.h"

int bcast_parse_size (const char *s, uint32_t *bytes)
{
    char *end;
    unsigned long long v;

    errno = 0;
    if (!s || !isdigit ((unsigned char)s[0]))
        goto bad;
    v = strtoull (s, &end, 10);
    if (errno)
        goto bad;
    if (tolower ((unsigned char)*end) == 'k') {
        v *= 1024;
        end++;
    } else if (tolower ((unsigned char)*end) == 'm') {
        v *= 1024 * 1024;
        end++;
    }
    if (*end)
        goto bad;
    *bytes = v < BCAST_SIZE_MIN   ? BCAST_SIZE_MIN
             : v > BCAST_SIZE_MAX ? BCAST_SIZE_MAX
                                  : (uint32_t)v;
    return 0;
bad:
    errno = EINVAL;
    return -1;
}

int bcast_parse_compress (const char *s, const char **out)
{
    static const char *const libs[] = { "lz4", "zlib", "none" };

    if (!s || !*s) {
        *out = "lz4";
        return 0;
    }
    for (size_t i = 0; i < sizeof (libs) / sizeof (libs[0]); i++)
        if (!strcasecmp (s, libs[i])) {
            *out = libs[i];
            return 0;
        }
    errno = EINVAL;
    return -1;
}

int bcast_parse_yes_no (const char *s, bool *out)
{
    if (!s || !strcasecmp (s, "yes") || !strcmp (s, "1"))
        *out = true;
    else if (!strcasecmp (s, "no") || !strcmp (s, "0"))
        *out = false;
    else {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int bcast_parse_count (const char *s, uint32_t max, uint32_t *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    if (!s || !isdigit ((unsigned char)s[0]))
        goto bad;
    v = strtoul (s, &end, 10);
    if (errno || *end || v == 0 || v > UINT32_MAX || (max && v > max))
        goto bad;
    *out = (uint32_t)v;
    return 0;
bad:
    errno = EINVAL;
    return -1;
}

/* A boolean variable: set and not "no"/"0" means yes, as Slurm reads
 * SBCAST_FORCE and SBCAST_PRESERVE. */
static bool env_flag (const char *name)
{
    const char *v = getenv (name);

    return v && strcasecmp (v, "no") && strcmp (v, "0");
}

int bcast_opts_from_env (struct bcast_opts *o, char *why, size_t len)
{
    const char *v;

    if ((v = getenv ("SBCAST_COMPRESS"))
        && bcast_parse_compress (v, &o->compress) < 0)
        goto bad;
    if ((v = getenv ("SBCAST_EXCLUDE")))
        o->exclude = v;
    if ((v = getenv ("SBCAST_FANOUT"))
        && bcast_parse_count (v, BCAST_FANOUT_MAX, &o->fanout) < 0)
        goto bad;
    o->force |= env_flag ("SBCAST_FORCE");
    o->preserve |= env_flag ("SBCAST_PRESERVE");
    if ((v = getenv ("SBCAST_SEND_LIBS"))
        && bcast_parse_yes_no (v, &o->send_libs) < 0)
        goto bad;
    if ((v = getenv ("SBCAST_SIZE")) && bcast_parse_size (v, &o->size) < 0)
        goto bad;
    if ((v = getenv ("SBCAST_TIMEOUT"))
        && bcast_parse_count (v, 0, &o->timeout) < 0)
        goto bad;
    return 0;
bad:
    snprintf (why, len, "invalid value '%s' in the environment", v);
    errno = EINVAL;
    return -1;
}

int bcast_opt_common (struct bcast_opts *o, int c, const char *arg,
                      const char **jobarg)
{
    switch (c) {
    case 'C':
        if (bcast_parse_compress (arg, &o->compress) < 0)
            die ("invalid compression library '%s'", arg);
        return 1;
    case 'f': o->force = true; return 1;
    case 'F':
        if (bcast_parse_count (arg, BCAST_FANOUT_MAX, &o->fanout) < 0)
            die ("invalid fanout '%s' (1 to %d)", arg, BCAST_FANOUT_MAX);
        return 1;
    case 'j': *jobarg = arg; return 1;
    case 'p': o->preserve = true; return 1;
    case 't':
        if (bcast_parse_count (arg, 0, &o->timeout) < 0)
            die ("invalid timeout '%s'", arg);
        return 1;
    case 'v': o->verbose++; return 1;
    default: return 0;
    }
}

void bcast_parse_operands (struct bcast_opts *o, int argc, char **argv,
                           const char *usage)
{
    if (argc - optind != 2) {
        fprintf (stderr, usage, o->prog);
        exit (1);
    }
    o->source = argv[optind];
    o->dest = argv[optind + 1];
}

int bcast_parse_job (struct bcast_opts *o, const char *arg, char *why,
                     size_t len)
{
    uint32_t task = JOBSEL_NO_TASK;
    const char *s = arg ? arg : getenv ("SLURM_JOB_ID");

    o->step = STEP_ID_ALL;
    if (!s || !*s) {
        snprintf (why, len, "no job: run it inside a job or give -j JOBID");
        errno = EINVAL;
        return -1;
    }
    if (jobsel_parse_id (s, &o->job, &task, &o->step) < 0
        || task != JOBSEL_NO_TASK) {
        snprintf (why, len, "invalid job id '%s'", s);
        errno = EINVAL;
        return -1;
    }
    if (!arg)
        o->step = STEP_ID_ALL;
    o->have_job = true;
    return 0;
}

char *bcast_dest_path (const char *source, const char *dest, const char *cwd)
{
    const char *base = strrchr (source, '/');
    size_t n = strlen (dest);
    char *out = NULL;
    int rc;

    base = base ? base + 1 : source;
    if (n == 0 || (dest[n - 1] == '/' && !*base)) {
        errno = EINVAL;
        return NULL;
    }
    if (dest[n - 1] == '/')
        rc = asprintf (&out, "%s%s%s%s", dest[0] == '/' ? "" : cwd,
                       dest[0] == '/' ? "" : "/", dest, base);
    else
        rc = asprintf (&out, "%s%s%s", dest[0] == '/' ? "" : cwd,
                       dest[0] == '/' ? "" : "/", dest);
    return rc < 0 ? NULL : out;
}
