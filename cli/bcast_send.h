/* bcast_send.h - sbcast's transfer: a file, block by block, to node zero
 * of the job, which carries each block down the launch tree.
 *
 * The controller gives the broadcast credential and the nodes
 * (BCAST_CRED); one session to node zero carries every block
 * (BCAST_BLOCK, op WRITE at increasing offsets, the first one, even
 * empty, at offset 0), then a COMMIT that renames each node's temporary
 * file to DEST. Each block is answered for the whole job (BCAST_REPLY)
 * before the next is sent, so a node's memory holds one block. On the
 * first failure the transfer stops: every node is told to ABORT (remove
 * its temporary file) and the failed nodes are named, each with its
 * reason, on stderr. A credential close to its expiry is renewed
 * between blocks.
 */
#ifndef ARBOR_CLI_BCAST_SEND_H
#define ARBOR_CLI_BCAST_SEND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bcast_opt.h"
#include "client.h"
#include "error.h"
#include "proto.h"

struct bcast_target {
    struct client *cl;
    const struct bcast_opts *o;
    struct msg_bcast_cred_reply cred;
    char **slice; /* the credential's nodes, node zero first */
    uint32_t nslice;
    uid_t noded_uid;
    struct rpc_chan ch; /* to node zero; fd -1 when closed */
    uint32_t tag;
};

/* Get the credential for o->job (o->step) and open node zero. 0, or -1
 * with errno and err. bcast_target_close accepts a failed open. */
int bcast_target_open (struct bcast_target *t, struct client *cl,
                       const struct bcast_opts *o, arbor_error_t *err);
void bcast_target_close (struct bcast_target *t);

/* The setup sbcast and sgather share once their options are parsed: -v's
 * log level, the controller's connection in *cl (the command dies when
 * it cannot have one), then bcast_target_open. 0, or -1 after saying why
 * on stderr ("PROG: error: ..."). Call bcast_target_end afterwards,
 * whatever it returned. */
int bcast_target_begin (struct bcast_target *t, struct client *cl,
                        const struct bcast_opts *o);
/* bcast_target_close, then the controller's connection. */
void bcast_target_end (struct bcast_target *t, struct client *cl);

/* Send local file 'src' to 'dest' (absolute) on every node; make_dir:
 * create dest's directory there first (--send-libs' DEST_libs). 0 on
 * every node; -1 with the failures said on stderr (err holds the
 * first). */
int bcast_send_file (struct bcast_target *t, const char *src, const char *dest,
                     bool make_dir, arbor_error_t *err);

#endif
