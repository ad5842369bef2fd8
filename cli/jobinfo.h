/* jobinfo.h - a whole JOB_INFO listing, every page of it.
 *
 * The controller answers JOB_INFO in pages (ctld/serve/job_info.h,
 * JOB_INFO_PAGE_BYTES), so that no amount of what one user keeps can make
 * a listing larger than a frame. Each command that lists jobs asks
 * through here and gets the pages as one answer.
 */
#ifndef ARBOR_CLI_JOBINFO_H
#define ARBOR_CLI_JOBINFO_H

#include "client.h"
#include "error.h"
#include "jobview.h"
#include "proto.h"

/* Job ids one request may filter on (ctld/serve/info.c's INFO_MAX_IDS). */
#define JOBINFO_MAX_IDS 4096u

/* Ask 'req' (its after_job_id is where the listing starts; 0 from the
 * start; its 'records' is set here) and every page after it; *out holds
 * every job as a view (jobview.h), in the controller's order. A job_ids
 * filter longer than JOBINFO_MAX_IDS is asked in parts, one after the
 * other. 0, or -1 with errno and err (the controller's error, ENOMEM, or
 * EPROTO for a listing that did not advance or a record that does not
 * decode); *out is then empty. Caller job_list_clear()s *out. */
int jobinfo_fetch (struct client *cl, const struct msg_job_info *req,
                   struct job_list *out, arbor_error_t *err);

#endif
