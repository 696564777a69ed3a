// The only translation unit that includes cpprestsdk (it costs ~3 s and ~430 MB to compile).
#include "pkg/client/rest/rest_client.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <system_error>
#include <thread>

// spdlog (fmt) before cpprest: cpprest defines a macro U() that breaks fmt's templates.
#include <spdlog/spdlog.h>

#include <cpprest/astreambuf.h>
#include <cpprest/http_client.h>
#include <pplx/threadpool.h>

#include "pkg/api/json/codec.h"
#include "pkg/client/rest/errors.h"
#include "pkg/client/rest/line_splitter.h"
#include "pkg/client/rest/rate_limiter.h"
#include "pkg/client/rest/request_bodies.h"
#include "pkg/client/rest/request_metrics.h"
#include "pkg/client/rest/retry.h"
#include "pkg/client/rest/tls.h"
#include "pkg/client/rest/token_source.h"

namespace ks::client::rest {

namespace http = web::http;
namespace streams = concurrency::streams;

void initializeThreadPool(size_t threads) {
  static std::once_flag once;
  std::call_once(once, [threads] {
    try {
      crossplat::threadpool::initialize_with_threads(threads);
    } catch (const std::exception&) {
      // Already initialised (someone used cpprest first): keep that pool.
    }
  });
}

namespace {

constexpr size_t kBodyBufferHighWater = 4u << 20;  // bytes of undelivered body before backpressure

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

// ---- streamed bodies (watches, lists) ---------------------------------------------------------

// Shared between the cpprest side (writes body bytes, reports completion) and the thread that consumes
// the body as it arrives. Bounded: past kBodyBufferHighWater the write task stays pending, which stops
// cpprest reading the socket until the consumer catches up — backpressure without blocking a pool
// thread.
class BodyQueue {
 public:
  pplx::task<size_t> write(const uint8_t* data, size_t n) {
    std::unique_lock lock(mu_);
    if (abandoned_) return pplx::task_from_result(n);
    chunks_.emplace_back(reinterpret_cast<const char*>(data), n);
    bytes_ += n;
    if (bytes_ > kBodyBufferHighWater) {
      pending_.emplace();
      pendingCount_ = n;
      pplx::task<size_t> t(*pending_);
      lock.unlock();
      cv_.notify_all();
      return t;
    }
    lock.unlock();
    cv_.notify_all();
    return pplx::task_from_result(n);
  }

  void setHeaders(int32_t status, std::string retryAfter) {
    {
      std::lock_guard lock(mu_);
      status_ = status;
      retryAfter_ = std::move(retryAfter);
    }
    cv_.notify_all();
  }

  void finish(std::exception_ptr error) {
    {
      std::lock_guard lock(mu_);
      if (done_) return;
      done_ = true;
      error_ = std::move(error);
    }
    cv_.notify_all();
  }

  void wake() {
    { std::lock_guard lock(mu_); }
    cv_.notify_all();
  }

  // The watcher gives up: drop further data and release a pending write.
  void abandon() {
    std::optional<pplx::task_completion_event<size_t>> pending;
    size_t n = 0;
    {
      std::lock_guard lock(mu_);
      abandoned_ = true;
      chunks_.clear();
      pending.swap(pending_);
      n = pendingCount_;
    }
    if (pending) pending->set(n);
  }

  struct Batch {
    std::deque<std::string> chunks;
    bool done = false;
    std::exception_ptr error;
    int32_t status = -1;  // -1: headers not seen
    std::string retryAfter;
  };

  // Waits for the headers (returned once, with or without body bytes), body bytes once headers are known,
  // the end of the stream, or `stop`.
  Batch take(const std::stop_token& stop) {
    Batch b;
    std::optional<pplx::task_completion_event<size_t>> pending;
    size_t n = 0;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, stop,
               [&] { return done_ || (status_ >= 0 && (!chunks_.empty() || !headersTaken_)); });
      headersTaken_ = status_ >= 0;
      b.chunks.swap(chunks_);
      bytes_ = 0;
      b.done = done_;
      b.error = error_;
      b.status = status_;
      b.retryAfter = retryAfter_;
      pending.swap(pending_);
      n = pendingCount_;
    }
    if (pending) pending->set(n);
    return b;
  }

