/* loadsel.c - load-aware node selection. See loadsel.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "ctld.h"
#include "sched/loadsel.h"
#include "nodes/node.h"
#include "words.h"

static int loadsel_word (char *w, void *arg, arbor_error_t *err)
{
    struct loadsel *out = arg;
    static const struct {
        const char *name;
        size_t offset;
    } keys[] = {
        { "cpu_weight", offsetof (struct loadsel, cpu_weight) },
        { "ram_weight", offsetof (struct loadsel, ram_weight) },
        { "min_free_mem", offsetof (struct loadsel, min_free_mem) },
        { "min_idle_cpus", offsetof (struct loadsel, min_idle_cpus) },
    };
    char *val = strchr (w, '='), *end;
    unsigned long long v;

    if (val)
        *val++ = '\0';
    for (size_t i = 0; i < sizeof (keys) / sizeof (keys[0]); i++) {
        if (strcasecmp (w, keys[i].name))
            continue;
        errno = 0;
        v = val && *val ? strtoull (val, &end, 10) : 0;
        if (!val || !*val || errno || *end || v > 1000000) {
            errno = EINVAL;
            return errprintf (err,
                              "SelectLoadParameters: %s=%s: a number from 0 "
                              "to 1000000 expected",
                              w, val ? val : "");
        }
        *(uint32_t *)((char *)out + keys[i].offset) = (uint32_t)v;
        return 0;
    }
    errno = EINVAL;
    return errprintf (err,
                      "SelectLoadParameters: unknown parameter '%s' "
                      "(cpu_weight, ram_weight, min_free_mem, min_idle_cpus)",
                      w);
}

int loadsel_parse (const char *text, struct loadsel *out, arbor_error_t *err)
{
    int rc;

    *out = (struct loadsel){ .cpu_weight = 6, .ram_weight = 4 };
    if (!text)
        return 0;
    rc = words_each_comma (text, loadsel_word, out, err);
    if (rc == 0 && out->cpu_weight == 0 && out->ram_weight == 0) {
        errno = EINVAL;
        rc = errprintf (err, "SelectLoadParameters: cpu_weight and "
                             "ram_weight are both 0");
    }
    out->on = rc == 0;
    out->fastest = 1;
    return rc;
}

int loadsel_configure (struct ctld *ctx, arbor_error_t *err)
{
    struct loadsel *ls = &ctx->loadsel;

    if (loadsel_parse (ctx->conf->select_load_params, ls, err) < 0)
        return -1;
    ls->fastest = 1;
    for (size_t i = 0; i < ctx->nnodes; i++)
        if (ctx->nodes[i].cpu_speed > ls->fastest)
            ls->fastest = ctx->nodes[i].cpu_speed;
    return 0;
}

/* CPU offered, in [0, 1]. */
static double loadsel_cpu (const struct loadsel *ls, const struct node *n)
{
    double load = n->cpu_load == UINT32_MAX ? 0 : n->cpu_load / 100.0;
    double idle = n->cpus > load ? n->cpus - load : 0;

    if (n->cpus == 0 || idle < ls->min_idle_cpus)
        return 0;
    return (double)n->cpu_speed / (ls->fastest ? ls->fastest : 1) * idle
           / n->cpus;
}

/* Memory free, in [0, 1]. */
static double loadsel_ram (const struct loadsel *ls, const struct node *n)
{
    double free_mb = n->free_mem == UINT32_MAX ? n->real_memory : n->free_mem;

    if (n->real_memory == 0 || free_mb < ls->min_free_mem)
        return 0;
    return free_mb >= n->real_memory ? 1 : free_mb / n->real_memory;
}

uint32_t loadsel_pref (const struct loadsel *ls, const struct node *n)
{
    double score;

    if (!ls->on)
        return 0;
    score = (ls->cpu_weight * loadsel_cpu (ls, n)
             + ls->ram_weight * loadsel_ram (ls, n))
            / (ls->cpu_weight + ls->ram_weight);
    return 1 + (uint32_t)(score * LOADSEL_SCALE + 0.5);
}
