/* words.h - split text into lines, and a line into words as sh(1) would.
 *
 * Shared by the readers of batch script directives ("#SBATCH -N 2") and of
 * srun --multi-prog files, which both take Slurm's shell-like quoting:
 *   - blanks (space, tab, CR, LF, VT, FF) separate words;
 *   - '...' keeps everything inside literally;
 *   - "..." does too, except that \" and \\ give " and \ (any other
 *     backslash is kept with the character after it);
 *   - outside quotes a backslash makes the next character literal (a
 *     backslash that ends the text is kept as it is);
 *   - quoted parts join the text around them: a"b c"d is the one word
 *     "ab cd", and "" or '' is an empty word;
 *   - an unquoted '#' that starts a word starts a comment running to the
 *     end of the text ("a#b" is one word).
 * There are no expansions ($VAR, `cmd`, globs, ~) and no continuation
 * lines: a quote must close on the line it opens.
 */
#ifndef ARBOR_WORDS_H
#define ARBOR_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

/* words_split flag: write a '%' that was quoted or backslash-escaped as
 * "%%", so that a caller expanding %-sequences (multiprog's %t and %o)
 * leaves it alone once it reads "%%" as a literal '%'. */
#define WORDS_QUOTE_PERCENT 0x1

struct words {
    char **v;     /* n malloc'd words then NULL; NULL while nothing added */
    size_t n;     /* number of words */
    size_t alloc; /* private: slots allocated in v */
};

/* Append the words of s[0..len) to w, which is zeroed or holds earlier
 * words. Returns 0, or -1 with errno EINVAL and err ("unterminated double
 * quote", "NUL character") or ENOMEM; on failure w is as it was. */
int words_split (struct words *w, const char *s, size_t len, int flags,
                 arbor_error_t *err);

/* Append a copy of 'word'. 0, or -1 with errno ENOMEM. */
int words_append (struct words *w, const char *word);

/* Free the words and zero w. Accepts NULL; keeps errno. */
void words_clear (struct words *w);

/* Iterate over the lines of text[0..len): *pos starts at 0. Sets *line and
 * *linelen (without the "\n", or the "\r\n" of a CRLF file) and returns
 * true, or false when the text is used up. A last line without "\n" counts;
 * a final "\n" does not start an empty line. */
bool words_next_line (const char *text, size_t len, size_t *pos,
                      const char **line, size_t *linelen);

/* Call fn on each comma-separated word of a writable copy of 'text'
 * (empty words skipped; NULL text has none), until one returns -1.
 * Parameter lists ("bf_mode=easy,bf_window=60") read this way. 0, or -1
 * as fn returned it, or with errno ENOMEM and err. */
int words_each_comma (const char *text,
                      int (*fn) (char *word, void *arg, arbor_error_t *err),
                      void *arg, arbor_error_t *err);

#endif
