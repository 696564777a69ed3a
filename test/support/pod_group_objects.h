#pragma once
// Gang scheduling objects for tests (upstream st.MakePod().PodGroupName(...) and st.MakePodGroup()),
// header only.

#include <memory>
#include <optional>
#include <string>

#include "pkg/api/core.h"
#include "pkg/api/scheduling.h"

namespace ks::testing {

// `pod` as a member of the PodGroup `group` (spec.schedulingGroup.podGroupName).
inline api::Pod inPodGroup(api::Pod pod, const std::string& group) {
  api::PodSchedulingGroup sg;
  sg.podGroupName = group;
  pod.spec.schedulingGroup = sg;
  return pod;
}

// A member pod: namespace, name, uid, group and (when bound) nodeName.
inline api::PodPtr podGroupMember(const std::string& ns, const std::string& name, const std::string& uid,
                                  const std::string& group, const std::string& nodeName = "") {
  api::Pod pod;
  pod.metadata.namespace_ = ns;
  pod.metadata.name = name;
  pod.metadata.uid = uid;
  pod.spec.nodeName = nodeName;
  return std::make_shared<const api::Pod>(inPodGroup(std::move(pod), group));
}

// A PodGroup with a gang policy of `minCount`, or a basic policy when minCount is unset (upstream
// MakePodGroup().MinCount(n) / .BasicPolicy()).
inline std::shared_ptr<const api::PodGroup> makePodGroup(const std::string& ns, const std::string& name,
                                                         std::optional<int32_t> minCount = std::nullopt) {
  api::PodGroup pg;
  pg.metadata.namespace_ = ns;
  pg.metadata.name = name;
  if (minCount) {
    pg.spec.schedulingPolicy.gang = api::GangSchedulingPolicy{*minCount};
  } else {
    pg.spec.schedulingPolicy.basic = api::EmptyObject{};
  }
  return std::make_shared<const api::PodGroup>(std::move(pg));
}

}  // namespace ks::testing
