/* queue_json.h - arbor queue --json: the jobs (or, with -s, the steps)
 * as one JSON document.
 *
 *   {"schema": "arbor.queue", "version": 1, "jobs": [ {...}, ... ]}
 *   {"schema": "arbor.queue.steps", "version": 1, "steps": [ ... ]}
 *
 * One object per job: array tasks are never folded here. Members and
 * their types: docs/json/queue.md and the JSON Schemas
 * docs/schema/arbor.queue.schema.json and
 * docs/schema/arbor.queue.steps.schema.json (keep the three in step with
 * this file). Within a major version members are only added.
 */
#ifndef ARBOR_CLI_QUEUE_JSON_H
#define ARBOR_CLI_QUEUE_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <stdio.h>

#include "proto.h"
#include "queue_fields.h"

#define QUEUE_JSON_SCHEMA "arbor.queue"
#define QUEUE_JSON_STEPS_SCHEMA "arbor.queue.steps"
#define QUEUE_JSON_VERSION 1

/* Write the jobs document of the rows v[0..n) (each one job, v[k].job, in
 * that order; 'folded' is not looked at) to f. 0, or -1 with errno. */
int queue_json_write_jobs (const struct queue_row *v, size_t n, FILE *f);

/* Write the steps document of the steps of 'r' that keep[i] says yes to
 * (keep NULL: all), in the reply's order, to f. 0, or -1 with errno. */
int queue_json_write_steps (const struct msg_step_info_reply *r,
                            const bool *keep, FILE *f);

#endif
