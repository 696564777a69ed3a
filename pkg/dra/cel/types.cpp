#include "pkg/dra/cel/types.h"

#include <cctype>

namespace ks::cel {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits "a, map(b, c)" at top-level commas.
std::vector<std::string_view> splitTopLevel(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (s[i] == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

}  // namespace

CelType CelType::parse(std::string_view text) {
  using K = Kind;
  text = trim(text);
  const size_t open = text.find('(');
  if (open != std::string_view::npos) {
    const std::string_view name = text.substr(0, open);
    std::vector<CelType> params;
    for (std::string_view p : splitTopLevel(text.substr(open + 1, text.size() - open - 2)))
      params.push_back(parse(p));
    if (name == "list") return list(params.at(0));
    if (name == "map") return map(params.at(0), params.at(1));
    if (name == "optional_type") return CelType{K::Optional, std::move(params), {}};
    if (name == "type") return CelType{K::Type, std::move(params), {}};
  }
  if (text == "dyn") return of(K::Dyn);
  if (text == "null_type") return of(K::Null);
  if (text == "bool") return of(K::Bool);
  if (text == "int") return of(K::Int);
  if (text == "uint") return of(K::Uint);
  if (text == "double") return of(K::Double);
  if (text == "string") return of(K::String);
  if (text == "bytes") return of(K::Bytes);
  if (text == "type") return of(K::Type);
  if (text == "kubernetes.Quantity") return of(K::Quantity);
  if (text == "kubernetes.Semver") return of(K::Semver);
  if (text == "google.protobuf.Timestamp") return of(K::Timestamp);
  if (text == "google.protobuf.Duration") return of(K::Duration);
  if (text == "net.IP") return of(K::IP);
  if (text == "net.CIDR") return of(K::CIDR);
  if (text == "kubernetes.URL") return of(K::URL);
  if (text == "kubernetes.NamedFormat") return of(K::NamedFormat);
  if (text.size() == 1 && std::isupper(static_cast<unsigned char>(text[0])))
    return CelType{K::Param, {}, std::string(text)};
  return of(K::Dyn);
}

bool CelType::containsFree() const {
  if (kind == Kind::Free) return true;
  for (const CelType& p : params)
    if (p.containsFree()) return true;
  return false;
}

std::string CelType::toString() const {
  using K = Kind;
  switch (kind) {
    case K::Dyn:
    case K::Free:  // cel-go prints an unbound variable as _varN; its number is not tracked here
      return "dyn";
    case K::Any:
      return "any";
    case K::Null:
      return "null";
    case K::Bool:
      return "bool";
    case K::Int:
      return "int";
    case K::Uint:
      return "uint";
    case K::Double:
      return "double";
    case K::String:
      return "string";
    case K::Bytes:
      return "bytes";
    case K::List:
      return "list(" + params.at(0).toString() + ")";
    case K::Map:
      return "map(" + params.at(0).toString() + ", " + params.at(1).toString() + ")";
    case K::Type:
      return params.empty() ? "type" : "type(" + params[0].toString() + ")";
    case K::Optional:
      return "optional_type(" + params.at(0).toString() + ")";
    case K::Quantity:
      return "kubernetes.Quantity";
    case K::Semver:
      return "kubernetes.Semver";
    case K::Timestamp:
      return "timestamp";
    case K::Duration:
      return "duration";
    case K::IP:
      return "net.IP";
    case K::CIDR:
      return "net.CIDR";
    case K::URL:
      return "kubernetes.URL";
    case K::NamedFormat:
      return "kubernetes.NamedFormat";
    case K::Error:
      return "!error!";
    case K::Device:
      return "kubernetes.DRADevice";
    case K::Param:
      return param;
  }
  return "dyn";
}

std::string CelType::typeName() const {
  switch (kind) {
    case Kind::Any:
      return "google.protobuf.Any";
    case Kind::Null:
      return "null_type";
    case Kind::List:
      return "list(" + params.at(0).typeName() + ")";
    case Kind::Map:
      return "map(" + params.at(0).typeName() + ", " + params.at(1).typeName() + ")";
    case Kind::Optional:
      return "optional_type(" + params.at(0).typeName() + ")";
    case Kind::Type:
      return params.empty() ? "type" : "type(" + params[0].typeName() + ")";
    case Kind::Timestamp:
      return "google.protobuf.Timestamp";
    case Kind::Duration:
      return "google.protobuf.Duration";
    default:
      return toString();
  }
}

bool runtimeKindMatches(const CelType& t, const Value& v) {
  using K = CelType::Kind;
  using VK = Value::Kind;
  switch (t.kind) {
    case K::Dyn:
    case K::Any:
    case K::Param:
    case K::Free:
      return true;
    case K::Null:
      return v.kind() == VK::Null;
    case K::Bool:
      return v.kind() == VK::Bool;
    case K::Int:
      return v.kind() == VK::Int;
    case K::Uint:
      return v.kind() == VK::Uint;
    case K::Double:
      return v.kind() == VK::Double;
    case K::String:
      return v.kind() == VK::String;
    case K::Bytes:
      return v.kind() == VK::Bytes;
    case K::List:
      return v.kind() == VK::List;
    case K::Map:
      return v.kind() == VK::Map;
    case K::Type:
      return v.kind() == VK::Type;
    case K::Optional:
      return v.kind() == VK::Optional;
    case K::Quantity:
      return v.kind() == VK::Quantity;
    case K::Semver:
      return v.kind() == VK::Semver;
    case K::Timestamp:
      return v.kind() == VK::Timestamp;
    case K::Duration:
      return v.kind() == VK::Duration;
    case K::IP:
      return v.kind() == VK::IP;
    case K::CIDR:
      return v.kind() == VK::CIDR;
    case K::URL:
      return v.kind() == VK::URL;
    case K::NamedFormat:
      return v.kind() == VK::NamedFormat;
    case K::Device:
      return v.kind() == VK::Map;
    case K::Error:
      return v.kind() == VK::Error;
  }
  return false;
}

}  // namespace ks::cel
