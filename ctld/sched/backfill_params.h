/* backfill_params.h - backfill's SchedulerParameters (backfill_params.c);
 * backfill.h says what each one means.
 */
#ifndef ARBOR_CTLD_BACKFILL_PARAMS_H
#define ARBOR_CTLD_BACKFILL_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

enum bf_mode { BF_CONSERVATIVE, BF_EASY };

struct bf_params {
    enum bf_mode mode;
    uint32_t interval;   /* s between passes */
    uint32_t window;     /* minutes ahead that reservations are made */
    uint32_t resolution; /* s: planned times are rounded up to it */
    uint32_t max_job_test, max_job_start, max_job_part, max_job_user;
    uint32_t min_age_reserve; /* s eligible before a job is reserved */
    uint32_t min_prio_reserve;
    bool keep_going; /* bf_continue */
};

/* SchedulerParameters into 'out' (the defaults for NULL). -1 with err
 * naming a key that is unknown or a value that is wrong. */
int bf_params_parse (const char *text, struct bf_params *out,
                     arbor_error_t *err);

#endif
