/* error.h - error text carried back to callers that need to explain a failure.
 *
 * Functions return 0/-1 or ptr/NULL with errno set; those whose callers need
 * a sentence (config parsing, decoding, credential checks) also fill an
 * arbor_error_t. errprintf() always returns -1 so that
 *     return errprintf (err, "%s:%d: unknown key '%s'", path, line, key);
 * reads as one statement. err may be NULL. errno is preserved.
 */
#ifndef ARBOR_ERROR_H
#define ARBOR_ERROR_H

#include <stddef.h>

typedef struct {
    char text[160];
} arbor_error_t;

int errprintf (arbor_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Add a sentence to err's text, after "; " if it has one already (so
 * that one answer can name several failures), cut to fit. err may be
 * NULL; errno is preserved. */
void errappend (arbor_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* strerror (errnum) starting lower case ("connection refused"), to sit
 * inside a sentence; written to buf (len bytes), which is returned. */
const char *errno_text (int errnum, char *buf, size_t len);

#endif
