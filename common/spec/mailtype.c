/* mailtype.c - --mail-type words and masks. See mailtype.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mailtype.h"

/* In the order Slurm prints them; ALL and NONE are parsed apart. */
static const struct {
    const char *word;
    uint32_t bit;
} mail_words[] = {
    { "ARRAY_TASKS", MAIL_ARRAY_TASKS },
    { "INVALID_DEPEND", MAIL_INVALID_DEPEND },
    { "BEGIN", MAIL_BEGIN },
    { "END", MAIL_END },
    { "FAIL", MAIL_FAIL },
    { "REQUEUE", MAIL_REQUEUE },
    { "STAGE_OUT", MAIL_STAGE_OUT },
    { "TIME_LIMIT_50", MAIL_TIME50 },
    { "TIME_LIMIT_80", MAIL_TIME80 },
    { "TIME_LIMIT_90", MAIL_TIME90 },
    { "TIME_LIMIT", MAIL_TIME100 },
};

#define NWORDS (sizeof (mail_words) / sizeof (mail_words[0]))
#define VALID                                                           \
    "NONE, BEGIN, END, FAIL, REQUEUE, ALL, INVALID_DEPEND, STAGE_OUT, " \
    "TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80, TIME_LIMIT_50, ARRAY_TASKS"

/* The bit of the 'n' bytes at 'w'; 0 for NONE, -1 unknown. */
static long mail_word (const char *w, size_t n)
{
    if (n == 4 && !strncasecmp (w, "NONE", 4))
        return 0;
    if (n == 3 && !strncasecmp (w, "ALL", 3))
        return MAIL_ALL;
    for (size_t i = 0; i < NWORDS; i++)
        if (strlen (mail_words[i].word) == n
            && !strncasecmp (w, mail_words[i].word, n))
            return mail_words[i].bit;
    return -1;
}

int mailtype_parse (const char *s, uint32_t *mask, arbor_error_t *err)
{
    uint32_t m = 0;

    errno = EINVAL;
    if (!s || !*s)
        return errprintf (err, "empty --mail-type; valid types: %s", VALID);
    for (const char *p = s;;) {
        size_t n = strcspn (p, ",");
        long bit = mail_word (p, n);
        if (bit < 0)
            return errprintf (err,
                              "invalid --mail-type '%.*s'; valid types: %s",
                              (int)(n > 40 ? 40 : n), p, VALID);
        m |= (uint32_t)bit;
        if (!p[n])
            break;
        p += n + 1;
    }
    *mask = m;
    return 0;
}

const char *mailtype_str (uint32_t mask, char *buf, size_t len)
{
    size_t off = 0;

    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (!(mask & MAIL_KNOWN)) {
        snprintf (buf, len, "NONE");
        return buf;
    }
    for (size_t i = 0; i < NWORDS && off < len; i++)
        if (mask & mail_words[i].bit)
            off += (size_t)snprintf (buf + off, len - off, "%s%s",
                                     off ? "," : "", mail_words[i].word);
    return buf;
}
