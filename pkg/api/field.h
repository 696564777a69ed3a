#pragma once
// field.Error / field.ErrorList of k8s.io/apimachinery/pkg/util/validation/field, as the apiserver and the
// config validation print them: "<path>: <type>[: <value>][: <detail>]", and ErrorList.ToAggregate().Error()
// joining ("[a, b]", duplicates dropped). Shared by the API object validation (validation.h) and the
// KubeSchedulerConfiguration validation (pkg/scheduler/apis/config/validation.h).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ks::api {

// One field.Error. `badValue` is already rendered as upstream prints it: %q for Go strings
// (field::quoteValue), JSON for named string types and pointers (field::jsonValue), %v for integers.
struct FieldError {
  enum class Type { kRequired, kDuplicate, kInvalid, kNotSupported, kForbidden };
  Type type = Type::kInvalid;
  std::string field;
  std::string badValue;
  std::string detail;

  // Error(): "<field>: <ErrorBody()>"; Required and Forbidden print no value.
  std::string message() const;

  bool operator==(const FieldError&) const = default;
};

using FieldErrorList = std::vector<FieldError>;

// utilerrors.NewAggregate(errs).Error(): "" for none, the message for one, "[m1, m2]" for several, with
// repeated messages dropped.
std::string aggregateMessages(const std::vector<std::string>& messages);
// ErrorList.ToAggregate().Error(): aggregateMessages of the errors' messages.
std::string aggregateFieldErrors(const FieldErrorList& errors);

namespace field {

// field.Path rendering: child("", "a") == "a", child("a", "b") == "a.b", index("a", 1) == "a[1]".
std::string child(std::string_view path, std::string_view name);
std::string index(std::string_view path, size_t i);

// Bad-value renderings. quoteValue: a Go `string` (%q). jsonValue: what json.Marshal prints for a named
// string type or a *string (field.Error's default case), e.g. "a\u003cb" for a<b.
std::string quoteValue(std::string_view s);
std::string jsonValue(std::string_view s);

// The field.* constructors. notSupported quotes the supported values as strconv.Quote does.
FieldError required(std::string path, std::string detail);
FieldError forbidden(std::string path, std::string detail);
FieldError invalid(std::string path, std::string badValue, std::string detail);
FieldError duplicate(std::string path, std::string badValue);
FieldError notSupported(std::string path, std::string badValue,
                        const std::vector<std::string_view>& supported);

}  // namespace field

}  // namespace ks::api
