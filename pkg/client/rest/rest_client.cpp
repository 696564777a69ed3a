#include "pkg/client/rest/rest_client.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <system_error>
#include <thread>

#include <spdlog/spdlog.h>

#include "pkg/api/json/codec.h"
#include "pkg/api/proto/codec.h"
#include "pkg/client/rest/errors.h"
#include "pkg/client/rest/http_transport.h"
#include "pkg/client/rest/line_splitter.h"
#include "pkg/client/rest/rate_limiter.h"
#include "pkg/client/rest/request_bodies.h"
#include "pkg/client/rest/request_metrics.h"
#include "pkg/client/rest/retry.h"
#include "pkg/client/rest/tls.h"
#include "pkg/client/rest/token_source.h"

namespace ks::client::rest {

namespace {

// Request methods, as the rest_client_* metrics label them.
namespace http {
using method = std::string;
namespace methods {
const method GET = "GET", POST = "POST", PUT = "PUT", PATCH = "PATCH", DEL = "DELETE";
}  // namespace methods
}  // namespace http

ApiError decodeError(const std::string& what, const Error& e) {
  return ApiError(0, "DecodeError", what + ": " + e.message());
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string codeLabel(int32_t status) {
  return status == 0 ? std::string("<error>") : std::to_string(status);
}

double random01() {
  thread_local std::minstd_rand rng(std::random_device{}());
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

// How the server encoded a watch stream (its Content-Type): JSON lines or protobuf frames.
enum class WireFormat { kJson, kProtobuf };

struct Attempt {
  int32_t status = 0;  // 0 = transport error
  std::string body;
  std::string retryAfter;
  bool mayHaveBeenSent = true;
  std::string transportError;
};

}  // namespace

std::string_view urlHost(std::string_view server) {
  if (auto scheme = server.find("://"); scheme != std::string_view::npos) server.remove_prefix(scheme + 3);
  server = server.substr(0, server.find_first_of("/?#"));
  if (auto at = server.rfind('@'); at != std::string_view::npos) server.remove_prefix(at + 1);
  return server;
}

// ---- the shared transport --------------------------------------------------------------------

class RestClient::Impl {
 public:
  // Virtual: RestClient owns a RestClientState through unique_ptr<Impl> (found by ASan: without it the
  // list/watchers were never destroyed and the delete was of the wrong size).
  virtual ~Impl() = default;
  Impl(RestConfig config, std::unique_ptr<HttpTransport> transport)
      : config_(std::move(config)),
        host_(urlHost(config_.server)),
        metrics_(config_.metrics),
        limiter_(config_.qps, config_.burst),
        token_(config_.bearerToken, config_.bearerTokenFile, config_.tokenFileRefresh),
        streamAccept_(!config_.acceptContentTypes.empty() ? config_.acceptContentTypes
                                                          : config_.contentType + ", */*"),
        transport_(std::move(transport)) {
    if (!config_.username.empty() || !config_.password.empty()) {
      basicAuth_ = "Basic " + base64Encode(config_.username + ":" + config_.password);
    }
  }

  const RestConfig& config() const { return config_; }
  const std::string& streamAccept() const { return streamAccept_; }

  // acceptGzip: ask for compressed bodies, as client-go's transport does (the transport inflates them); the
  // apiserver gzips responses of 128 KiB and more (a 100k-pod list: 185 MB of JSON in 8 MB), never watch
  // streams. Exactly "gzip", as Go's transport sends it.
  std::vector<std::pair<std::string, std::string>> headers(bool acceptGzip, std::string_view accept) {
    std::vector<std::pair<std::string, std::string>> h;
    h.reserve(4);
    h.emplace_back("Accept", accept);
    if (acceptGzip && !config_.disableCompression) h.emplace_back("Accept-Encoding", "gzip");
    h.emplace_back("User-Agent", config_.userAgent);
    const std::string token = token_.token();
    if (!token.empty()) {
      h.emplace_back("Authorization", "Bearer " + token);
    } else if (!basicAuth_.empty()) {
      h.emplace_back("Authorization", basicAuth_);
    }
    return h;
  }

  // One attempt: a token from the limiter, the request, its metrics (`retry` counts from 1).
  Attempt attempt(const http::method& method, const std::string& target, const std::string* body,
                  std::string_view contentType, std::string_view accept, int retry) {
    Attempt a;
    const auto throttleStart = std::chrono::steady_clock::now();
    limiter_.accept();
    if (metrics_ != nullptr) metrics_->rateLimiterLatency(method, host_, secondsSince(throttleStart));
    sendOnce(a, method, target, body, contentType, accept);
    if (metrics_ != nullptr) {
      metrics_->requestSize(method, host_, body != nullptr ? static_cast<double>(body->size()) : 0.0);
      const std::string code = codeLabel(a.status);
      metrics_->requestResult(code, method, host_);
      if (retry > 1) metrics_->requestRetry(code, method, host_);
    }
    return a;
  }

  void sendOnce(Attempt& a, const http::method& method, const std::string& target, const std::string* body,
                std::string_view contentType, std::string_view accept) {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.headers = headers(/*acceptGzip=*/true, accept);
    req.body = body;
    if (body != nullptr) req.contentType = contentType;
    auto r = transport_->roundTrip(
        req,
        [&](const HttpHead& h) {
          a.status = h.status;
          a.retryAfter = h.retryAfter;
        },
        [&](std::string_view bytes) {
          a.body.append(bytes);
          return true;
        });
    if (!r.ok()) {
      a.status = 0;
      a.body.clear();
      a.mayHaveBeenSent = r.error().mayHaveBeenSent;
      a.transportError = r.error().message;
    }
  }

  // One call with retries (retry.h).
  // `accept`: what the response may be; the caller decodes it (JSON unless it can decode protobuf too).
  ApiResult<std::string> call(const http::method& method, const std::string& target, RequestKind kind,
                              const std::string* body = nullptr,
                              std::string_view contentType = "application/json",
                              std::string_view accept = "application/json") {
    const auto start = std::chrono::steady_clock::now();
    // client-go observes the request's latency once, retries and throttling included, and the size of the
    // final response's body (when one arrived).
    auto finished = [&](const Attempt& a) {
      if (metrics_ == nullptr) return;
      if (a.status != 0) metrics_->responseSize(method, host_, static_cast<double>(a.body.size()));
      metrics_->requestLatency(method, host_, secondsSince(start));
    };
    for (int retry = 1;; ++retry) {
      Attempt a = attempt(method, target, body, contentType, accept, retry);
      if (a.status >= 200 && a.status < 300) {
        finished(a);
        return std::move(a.body);
      }
      ApiError err = a.status == 0
                         ? ApiError(0, "", method + " " + config_.server + target + ": " + a.transportError)
                         : apiErrorFromResponse(a.status, a.body, a.retryAfter);
      AttemptOutcome outcome{a.status, a.mayHaveBeenSent, err.retryAfter()};
      auto delay = retryDelay(kind, outcome, retry, config_.retry, random01());
      if (!delay) {
        finished(a);
        return err;
      }
      if (a.status != 0 && outcome.retryAfter.count() > 0) {
        // client-go's V(4) line before it waits for a Retry-After.
        spdlog::trace("Got a Retry-After response delay=\"{}s\" attempt={} url=\"{}{}\"",
                      outcome.retryAfter.count(), retry, config_.server, target);
      }
      std::this_thread::sleep_for(*delay);
    }
  }

  // GET `target` with the body streamed to `onChunk` as it arrives, with call()'s throttling, retries and
  // metrics (a list of 100k objects is decoded while it arrives, never held whole). `restart` is called
  // before each attempt: a retried request delivers its body from the start again. An error of onChunk
  // ends the call without retries.
  ApiResult<void> getStreamed(const std::string& target, RequestKind kind, const std::function<void()>& restart,
                              const std::function<ApiResult<void>(std::string_view)>& onChunk) {
    const http::method method = http::methods::GET;
    const auto start = std::chrono::steady_clock::now();
    for (int retry = 1;; ++retry) {
      const auto throttleStart = std::chrono::steady_clock::now();
      limiter_.accept();
      if (metrics_ != nullptr) metrics_->rateLimiterLatency(method, host_, secondsSince(throttleStart));
      restart();
      int32_t status = 0;
      size_t bytes = 0;
      bool consumerFailed = false;
      auto r = stream(
          target, /*watch=*/false, config_.requestTimeout, [&](const HttpHead& h) { status = h.status; },
          [&](std::string_view chunk) -> ApiResult<void> {
            bytes += chunk.size();
            auto consumed = onChunk(chunk);
            consumerFailed = !consumed.ok();
            return consumed;
          },
          {});
      if (metrics_ != nullptr) {
        metrics_->requestSize(method, host_, 0.0);
        metrics_->requestResult(codeLabel(status), method, host_);
        if (retry > 1) metrics_->requestRetry(codeLabel(status), method, host_);
      }
      auto finished = [&] {
        if (metrics_ == nullptr) return;
        if (status != 0) metrics_->responseSize(method, host_, static_cast<double>(bytes));
        metrics_->requestLatency(method, host_, secondsSince(start));
      };
      if (r.ok() || consumerFailed) {
        finished();
        return r;
      }
      const ApiError& err = r.error();
      AttemptOutcome outcome{err.code(), true, err.retryAfter()};
      auto delay = retryDelay(kind, outcome, retry, config_.retry, random01());
      if (!delay) {
        finished();
        return r;
      }
      std::this_thread::sleep_for(*delay);
    }
  }

  // Streams the watch at `target`, handing each event to `onEvent` on this thread: a JSON line, or a
  // protobuf frame when the server answered in protobuf. onEvent returns an error to end the watch.
  ApiResult<void> watch(const std::string& target, int64_t timeoutSeconds,
                        const std::function<ApiResult<void>(WireFormat, std::string&&)>& onEvent,
                        std::stop_token stop) {
    if (stop.stop_requested()) return {};
    // Not throttled: client-go's Request.Watch deliberately bypasses the rate limiter (a watch is one
    // long request, and relists after it are throttled as lists).
    const auto idle = timeoutSeconds > 0 ? std::chrono::seconds(timeoutSeconds) + config_.watchIdleMargin
                                         : std::chrono::seconds(7200);
    WireFormat format = WireFormat::kJson;
    LineSplitter lines;
    api::ProtoFrameSplitter frames;
    ApiResult<void> eventResult;
    auto deliver = [&](std::string&& event) {
      if (eventResult.ok() && !stop.stop_requested()) eventResult = onEvent(format, std::move(event));
    };
    // client-go counts a watch's request once, when its response headers arrive (retry.After after
    // client.Do), or with "<error>" when none arrive.
    auto headers = [&](const HttpHead& h) {
      if (metrics_ != nullptr) metrics_->requestResult(codeLabel(h.status), "GET", host_);
      if (h.contentType.rfind(api::kProtobufContentType, 0) == 0) format = WireFormat::kProtobuf;
    };
    // Its own connection: the idle timeout is the watch's, not that of ordinary requests.
    auto r = stream(
        target, /*watch=*/true, idle, headers,
        [&](std::string_view chunk) -> ApiResult<void> {
          if (format == WireFormat::kJson) {
            lines.feed(chunk, deliver);
            return eventResult;
          }
          auto framed = frames.feed(chunk, [&](std::string_view frame) { deliver(std::string(frame)); });
          if (!framed.ok()) return ApiError(0, "", "watch " + target + ": " + framed.error().message());
          return eventResult;
        },
        stop);
    if (r.ok() && !stop.stop_requested()) {
      if (format == WireFormat::kJson) lines.finish(deliver);  // a last line without its newline
      // A partial protobuf frame at the end is a cut stream: the caller re-watches from its last event.
      return eventResult;
    }
    return r;
  }

 private:
  // Sends GET `target` and hands the body to `onChunk`, on this thread, as it arrives (neither throttled
  // nor retried). `onHeaders` hears the status once: when the headers arrive, or 0 when none did. An error
  // for a non-200 response (decoded from its body), a stream that broke or onChunk's error; success, with
  // the rest dropped, once `stop` is requested. A watch gets a connection of its own (`idle` is its idle
  // timeout) and no gzip.
  ApiResult<void> stream(const std::string& target, bool watch, std::chrono::seconds idle,
                         const std::function<void(const HttpHead&)>& onHeaders,
                         const std::function<ApiResult<void>(std::string_view chunk)>& onChunk,
                         std::stop_token stop) {
    if (stop.stop_requested()) return {};
    HttpRequest req;
    req.method = "GET";
    req.target = target;
    req.headers = headers(/*acceptGzip=*/!watch, streamAccept_);
    req.dedicatedConnection = watch;
    req.idleTimeout = idle;
    int32_t status = -1;
    std::string retryAfter, errorBody;
    ApiResult<void> consumed;
    auto r = transport_->roundTrip(
        req,
        [&](const HttpHead& h) {
          status = h.status;
          retryAfter = h.retryAfter;
          onHeaders(h);
        },
        [&](std::string_view chunk) {
          if (status != 200) {
            errorBody.append(chunk);
            return true;
          }
          consumed = onChunk(chunk);
          return consumed.ok() && !stop.stop_requested();
        },
        stop);
    if (status < 0 && (stop.stop_requested() || !r.ok())) onHeaders(HttpHead{});
    if (stop.stop_requested()) return {};
    // The stream broke after a 200 (idle timeout, connection reset): a watch simply ends and the caller
    // re-watches from its last resourceVersion; a list is retried or fails.
    if (!r.ok()) return ApiError(0, "", "GET " + config_.server + target + ": " + r.error().message);
    if (!consumed.ok()) return consumed;
    if (status != 200) return apiErrorFromResponse(status, errorBody, retryAfter);
    return {};
  }

  RestConfig config_;
  const std::string host_;       // the rest_client_* host label
  RequestMetrics* const metrics_;  // optional
  TokenBucketRateLimiter limiter_;
  TokenSource token_;
  std::string basicAuth_;
  const std::string streamAccept_;  // the Accept header of lists, watches and bindings
  std::unique_ptr<HttpTransport> transport_;
};

// ---- list/watch per resource -----------------------------------------------------------------

namespace {

void addQuery(std::string& target, char& sep, std::string_view name, std::string_view value) {
  if (value.empty()) return;
  target += sep;
  sep = '&';
  target.append(name);
  target += '=';
  target += urlEncode(value);
}

// A list body in whichever encoding the server chose: a protobuf body starts with the envelope's "k8s\0",
// a JSON one with '{' (or white space).
template <typename T>
class ListBodyDecoder {
 public:
  Result<void> feed(std::string_view chunk) {
    if (chunk.empty()) return {};
    if (!proto_ && !json_) {
      if (chunk.front() == 'k') {
        proto_.emplace();
      } else {
        json_.emplace();
      }
    }
    return proto_ ? proto_->feed(chunk) : json_->feed(chunk);
  }
  Result<api::List<T>> finish() { return proto_ ? proto_->finish() : json().finish(); }
  Result<api::ListMeta> finishShared(std::vector<std::shared_ptr<const T>>& items) {
    return proto_ ? proto_->finishShared(items) : json().finishShared(items);
  }

 private:
  api::JsonListDecoder<T>& json() {
    if (!json_) json_.emplace();  // an empty body: JSON's decoder reports it
    return *json_;
  }
  std::optional<api::ProtoListDecoder<T>> proto_;
  std::optional<api::JsonListDecoder<T>> json_;
};

template <typename T>
class RestListWatcher final : public ListWatcher<T> {
 public:
  RestListWatcher(RestClient::Impl& impl, std::string path) : impl_(impl), path_(std::move(path)) {}

  ApiResult<api::List<T>> list(const ListOptions& o) override {
    return decodeList<api::List<T>>(o, [](ListBodyDecoder<T>& d) { return d.finish(); });
  }

  ApiResult<SharedList<T>> listShared(const ListOptions& o) override {
    return decodeList<SharedList<T>>(o, [](ListBodyDecoder<T>& d) -> Result<SharedList<T>> {
      SharedList<T> out;
      auto meta = d.finishShared(out.items);
      if (!meta.ok()) return meta.error();
      out.metadata = std::move(meta).value();
      return out;
    });
  }

  ApiResult<void> watch(const WatchOptions& o, const std::function<void(api::WatchEvent<T>&&)>& onEvent,
                        std::stop_token stop) override {
    std::string target = path_;
    char sep = '?';
    addQuery(target, sep, "watch", "true");
    if (o.allowWatchBookmarks) addQuery(target, sep, "allowWatchBookmarks", "true");
    addQuery(target, sep, "resourceVersion", o.resourceVersion);
    if (o.sendInitialEvents) {
      addQuery(target, sep, "resourceVersionMatch", "NotOlderThan");
      addQuery(target, sep, "sendInitialEvents", "true");
    }
    if (o.timeoutSeconds > 0) addQuery(target, sep, "timeoutSeconds", std::to_string(o.timeoutSeconds));
    addQuery(target, sep, "labelSelector", o.labelSelector);
    addQuery(target, sep, "fieldSelector", o.fieldSelector);
    return impl_.watch(
        target, o.timeoutSeconds,
        [&](WireFormat format, std::string&& event) -> ApiResult<void> {
          auto ev = format == WireFormat::kProtobuf ? api::decodeWatchEventProto<T>(event)
                                                    : api::decodeWatchEventJson<T>(event);
          if (!ev.ok()) return decodeError("watch " + path_, ev.error());
          onEvent(std::move(ev).value());
          return {};
        },
        std::move(stop));
  }


 private:
  // GETs the list and decodes it while it arrives: an unpaginated list (resourceVersion "0", served whole
  // from the watch cache) of 100k pods is ~200 MB of JSON, never held. `finish` makes the result.
  template <typename R, typename Finish>
  ApiResult<R> decodeList(const ListOptions& o, Finish finish) {
    std::string target = path_;
    char sep = '?';
    addQuery(target, sep, "labelSelector", o.labelSelector);
    addQuery(target, sep, "fieldSelector", o.fieldSelector);
    addQuery(target, sep, "resourceVersion", o.resourceVersion);
    if (o.limit > 0) addQuery(target, sep, "limit", std::to_string(o.limit));
    addQuery(target, sep, "continue", o.continue_);
    std::optional<ListBodyDecoder<T>> decoder;
    auto streamed = impl_.getStreamed(
        target, RequestKind::Read, [&] { decoder.emplace(); },
        [&](std::string_view chunk) -> ApiResult<void> {
          if (auto r = decoder->feed(chunk); !r.ok()) return decodeError("list " + path_, r.error());
          return {};
        });
    if (!streamed.ok()) return streamed.error();
    auto result = finish(*decoder);
    if (!result.ok()) return decodeError("list " + path_, result.error());
    return std::move(result).value();
  }

  RestClient::Impl& impl_;
  std::string path_;
};

std::string nsPath(std::string_view prefix, const std::string& ns, std::string_view resource) {
  std::string p(prefix);
  p += "/namespaces/";
  p += urlEncode(ns);
  p += '/';
  p.append(resource);
  return p;
}

}  // namespace

// One list/watcher per watched kind, on the kind's collection path.
struct RestListWatchers {
  explicit RestListWatchers(RestClient::Impl& i) : impl(i) {}
  RestClient::Impl& impl;
#define KS_WATCHED_KIND(Type, accessor, ...) \
  RestListWatcher<api::Type> accessor{impl, api::resourcePath<api::Type>()};
#include "pkg/api/kinds.def"
};

// The Impl plus the per-resource list/watchers, owned together.
class RestClientState : public RestClient::Impl {
 public:
  using RestClient::Impl::Impl;
  RestListWatchers lw{*this};
};

// ---- RestClient --------------------------------------------------------------------------------

Result<std::unique_ptr<RestClient>> RestClient::create(RestConfig config) {
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0) {
    return Error("server: \"" + config.server + "\" is not an http(s) URL");
  }
  if (config.server.find_first_of(" \t\r\n") != std::string::npos)
    return Error("server: \"" + config.server + "\" is not a valid URL");
  if (config.contentType != "application/json" && config.contentType != api::kProtobufContentType) {
    return Error("contentType: \"" + config.contentType + "\" is not supported (use \"application/json\" or \"" +
                 std::string(api::kProtobufContentType) + "\")");
  }
  HttpTransport::Options t;
  t.server = config.server;
  t.idleTimeout = config.requestTimeout;
  t.insecureSkipTlsVerify = config.insecureSkipTlsVerify;
  if (config.server.rfind("https://", 0) == 0) {
    if (config.insecureSkipTlsVerify && !config.caPem.empty()) {
      return Error("specifying a root certificates file with the insecure flag is not allowed");
    }
    auto m = TlsMaterial::fromPem(config.caPem, config.clientCertPem, config.clientKeyPem);
    if (!m.ok()) return m.error();
    t.tls = std::move(m).value();
  }
  auto transport = HttpTransport::create(std::move(t));
  if (!transport.ok()) return transport.error();
  auto impl = std::make_unique<RestClientState>(std::move(config), std::move(transport).value());
  return std::unique_ptr<RestClient>(new RestClient(std::move(impl)));
}

RestClient::RestClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestClient::~RestClient() = default;

const RestConfig& RestClient::config() const {
  return impl_->config();
}

namespace {
RestListWatchers& lws(RestClient::Impl& impl) {
  return static_cast<RestClientState&>(impl).lw;
}
}  // namespace

#define KS_WATCHED_KIND(Type, accessor, ...)       \
  ListWatcher<api::Type>& RestClient::accessor() { \
    return lws(*impl_).accessor;                   \
  }
#include "pkg/api/kinds.def"

namespace {
template <typename T>
ApiResult<T> decodeBody(const ApiResult<std::string>& body, const std::string& what) {
  if (!body.ok()) return body.error();
  auto obj = api::decodeJson<T>(*body);
  if (!obj.ok()) return decodeError(what, obj.error());
  return std::move(obj).value();
}
}  // namespace

ApiResult<void> RestClient::bind(const api::Binding& binding) {
  const std::string target =
      nsPath("/api/v1", binding.metadata.namespace_, "pods/" + urlEncode(binding.metadata.name) + "/binding");
  const RestConfig& c = impl_->config();
  const bool protobuf = c.contentType == api::kProtobufContentType;
  const std::string body = protobuf ? api::encodeProto(binding) : api::encodeJson(binding);
  // The success response (a Status) is not read; an error's Status is decoded in either encoding.
  auto r = impl_->call(http::methods::POST, target, RequestKind::NonIdempotent, &body, c.contentType,
                       protobuf ? impl_->streamAccept() : std::string_view("application/json"));
  if (r.ok()) return {};
  // An earlier attempt may have landed: ours after a 5xx, or one the transport re-sent by itself (it
  // re-sends a request once when a reused pooled connection dies before any byte of the response;
  // http_transport.h). Either way the pod is bound where we wanted it.
  if (isAlreadyAssignedTo(r.error(), binding.target.name)) return {};
  return r.error();
}

ApiResult<api::Pod> RestClient::patchPodStatus(const std::string& ns, const std::string& name,
                                               const PodStatusPatch& patch) {
  const std::string target = nsPath("/api/v1", ns, "pods/" + urlEncode(name) + "/status");
  const std::string body = podStatusPatchBody(patch);
  return decodeBody<api::Pod>(impl_->call(http::methods::PATCH, target, RequestKind::Idempotent, &body,
                                          "application/strategic-merge-patch+json"),
                              "patch pod status");
}

ApiResult<void> RestClient::deletePod(const std::string& ns, const std::string& name,
                                      const DeleteOptions& options) {
  const std::string target = nsPath("/api/v1", ns, "pods/" + urlEncode(name));
  const std::string body = deleteOptionsBody(options);
  auto r = impl_->call(http::methods::DEL, target, RequestKind::Idempotent, body.empty() ? nullptr : &body);
  if (!r.ok()) return r.error();
  return {};
}

ApiResult<api::PodGroup> RestClient::patchPodGroupStatusCondition(const std::string& ns, const std::string& name,
                                                                   const api::Condition& condition) {
  const std::string target =
      nsPath("/apis/scheduling.k8s.io/v1beta1", ns, "podgroups/" + urlEncode(name) + "/status");
  const std::string body = podGroupConditionPatchBody(condition);
  return decodeBody<api::PodGroup>(impl_->call(http::methods::PATCH, target, RequestKind::Idempotent, &body,
                                               "application/strategic-merge-patch+json"),
                                   "patch pod group status");
}

ApiResult<api::PersistentVolume> RestClient::updatePersistentVolumeBinding(const api::PersistentVolume& pv) {
  const std::string target = "/api/v1/persistentvolumes/" + urlEncode(pv.metadata.name);
  const std::string body = persistentVolumeBindingPatchBody(pv);
  return decodeBody<api::PersistentVolume>(impl_->call(http::methods::PATCH, target, RequestKind::Idempotent,
                                                       &body, "application/merge-patch+json"),
                                           "update persistent volume");
}

ApiResult<api::PersistentVolumeClaim> RestClient::updatePersistentVolumeClaimAnnotations(
    const api::PersistentVolumeClaim& claim) {
  const std::string target = nsPath("/api/v1", claim.metadata.namespace_,
                                    "persistentvolumeclaims/" + urlEncode(claim.metadata.name));
  const std::string body = annotationsPatchBody(claim.metadata);
  return decodeBody<api::PersistentVolumeClaim>(impl_->call(http::methods::PATCH, target,
                                                            RequestKind::Idempotent, &body,
                                                            "application/merge-patch+json"),
                                                "update persistent volume claim");
}

namespace {
constexpr std::string_view kResourceV1 = "/apis/resource.k8s.io/v1";

std::string resourceClaimPath(const std::string& ns, const std::string& name,
                              std::string_view subresource = "") {
  std::string resource = "resourceclaims/" + urlEncode(name);
  if (!subresource.empty()) resource.append("/").append(subresource);
  return nsPath(kResourceV1, ns, resource);
}
}  // namespace

ApiResult<api::ResourceClaim> RestClient::getResourceClaim(const std::string& ns, const std::string& name) {
  return decodeBody<api::ResourceClaim>(
      impl_->call(http::methods::GET, resourceClaimPath(ns, name), RequestKind::Read), "get resource claim");
}

ApiResult<api::ResourceClaim> RestClient::createResourceClaim(const api::ResourceClaim& claim) {
  const std::string target = nsPath(kResourceV1, claim.metadata.namespace_, "resourceclaims");
  const std::string body = api::encodeJson(claim);
  return decodeBody<api::ResourceClaim>(
      impl_->call(http::methods::POST, target, RequestKind::NonIdempotent, &body), "create resource claim");
}

ApiResult<api::ResourceClaim> RestClient::updateResourceClaim(const api::ResourceClaim& claim) {
  const std::string target = resourceClaimPath(claim.metadata.namespace_, claim.metadata.name);
  const std::string body = api::encodeJson(claim);
  return decodeBody<api::ResourceClaim>(
      impl_->call(http::methods::PUT, target, RequestKind::Idempotent, &body), "update resource claim");
}

ApiResult<api::ResourceClaim> RestClient::updateResourceClaimStatus(const api::ResourceClaim& claim) {
  const std::string target = resourceClaimPath(claim.metadata.namespace_, claim.metadata.name, "status");
  const std::string body = api::encodeJson(claim);
  return decodeBody<api::ResourceClaim>(
      impl_->call(http::methods::PUT, target, RequestKind::Idempotent, &body),
      "update resource claim status");
}

ApiResult<api::ResourceClaim> RestClient::removeResourceClaimReservation(const std::string& ns,
                                                                         const std::string& name,
                                                                         const std::string& claimUid,
                                                                         const std::string& consumerUid) {
  const std::string body = resourceClaimReservationRemovalPatchBody(claimUid, consumerUid);
  return decodeBody<api::ResourceClaim>(
      impl_->call(http::methods::PATCH, resourceClaimPath(ns, name, "status"), RequestKind::Idempotent, &body,
                  "application/strategic-merge-patch+json"),
      "patch resource claim status");
}

ApiResult<void> RestClient::deleteResourceClaim(const std::string& ns, const std::string& name,
                                                const DeleteOptions& options) {
  const std::string body = deleteOptionsBody(options);
  auto r = impl_->call(http::methods::DEL, resourceClaimPath(ns, name), RequestKind::Idempotent,
                       body.empty() ? nullptr : &body);
  if (!r.ok()) return r.error();
  return {};
}

ApiResult<api::Event> RestClient::createEvent(const api::Event& event) {
  const std::string target = nsPath("/apis/events.k8s.io/v1", event.metadata.namespace_, "events");
  const std::string body = api::encodeJson(event);
  return decodeBody<api::Event>(impl_->call(http::methods::POST, target, RequestKind::NonIdempotent, &body),
                                "create event");
}

ApiResult<api::Event> RestClient::updateEventSeries(const std::string& ns, const std::string& name,
                                                    const api::EventSeries& series) {
  const std::string target = nsPath("/apis/events.k8s.io/v1", ns, "events/" + urlEncode(name));
  const std::string body = eventSeriesPatchBody(series);
  return decodeBody<api::Event>(impl_->call(http::methods::PATCH, target, RequestKind::Idempotent, &body,
                                            "application/strategic-merge-patch+json"),
                                "patch event series");
}

ApiResult<api::Lease> RestClient::getLease(const std::string& ns, const std::string& name) {
  const std::string target = nsPath("/apis/coordination.k8s.io/v1", ns, "leases/" + urlEncode(name));
  return decodeBody<api::Lease>(impl_->call(http::methods::GET, target, RequestKind::Read), "get lease");
}

ApiResult<api::Lease> RestClient::createLease(const api::Lease& lease) {
  const std::string target = nsPath("/apis/coordination.k8s.io/v1", lease.metadata.namespace_, "leases");
  const std::string body = api::encodeJson(lease);
  return decodeBody<api::Lease>(impl_->call(http::methods::POST, target, RequestKind::NonIdempotent, &body),
                                "create lease");
}

ApiResult<api::Lease> RestClient::updateLease(const api::Lease& lease) {
  const std::string target = nsPath("/apis/coordination.k8s.io/v1", lease.metadata.namespace_,
                                    "leases/" + urlEncode(lease.metadata.name));
  const std::string body = api::encodeJson(lease);
  return decodeBody<api::Lease>(impl_->call(http::methods::PUT, target, RequestKind::Idempotent, &body),
                                "update lease");
}

ApiResult<std::string> RestClient::createTokenReview(const std::string& body) {
  return impl_->call(http::methods::POST, "/apis/authentication.k8s.io/v1/tokenreviews", RequestKind::Idempotent,
                     &body);
}

ApiResult<std::string> RestClient::createSubjectAccessReview(const std::string& body) {
  return impl_->call(http::methods::POST, "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                     RequestKind::Idempotent, &body);
}

ApiResult<std::string> RestClient::getConfigMap(const std::string& ns, const std::string& name) {
  return impl_->call(http::methods::GET, nsPath("/api/v1", ns, "configmaps/" + urlEncode(name)), RequestKind::Read);
}

}  // namespace ks::client::rest
