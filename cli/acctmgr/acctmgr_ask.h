/* acctmgr_ask.h - sacctmgr's question before it commits a change:
 *
 *   Would you like to commit changes? (You have 30 seconds to decide)
 *   (N/y):
 *
 * and one line read from a descriptor (the terminal), waited for at most
 * a given time (poll(2)), as Slurm's commit_check waits 30 seconds.
 */
#ifndef ARBOR_CLI_ACCTMGR_ASK_H
#define ARBOR_CLI_ACCTMGR_ASK_H

#include <stdio.h>

#define ACCTMGR_ASK_TIMEOUT_MS 30000

enum acctmgr_answer {
    ACCTMGR_NO,         /* a line whose first non-blank is not y or Y */
    ACCTMGR_YES,        /* a line whose first non-blank is y or Y */
    ACCTMGR_UNANSWERED, /* end of file, a read error or the time ran out
                           before any line */
};

/* Print the question to out (flushed), then read one line from fd (a
 * byte at a time, so nothing after it is taken from fd), waiting at most
 * timeout_ms in all. A last line without its newline counts as a line. */
enum acctmgr_answer acctmgr_ask (FILE *out, int fd, int timeout_ms);

#endif
