/* stepd_attach.c - STEP_ATTACH for sattach: a client joins a running
 * step's I/O.
 *
 * Any user may ask (serve.c); the request is checked for shape here
 * (an address to connect to, a key long enough to key a session), then
 * stepd_ask.c checks that the sender owns the step (or is root/ArborUser)
 * and relays it to the stepd, which connects to the client itself
 * (stepd/attach.c) and answers RC once it has. The client's key only
 * travels on this munge-authenticated connection and the stepd's
 * root-only socket.
 */
#include <errno.h>
#include <string.h>

#include "noded_base.h"
#include "stepd_ask.h"
#include "stepd_attach.h"

/* s: the stepd's connect is bounded by STEPD_IO_CONNECT_MS (5 s) */
#define ATTACH_TIMEOUT 10.0
#define ATTACH_KEY_MIN 16  /* session_from_step_key's least */
#define ATTACH_KEY_MAX 128 /* a client's key is 32 characters */

void stepd_attach_handle (struct noded *nd, struct conn *c,
                          const struct frame *f,
                          const struct msg_step_attach *m)
{
    size_t klen = m->io_key ? strlen (m->io_key) : 0;

    if (!m->host || !*m->host || m->port == 0 || m->port > 65535) {
        conn_send_rc (c, f->matchtag, EINVAL, "STEP_ATTACH: no address");
        return;
    }
    if (klen < ATTACH_KEY_MIN || klen > ATTACH_KEY_MAX) {
        conn_send_rc (c, f->matchtag, EINVAL,
                      "STEP_ATTACH: the key must have %d to %d characters",
                      ATTACH_KEY_MIN, ATTACH_KEY_MAX);
        return;
    }
    stepd_ask_relay (nd, c, f, m->job_id, m->step_id, MSG_STEP_ATTACH, m,
                     MSG_RC, ATTACH_TIMEOUT);
}
