#pragma once
// HTTPExtender (upstream pkg/scheduler/extender.go): a framework::Extender reached over HTTP(S) at
// <urlPrefix>/<verb> with JSON bodies (types.h). One keep-alive connection pool per extender (the
// REST client's HttpTransport), so calls reuse connections and TLS sessions; each call as a whole (dial,
// TLS handshake, request, head and body) ends within httpTimeout (5 s by default), as upstream's
// http.Client{Timeout}: an extender dripping its answer is cut off too.
//
// Errors read as upstream's: `failed filter with extender at URL http://h/filter, code 500`,
// `Post "http://h/filter": dial tcp h:p: connect: connection refused`, `Post "...": context deadline
// exceeded (Client.Timeout exceeded while awaiting headers)`, `context deadline exceeded (Client.Timeout or
// context cancellation while reading body)` (a body still arriving at the timeout), `extender "u" claims a
// filtered node "n" which is not found in the input node list`, the extender's own Error field.

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "pkg/scheduler/apis/config/types.h"
#include "pkg/scheduler/extender/types.h"
#include "pkg/scheduler/framework/extender.h"

namespace ks::client::rest {
class HttpTransport;
}  // namespace ks::client::rest

namespace ks::extender {

// Upstream DefaultExtenderTimeout.
inline constexpr std::chrono::milliseconds kDefaultExtenderTimeout{5000};

// Why a call failed, for the per-extender error counter.
enum class CallError { None, Transport, Timeout, HttpStatus, Decode, Response };
std::string_view callErrorName(CallError e);  // "", "transport", "timeout", "http_status", "decode", "response"

// Called after every call to the extender (any thread): the verb's name ("filter", "prioritize", "bind",
// "preempt"), its duration in seconds, and how it failed.
using CallObserver = std::function<void(std::string_view verb, double seconds, CallError error)>;

class HTTPExtender final : public framework::Extender {
 public:
  // Fails on a URL the transport cannot use, unreadable TLS files, bad PEM, or a CA with insecure set.
  static Result<std::unique_ptr<HTTPExtender>> create(const config::Extender& cfg, CallObserver observer = {});
  ~HTTPExtender() override;

  std::string name() const override { return urlPrefix_; }
  Result<framework::ExtenderFilterResult> filter(const api::Pod& pod,
                                                 const std::vector<framework::NodeInfoPtr>& nodes) override;
  Result<framework::ExtenderScores> prioritize(const api::Pod& pod,
                                               const std::vector<framework::NodeInfoPtr>& nodes) override;
  Result<void> bind(const framework::ExtenderBinding& binding) override;
  bool isBinder() const override { return !bindVerb_.empty(); }
  bool isPrioritizer() const override { return !prioritizeVerb_.empty(); }
  bool isFilter() const override { return !filterVerb_.empty(); }
  bool isInterested(const api::Pod& pod) const override;
  Result<std::map<std::string, framework::Victims>> processPreemption(
      const api::Pod& pod, const std::map<std::string, framework::Victims>& nodeNameToVictims,
      const framework::NodeInfoLister& nodeInfos) override;
  bool supportsPreemption() const override { return !preemptVerb_.empty(); }
  bool isIgnorable() const override { return ignorable_; }

  std::chrono::milliseconds httpTimeout() const { return timeout_; }

  // Upstream convertToMetaVictims / convertToVictims (exposed for their tests).
  static std::map<std::string, MetaVictims> convertToMetaVictims(
      const std::map<std::string, framework::Victims>& nodeNameToVictims);
  Result<std::map<std::string, framework::Victims>> convertToVictims(
      const std::map<std::string, MetaVictims>& nodeNameToMetaVictims,
      const framework::NodeInfoLister& nodeInfos) const;

 private:
  HTTPExtender() = default;
  // POSTs `body` to <urlPrefix>/<verb>; the response body on 200.
  Result<std::string> send(const std::string& verb, const std::string& body, CallError& error);
  // send + decode, reporting the call to the observer.
  template <typename T>
  Result<T> call(const std::string& verb, const std::string& body,
                 Result<T> (*decode)(std::string_view), std::string_view metricVerb);

  std::string urlPrefix_;
  std::string filterVerb_, preemptVerb_, prioritizeVerb_, bindVerb_;
  int64_t weight_ = 0;
  bool nodeCacheCapable_ = false;
  bool ignorable_ = false;
  std::set<std::string, std::less<>> managedResources_;
  std::chrono::milliseconds timeout_ = kDefaultExtenderTimeout;
  std::unique_ptr<client::rest::HttpTransport> transport_;
  CallObserver observer_;
};

}  // namespace ks::extender
