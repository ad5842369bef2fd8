/* control_rec.h - the records of arbor control show, in scontrol's
 * layout, and the value formats they share.
 *
 * A record is a list of lines of KEY=VALUE words. Printed, the first
 * line starts the record, every further line is indented by three
 * spaces, and a blank line ends it:
 *
 *     JobId=5 JobName=sim
 *        UserId=alice(1001) GroupId=alice(1001) MCS_label=N/A
 *        ...
 *
 * With -o (oneliner) the lines are joined by single spaces into one
 * line per record, and no blank line follows. Pure functions, unit
 * tested (cli/test/control_show_test.c).
 */
#ifndef ARBOR_CLI_CONTROL_REC_H
#define ARBOR_CLI_CONTROL_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct control_rec {
    char **line; /* n lines, each malloc'd */
    size_t n;
    size_t cap;
    bool failed; /* an add ran out of memory: the record is incomplete */
};

/* Append one line. 0, or -1 with errno ENOMEM (and r->failed set). */
int control_rec_add (struct control_rec *r, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* The record as printed, with its final newline(s). Caller frees; NULL
 * with errno ENOMEM (also when an add failed). */
char *control_rec_text (const struct control_rec *r, bool oneliner);

/* Forget the lines (the record may be filled again). NULL-safe. */
void control_rec_clear (struct control_rec *r);

/* ---- values, as scontrol prints them ----------------------------------- */

/* A time: YYYY-MM-DDTHH:MM:SS local (or SLURM_TIME_FORMAT's strftime
 * format), "Unknown" for 0. Returns buf. */
const char *control_time (uint64_t t, char *buf, size_t len);

/* A duration in seconds (RunTime): [D-]HH:MM:SS, negative as 0.
 * Returns buf. */
const char *control_duration (int64_t secs, char *buf, size_t len);

/* A limit in minutes (TimeLimit, MaxTime): [D-]HH:MM:SS, or "UNLIMITED"
 * for TIME_INFINITE. Returns buf. */
const char *control_limit (uint32_t minutes, char *buf, size_t len);

/* Memory as TRES show it: MB in the largest unit that divides it
 * ("512M", "8G", "2T"; 0 is "0"). Returns buf. */
const char *control_mem (uint64_t mb, char *buf, size_t len);

/* s, or "(null)" when it is NULL or empty: how scontrol shows unset
 * text. */
const char *control_null (const char *s);

#endif
