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

int bind_map_check (const struct cpubind *b, const char *cores,
                    uint32_t node_cpus, const char *node, arbor_error_t *err)
{
    cpu_set_t set;
    int n;

    if (b->type != CPUBIND_MAP)
        return 0;
    n = cores && *cores ? cores_parse (cores, &set, err) : 0;
    if (n < 0)
        return -1;
    for (size_t i = 0; i < b->nmap; i++) {
        uint32_t c = b->map[i];
        if (n > 0 ? c < CPU_SETSIZE && CPU_ISSET (c, &set)
                  : node_cpus == 0 || c < node_cpus)
            continue;
        errno = EINVAL;
        if (n > 0)
            return errprintf (err,
                              "--cpu-bind=map_cpu: CPU %u is not one of the "
                              "step's cores on %s (%s)",
                              c, node, cores);
        return errprintf (err,
                          "--cpu-bind=map_cpu: CPU %u is not one of the %u "
                          "CPUs of %s",
                          c, node_cpus, node);
    }
    return 0;
}

int bind_task_cpus (const struct cpubind *b, const cpu_set_t *step,
                    uint32_t local, uint32_t ntasks, cpu_set_t *out)
{
    if (b->type != CPUBIND_MAP || b->nmap == 0)
        return bind_task_set (step, local, ntasks, out);
    CPU_ZERO (out);
    if (b->map[local % b->nmap] < CPU_SETSIZE)
        CPU_SET (b->map[local % b->nmap], out);
    return CPU_COUNT (out);
}

void bind_mask_hex (const cpu_set_t *set, char *buf, size_t len)
{
    int top = -1;
    size_t k = 0;

    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET (c, set))
            top = c;
    if (len < 4) {
        if (len)
            buf[0] = '\0';
        return;
    }
    buf[k++] = '0';
    buf[k++] = 'x';
    for (int d = top < 0 ? 0 : top / 4; d >= 0 && k + 1 < len; d--) {
        unsigned v = 0;
        for (int bit = 0; bit < 4; bit++)
            if (CPU_ISSET (d * 4 + bit, set))
                v |= 1u << bit;
        buf[k++] = "0123456789abcdef"[v];
    }
    buf[k] = '\0';
}

char *bind_masks_text (const struct cpubind *b, const cpu_set_t *step,
                       uint32_t ntasks)
{
    size_t cap = (size_t)ntasks * (CPU_SETSIZE / 4 + 3) + 1, used = 0;
    char *s = malloc (cap);

    if (!s)
        return NULL;
    s[0] = '\0';
    for (uint32_t i = 0; i < ntasks; i++) {
        cpu_set_t set;
        bind_task_cpus (b, step, i, ntasks, &set);
        if (i)
            s[used++] = ',';
        bind_mask_hex (&set, s + used, cap - used);
        used += strlen (s + used);
    }
    return s;
}

int bind_env_set (struct env *e, const struct cpubind *b, bool bound,
                  const char *masks)
{
    const char *verbose = b->verbose ? "verbose" : "quiet";
    const char *type = "none", *list = "";

    if (b->type == CPUBIND_DEFAULT && !bound)
        return 0;
    if (b->type == CPUBIND_MAP) {
        type = "map_cpu:";
        list = b->list ? b->list : "";
    } else if (b->type != CPUBIND_NONE && bound) {
        type = "mask_cpu:";
        list = masks ? masks : "";
    } else if (b->type == CPUBIND_CORES) {
        type = "cores"; /* asked for, but this host cannot bind (bind_plan) */
    }
    if (env_setf (e, "SLURM_CPU_BIND", "%s,%s%s", verbose, type, list) < 0
        || env_set (e, "SLURM_CPU_BIND_TYPE", type) < 0
        || env_set (e, "SLURM_CPU_BIND_LIST", list) < 0
        || env_set (e, "SLURM_CPU_BIND_VERBOSE", verbose) < 0)
        return -1;
    return 0;
}
