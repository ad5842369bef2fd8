/* trigger_text.c - strigger --get's table. See trigger_text.h. */
#include <stdio.h>

#include "trigger_text.h"
#include "trigtype.h"

bool trigger_text_wanted (const struct msg_trigger_get_reply *r, uint32_t i,
                          const struct trigger_filter *flt)
{
    if (flt->types && r->types[i] != flt->types)
        return false;
    if (flt->nodes && r->res_types[i] != TRIG_RES_NODE)
        return false;
    return true;
}

unsigned trigger_text_print (FILE *f, const struct msg_trigger_get_reply *r,
                             const struct trigger_filter *flt, bool noheader)
{
    unsigned shown = 0;
    char ty[64];

    for (uint32_t i = 0; i < r->trig_ids_count; i++) {
        if (!trigger_text_wanted (r, i, flt))
            continue;
        if (shown++ == 0 && !noheader)
            fprintf (f,
                     "TRIG_ID RES_TYPE   RES_ID %-35s OFFSET %-8s FLAGS "
                     "PROGRAM\n",
                     "TYPE", "USER");
        fprintf (f, "%7u %-9s %7s %-35s %6d %-8s %-5s %s\n", r->trig_ids[i],
                 trigtype_res_str (r->res_types[i]),
                 r->res_ids[i] ? r->res_ids[i] : "",
                 trigtype_str (r->types[i], ty, sizeof (ty)), r->offsets[i],
                 r->users[i] ? r->users[i] : "unknown",
                 (r->flags[i] & TRIG_FLAG_PERM) ? "PERM" : "",
                 r->programs[i] ? r->programs[i] : "");
    }
    return shown;
}
