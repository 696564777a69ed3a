#pragma once
// apps/v1 ReplicaSet and StatefulSet, as far as the scheduler reads them: the pod selector (system
// default spreading groups the pods of a pod's owners, upstream helper.DefaultSelector).

#include <optional>
#include <string_view>

#include "pkg/api/meta.h"

namespace ks::api {

struct ReplicaSetSpec {
  std::optional<LabelSelector> selector;
  bool operator==(const ReplicaSetSpec&) const = default;
};

struct ReplicaSet {
  static constexpr std::string_view kKind = "ReplicaSet";
  static constexpr std::string_view kApiVersion = "apps/v1";
  ObjectMeta metadata;
  ReplicaSetSpec spec;
  bool operator==(const ReplicaSet&) const = default;
};

struct StatefulSetSpec {
  std::optional<LabelSelector> selector;
  bool operator==(const StatefulSetSpec&) const = default;
};

struct StatefulSet {
  static constexpr std::string_view kKind = "StatefulSet";
  static constexpr std::string_view kApiVersion = "apps/v1";
  ObjectMeta metadata;
  StatefulSetSpec spec;
  bool operator==(const StatefulSet&) const = default;
};

}  // namespace ks::api
