#include "pkg/client/rest/token_source.h"

#include "pkg/client/rest/config.h"

namespace ks::client::rest {

namespace {

std::string trimSpace(std::string s) {
  const auto notSpace = [](char c) { return c != ' ' && c != '\n' && c != '\r' && c != '\t'; };
  size_t b = 0;
  while (b < s.size() && !notSpace(s[b])) ++b;
  size_t e = s.size();
  while (e > b && !notSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

}  // namespace

TokenSource::TokenSource(std::string staticToken, std::string file, std::chrono::nanoseconds refresh,
                         Clock& clock)
    : staticToken_(std::move(staticToken)), file_(std::move(file)), refresh_(refresh), clock_(clock) {}

std::string TokenSource::token() {
  if (file_.empty()) return staticToken_;
  std::lock_guard lock(mu_);
  const auto now = clock_.now();
  if (!haveCached_ || now - readAt_ >= refresh_) {
    auto text = readFile(file_);
    if (text.ok()) {
      std::string t = trimSpace(std::move(text).value());
      if (!t.empty()) {
        cached_ = std::move(t);
        haveCached_ = true;
      }
    }
    // On failure keep the last good token, and try again after `refresh_` rather than per request.
    readAt_ = now;
  }
  return haveCached_ ? cached_ : staticToken_;
}

}  // namespace ks::client::rest
