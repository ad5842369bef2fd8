/* assoc_fuzz.c - libFuzzer target: sacctmgr's requests as the controller
 * takes them (ctld/assoc/: assoc_apply, assoc_show), words of any kind
 * from anyone. The input's lines are the request: verb, entity, then
 * names, "w:key=value" (where) and "s:key=value" (set); its first byte
 * picks who asks (an administrator, an operator, a coordinator or
 * nobody).
 *
 * Nothing may crash or leak; a change that is refused may leave the
 * copy half changed (the controller drops it); one that is made leaves
 * every entity keeping the rules (assoc_check), and show answers whole
 * rows.
 *
 *     build-fuzz/test-bin/assoc_fuzz -max_total_time=60
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assoc/assoc_req.h"
#include "assoc/assoc_show.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void push (char ***v, uint32_t *n, const char *s)
{
    if (assoc_list_push (v, n, s) < 0)
        abort ();
}

static void site (struct assoc *a)
{
    struct msg_assoc_rec acct = { .kind = "account",
                                  .name = "physics",
                                  .parent = "root" };
    char *accts[] = { "physics", NULL }, *coords[] = { "bob", NULL };
    struct msg_assoc_rec user = { .kind = "user",
                                  .name = "bob",
                                  .default_account = "physics",
                                  .accounts = accts,
                                  .accounts_count = 1 };
    arbor_error_t err;

    if (assoc_init (a, "t") < 0 || assoc_add (a, &acct, &err) < 0
        || assoc_add (a, &user, &err) < 0)
        abort ();
    acct = (struct msg_assoc_rec){ .kind = "account",
                                   .name = "theory",
                                   .parent = "physics",
                                   .coordinators = coords,
                                   .coordinators_count = 1 };
    if (assoc_add (a, &acct, &err) < 0)
        abort ();
}

static void check (const struct assoc *a)
{
    arbor_error_t err;

    for (size_t i = 0; i < a->naccounts; i++)
        if (assoc_check (a, &a->accounts[i], &err) < 0)
            abort ();
    for (size_t i = 0; i < a->nusers; i++)
        if (assoc_check (a, &a->users[i], &err) < 0)
            abort ();
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static const struct assoc_actor who[] = {
        { "root", ASSOC_ADMIN_ADMINISTRATOR },
        { "olga", ASSOC_ADMIN_OPERATOR },
        { "bob", ASSOC_ADMIN_NONE },
        { "eve", ASSOC_ADMIN_NONE },
    };
    struct msg_assoc_req req = { 0 };
    struct assoc_here here = { "h", "1", "2.14" };
    struct assoc_touched t = { 0 };
    struct msg_assoc_reply r;
    struct assoc a;
    arbor_error_t err;
    char *text, *save = NULL, *said = NULL;
    size_t len = 0;
    FILE *fp;
    int n = 0;

    if (size < 1 || size > 4096)
        return 0;
    if (!(text = strndup ((const char *)data + 1, size - 1)))
        return 0;
    for (char *w = strtok_r (text, "\n", &save); w;
         w = strtok_r (NULL, "\n", &save), n++) {
        if (n == 0)
            req.verb = w;
        else if (n == 1)
            req.entity = w;
        else if (!strncmp (w, "w:", 2))
            push (&req.where, &req.where_count, w + 2);
        else if (!strncmp (w, "s:", 2))
            push (&req.set, &req.set_count, w + 2);
        else
            push (&req.names, &req.names_count, w);
    }
    site (&a);
    if (req.verb && req.entity && !strcmp (req.verb, "show")) {
        if (assoc_show (&a, &here, &req, &r, &err) == 0) {
            if (r.columns_count && r.cells_count % r.columns_count)
                abort ();
            proto_clear (MSG_ASSOC_REPLY, &r);
        }
    } else if (req.verb && req.entity && (fp = open_memstream (&said, &len))) {
        if (assoc_apply (&a, &who[data[0] % 4], &req, fp, &t, &err) == 0)
            check (&a);
        fclose (fp);
        free (said);
    }
    assoc_touched_clear (&t);
    assoc_clear (&a);
    req.verb = req.entity = NULL;
    proto_clear (MSG_ASSOC_REQ, &req);
    free (text);
    return 0;
}
