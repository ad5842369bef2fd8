/* opt_when.c - when a job may start: the options; see opt_when.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrayspec.h"
#include "begintime.h"
#include "conf.h"
#include "depspec.h"
#include "opt.h"
#include "opt_when.h"

const struct option when_longopts[WHEN_NLONGOPTS] = {
    { "array", required_argument, NULL, WOPT_ARRAY },
    { "dependency", required_argument, NULL, WOPT_DEPENDENCY },
    { "hold", no_argument, NULL, WOPT_HOLD },
    { "begin", required_argument, NULL, WOPT_BEGIN },
    { "kill-on-invalid-dep", required_argument, NULL, WOPT_KILL_INVALID },
    { "requeue", no_argument, NULL, WOPT_REQUEUE },
    { "no-requeue", no_argument, NULL, WOPT_NO_REQUEUE },
};

void when_opts_init (struct when_opts *w)
{
    memset (w, 0, sizeof (*w));
    w->requeue = -1;
    w->kill_invalid = -1;
    w->max_array_index = 1000;
}

void when_opts_clear (struct when_opts *w)
{
    uint32_t max = w->max_array_index;

    free (w->array);
    free (w->dependency);
    when_opts_init (w);
    w->max_array_index = max;
}

static int when_yes_no (const char *a, int *out)
{
    if (!strcasecmp (a, "yes"))
        *out = 1;
    else if (!strcasecmp (a, "no"))
        *out = 0;
    else
        return -1;
    return 0;
}

int when_opt_one (struct when_opts *w, int c, const char *a, arbor_error_t *err)
{
    struct arrayspec as;
    struct depspec ds;

    switch (c) {
    case WOPT_ARRAY:
        if (arrayspec_parse (a, w->max_array_index, &as, err) < 0)
            return -1;
        arrayspec_clear (&as);
        return opt_set_str (&w->array, a) < 0 ? errprintf (err, "out of "
                                                                "memory")
                                              : 0;
    case WOPT_DEPENDENCY:
        if (depspec_parse (a, &ds, err) < 0)
            return -1;
        depspec_clear (&ds);
        return opt_set_str (&w->dependency, a) < 0
                   ? errprintf (err, "out of memory")
                   : 0;
    case WOPT_HOLD: w->hold = true; return 0;
    case WOPT_BEGIN: return begin_parse (a, time (NULL), &w->begin, err);
    case WOPT_KILL_INVALID:
        if (when_yes_no (a, &w->kill_invalid) < 0)
            return errprintf (err,
                              "invalid --kill-on-invalid-dep '%s' (yes "
                              "or no)",
                              a);
        return 0;
    case WOPT_REQUEUE: w->requeue = 1; return 0;
    case WOPT_NO_REQUEUE: w->requeue = 0; return 0;
    default: return 1;
    }
}

void when_opts_apply (const struct when_opts *w, const struct conf *conf,
                      struct msg_job_alloc *req)
{
    req->array = w->array ? w->array : "";
    req->dependency = w->dependency ? w->dependency : "";
    req->hold = w->hold;
    req->begin_time = w->begin > 0 ? (uint64_t)w->begin : 0;
    req->keep_invalid_dep = w->kill_invalid == 0;
    req->requeue =
        w->requeue >= 0 ? w->requeue == 1 : conf && conf->job_requeue != 0;
}
