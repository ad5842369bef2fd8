/* spool_scan.h - the stepd sockets and records in this node's spool.
 *
 * Each stepd listens on "<spool>/stepd.<job>.<step>.sock", and the noded
 * keeps "<spool>/stepd.<job>.<step>.info" for it (stepd_info.h). Scanning
 * the spool rather than the stepd table also finds the stepds of a
 * previous noded, which outlive it on purpose.
 */
#ifndef ARBOR_NODED_SPOOL_SCAN_H
#define ARBOR_NODED_SPOOL_SCAN_H

#include <stdint.h>

/* One entry found: its ids, parsed from its name, and its path
 * "<spool>/<name>" (borrowed for the call; NULL when out of memory).
 * Returns how much to add to spool_scan's count. */
typedef int (*spool_scan_f) (const char *path, uint32_t job, uint32_t step,
                             void *arg);

/* Call on_socket for each entry "stepd.<job>.<step>.sock" of 'spool' and,
 * unless it is NULL, on_info for each "stepd.<job>.<step>.info", in
 * directory order; the callbacks may remove entries. Returns the sum of
 * what the callbacks returned, 0 when the directory cannot be read. */
int spool_scan (const char *spool, spool_scan_f on_socket, spool_scan_f on_info,
                void *arg);

#endif
