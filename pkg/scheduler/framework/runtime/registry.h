#pragma once
// Registry: plugin name -> factory (upstream runtime.Registry). The in-tree registry is filled in one
// explicit function (newInTreeRegistry, in plugins/); out-of-tree plugins are merged into it.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::framework::runtime {

// Builds a plugin from its decoded args (nullptr when the profile has no pluginConfig for it) and the
// framework handle. Errors are reported as "initializing plugin \"<name>\": <error>".
using PluginFactory = std::function<Result<std::unique_ptr<framework::Plugin>>(const config::PluginArgs* args,
                                                                               framework::Handle& handle)>;

class Registry {
 public:
  // Adds a factory; error "a plugin named <name> already exists" on a duplicate.
  Result<void> registerPlugin(const std::string& name, PluginFactory factory);
  // Removes a factory; error "no plugin named <name> exists" when absent.
  Result<void> unregisterPlugin(const std::string& name);
  // Registers every factory of `other`; fails on the first name already present.
  Result<void> merge(const Registry& other);

  bool contains(const std::string& name) const { return factories_.contains(name); }
  std::size_t size() const { return factories_.size(); }
  // In name order.
  const std::map<std::string, PluginFactory>& factories() const { return factories_; }

 private:
  std::map<std::string, PluginFactory> factories_;
};

// A factory for plugin type P constructible as P(const ArgsT&, Handle&) from typed args (default args
// when the profile has none), or as P(Handle&) when ArgsT is void.
template <class P, class ArgsT = void>
PluginFactory makeFactory() {
  return
      [](const config::PluginArgs* args, framework::Handle& h) -> Result<std::unique_ptr<framework::Plugin>> {
        if constexpr (std::is_void_v<ArgsT>) {
          (void)args;
          return std::unique_ptr<framework::Plugin>(std::make_unique<P>(h));
        } else {
          static const ArgsT kDefaults{};
          const ArgsT* typed = &kDefaults;
          if (args != nullptr) {
            typed = dynamic_cast<const ArgsT*>(args);
            if (typed == nullptr) return Error("want args of a different type");
          }
          return std::unique_ptr<framework::Plugin>(std::make_unique<P>(*typed, h));
        }
      };
}

}  // namespace ks::framework::runtime
