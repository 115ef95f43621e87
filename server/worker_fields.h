/* The fields of a converged increment as JSON, for GET /v1/jobs/{id}/results/increments/{n}:
 * nodal U and RF rows in node-id order, element means of S, E, PEEQ and MISES in element-id
 * order (null for what the job's output.fields did not request). The worker writes it next to
 * the solver's VTU after each converged increment. */
#ifndef DT_SRV_WORKER_FIELDS_H
#define DT_SRV_WORKER_FIELDS_H

#include <jansson.h>

#include "model.h"
#include "results.h"

json_t *dt_fields_json(const dt_model *model, const dt_fields *f);

#endif