 private:
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::deque<std::string> chunks_;
  size_t bytes_ = 0;
  bool done_ = false;
  bool abandoned_ = false;
  std::exception_ptr error_;
  int32_t status_ = -1;
  bool headersTaken_ = false;
  std::string retryAfter_;
  std::optional<pplx::task_completion_event<size_t>> pending_;
  size_t pendingCount_ = 0;
};

// A write-only cpprest stream buffer that hands the bytes to a BodyQueue.
class BodySinkBuf : public streams::details::streambuf_state_manager<uint8_t> {
  using Base = streams::details::streambuf_state_manager<uint8_t>;

 public:
  explicit BodySinkBuf(std::shared_ptr<BodyQueue> queue)
      : Base(std::ios_base::out), queue_(std::move(queue)) {}

  bool can_seek() const override { return false; }
  bool has_size() const override { return false; }
  size_t buffer_size(std::ios_base::openmode) const override { return 0; }
  void set_buffer_size(size_t, std::ios_base::openmode) override {}
  size_t in_avail() const override { return 0; }
  pos_type getpos(std::ios_base::openmode) const override { return static_cast<pos_type>(traits::eof()); }
  pos_type seekpos(pos_type, std::ios_base::openmode) override {
    return static_cast<pos_type>(traits::eof());
  }
  pos_type seekoff(off_type, std::ios_base::seekdir, std::ios_base::openmode) override {
    return static_cast<pos_type>(traits::eof());
  }
  bool acquire(uint8_t*& ptr, size_t& count) override {
    ptr = nullptr;
    count = 0;
    return false;
  }
  void release(uint8_t*, size_t) override {}

 protected:
  pplx::task<int_type> _putc(uint8_t ch) override {
    return queue_->write(&ch, 1).then([ch](size_t) { return static_cast<int_type>(ch); });
  }
  pplx::task<size_t> _putn(const uint8_t* ptr, size_t count) override { return queue_->write(ptr, count); }
  pplx::task<int_type> _bumpc() override { return pplx::task_from_result<int_type>(traits::eof()); }
  int_type _sbumpc() override { return traits::eof(); }
  pplx::task<int_type> _getc() override { return pplx::task_from_result<int_type>(traits::eof()); }
  int_type _sgetc() override { return traits::eof(); }
  pplx::task<int_type> _nextc() override { return pplx::task_from_result<int_type>(traits::eof()); }
  pplx::task<int_type> _ungetc() override { return pplx::task_from_result<int_type>(traits::eof()); }
  pplx::task<size_t> _getn(uint8_t*, size_t) override { return pplx::task_from_result<size_t>(0); }
  size_t _scopy(uint8_t*, size_t) override { return 0; }
  pplx::task<bool> _sync() override { return pplx::task_from_result(true); }
  uint8_t* _alloc(size_t) override { return nullptr; }
  void _commit(size_t) override {}

 private:
  std::shared_ptr<BodyQueue> queue_;
};

