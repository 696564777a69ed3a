#include "pkg/scheduler/framework/plugins/queuesort/priority_sort.h"

namespace ks::plugins::queuesort {

Result<std::unique_ptr<framework::Plugin>> PrioritySort::create(const config::PluginArgs* /*args*/,
                                                                framework::Handle& /*handle*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<PrioritySort>());
}

bool PrioritySort::less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
  const int32_t p1 = framework::podPriority(a.pod());
  const int32_t p2 = framework::podPriority(b.pod());
  return p1 > p2 || (p1 == p2 && a.timestamp < b.timestamp);
}

}  // namespace ks::plugins::queuesort
