/* attach.h - clients attached to the step's I/O, sattach (attach.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_ATTACH_H
#define ARBOR_STEPD_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conn;
struct msg_step_attach;
struct stepd;

/* STEP_ATTACH 'm' from step socket conn c: connect to m's host:port
 * without blocking, key the session with m's key, say IO_HELLO, and
 * answer RC on c (matchtag) once connected, or the error (EINVAL bad
 * request or a step without I/O, ESRCH ending, EBUSY STEPD_ATTACH_MAX
 * attached, or the connect's errno). */
void attach_start (struct stepd *sd, struct conn *c, uint32_t matchtag,
                   const struct msg_step_attach *m);
/* Queue an encoded frame (IO_DATA) to every attached client; a client
 * over STEPD_OUT_HIGH behind is told (RC ENOBUFS) and closed once
 * flushed. */
void attach_send_body (struct stepd *sd, int type, const char *body,
                       size_t len);
/* Is any client attached (output to send)? */
bool attach_any (const struct stepd *sd);
/* Step socket conn c is closing: connects it waits for are abandoned. */
void attach_forget_asker (struct stepd *sd, struct conn *c);
/* The step is over: connects in progress are answered ESRCH and
 * dropped, attached clients flushed and closed. */
void attach_close_after_flush (struct stepd *sd);
/* Clients connecting, attached or still flushing. */
size_t attach_count (const struct stepd *sd);
/* Close every one now (queued output is dropped). */
void attach_close_all (struct stepd *sd);

#endif
