/* assoc_private.h - what the files of sacctmgr's changes share: the
 * request's words, what a change touched and who may (assoc_words.c),
 * and the verbs assoc_req.c hands requests to: add (assoc_add.c), modify
 * and delete (assoc_change.c): one module in three files, split for
 * size.
 */
#ifndef ARBOR_CTLD_ASSOC_PRIVATE_H
#define ARBOR_CTLD_ASSOC_PRIVATE_H

#include "assoc/assoc_req.h"

/* Record that kind/name changed. -1 with errno ENOMEM. */
int assoc_touch (struct assoc_touched *t, const char *kind, const char *name);
/* The value of the first of 'keys' (NULL-ended) given as "key=value" in
 * v, or NULL. */
const char *assoc_key (char *const *v, uint32_t n, const char *const *keys);
/* Every entry of v is "key=value" with one of 'keys'; else -1 with errno
 * EINVAL and err naming it and the keys known. */
int assoc_keys_known (char *const *v, uint32_t n, const char *const *keys,
                      const struct msg_assoc_req *req, arbor_error_t *err);
/* Add the comma-separated names of 'list' to v (once each). -1 ENOMEM. */
int assoc_split (const char *list, char ***v, uint32_t *n);
void assoc_names_free (char **v, uint32_t n);
/* The entities req names: its names, and its where's value of 'keys'.
 * -1 with errno EINVAL (none) or ENOMEM, and err. */
int assoc_targets (const struct msg_assoc_req *req, const char *const *keys,
                   char ***v, uint32_t *n, arbor_error_t *err);
/* May 'who' do 'what' to account 'acct' (NULL: a change no coordinator
 * may make)? 0, or -1 with errno EPERM and err. */
int assoc_may (const struct assoc *a, const struct assoc_actor *who,
               const char *acct, const char *what, arbor_error_t *err);

/* add (true) or delete coordinators (assoc_add.c). */
int assoc_coord_req (struct assoc *a, const struct assoc_actor *who,
                     const struct msg_assoc_req *req, bool add, FILE *said,
                     struct assoc_touched *t, arbor_error_t *err);
/* sacctmgr add, modify, delete qos (assoc_qos.c). */
int assoc_qos_req (struct assoc *a, const struct assoc_actor *who,
                   const struct msg_assoc_req *req, FILE *said,
                   struct assoc_touched *t, arbor_error_t *err);
/* QOS= and DefaultQOS= among set (n) onto account or user r, when who
 * may set them (assoc_qos.c); r is checked by the caller. */
int assoc_qos_fields (const struct assoc *a, const struct assoc_actor *who,
                      struct msg_assoc_rec *r, char *const *set, uint32_t n,
                      arbor_error_t *err);
int assoc_add_req (struct assoc *a, const struct assoc_actor *who,
                   const struct msg_assoc_req *req, FILE *said,
                   struct assoc_touched *t, arbor_error_t *err);
int assoc_modify_req (struct assoc *a, const struct assoc_actor *who,
                      const struct msg_assoc_req *req, FILE *said,
                      struct assoc_touched *t, arbor_error_t *err);
int assoc_delete_req (struct assoc *a, const struct assoc_actor *who,
                      const struct msg_assoc_req *req, FILE *said,
                      struct assoc_touched *t, arbor_error_t *err);

#endif
