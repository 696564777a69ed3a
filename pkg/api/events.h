#pragma once
// events.k8s.io/v1 Event: what the scheduler reports (Scheduled, FailedScheduling, Preempted, ...).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/api/meta.h"

namespace ks::api {

struct EventSeries {
  int32_t count = 0;
  Time lastObservedTime;  // MicroTime
  bool operator==(const EventSeries&) const = default;
};

struct Event {
  static constexpr std::string_view kKind = "Event";
  static constexpr std::string_view kApiVersion = "events.k8s.io/v1";
  ObjectMeta metadata;
  Time eventTime;  // MicroTime
  std::optional<EventSeries> series;
  std::string reportingController;
  std::string reportingInstance;
  std::string action;  // Scheduling, Binding, Preempting
  std::string reason;  // Scheduled, FailedScheduling, Preempted
  ObjectReference regarding;
  std::optional<ObjectReference> related;
  std::string note;
  std::string type;  // Normal or Warning
  bool operator==(const Event&) const = default;
};

}  // namespace ks::api
