/* cpulimits.h - CPU-hour limits: how many CPU-hours a user's running jobs
 * may have asked for at once (CpuHoursLimitsFile).
 *
 * A job asks for its CPUs times its time limit in hours; a user's usage
 * is the sum over their running jobs. A pending job that would take its
 * user past the user's limit stays pending (reason CPUHoursLimit) and
 * starts by itself once enough of the user's jobs ended. The limit of a
 * user is the file's entry for them, else the entry for their job's
 * group, else its default; none of these: no limit. The file is in
 * libconfig's format:
 *
 *     default = 1000.0;          # CPU-hours
 *     users  = { alice = 5000.0; bob = 200; };
 *     groups = { physics = 3000; };
 *
 * It is read at start (a wrong file stops the controller with the
 * reason), and again on SIGHUP and arbor control reconfigure (a wrong
 * file then keeps the limits in force and says why).
 */
#ifndef ARBOR_CTLD_CPULIMITS_H
#define ARBOR_CTLD_CPULIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"

struct limit_entry {
    unsigned id; /* uid or gid */
    double hours;
};

struct limits {
    bool has_default;
    double dflt;
    struct limit_entry *users, *groups;
    size_t nusers, ngroups;
};

/* Read 'path'. NULL with err naming the file, line and problem (an
 * unknown user or group, a negative or non-numeric limit). */
struct limits *cpulimits_load (const char *path, arbor_error_t *err);
void cpulimits_free (struct limits *l);
/* The limit for a job of uid/gid: true and *hours, or false for none. */
bool cpulimits_for (const struct limits *l, uid_t uid, gid_t gid,
                    double *hours);

struct ctld;
/* CpuHoursLimitsFile again into ctx (the old limits stay on error). */
int cpulimits_reload (struct ctld *ctx, arbor_error_t *err);

#endif
