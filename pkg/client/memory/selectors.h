#pragma once
// Label and field selectors as the apiserver applies them to list and watch requests. Internal to
// pkg/client/memory.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/meta.h"
#include "pkg/client/client.h"
#include "pkg/client/memory/kinds.h"

namespace ks::client::memory {

// One term of a field selector: "field=value", "field==value" or "field!=value".
struct FieldRequirement {
  std::string field;
  bool equals = true;
  std::string value;
};

// Parses a field selector (fields.ParseSelector); 400 BadRequest on bad syntax. "" selects everything.
ApiResult<std::vector<FieldRequirement>> parseFieldSelector(std::string_view selector);

// A compiled label selector; an empty function matches everything.
using LabelMatcher = std::function<bool(const api::Labels&)>;

// Compiles a label selector string ("app=web,tier in (a,b),!canary"); 400 BadRequest when it does
// not parse. "" matches everything.
ApiResult<LabelMatcher> compileLabelSelector(std::string_view selector);

// The label + field filter of one list or watch request on kind T.
template <typename T>
class ObjectFilter {
 public:
  // 400 BadRequest for a malformed selector or a field label the kind does not support.
  static ApiResult<ObjectFilter> compile(std::string_view labelSelector, std::string_view fieldSelector) {
    auto labels = compileLabelSelector(labelSelector);
    if (!labels.ok()) return labels.error();
    auto fields = parseFieldSelector(fieldSelector);
    if (!fields.ok()) return fields.error();
    const T probe{};
    for (const FieldRequirement& r : *fields) {
      if (!fieldValue(probe, r.field).has_value()) {
        return ApiError(400, "BadRequest", "field label not supported: " + r.field);
      }
    }
    ObjectFilter f;
    f.labels_ = std::move(labels).value();
    f.fields_ = std::move(fields).value();
    return f;
  }

  // True when the request has no selector at all.
  bool selectsAll() const { return !labels_ && fields_.empty(); }

  bool matches(const T& obj) const {
    if (labels_ && !labels_(obj.metadata.labels)) return false;
    for (const FieldRequirement& r : fields_) {
      std::optional<std::string> v = fieldValue(obj, r.field);
      if (!v.has_value() || ((*v == r.value) != r.equals)) return false;
    }
    return true;
  }

 private:
  LabelMatcher labels_;
  std::vector<FieldRequirement> fields_;
};

}  // namespace ks::client::memory
