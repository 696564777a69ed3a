#pragma once
// Status: the result of running a plugin, as upstream's framework.Status.
// A Success status with no reasons and no plugin holds no allocation (a null pointer), so the hot path
// (Filter/Score over thousands of nodes) pays nothing for the common case.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ks::framework {

// What a plugin's answer means for the pod and for the scheduling queue.
enum class Code : uint8_t {
  // The plugin ran correctly and found the pod schedulable (or had nothing to do).
  Success = 0,
  // An internal or unexpected error (API failure, bug, bad state). The pod is requeued with the error
  // backoff and retried regardless of cluster events.
  Error,
  // The plugin found the pod unschedulable, but preemption (PostFilter) might help. The pod goes to
  // unschedulablePods and moves back only when an event registered by the rejecting plugin(s) arrives
  // (or after the unschedulable-pods flush timeout).
  Unschedulable,
  // Like Unschedulable, but preemption cannot help on this node: PostFilter skips such nodes.
  // Requeueing works as for Unschedulable.
  UnschedulableAndUnresolvable,
  // Permit only: the pod waits (in the waiting pods map) until allowed, rejected or timed out.
  Wait,
  // PreFilter/PreScore: the coupled Filter/Score of the same plugin is skipped for this cycle.
  // Bind: the plugin does not bind this pod; the next bind plugin is tried.
  // PreBindPreFlight: the plugin's PreBind is skipped for this cycle.
  Skip,
  // The pod waits for something that is not a cluster event the scheduler watches (e.g. an external
  // controller). Like Unschedulable it is rejected, but the queue moves it only on events from the
  // plugins recorded in pendingPlugins, never by the unschedulable-pods timeout flush alone.
  Pending,
};

// Returns the upstream name of the code ("Success", "UnschedulableAndUnresolvable", ...).
std::string_view codeName(Code code);

class [[nodiscard]] Status {
 public:
  // Success.
  Status() = default;
  // A status with `code` and one reason (no reason when `reason` is empty).
  explicit Status(Code code, std::string reason = {});
  Status(Code code, std::vector<std::string> reasons);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status success() { return Status(); }
  // An Error status wrapping `err`, as upstream's AsStatus(err).
  static Status fromError(Error err);
  // An Error status with `message`, as upstream's AsStatus(errors.New(message)).
  static Status error(std::string message) { return fromError(Error(std::move(message))); }

  Code code() const { return rep_ ? rep_->code : Code::Success; }
  // The reasons, in the order they were added.
  const std::vector<std::string>& reasons() const;
  // The reasons joined by ", ", as upstream's Message().
  std::string message() const;
  // The plugin that returned (or caused) this status; empty when not attributed.
  const std::string& plugin() const;

  void setPlugin(std::string plugin);
  Status withPlugin(std::string plugin) &&;
  void appendReason(std::string reason);

  bool isSuccess() const { return code() == Code::Success; }
  bool isWait() const { return code() == Code::Wait; }
  bool isSkip() const { return code() == Code::Skip; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending: the pod cannot be scheduled now.
  bool isRejected() const {
    Code c = code();
    return c == Code::Unschedulable || c == Code::UnschedulableAndUnresolvable || c == Code::Pending;
  }

  // nullopt for Success, Wait and Skip; otherwise the wrapped error, or an Error whose message is
  // message(), as upstream's AsError().
  std::optional<Error> asError() const;

  // Code, reasons, plugin and wrapped error all equal (as upstream's Equal).
  bool operator==(const Status& other) const;

  // "<code>: <message>" (or just "<code>"), for logs and test failures.
  std::string toString() const;

 private:
  struct Rep {
    Code code = Code::Success;
    std::vector<std::string> reasons;
    std::string plugin;
    std::optional<Error> err;
  };
  Rep& mutableRep();

  std::unique_ptr<Rep> rep_;
};

}  // namespace ks::framework
