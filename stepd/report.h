/* report.h - STEP_COMPLETE to the controller (report.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_REPORT_H
#define ARBOR_STEPD_REPORT_H

#include <stdbool.h>

struct conn;
struct frame;
struct stepd;

/* STEP_COMPLETE, through the noded (which answers once it has
 * taken over its delivery to the controller) or, with no noded, to the
 * controller directly; asynchronously. */
void report_start (struct stepd *sd);
bool report_done (const struct stepd *sd);
void report_cancel (struct stepd *sd); /* teardown: abandon it */
/* An answer (FRAME_F_RESPONSE) on the noded connection c. */
void report_answer (struct stepd *sd, struct conn *c, const struct frame *f);
/* The noded connection c is closing: a report awaiting its answer there
 * goes elsewhere. */
void report_conn_lost (struct stepd *sd, struct conn *c);

#endif
