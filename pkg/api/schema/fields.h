#pragma once
// All field tables (see schema.h), for the codec translation units.

#include "pkg/api/schema/core_cluster.h"
#include "pkg/api/schema/core_pod.h"
#include "pkg/api/schema/meta.h"
#include "pkg/api/schema/other.h"
#include "pkg/api/schema/resource.h"
#include "pkg/api/schema/scheduling.h"
#include "pkg/api/schema/schema.h"
