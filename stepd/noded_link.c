/* noded_link.c - frames and loss of the noded connection, the same on
 * fd 0 (stepd.c) and on an attached noded's step socket connection
 * (sock.c); see noded_link.h.
 */
#include "mesh.h"
#include "noded_link.h"
#include "proto.h"
#include "report.h"
#include "stepd.h"

bool noded_link_frame (struct stepd *sd, struct conn *c, const struct frame *f)
{
    if (f->flags & FRAME_F_RESPONSE) {
        if (!mesh_answer (sd, f))
            report_answer (sd, c, f); /* the noded took our STEP_COMPLETE? */
        return true;
    }
    if (f->type == MSG_STEP_MESH && sd->have_init) {
        mesh_frame (sd, f);
        return true;
    }
    return false;
}

void noded_link_lost (struct stepd *sd, struct conn *c)
{
    report_conn_lost (sd, c);
    mesh_noded_lost (sd);
}
