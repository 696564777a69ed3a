#pragma once
// All field tables (see schema.h), for the codec translation units.

#include "pkg/api/schema/meta.h"
#include "pkg/api/schema/schema.h"
