#pragma once
// The field path and the first error of one decode, shared by the JSON and protobuf codecs so that both
// report a bad field the same way ("spec.containers[0].resources.requests.cpu: <message>").

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/result.h"

namespace ks::api {

class DecodeContext {
 public:
  // Records "<path>: <message>" (just the message at the top level) and returns false.
  bool fail(std::string_view message);

  void push(std::string_view key) { path_.push_back(Segment{key, 0, false}); }
  void pushIndex(size_t index) { path_.push_back(Segment{{}, index, true}); }
  void pop() { path_.pop_back(); }

  std::string path() const;
  bool failed() const { return error_.has_value(); }
  const Error& error() const { return *error_; }

 private:
  // Keys point at string literals or at keys of the input being decoded, both outlive the decode.
  struct Segment {
    std::string_view key;
    size_t index;
    bool isIndex;
  };
  std::vector<Segment> path_;
  std::optional<Error> error_;
};

class PathScope {
 public:
  PathScope(DecodeContext& ctx, std::string_view key) : ctx_(ctx) { ctx_.push(key); }
  PathScope(DecodeContext& ctx, size_t index) : ctx_(ctx) { ctx_.pushIndex(index); }
  ~PathScope() { ctx_.pop(); }
  PathScope(const PathScope&) = delete;
  PathScope& operator=(const PathScope&) = delete;

 private:
  DecodeContext& ctx_;
};

}  // namespace ks::api
