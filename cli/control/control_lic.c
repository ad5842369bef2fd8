/* control_lic.c - arbor control show licenses; see control_lic.h.
 *
 * Free is Total less Used, never below 0: a reconfigure may have lowered
 * a total under what running jobs still hold.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client.h"
#include "control_lic.h"
#include "log.h"

bool control_lic_entity (const char *word)
{
    size_t n = strlen (word);

    return n >= 3 && n <= 8 && !strncasecmp (word, "licenses", n);
}

char *control_lic_text (const char *name, uint32_t total, uint32_t used,
                        bool oneliner)
{
    char *text = NULL;

    if (asprintf (&text,
                  "LicenseName=%s%sTotal=%u Used=%u Free=%u Reserved=0 "
                  "Remote=no\n",
                  name, oneliner ? " " : "\n    ", total, used,
                  used < total ? total - used : 0)
        < 0)
        return NULL;
    return text;
}

static void lic_print (const struct msg_lic_info_reply *r, bool oneliner)
{
    for (uint32_t i = 0; i < r->names_count; i++) {
        char *text = control_lic_text (
            r->names[i], i < r->totals_count ? r->totals[i] : 0,
            i < r->used_count ? r->used[i] : 0, oneliner);
        if (!text)
            die ("out of memory");
        fputs (text, stdout);
        free (text);
    }
    if (r->names_count == 0)
        printf ("No licenses configured in Slurm.\n"); /* scontrol's words */
}

int control_lic_show (const struct control_show_opts *o, int argc, char **argv)
{
    struct msg_lic_info req = { .name = argc > 1 ? argv[1] : "" };
    struct msg_lic_info_reply r;
    struct client cl;
    arbor_error_t err;
    int rc;

    if (argc > 2) {
        fprintf (stderr, "too many arguments for keyword:show licenses\n");
        return 1;
    }
    if (o->json) {
        fprintf (stderr, "--json: show licenses has no JSON document\n");
        return 1;
    }
    if (client_open (&cl, &err) < 0)
        die ("%s", err.text);
    rc = client_call (&cl, MSG_LIC_INFO, &req, MSG_LIC_INFO_REPLY, &r,
                      CLIENT_TIMEOUT_MS, &err);
    client_close (&cl);
    if (rc < 0 && errno == ENOENT) {
        printf ("%s\n", err.text);
        return 1;
    }
    if (rc < 0)
        die ("slurm_load_licenses error: %s", err.text);
    lic_print (&r, o->oneliner);
    proto_clear (MSG_LIC_INFO_REPLY, &r);
    return 0;
}
