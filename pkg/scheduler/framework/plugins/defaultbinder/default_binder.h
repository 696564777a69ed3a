#pragma once
// DefaultBinder (upstream plugins/defaultbinder): binds the pod by POSTing pods/<name>/binding through
// the framework handle's API client.

#include <memory>
#include <string>
#include <string_view>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::plugins::defaultbinder {

class DefaultBinder final : public framework::BindPlugin {
 public:
  static constexpr std::string_view kName = "DefaultBinder";

  explicit DefaultBinder(framework::Handle& handle) : handle_(handle) {}

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // Binding{metadata: pod namespace/name/uid, target: Node <nodeName>}. An API error becomes an Error
  // status with the error's message. Runs on a binding thread; blocks on the API call.
  framework::Status bind(framework::CycleState& state, const framework::PodInfo& pod,
                         const std::string& nodeName) override;

 private:
  framework::Handle& handle_;
};

}  // namespace ks::plugins::defaultbinder
