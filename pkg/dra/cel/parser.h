#pragma once
// CEL's grammar (cel-go v0.29.2's CEL.g4) as a recursive-descent parser, with cel-go's macros
// expanded while parsing: has, all, exists, exists_one, map (2 and 3 arguments), filter and cel.bind.
// Errors carry a source position and print as cel-go prints them:
//   ERROR: <input>:1:5: undeclared reference to 'x' (in container '')
//    | a + x
//    | ....^

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/dra/cel/ast.h"

namespace ks::cel {

// Where each expression id starts in the source (a code-point offset), for error positions.
class SourceInfo {
 public:
  explicit SourceInfo(std::string text);
  void setOffset(int64_t id, int32_t offset) { offsets_[id] = offset; }
  int32_t offsetOf(int64_t id) const;
  const std::string& text() const { return text_; }
  // 1-based line and 0-based column (in code points) of a code-point offset.
  std::pair<int, int> location(int32_t offset) const;
  // The line's text, without its newline.
  std::string_view line(int lineNumber) const;

 private:
  std::string text_;
  std::vector<int32_t> lineStarts_;     // code-point offsets of each line's start
  std::vector<size_t> lineByteStarts_;  // byte offsets of the same
  std::unordered_map<int64_t, int32_t> offsets_;
};

// A list of compile errors, printed in source order as cel-go's Issues.String().
class Issues {
 public:
  void add(int32_t offset, std::string message) { items_.push_back({offset, std::move(message)}); }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  std::string toString(const SourceInfo& source) const;

 private:
  struct Item {
    int32_t offset;
    std::string message;
  };
  std::vector<Item> items_;
};

struct ParsedExpr {
  ExprPtr expr;  // null when parsing failed
  SourceInfo source;
  int64_t nextId = 1;
};

// Parses `text`. On failure `issues` is non-empty and the result's expr may be null.
ParsedExpr parse(std::string_view text, Issues& issues);

}  // namespace ks::cel
