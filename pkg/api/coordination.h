#pragma once
// coordination/v1 Lease, the lock object of leader election.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/api/meta.h"

namespace ks::api {

struct LeaseSpec {
  std::optional<std::string> holderIdentity;
  std::optional<int32_t> leaseDurationSeconds;
  std::optional<Time> acquireTime;  // MicroTime
  std::optional<Time> renewTime;    // MicroTime
  std::optional<int32_t> leaseTransitions;
  bool operator==(const LeaseSpec&) const = default;
};

struct Lease {
  static constexpr std::string_view kKind = "Lease";
  static constexpr std::string_view kApiVersion = "coordination.k8s.io/v1";
  ObjectMeta metadata;
  LeaseSpec spec;
  bool operator==(const Lease&) const = default;
};

}  // namespace ks::api
