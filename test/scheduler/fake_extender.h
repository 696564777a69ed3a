#pragma once
// Upstream pkg/scheduler/testing/framework/fake_extender.go: an in-process framework::Extender driven
// by predicate and priority functions, and the functions upstream's tests use. Thread-safe (prioritize
// runs on the scheduler's extender threads, bind on a binding thread).
//
// Not ported: the NodeCacheCapable victim selection (CachedNodeNameToInfo), which no ported case sets.

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/extender.h"
#include "pkg/scheduler/framework/status.h"

namespace ks::scheduler::testing {

using FitPredicate = std::function<framework::Status(const api::Pod&, const framework::NodeInfo&)>;
using PriorityFunc =
    std::function<Result<framework::NodeScoreList>(const api::Pod&, const std::vector<framework::NodeInfoPtr>&)>;

struct PriorityConfig {
  PriorityFunc function;
  int64_t weight = 0;
};

inline framework::Status errorPredicateExtender(const api::Pod&, const framework::NodeInfo&) {
  return framework::Status(framework::Code::Error, "some error");
}
inline framework::Status falsePredicateExtender(const api::Pod&, const framework::NodeInfo& node) {
  return framework::Status(framework::Code::Unschedulable,
                           "pod is unschedulable on the node \"" + node.nodeName() + "\"");
}
inline framework::Status truePredicateExtender(const api::Pod&, const framework::NodeInfo&) {
  return framework::Status();
}
inline FitPredicate onlyNodePredicateExtender(std::string allowed) {
  return [allowed](const api::Pod&, const framework::NodeInfo& node) {
    if (node.nodeName() == allowed) return framework::Status();
    return framework::Status(framework::Code::Unschedulable, "node \"" + node.nodeName() + "\" is not allowed");
  };
}
inline const FitPredicate node1PredicateExtender = onlyNodePredicateExtender("node1");
inline const FitPredicate node2PredicateExtender = onlyNodePredicateExtender("node2");

inline Result<framework::NodeScoreList> errorPrioritizerExtender(const api::Pod&,
                                                                 const std::vector<framework::NodeInfoPtr>&) {
  return Error("some error");
}
inline PriorityFunc onlyNodePrioritizerExtender(std::string favoured) {
  return [favoured](const api::Pod&, const std::vector<framework::NodeInfoPtr>& nodes) {
    framework::NodeScoreList out;
    for (const auto& n : nodes) out.push_back({n->nodeName(), n->nodeName() == favoured ? 10 : 1});
    return Result<framework::NodeScoreList>(out);
  };
}
inline const PriorityFunc node1PrioritizerExtender = onlyNodePrioritizerExtender("node1");
inline const PriorityFunc node2PrioritizerExtender = onlyNodePrioritizerExtender("node2");

class FakeExtender final : public framework::Extender {
 public:
  std::string extenderName;
  std::vector<FitPredicate> predicates;
  std::vector<PriorityConfig> prioritizers;
  int64_t weight = 0;
  bool unInterested = false;
  bool ignorable = false;
  std::function<Result<void>()> binder;

  std::string name() const override { return extenderName.empty() ? "defaultFakeExtender" : extenderName; }
  bool isIgnorable() const override { return ignorable; }
  bool supportsPreemption() const override { return true; }
  bool isBinder() const override { return true; }
  bool isPrioritizer() const override { return !prioritizers.empty(); }
  bool isFilter() const override { return !predicates.empty(); }
  bool isInterested(const api::Pod&) const override { return !unInterested; }

  Result<std::map<std::string, framework::Victims>> processPreemption(
      const api::Pod& pod, const std::map<std::string, framework::Victims>& nodeNameToVictims,
      const framework::NodeInfoLister& nodeInfos) override {
    std::map<std::string, framework::Victims> out = nodeNameToVictims;
    for (const auto& [nodeName, victims] : nodeNameToVictims) {
      auto nodeInfo = nodeInfos.get(nodeName);
      if (!nodeInfo.ok()) return nodeInfo.error();
      // Without a node cache: the node passes as it is (no extra victims) or is dropped.
      framework::Status s = runPredicate(pod, **nodeInfo);
      if (s.isSuccess()) continue;
      if (s.isRejected()) {
        out.erase(nodeName);
        continue;
      }
      return Error(s.message());
    }
    return out;
  }

  Result<framework::ExtenderFilterResult> filter(const api::Pod& pod,
                                                 const std::vector<framework::NodeInfoPtr>& nodes) override {
    framework::ExtenderFilterResult out;
    for (const auto& node : nodes) {
      framework::Status s = runPredicate(pod, *node);
      if (s.isSuccess()) {
        out.nodes.push_back(node);
      } else if (s.code() == framework::Code::Unschedulable) {
        out.failedNodes[node->nodeName()] = "FakeExtender: node \"" + node->nodeName() + "\" failed";
      } else if (s.code() == framework::Code::UnschedulableAndUnresolvable) {
        out.failedAndUnresolvableNodes[node->nodeName()] =
            "FakeExtender: node \"" + node->nodeName() + "\" failed and unresolvable";
      } else {
        return Error(s.message());
      }
    }
    std::lock_guard lock(mu_);
    filteredNodes_.clear();
    for (const auto& n : out.nodes) filteredNodes_.push_back(n->nodeName());
    return out;
  }

  Result<framework::ExtenderScores> prioritize(const api::Pod& pod,
                                               const std::vector<framework::NodeInfoPtr>& nodes) override {
    std::map<std::string, int64_t> combined;
    for (const auto& p : prioritizers) {
      if (p.weight == 0) continue;
      auto list = p.function(pod, nodes);
      if (!list.ok()) return list.error();
      for (const auto& e : *list) combined[e.name] += e.score * p.weight;
    }
    framework::ExtenderScores out;
    for (const auto& [host, score] : combined) out.priorities.push_back({host, score});
    out.weight = weight;
    return out;
  }

  Result<void> bind(const framework::ExtenderBinding& binding) override {
    if (binder) return binder();
    std::lock_guard lock(mu_);
    if (filteredNodes_.empty()) return {};
    std::vector<std::string> filtered;
    filtered.swap(filteredNodes_);
    for (const auto& n : filtered) {
      if (n == binding.node) return {};
    }
    return Error("Node " + binding.node + " not in filtered nodes");
  }

  framework::Status runPredicate(const api::Pod& pod, const framework::NodeInfo& node) const {
    for (const auto& p : predicates) {
      framework::Status s = p(pod, node);
      if (!s.isSuccess()) return s;
    }
    return framework::Status();
  }

 private:
  std::mutex mu_;
  std::vector<std::string> filteredNodes_;
};

}  // namespace ks::scheduler::testing
