#pragma once
// Label selectors with upstream's semantics (k8s.io/apimachinery/pkg/labels/selector.go and
// metav1.LabelSelectorAsSelector): a Selector is compiled once (validated, sorted by key, Gt/Lt values
// parsed) and then matched many times; matches() allocates nothing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/meta.h"
#include "pkg/util/result.h"

namespace ks::api {

// selection.Operator.
enum class SelectionOp : uint8_t {
  In,
  NotIn,
  Equals,
  DoubleEquals,
  NotEquals,
  Exists,
  DoesNotExist,
  GreaterThan,
  LessThan
};

// The operator's string form as upstream ("in", "notin", "=", "==", "!=", "exists", "!", "gt", "lt").
std::string_view selectionOpName(SelectionOp op);

// Label key / value and DNS name validation (validation.IsQualifiedName, IsValidLabelValue, IsDNS1123Label,
// IsDNS1123Subdomain): the list of problems, empty when valid. Messages are upstream's.
std::vector<std::string> isQualifiedName(std::string_view key);
std::vector<std::string> isValidLabelValue(std::string_view value);
std::vector<std::string> isDNS1123Label(std::string_view value);
std::vector<std::string> isDNS1123Subdomain(std::string_view value);

// One key/operator/values triple (labels.Requirement). Always valid once created.
namespace internal {
class FieldErrors;
}

class Requirement {
 public:
  // As upstream NewRequirement: validates key, operator arity, Gt/Lt integers and label values; the
  // error is upstream's aggregated field error text ("values: Invalid value: []string(nil): ...").
  static Result<Requirement> create(std::string key, SelectionOp op, std::vector<std::string> values);

  // As Requirement.Matches. Allocates nothing.
  bool matches(const Labels& labels) const;

  // As Requirement.String(): "!k", "k", "k=v", "k in (a,b)" (values sorted on output).
  std::string toString() const;

  const std::string& key() const { return key_; }
  SelectionOp op() const { return op_; }
  const std::vector<std::string>& values() const { return values_; }

  bool operator==(const Requirement& o) const {
    return key_ == o.key_ && op_ == o.op_ && values_ == o.values_;
  }

 private:
  friend class Selector;
  friend std::optional<Requirement> newRequirement(std::string key, SelectionOp op,
                                                   std::vector<std::string> values, std::string_view path,
                                                   internal::FieldErrors& errs);
  Requirement(std::string key, SelectionOp op, std::vector<std::string> values);

  bool hasValue(std::string_view v) const;

  std::string key_;
  SelectionOp op_ = SelectionOp::Exists;
  std::vector<std::string> values_;
  int64_t intValue_ = 0;  // Gt / Lt operand
};

// labels.Selector: everything (no requirements), nothing, or an AND of requirements sorted by key.
class Selector {
 public:
  // Everything.
  Selector() = default;

  static Selector everything() { return Selector(); }
  static Selector nothing();

  // labels.Parse: "a=b,c!=d,e in (f,g),f notin (h),!x,y,n>1". Errors are upstream's, e.g.
  // "unable to parse requirement: found '=', expected: ',' or 'end of string'".
  static Result<Selector> parse(std::string_view selector);

  // metav1.LabelSelectorAsSelector: empty selector -> everything; errors as upstream
  // ("\"Foo\" is not a valid label selector operator", NewRequirement errors).
  static Result<Selector> fromLabelSelector(const LabelSelector& selector);
  // Same, with an absent selector compiling to nothing (upstream's nil *LabelSelector).
  static Result<Selector> fromLabelSelector(const std::optional<LabelSelector>& selector);

  // labels.SelectorFromSet / SelectorFromValidatedSet: key=value for every entry, no validation;
  // an empty set is everything.
  static Selector fromSet(const Labels& set);

  // Returns a copy with the requirements added and all requirements (stably) sorted by key.
  Selector add(std::vector<Requirement> requirements) const;

  // True when every requirement matches (false for nothing()). Allocates nothing.
  bool matches(const Labels& labels) const;

  // True for everything() (no requirements); false for nothing().
  bool empty() const { return !nothing_ && requirements_.empty(); }
  bool isNothing() const { return nothing_; }

  // As upstream String(): requirements joined by ","; "" for everything and nothing.
  std::string toString() const;

  const std::vector<Requirement>& requirements() const { return requirements_; }

  // RequiresExactMatch: the single value required for `label` by =, == or a one-value in.
  std::optional<std::string_view> requiresExactMatch(std::string_view label) const;

  bool operator==(const Selector& o) const {
    return nothing_ == o.nothing_ && requirements_ == o.requirements_;
  }

 private:
  std::vector<Requirement> requirements_;
  bool nothing_ = false;
};

// labels.NewRequirement with field.WithPath(path) ("" = no path): the requirement, or nullopt with the
// field errors appended to `errs` (deduplicated there, as ToAggregate does).
std::optional<Requirement> newRequirement(std::string key, SelectionOp op, std::vector<std::string> values,
                                          std::string_view path, internal::FieldErrors& errs);

// Helpers shared by the api compilers (labels, node selectors) to reproduce upstream's error texts.
namespace internal {

// strconv.ParseInt(s, 10, 64): optional sign, at least one digit, in range. Allocates nothing.
bool parseGoInt64(std::string_view s, int64_t* out);

// A []string as Go's %#v prints it: `[]string{"a", "b"}`, and `[]string(nil)` when empty (upstream
// copies empty value lists into nil slices before validating them).
std::string goStringSlice(const std::vector<std::string>& values);

// field.Path helpers on rendered paths: child("", "a") == "a", child("a", "b") == "a.b", index("a", 1) ==
// "a[1]".
std::string childPath(std::string_view path, std::string_view name);
std::string indexPath(std::string_view path, size_t i);

// field.ErrorList: collects "<field>: Invalid value: <value>: <detail>" style errors and renders them
// as ErrorList.ToAggregate().Error() does (deduplicated; one error plain, several as "[a, b]").
class FieldErrors {
 public:
  // `value` is already rendered (quote(s) for strings, goStringSlice for lists).
  void invalid(std::string_view field, std::string_view value, std::string_view detail);
  void required(std::string_view field, std::string_view detail);
  void notSupported(std::string_view field, std::string_view value,
                    const std::vector<std::string_view>& supported);
  void add(std::string message) { messages_.push_back(std::move(message)); }
  void append(const FieldErrors& other) {
    messages_.insert(messages_.end(), other.messages_.begin(), other.messages_.end());
  }
  bool empty() const { return messages_.empty(); }
  const std::vector<std::string>& messages() const { return messages_; }
  std::string aggregate() const;

 private:
  std::vector<std::string> messages_;
};

}  // namespace internal

}  // namespace ks::api
