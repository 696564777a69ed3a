#include "pkg/scheduler/framework/cycle_state.h"

#include <algorithm>
#include <atomic>

namespace ks::framework {

namespace detail {
namespace {
std::atomic<StateKey> gStateKeys{0};
}
StateKey nextStateKey() {
  return gStateKeys.fetch_add(1, std::memory_order_relaxed);
}
StateKey stateKeyCount() {
  return gStateKeys.load(std::memory_order_relaxed);
}
}  // namespace detail

bool PluginNameSet::contains(std::string_view name) const {
  for (const auto& n : names_) {
    if (n == name) return true;
  }
  return false;
}

void PluginNameSet::insert(std::string_view name) {
  auto it = std::lower_bound(names_.begin(), names_.end(), name,
                             [](const std::string& a, std::string_view b) { return a < b; });
  if (it != names_.end() && *it == name) return;
  names_.insert(it, std::string(name));
}

CycleState::CycleState() {
  slots_.resize(detail::stateKeyCount());
}

std::unique_ptr<StateData>& CycleState::slotFor(StateKey k) {
  if (k >= slots_.size()) slots_.resize(std::max<std::size_t>(k + 1, detail::stateKeyCount()));
  return slots_[k];
}

std::unique_ptr<CycleState> CycleState::clone() const {
  auto out = std::make_unique<CycleState>();
  out->slots_.resize(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i]) out->slots_[i] = slots_[i]->clone();
  }
  out->skipFilterPlugins_ = skipFilterPlugins_;
  out->skipScorePlugins_ = skipScorePlugins_;
  out->skipPreBindPlugins_ = skipPreBindPlugins_;
  out->parallelPreBindPlugins_ = parallelPreBindPlugins_;
  out->recordPluginMetrics_ = recordPluginMetrics_;
  return out;
}

}  // namespace ks::framework
