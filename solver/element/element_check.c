/* Geometry checks and volumes of single elements (see element_check.h). */
#include "element_check.h"

#include <math.h>

#include "element.h"
