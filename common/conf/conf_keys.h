/* conf_keys.h - the lexer, the values and the global keys of arbor.conf
 * (conf_keys.c). Private to common/conf/; see conf_parse.h for the parser
 * they work on.
 */
#ifndef ARBOR_CONF_KEYS_H
#define ARBOR_CONF_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "conf_parse.h"

int conf_fail (struct conf_parser *p, int errnum, const char *key,
               const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));
/* Next Key=Value token of the line at *pp, unquoted in place. Returns 1
 * with *key and *val set, 0 at the end of the line, -1 on error. */
int conf_token (struct conf_parser *p, char **pp, char **key, char **val);
/* Values: a copy of a string, a decimal number in [min, max], a Slurm
 * time, YES/NO. */
int conf_set_str (struct conf_parser *p, char **dst, const char *val);
int conf_number (struct conf_parser *p, const char *key, const char *val,
                 uint32_t min, uint32_t max, uint32_t *out);
int conf_time (struct conf_parser *p, const char *key, const char *val,
               uint32_t *out);
int conf_real (struct conf_parser *p, const char *key, const char *val,
               double min, double *out);
int conf_bool (struct conf_parser *p, const char *key, const char *val,
               bool *out);
/* Set a global key. Returns 1 if 'key' is not one. */
int conf_global (struct conf_parser *p, const char *key, const char *val);
/* The canonical name of global key 'key' (name or Slurm alias), or NULL. */
const char *conf_key_name (const char *key);
/* Free the string values of the global keys of 'c'. */
void conf_keys_free (struct conf *c);

#endif
