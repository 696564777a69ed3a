#include "pkg/scheduler/framework/fit_error.h"

#include <algorithm>
#include <map>
#include <vector>

namespace ks::framework {

void Diagnosis::addPluginStatus(const Status& status) {
  if (status.plugin().empty()) return;
  // Pending counts as rejected too, as upstream.
  if (status.isRejected()) unschedulablePlugins.insert(status.plugin());
  if (status.code() == Code::Pending) {
    pendingPlugins.insert(status.plugin());
  }
}

std::string FitError::message() const {
  std::string msg = "0/" + std::to_string(numAllNodes) + " nodes are available:";
  if (!diagnosis.preFilterMsg.empty()) {
    msg += " " + diagnosis.preFilterMsg + ".";
  } else {
    std::map<std::string, int> reasons;
    diagnosis.nodeToStatus.forEachExplicitNode([&](const std::string&, const Status& status) {
      for (const auto& r : status.reasons()) reasons[r]++;
    });
    const int explicitNodes = static_cast<int>(diagnosis.nodeToStatus.size());
    if (explicitNodes < numAllNodes) {
      for (const auto& r : diagnosis.nodeToStatus.absentNodesStatus().reasons()) {
        reasons[r] += numAllNodes - explicitNodes;
      }
    }
    std::vector<std::string> counted;
    counted.reserve(reasons.size());
    for (const auto& [reason, count] : reasons) counted.push_back(std::to_string(count) + " " + reason);
    std::sort(counted.begin(), counted.end());
    if (!counted.empty()) {
      msg += " ";
      for (size_t i = 0; i < counted.size(); ++i) {
        if (i > 0) msg += ", ";
        msg += counted[i];
      }
      msg += ".";
    }
  }
  // Upstream appends the PostFilter message as it is (preemption's message ends in its own ".").
  if (!diagnosis.postFilterMsg.empty()) msg += " " + diagnosis.postFilterMsg;
  return msg;
}

std::string truncateMessage(std::string message) {
  constexpr size_t kMaxLen = 1024;
  if (message.size() <= kMaxLen) return message;
  static constexpr std::string_view kSuffix = " ...";
  message.resize(kMaxLen - kSuffix.size());
  message += kSuffix;
  return message;
}

}  // namespace ks::framework
