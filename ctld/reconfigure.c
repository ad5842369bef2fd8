/* reconfigure.c - what may change while the controller runs, read again:
 * the CPU-hour limits, then arbor.conf's Licenses=. Apart from ctld.c
 * (the assembly) so that the request handler that asks for it calls
 * down, not up into the assembly.
 */
#include "ctld.h"
#include "log.h"
#include "reconfigure.h"
#include "sched/cpulimits.h"
#include "sched/licenses.h"
#include "sched/sched_wake.h"

int ctld_reconfigure (struct ctld *ctx, arbor_error_t *err)
{
    if (cpulimits_reload (ctx, err) < 0) {
        log_err ("reconfigure: %s (the limits in force stay)", err->text);
        return -1;
    }
    if (licenses_reconfigure (ctx, err) < 0) {
        log_err ("reconfigure: %s (the licenses in force stay)", err->text);
        return -1;
    }
    sched_request (ctx); /* a raised limit may let jobs start */
    return 0;
}
