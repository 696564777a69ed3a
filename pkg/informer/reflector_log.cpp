#include "pkg/informer/reflector_log.h"

#include <spdlog/spdlog.h>

namespace ks::informer::reflectorlog {

void buildLogger() { (void)spdlog::default_logger_raw(); }

void cachesPopulated(std::string_view reflector, std::string_view resourceVersion) {
  spdlog::debug("Caches populated reflector=\"{}\" resourceVersion=\"{}\"", reflector, resourceVersion);
}

void listFailed(std::string_view reflector, const client::ApiError& err) {
  if (err.isGone()) {
    spdlog::trace("Watch closed reflector=\"{}\" code={} err=\"{}\"", reflector, err.code(), err.message());
    return;
  }
  spdlog::error("Failed to watch reflector=\"{}\" code={} err=\"{}\"", reflector, err.code(), err.message());
}

void watchEnded(std::string_view reflector, const client::ApiError& err) {
  if (err.isGone()) {
    // Upstream logs this at V(4); the relist that follows is the "Caches populated" line.
    spdlog::trace("Watch closed reflector=\"{}\" code={} err=\"{}\"", reflector, err.code(), err.message());
  } else if (err.isTooManyRequests()) {
    spdlog::debug("Watch returned 429 - backing off reflector=\"{}\"", reflector);
  } else if (err.isTransport() || err.isServerError()) {
    spdlog::trace("Watch failed - backing off reflector=\"{}\" code={} err=\"{}\"", reflector, err.code(),
                  err.message());
  } else {
    spdlog::info("Warning: watch ended with error reflector=\"{}\" code={} err=\"{}\"", reflector, err.code(),
                 err.message());
  }
}

}  // namespace ks::informer::reflectorlog

namespace ks::informer::reflectorlog {

void watchListFailed(std::string_view reflector, const client::ApiError& err) {
  if (err.isTransport() || err.isTooManyRequests()) {
    spdlog::debug("watch-list failed - backing off reflector=\"{}\" code={} err=\"{}\"", reflector, err.code(),
                  err.message());
  } else {
    spdlog::trace(
        "Data couldn't be fetched in watchlist mode. Falling back to regular list. This is expected if watchlist "
        "is not supported or disabled in kube-apiserver. reflector=\"{}\" code={} err=\"{}\"",
        reflector, err.code(), err.message());
  }
}

}  // namespace ks::informer::reflectorlog
