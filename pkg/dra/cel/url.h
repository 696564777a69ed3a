#pragma once
// URLs as Go's net/url parses and prints them (Parse, ParseRequestURI, String, EscapedPath, Query,
// Hostname, Port), for Kubernetes' CEL url() library. Behaviour of the Go toolchain the differential
// oracle is built with (its GODEBUG defaults for a go 1.24 module: the last colon starts a port).

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/result.h"

namespace ks::cel {

struct GoURL {
  std::string scheme, opaque, host, path, rawPath, rawQuery, fragment, rawFragment;
  std::optional<std::pair<std::string, std::optional<std::string>>> user;  // username, password
  bool forceQuery = false;
  bool omitHost = false;

  std::string toString() const;     // URL.String()
  std::string escapedPath() const;  // URL.EscapedPath()
  std::string hostname() const;     // URL.Hostname()
  std::string port() const;         // URL.Port()
  // URL.Query(): the keys in first-appearance order with their values (Go's is a map).
  std::vector<std::pair<std::string, std::vector<std::string>>> query() const;
};

// url.ParseRequestURI(text); the error is Go's *url.Error text.
Result<GoURL> parseRequestURI(std::string_view text);
// url.Parse(text).
Result<GoURL> parseURL(std::string_view text);

}  // namespace ks::cel
