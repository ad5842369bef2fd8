/* backfill_params.c - SchedulerParameters for sched/backfill. See
 * backfill.h for the keys and their defaults.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sched/backfill_params.h"
#include "words.h"

/* The numeric keys: name, where the value goes, least, most. */
struct bf_key {
    const char *name;
    size_t offset;
    uint32_t min, max;
};

#define BF_KEY(n, f, lo, hi)                      \
    {                                             \
        n, offsetof (struct bf_params, f), lo, hi \
    }
static const struct bf_key bf_keys[] = {
    BF_KEY ("bf_interval", interval, 1, 10800),
    BF_KEY ("bf_window", window, 1, 43200),
    BF_KEY ("bf_resolution", resolution, 1, 3600),
    BF_KEY ("bf_max_job_test", max_job_test, 1, 1000000),
    BF_KEY ("bf_max_job_start", max_job_start, 0, 10000),
    BF_KEY ("bf_max_job_part", max_job_part, 0, 1000000),
    BF_KEY ("bf_max_job_user", max_job_user, 0, 1000000),
    BF_KEY ("bf_min_age_reserve", min_age_reserve, 0, 2592000),
    BF_KEY ("bf_min_prio_reserve", min_prio_reserve, 0, UINT32_MAX - 1),
};

static void bf_defaults (struct bf_params *p)
{
    *p = (struct bf_params){
        .mode = BF_CONSERVATIVE,
        .interval = 30,
        .window = 1440,
        .resolution = 60,
        .max_job_test = 10000,
    };
}

static int bf_number (const struct bf_key *k, const char *val,
                      struct bf_params *out, arbor_error_t *err)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = val && *val ? strtoull (val, &end, 10) : 0;
    if (!val || !*val || errno || *end || v < k->min || v > k->max) {
        errno = EINVAL;
        return errprintf (err,
                          "SchedulerParameters: %s=%s: a number from %u to "
                          "%u expected",
                          k->name, val ? val : "", k->min, k->max);
    }
    *(uint32_t *)((char *)out + k->offset) = (uint32_t)v;
    return 0;
}

/* One "key[=value]" word. */
static int bf_word (char *w, void *arg, arbor_error_t *err)
{
    struct bf_params *out = arg;

    char *val = strchr (w, '=');

    if (val)
        *val++ = '\0';
    if (!strcasecmp (w, "bf_continue")) {
        out->keep_going = true;
        return 0;
    }
    if (!strcasecmp (w, "bf_mode")) {
        if (val && !strcasecmp (val, "conservative"))
            out->mode = BF_CONSERVATIVE;
        else if (val && !strcasecmp (val, "easy"))
            out->mode = BF_EASY;
        else {
            errno = EINVAL;
            return errprintf (err,
                              "SchedulerParameters: bf_mode=%s: "
                              "conservative or easy expected",
                              val ? val : "");
        }
        return 0;
    }
    for (size_t i = 0; i < sizeof (bf_keys) / sizeof (bf_keys[0]); i++)
        if (!strcasecmp (w, bf_keys[i].name))
            return bf_number (&bf_keys[i], val, out, err);
    errno = EINVAL;
    return errprintf (err,
                      "SchedulerParameters: unknown parameter '%s' (Arbor "
                      "knows bf_continue, bf_interval, bf_max_job_part, "
                      "bf_max_job_start, bf_max_job_test, bf_max_job_user, "
                      "bf_min_age_reserve, bf_min_prio_reserve, bf_mode, "
                      "bf_resolution, bf_window)",
                      w);
}

int bf_params_parse (const char *text, struct bf_params *out,
                     arbor_error_t *err)
{
    bf_defaults (out);
    return words_each_comma (text, bf_word, out, err);
}
