/* What the files of solver/partition/ share and nothing else uses. */
#ifndef DT_PARTITION_INTERNAL_H
#define DT_PARTITION_INTERNAL_H

#include "core/intern.h"
#include "model/model.h"
#include "model/node_elems.h"

#endif
