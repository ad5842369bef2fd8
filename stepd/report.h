/* report.h - STEP_COMPLETE to the controller (report.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_REPORT_H
#define ARBOR_STEPD_REPORT_H

#include <stdbool.h>

struct stepd;

/* STEP_COMPLETE, through the noded (which answers once it has
 * taken over its delivery to the controller) or, with no noded, to the
 * controller directly; asynchronously. A noded that closes, refuses or
 * does not answer sends it to the next noded, or to the controller. */
void report_start (struct stepd *sd);
bool report_done (const struct stepd *sd);
void report_cancel (struct stepd *sd); /* teardown: abandon it */

#endif
