#pragma once
// Go time.Duration text, as metav1.Duration reads and writes it (pkg/util/go_duration.h).

#include "pkg/util/go_duration.h"

namespace ks::config {

using ks::formatGoDuration;
using ks::parseGoDuration;

}  // namespace ks::config
