#include "pkg/scheduler/framework/runtime/pods_in_prebind_map.h"

namespace ks::framework::runtime {

bool PodInPreBindImpl::cancelPod(const std::string& message) {
  std::lock_guard lock(mu_);
  if (finished_) return false;
  cancel_.cancel(message);  // a second cancel keeps the first cause
  return true;
}

bool PodInPreBindImpl::markPrebound() {
  std::lock_guard lock(mu_);
  if (cancel_.cancelled()) return false;
  finished_ = true;
  return true;
}

std::shared_ptr<PodInPreBindImpl> PodsInPreBindMap::add(const std::string& uid) {
  auto entry = std::make_shared<PodInPreBindImpl>();
  std::unique_lock lock(mu_);
  pods_[uid] = entry;
  return entry;
}

std::shared_ptr<PodInPreBindImpl> PodsInPreBindMap::get(const std::string& uid) const {
  std::shared_lock lock(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second;
}

void PodsInPreBindMap::remove(const std::string& uid) {
  std::unique_lock lock(mu_);
  pods_.erase(uid);
}

}  // namespace ks::framework::runtime
