/* listen_tally.h - counts by key (a peer address, a uid) for the listener.
 *
 * The listener bounds connections per address and sessions per uid and per
 * address; these counters make each check one hash lookup instead of a
 * walk over every connection. A key's entry goes when its count returns to
 * zero, so a tally holds no more entries than there are connections.
 */
#ifndef ARBOR_LISTEN_TALLY_H
#define ARBOR_LISTEN_TALLY_H

#define TALLY_KEY_MAX 64

struct tally;

struct tally *tally_create (void);
void tally_destroy (struct tally *t); /* NULL-safe, keeps errno */

/* The count of 'key' (0 when absent). */
unsigned tally_get (const struct tally *t, const char *key);
/* One more for 'key' (truncated to TALLY_KEY_MAX - 1 bytes). 0, or -1
 * with errno ENOMEM. */
int tally_add (struct tally *t, const char *key);
/* One less; the entry goes at zero. An absent key is left alone. */
void tally_sub (struct tally *t, const char *key);
/* The key with the largest count, or NULL when empty. */
const char *tally_max (const struct tally *t);

#endif
