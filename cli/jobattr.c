/* jobattr.c - the job attributes every command shows the same way; see
 * jobattr.h. One line per attribute.
 */
#include <stddef.h>

#include "jobattr.h"

/* clang-format off */
const struct job_attr job_attrs[] = {
    { "Comment", NULL, true, 'k', "COMMENT", 20, "comment",
      offsetof (struct msg_job_alloc, comment) },
    { "Feature", "Constraints", false, 'f', "FEATURES", 19, "features",
      offsetof (struct msg_job_alloc, constraint) },
};
/* clang-format on */
const size_t job_nattrs = sizeof (job_attrs) / sizeof (job_attrs[0]);

const char *job_attr_text (const struct job_attr *a, const struct job_view *v)
{
    if (!v)
        return "";
    return jv_str (*(char *const *)((const char *)&v->req + a->req_off));
}