std::string exceptionMessage(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return ex.what();
  } catch (...) {
    return "unknown error";
  }
}

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
  Impl(RestConfig config, std::shared_ptr<const TlsMaterial> tls)
      : config_(std::move(config)),
        tls_(std::move(tls)),
        baseUri_(config_.server),
        host_(urlHost(config_.server)),
        metrics_(config_.metrics),
        limiter_(config_.qps, config_.burst),
        token_(config_.bearerToken, config_.bearerTokenFile, config_.tokenFileRefresh),
        client_(baseUri_, clientConfig(config_.requestTimeout, /*compressedResponses=*/true)) {
    if (!config_.username.empty() || !config_.password.empty()) {
      basicAuth_ = "Basic " + base64Encode(config_.username + ":" + config_.password);
    }
  }

  const RestConfig& config() const { return config_; }

  // compressedResponses: ask for (and inflate) compressed bodies, as client-go's transport does; the apiserver
  // gzips responses of 128 KiB and more (a 100k-pod list: 185 MB of JSON in 8 MB), never watch streams.
  http::client::http_client_config clientConfig(std::chrono::seconds idleTimeout, bool compressedResponses = false) const {
    http::client::http_client_config cfg;
    cfg.set_timeout(idleTimeout);
    cfg.set_request_compressed_response(compressedResponses);
    cfg.set_validate_certificates(!config_.insecureSkipTlsVerify);
    std::shared_ptr<const TlsMaterial> tls = tls_;
    if (tls) {
      cfg.set_ssl_context_callback([tls](boost::asio::ssl::context& ctx) {
        if (!tls->applyTo(ctx.native_handle())) {
          throw std::runtime_error("cannot install the TLS certificates");
        }
      });
    }
    return cfg;
  }

  // acceptGzip: on the clients that inflate (clientConfig's compressedResponses). Exactly "gzip", as Go's
  // transport sends it: the apiserver ignores "gzip;q=0.5", which is what cpprest would send.
  void addHeaders(http::http_request& req, bool acceptGzip) {
    auto& h = req.headers();
    h.add("Accept", "application/json");
    if (acceptGzip) h.add("Accept-Encoding", "gzip");
    h.add("User-Agent", config_.userAgent);
    const std::string token = token_.token();
    if (!token.empty()) {
      h.add("Authorization", "Bearer " + token);
    } else if (!basicAuth_.empty()) {
      h.add("Authorization", basicAuth_);
    }
  }

  // One attempt: a token from the limiter, the request, its metrics (`retry` counts from 1).
  Attempt attempt(const http::method& method, const std::string& target, const std::string* body,
                  const char* contentType, int retry) {
    Attempt a;
    const auto throttleStart = std::chrono::steady_clock::now();
    limiter_.accept();
    if (metrics_ != nullptr) metrics_->rateLimiterLatency(method, host_, secondsSince(throttleStart));
    sendOnce(a, method, target, body, contentType);
    if (metrics_ != nullptr) {
      metrics_->requestSize(method, host_, body != nullptr ? static_cast<double>(body->size()) : 0.0);
      const std::string code = codeLabel(a.status);
      metrics_->requestResult(code, method, host_);
      if (retry > 1) metrics_->requestRetry(code, method, host_);
    }
    return a;
  }

  void sendOnce(Attempt& a, const http::method& method, const std::string& target, const std::string* body,
                const char* contentType) {
    try {
      http::http_request req(method);
      req.set_request_uri(target);
      addHeaders(req, /*acceptGzip=*/true);
      if (body != nullptr) req.set_body(*body, contentType);
      http::http_response resp = client_.request(req).get();
      a.status = static_cast<int32_t>(resp.status_code());
      if (resp.headers().has("Retry-After")) a.retryAfter = resp.headers()["Retry-After"];
      a.body = resp.extract_utf8string(true).get();
    } catch (const http::http_exception& e) {
      const bool started = a.status != 0;
      a.status = 0;
      a.mayHaveBeenSent = started || e.error_code() != std::errc::connection_refused;
      a.transportError = e.what();
    } catch (const std::exception& e) {
      a.status = 0;
      a.transportError = e.what();
    }
  }

  // One call with retries (retry.h).
  ApiResult<std::string> call(const http::method& method, const std::string& target, RequestKind kind,
                              const std::string* body = nullptr,
                              const char* contentType = "application/json") {
    const auto start = std::chrono::steady_clock::now();
    // client-go observes the request's latency once, retries and throttling included, and the size of the
    // final response's body (when one arrived).
    auto finished = [&](const Attempt& a) {
      if (metrics_ == nullptr) return;
      if (a.status != 0) metrics_->responseSize(method, host_, static_cast<double>(a.body.size()));
      metrics_->requestLatency(method, host_, secondsSince(start));
    };
    for (int retry = 1;; ++retry) {
      Attempt a = attempt(method, target, body, contentType, retry);
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
          client_, target, [&](int32_t s) { status = s; },
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

  // Streams the watch at `target`, handing each line to `onLine` on this thread; onLine returns an
  // error to end the watch.
  ApiResult<void> watch(const std::string& target, int64_t timeoutSeconds,
                        const std::function<ApiResult<void>(std::string&&)>& onLine, std::stop_token stop) {
    if (stop.stop_requested()) return {};
    // Not throttled: client-go's Request.Watch deliberately bypasses the rate limiter (a watch is one
    // long request, and relists after it are throttled as lists).
    const auto idle = timeoutSeconds > 0 ? std::chrono::seconds(timeoutSeconds) + config_.watchIdleMargin
                                         : std::chrono::seconds(7200);
    // Its own client: the idle timeout is the watch's, not that of ordinary requests.
    std::optional<http::client::http_client> client;
    try {
      client.emplace(baseUri_, clientConfig(idle));
    } catch (const std::exception& e) {
      return ApiError(0, "", "GET " + config_.server + target + ": " + e.what());
    }
    LineSplitter lines;
    ApiResult<void> lineResult;
    auto deliver = [&](std::string&& line) {
      if (lineResult.ok() && !stop.stop_requested()) lineResult = onLine(std::move(line));
    };
    // client-go counts a watch's request once, when its response headers arrive (retry.After after
    // client.Do), or with "<error>" when none arrive.
    auto count = [this](int32_t status) {
      if (metrics_ != nullptr) metrics_->requestResult(codeLabel(status), "GET", host_);
    };
    auto r = stream(
        *client, target, count,
        [&](std::string_view chunk) {
          lines.feed(chunk, deliver);
          return lineResult;
        },
        stop);
    if (r.ok() && !stop.stop_requested()) {
      lines.finish(deliver);  // a last line without its newline
      return lineResult;
    }
    return r;
  }

 private:
  // Sends GET `target` on `client` and hands the body to `onChunk`, on this thread, as it arrives
  // (neither throttled nor retried). `onHeaders` hears the status once: when the headers arrive, or 0
  // when none did. An error for a non-200 response (decoded from its body), a stream that broke or
  // onChunk's error; success, with the rest dropped, once `stop` is requested.
  ApiResult<void> stream(http::client::http_client& client, const std::string& target,
                         const std::function<void(int32_t status)>& onHeaders,
                         const std::function<ApiResult<void>(std::string_view chunk)>& onChunk,
                         std::stop_token stop) {
    if (stop.stop_requested()) return {};
    auto queue = std::make_shared<BodyQueue>();
    pplx::cancellation_token_source cts;
    std::stop_callback onStop(stop, [&cts, &queue] {
      cts.cancel();
      queue->wake();
    });
    try {
      http::http_request req(http::methods::GET);
      req.set_request_uri(target);
      addHeaders(req, /*acceptGzip=*/&client == &client_);
      auto sink = std::make_shared<BodySinkBuf>(queue);
      streams::streambuf<uint8_t> buf(
          std::static_pointer_cast<streams::details::basic_streambuf<uint8_t>>(sink));
      req.set_response_stream(buf.create_ostream());
      client.request(req, cts.get_token()).then([queue](pplx::task<http::http_response> t) {
        try {
          http::http_response resp = t.get();
          std::string retryAfter;
          if (resp.headers().has("Retry-After")) retryAfter = resp.headers()["Retry-After"];
          queue->setHeaders(static_cast<int32_t>(resp.status_code()), std::move(retryAfter));
          resp.content_ready().then([queue](pplx::task<http::http_response> c) {
            try {
              c.get();
              queue->finish(nullptr);
            } catch (...) {
              queue->finish(std::current_exception());
            }
          });
        } catch (...) {
          queue->finish(std::current_exception());
        }
      });
    } catch (const std::exception& e) {
      return ApiError(0, "", "GET " + config_.server + target + ": " + e.what());
    }

    // Heard on this thread, so that no cpprest continuation touches the caller's state after it returned.
    bool heard = false;
    auto headers = [&](int32_t status) {
      if (heard) return;
      heard = true;
      onHeaders(std::max(status, 0));
    };
    std::string errorBody;
    while (true) {
      BodyQueue::Batch b = queue->take(stop);
      if (b.status >= 0 || b.done) headers(b.status);
      if (stop.stop_requested()) {
        headers(0);
        queue->abandon();
        return {};
      }
      if (b.status >= 0 && b.status != 200) {
        for (auto& c : b.chunks) errorBody += c;
        if (!b.done) continue;
        return apiErrorFromResponse(b.status, errorBody, b.retryAfter);
      }
      for (auto& chunk : b.chunks) {
        if (auto r = onChunk(chunk); !r.ok()) {
          queue->abandon();
          cts.cancel();
          return r;
        }
        if (stop.stop_requested()) {
          queue->abandon();
          return {};
        }
      }
      if (b.done) {
        if (b.error && b.status < 0) {
          return ApiError(0, "", "GET " + config_.server + target + ": " + exceptionMessage(b.error));
        }
        if (b.error) {
          // The stream broke after a 200 (idle timeout, connection reset): a watch simply ends and the
          // caller re-watches from its last resourceVersion; a list is retried or fails.
          return ApiError(0, "", "GET " + config_.server + target + ": " + exceptionMessage(b.error));
        }
        return {};
      }
    }
  }

  RestConfig config_;
  std::shared_ptr<const TlsMaterial> tls_;
  web::uri baseUri_;
  const std::string host_;       // the rest_client_* host label
  RequestMetrics* const metrics_;  // optional
  TokenBucketRateLimiter limiter_;
  TokenSource token_;
  std::string basicAuth_;
  http::client::http_client client_;
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

template <typename T>
class RestListWatcher final : public ListWatcher<T> {
 public:
  RestListWatcher(RestClient::Impl& impl, std::string path) : impl_(impl), path_(std::move(path)) {}

  ApiResult<api::List<T>> list(const ListOptions& o) override {
    return decodeList<api::List<T>>(o, [](api::JsonListDecoder<T>& d) { return d.finish(); });
  }

  ApiResult<SharedList<T>> listShared(const ListOptions& o) override {
    return decodeList<SharedList<T>>(o, [](api::JsonListDecoder<T>& d) -> Result<SharedList<T>> {
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
    if (o.timeoutSeconds > 0) addQuery(target, sep, "timeoutSeconds", std::to_string(o.timeoutSeconds));
    addQuery(target, sep, "labelSelector", o.labelSelector);
    addQuery(target, sep, "fieldSelector", o.fieldSelector);
    return impl_.watch(
        target, o.timeoutSeconds,
        [&](std::string&& line) -> ApiResult<void> {
          auto ev = api::decodeWatchEventJson<T>(line);
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
    std::optional<api::JsonListDecoder<T>> decoder;
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

struct RestListWatchers {
  explicit RestListWatchers(RestClient::Impl& impl)
      : pods(impl, "/api/v1/pods"),
        nodes(impl, "/api/v1/nodes"),
        namespaces(impl, "/api/v1/namespaces"),
        persistentVolumes(impl, "/api/v1/persistentvolumes"),
        persistentVolumeClaims(impl, "/api/v1/persistentvolumeclaims"),
        storageClasses(impl, "/apis/storage.k8s.io/v1/storageclasses"),
        csiNodes(impl, "/apis/storage.k8s.io/v1/csinodes"),
        csiDrivers(impl, "/apis/storage.k8s.io/v1/csidrivers"),
        csiStorageCapacities(impl, "/apis/storage.k8s.io/v1/csistoragecapacities"),
        volumeAttachments(impl, "/apis/storage.k8s.io/v1/volumeattachments"),
        podDisruptionBudgets(impl, "/apis/policy/v1/poddisruptionbudgets"),
        services(impl, "/api/v1/services"),
        replicationControllers(impl, "/api/v1/replicationcontrollers"),
        replicaSets(impl, "/apis/apps/v1/replicasets"),
        statefulSets(impl, "/apis/apps/v1/statefulsets"),
        resourceClaims(impl, "/apis/resource.k8s.io/v1/resourceclaims"),
        resourceSlices(impl, "/apis/resource.k8s.io/v1/resourceslices"),
        deviceClasses(impl, "/apis/resource.k8s.io/v1/deviceclasses") {}
  RestListWatcher<api::Pod> pods;
  RestListWatcher<api::Node> nodes;
  RestListWatcher<api::Namespace> namespaces;
  RestListWatcher<api::PersistentVolume> persistentVolumes;
  RestListWatcher<api::PersistentVolumeClaim> persistentVolumeClaims;
  RestListWatcher<api::StorageClass> storageClasses;
  RestListWatcher<api::CSINode> csiNodes;
  RestListWatcher<api::CSIDriver> csiDrivers;
  RestListWatcher<api::CSIStorageCapacity> csiStorageCapacities;
  RestListWatcher<api::VolumeAttachment> volumeAttachments;
  RestListWatcher<api::PodDisruptionBudget> podDisruptionBudgets;
  RestListWatcher<api::Service> services;
  RestListWatcher<api::ReplicationController> replicationControllers;
  RestListWatcher<api::ReplicaSet> replicaSets;
  RestListWatcher<api::StatefulSet> statefulSets;
  RestListWatcher<api::ResourceClaim> resourceClaims;
  RestListWatcher<api::ResourceSlice> resourceSlices;
  RestListWatcher<api::DeviceClass> deviceClasses;
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
  if (!web::uri::validate(config.server))
    return Error("server: \"" + config.server + "\" is not a valid URL");
  std::shared_ptr<const TlsMaterial> tls;
  if (config.server.rfind("https://", 0) == 0) {
    if (config.insecureSkipTlsVerify && !config.caPem.empty()) {
      return Error("specifying a root certificates file with the insecure flag is not allowed");
    }
    auto m = TlsMaterial::fromPem(config.caPem, config.clientCertPem, config.clientKeyPem);
    if (!m.ok()) return m.error();
    tls = std::move(m).value();
  }
  initializeThreadPool();
  try {
    auto impl = std::make_unique<RestClientState>(std::move(config), std::move(tls));
    return std::unique_ptr<RestClient>(new RestClient(std::move(impl)));
  } catch (const std::exception& e) {
    return Error(std::string("creating the HTTP client: ") + e.what());
  }
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

ListWatcher<api::Pod>& RestClient::pods() {
  return lws(*impl_).pods;
}
ListWatcher<api::Node>& RestClient::nodes() {
  return lws(*impl_).nodes;
}
ListWatcher<api::Namespace>& RestClient::namespaces() {
  return lws(*impl_).namespaces;
}
ListWatcher<api::PersistentVolume>& RestClient::persistentVolumes() {
  return lws(*impl_).persistentVolumes;
}
ListWatcher<api::PersistentVolumeClaim>& RestClient::persistentVolumeClaims() {
  return lws(*impl_).persistentVolumeClaims;
}
ListWatcher<api::StorageClass>& RestClient::storageClasses() {
  return lws(*impl_).storageClasses;
}
ListWatcher<api::CSINode>& RestClient::csiNodes() {
  return lws(*impl_).csiNodes;
}
ListWatcher<api::CSIDriver>& RestClient::csiDrivers() {
  return lws(*impl_).csiDrivers;
}
ListWatcher<api::CSIStorageCapacity>& RestClient::csiStorageCapacities() {
  return lws(*impl_).csiStorageCapacities;
}
ListWatcher<api::VolumeAttachment>& RestClient::volumeAttachments() {
  return lws(*impl_).volumeAttachments;
}
ListWatcher<api::PodDisruptionBudget>& RestClient::podDisruptionBudgets() {
  return lws(*impl_).podDisruptionBudgets;
}
ListWatcher<api::Service>& RestClient::services() {
  return lws(*impl_).services;
}
ListWatcher<api::ReplicationController>& RestClient::replicationControllers() {
  return lws(*impl_).replicationControllers;
}
ListWatcher<api::ReplicaSet>& RestClient::replicaSets() {
  return lws(*impl_).replicaSets;
}
ListWatcher<api::StatefulSet>& RestClient::statefulSets() {
  return lws(*impl_).statefulSets;
}
ListWatcher<api::ResourceClaim>& RestClient::resourceClaims() {
  return lws(*impl_).resourceClaims;
}
ListWatcher<api::ResourceSlice>& RestClient::resourceSlices() {
  return lws(*impl_).resourceSlices;
}
ListWatcher<api::DeviceClass>& RestClient::deviceClasses() {
  return lws(*impl_).deviceClasses;
}

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
  const std::string body = api::encodeJson(binding);
  auto r = impl_->call(http::methods::POST, target, RequestKind::NonIdempotent, &body);
  if (r.ok()) return {};
  // An earlier attempt may have landed: ours after a 5xx, or one cpprest re-sent by itself (it
  // re-sends any request once when a pooled connection turns out closed while reading the status
  // line). Either way the pod is bound where we wanted it.
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
