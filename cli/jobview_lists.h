/* jobview_lists.h - job views from the lists of a 2.11 controller
 * (jobview_lists.c).
 */
#ifndef ARBOR_CLI_JOBVIEW_LISTS_H
#define ARBOR_CLI_JOBVIEW_LISTS_H

#include "error.h"
#include "jobview.h"
#include "proto.h"

/* Append the views of one page of lists to 'out'. 0, or -1 with errno
 * ENOMEM and err. */
int jobview_from_lists (struct job_list *out,
                        const struct msg_job_info_reply *page,
                        arbor_error_t *err);

#endif
