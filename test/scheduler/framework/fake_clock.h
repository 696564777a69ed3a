#pragma once
// Tests' name for the manual clock (now() moves only on step(); due timers fire on the stepping thread).

#include "pkg/util/manual_clock.h"

namespace ks::framework::testing {

using FakeClock = ManualClock;

}  // namespace ks::framework::testing
