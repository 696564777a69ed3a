#pragma once
// The in-tree plugin registry (upstream plugins/registry.go NewInTreeRegistry), filled in one explicit
// function: static libraries would silently drop self-registering initialisers.

#include <string>
#include <vector>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/runtime/registry.h"

namespace ks::plugins {

// The feature gates in-tree plugins read (upstream plugins/feature.Features), v1.34 defaults.
struct Features {
  // SchedulerAsyncPreemption: DefaultPreemption evicts off the scheduling thread.
  bool enableAsyncPreemption = true;
  // Not a gate: simulate has no PV controller, so VolumeBinding takes the bindings it writes as done.
  bool assumeVolumeBindingCompletes = false;
};

framework::runtime::Registry newInTreeRegistry(const Features& features = {});

// Upstream v1.34 in-tree plugins that kube-scheduler-cpp does not implement yet.
const std::vector<std::string>& notYetImplementedPlugins();

// Fails with a clear message when the profile enables a plugin of notYetImplementedPlugins() (in any
// extension point or multiPoint, and not disabled), naming the plugins and how to disable them.
Result<void> checkProfileImplemented(const config::KubeSchedulerProfile& profile,
                                     const framework::runtime::Registry& registry);

}  // namespace ks::plugins
