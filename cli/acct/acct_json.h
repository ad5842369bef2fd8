/* acct_json.h - arbor acct --json: the records as one JSON document.
 *
 *   {"schema": "arbor.acct", "version": 1, "jobs": [ {job..., "steps":
 *    [...], "events": [...]}, ... ]}
 *
 * docs/json/acct.md describes every member and docs/json-schema.md the
 * rule that keeps the document stable: within a major version members
 * are only added.
 */
#ifndef ARBOR_CLI_ACCT_JSON_H
#define ARBOR_CLI_ACCT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "jobview.h"
#include "proto.h"

#define ACCT_JSON_SCHEMA "arbor.acct"
#define ACCT_JSON_VERSION 1

struct acct_json;

/* An empty document. NULL with errno ENOMEM. */
struct acct_json *acct_json_create (void);
void acct_json_destroy (struct acct_json *d);

/* Add a job run, its view (jobview_acct.h: with v->acct), with the
 * steps to show (sorted, borrowed for the call). 0 (running out of
 * memory shows in acct_json_write). */
int acct_json_add_job (struct acct_json *d, const struct job_view *v,
                       const struct msg_acct_step *const *steps, size_t nsteps);

/* Write the document (indented, then a newline). 0, or -1 with errno. */
int acct_json_write (const struct acct_json *d, FILE *f);

#endif
