/* bind.c - task binding decisions. See bind.h. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bind.h"

/* One "A" or "A-B" item of a core list; *end is past it. */
static int cores_item (const char *p, const char **end, unsigned long *lo,
                       unsigned long *hi)
{
    char *e;

    if (!isdigit ((unsigned char)*p))
        return -1;
    *lo = *hi = strtoul (p, &e, 10);
    if (*e == '-') {
        if (!isdigit ((unsigned char)e[1]))
            return -1;
        *hi = strtoul (e + 1, &e, 10);
    }
    *end = e;
    return 0;
}

int cores_parse (const char *s, cpu_set_t *set, arbor_error_t *err)
{
    const char *p = s;
    int count = 0;

    if (!s || !set) {
        errno = EINVAL;
        return errprintf (err, "no core list");
    }
    CPU_ZERO (set);
    while (*p) {
        unsigned long lo, hi;
        if (cores_item (p, &p, &lo, &hi) < 0 || (*p && *p != ',')
            || (*p == ',' && !p[1])) {
            errno = EINVAL;
            return errprintf (err,
                              "core list '%s': expected N or N-M, "
                              "comma-separated",
                              s);
        }
        if (lo > hi || hi >= CPU_SETSIZE) {
            errno = EINVAL;
            return errprintf (err, "core list '%s': bad range %lu-%lu", s, lo,
                              hi);
        }
        for (unsigned long c = lo; c <= hi; c++)
            if (!CPU_ISSET (c, set)) {
                CPU_SET (c, set);
                count++;
            }
        if (*p == ',')
            p++;
    }
    return count;
}

bool task_plugin_binds (const char *tp)
{
    char buf[256], *tok, *save = NULL;

    if (!tp || snprintf (buf, sizeof (buf), "%s", tp) >= (int)sizeof (buf))
        return false;
    for (tok = strtok_r (buf, ", ", &save); tok;
         tok = strtok_r (NULL, ", ", &save))
        if (!strcasecmp (tok, "affinity") || !strcasecmp (tok, "task/affinity"))
            return true;
    return false;
}

int bind_plan (const char *node, const char *cores, uint32_t node_cpus,
               const struct bind_host *host, cpu_set_t *set, arbor_error_t *why)
{
    int n = cores ? cores_parse (cores, set, why) : 0;

    if (n < 0)
        return -1;
    if (n == 0) {
        errprintf (why, "not binding: no cores given for %s", node);
        return 0;
    }
    if (host->online_cpus > 0 && node_cpus > (uint32_t)host->online_cpus) {
        errprintf (why, "not binding: %s claims %u CPUs, host has %ld", node,
                   node_cpus, host->online_cpus);
        return 0;
    }
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET (c, set))
            continue;
        if ((host->online_cpus > 0 && c >= host->online_cpus)
            || (host->allowed && !CPU_ISSET (c, host->allowed))) {
            errprintf (why,
                       "not binding: core %d of %s is not available "
                       "to this process (host has %ld CPUs)",
                       c, node, host->online_cpus);
            return 0;
        }
    }
    return 1;
}

int bind_task_set (const cpu_set_t *step, uint32_t local, uint32_t ntasks,
                   cpu_set_t *out)
{
    int count = CPU_COUNT (step), per, first, seen = 0;

    if (ntasks == 0 || (uint32_t)count < ntasks || local >= ntasks) {
        *out = *step;
        return count;
    }
    per = count / (int)ntasks;
    first = (int)local * per;
    CPU_ZERO (out);
    for (int c = 0; c < CPU_SETSIZE && seen < first + per; c++) {
        if (!CPU_ISSET (c, step))
            continue;
        if (seen >= first)
            CPU_SET (c, out);
        seen++;
    }
    return per;
}
