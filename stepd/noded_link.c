/* noded_link.c - frames and loss of the noded connection, the same on
 * fd 0 (stepd.c) and on an attached noded's step socket connection
 * (sock.c); see noded_link.h.
 *
 * The answers to our own requests on it (report.c's STEP_COMPLETE,
 * mesh.c's STEP_MESH) never come here: the connection routes them to
 * their request (common/wire/request_conn.h), and completes the requests
 * still waiting when it closes.
 */
#include "log.h"
#include "mesh.h"
#include "noded_link.h"
#include "proto.h"
#include "stepd.h"

bool noded_link_frame (struct stepd *sd, struct conn *c, const struct frame *f)
{
    (void)c;
    if (f->flags & FRAME_F_RESPONSE) {
        /* the answer to a request given up or cancelled */
        log_debug ("ignoring an answer (%s, matchtag %u) from the noded",
                   proto_msg_name (f->type) ? proto_msg_name (f->type) : "?",
                   f->matchtag);
        return true;
    }
    if (f->type == MSG_STEP_MESH && sd->have_init) {
        mesh_frame (sd, f);
        return true;
    }
    return false;
}
