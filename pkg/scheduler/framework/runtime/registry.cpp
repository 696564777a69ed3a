#include "pkg/scheduler/framework/runtime/registry.h"

namespace ks::framework::runtime {

Result<void> Registry::registerPlugin(const std::string& name, PluginFactory factory) {
  if (factories_.contains(name)) return Error("a plugin named " + name + " already exists");
  factories_.emplace(name, std::move(factory));
  return {};
}

Result<void> Registry::unregisterPlugin(const std::string& name) {
  if (factories_.erase(name) == 0) return Error("no plugin named " + name + " exists");
  return {};
}

Result<void> Registry::merge(const Registry& other) {
  for (const auto& [name, factory] : other.factories_) {
    if (auto r = registerPlugin(name, factory); !r) return r;
  }
  return {};
}

}  // namespace ks::framework::runtime
