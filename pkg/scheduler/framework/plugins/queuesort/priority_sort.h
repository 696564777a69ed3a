#pragma once
// PrioritySort: the default QueueSort plugin (upstream plugins/queuesort). Pods with higher
// spec.priority are popped first; equal priorities pop in queue-timestamp order.

#include <memory>
#include <string_view>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/result.h"

namespace ks::plugins::queuesort {

class PrioritySort final : public framework::QueueSortPlugin {
 public:
  static constexpr std::string_view kName = "PrioritySort";

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> create(const config::PluginArgs* args,
                                                           framework::Handle& handle);

  std::string_view name() const override { return kName; }

  // True if a's priority is higher, or equal with an earlier timestamp. Pure; called under the queue lock.
  bool less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
};

}  // namespace ks::plugins::queuesort
