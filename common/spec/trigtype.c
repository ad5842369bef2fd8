/* trigtype.c - trigger event and resource names. See trigtype.h. */
#include <stdio.h>

#include "trigtype.h"

static const struct {
    uint32_t bit;
    const char *name;
} trig_names[] = {
    { TRIG_UP, "up" },           { TRIG_DOWN, "down" }, { TRIG_FAIL, "fail" },
    { TRIG_TIME, "time" },       { TRIG_FINI, "fini" }, { TRIG_IDLE, "idle" },
    { TRIG_DRAINED, "drained" },
};

const char *trigtype_res_str (uint32_t res_type)
{
    switch (res_type) {
    case TRIG_RES_JOB: return "job";
    case TRIG_RES_NODE: return "node";
    default: return "?";
    }
}

const char *trigtype_str (uint32_t types, char *buf, size_t len)
{
    size_t off = 0;

    if (len == 0)
        return buf;
    snprintf (buf, len, "none");
    for (size_t i = 0; i < sizeof (trig_names) / sizeof (trig_names[0]); i++)
        if ((types & trig_names[i].bit) && off < len)
            off += (size_t)snprintf (buf + off, len - off, "%s%s",
                                     off ? "," : "", trig_names[i].name);
    return buf;
}
