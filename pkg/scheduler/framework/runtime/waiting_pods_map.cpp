#include "pkg/scheduler/framework/runtime/waiting_pods_map.h"

#include <cstdio>

namespace ks::framework::runtime {

std::string formatDuration(Clock::Duration d) {
  using namespace std::chrono;
  const int64_t ns = duration_cast<nanoseconds>(d).count();
  if (ns == 0) return "0s";
  const bool neg = ns < 0;
  const uint64_t u = neg ? static_cast<uint64_t>(-ns) : static_cast<uint64_t>(ns);
  auto trimmed = [](uint64_t whole, uint64_t frac, int digits) {
    std::string s = std::to_string(whole);
    if (frac != 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%0*llu", digits, static_cast<unsigned long long>(frac));
      std::string f(buf);
      while (!f.empty() && f.back() == '0') f.pop_back();
      s += "." + f;
    }
    return s;
  };
  std::string out;
  if (u < 1000) {
    out = std::to_string(u) + "ns";
  } else if (u < 1000000) {
    out = trimmed(u / 1000, u % 1000, 3) + "µs";
  } else if (u < 1000000000) {
    out = trimmed(u / 1000000, u % 1000000, 6) + "ms";
  } else {
    const uint64_t totalSec = u / 1000000000;
    const uint64_t fracNs = u % 1000000000;
    const uint64_t h = totalSec / 3600;
    const uint64_t m = (totalSec % 3600) / 60;
    const uint64_t s = totalSec % 60;
    std::string secs = trimmed(s, fracNs, 9) + "s";
    if (h > 0) {
      out = std::to_string(h) + "h" + std::to_string(m) + "m" + secs;
    } else if (m > 0) {
      out = std::to_string(m) + "m" + secs;
    } else {
      out = secs;
    }
  }
  return neg ? "-" + out : out;
}

std::shared_ptr<WaitingPodImpl> WaitingPodImpl::create(
    api::PodPtr pod, const std::map<std::string, Clock::Duration>& pluginsMaxWaitTime, Clock& clock) {
  auto wp = std::make_shared<WaitingPodImpl>(std::move(pod));
  std::weak_ptr<WaitingPodImpl> weak = wp;
  // Hold the lock while arming the timers so that a timer firing immediately waits until every timer
  // is registered (upstream does the same).
  std::lock_guard lock(wp->mu_);
  for (const auto& [plugin, waitTime] : pluginsMaxWaitTime) {
    std::string msg =
        "rejected due to timeout after waiting " + formatDuration(waitTime) + " at plugin " + plugin;
    wp->pendingPlugins_[plugin] = clock.afterFunc(waitTime, [weak, plugin, msg = std::move(msg)] {
      if (auto self = weak.lock()) self->reject(plugin, msg);
    });
  }
  return wp;
}

std::vector<std::string> WaitingPodImpl::pendingPlugins() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  out.reserve(pendingPlugins_.size());
  for (const auto& [name, _] : pendingPlugins_) out.push_back(name);
  return out;
}

bool WaitingPodImpl::deliverLocked(Status s) {
  if (result_) return false;
  result_ = std::move(s);
  delivered_.notify_all();
  return true;
}

void WaitingPodImpl::allow(const std::string& pluginName) {
  std::lock_guard lock(mu_);
  if (auto it = pendingPlugins_.find(pluginName); it != pendingPlugins_.end()) {
    it->second->stop();
    pendingPlugins_.erase(it);
  }
  // Only signal success once every plugin has allowed.
  if (!pendingPlugins_.empty()) return;
  deliverLocked(Status());
}

bool WaitingPodImpl::stopWithStatus(Code code, const std::string& pluginName, const std::string& msg) {
  std::lock_guard lock(mu_);
  for (auto& [_, timer] : pendingPlugins_) timer->stop();
  return deliverLocked(Status(code, msg).withPlugin(pluginName));
}

bool WaitingPodImpl::reject(const std::string& pluginName, const std::string& msg) {
  return stopWithStatus(Code::Unschedulable, pluginName, msg);
}

bool WaitingPodImpl::preempt(const std::string& pluginName, const std::string& msg) {
  return stopWithStatus(Code::Error, pluginName, msg);
}

Status WaitingPodImpl::wait() {
  std::unique_lock lock(mu_);
  delivered_.wait(lock, [this] { return result_.has_value(); });
  return *result_;
}

std::optional<Status> WaitingPodImpl::tryResult() const {
  std::lock_guard lock(mu_);
  return result_;
}

void WaitingPodsMap::add(std::shared_ptr<WaitingPodImpl> wp) {
  std::unique_lock lock(mu_);
  pods_[wp->pod().metadata.uid] = std::move(wp);
}

void WaitingPodsMap::remove(const std::string& uid) {
  std::unique_lock lock(mu_);
  pods_.erase(uid);
}

std::shared_ptr<WaitingPodImpl> WaitingPodsMap::get(const std::string& uid) const {
  std::shared_lock lock(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second;
}

void WaitingPodsMap::iterate(const std::function<void(WaitingPod&)>& fn) const {
  std::shared_lock lock(mu_);
  for (const auto& [_, wp] : pods_) fn(*wp);
}

std::size_t WaitingPodsMap::size() const {
  std::shared_lock lock(mu_);
  return pods_.size();
}

}  // namespace ks::framework::runtime
