#pragma once
// Static CEL types for the checker, written as cel-go prints them: int, list(string),
// map(string, dyn), kubernetes.Quantity, optional_type(int), and type parameters (A, K, V) in overload
// signatures.

#include <string>
#include <string_view>
#include <vector>

#include "pkg/dra/cel/value.h"

namespace ks::cel {

struct CelType {
  enum class Kind : uint8_t {
    Dyn,
    Any,  // google.protobuf.Any: what device attribute values are declared as; checks as dyn
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    List,
    Map,
    Type,
    Optional,
    Quantity,
    Semver,
    Timestamp,    // google.protobuf.Timestamp
    Duration,     // google.protobuf.Duration
    IP,           // net.IP (Kubernetes)
    CIDR,         // net.CIDR (Kubernetes)
    URL,          // kubernetes.URL
    NamedFormat,  // kubernetes.NamedFormat
    Error,
    Device,  // kubernetes.DRADevice, the one object type of DRA's environment
    Param,   // a type parameter in a signature (name in `param`)
    Free     // a type variable the checker left unbound (an empty literal's element, optional.none()'s
             // value): checks as dyn, and takes the type of what it is unified with
  };
  Kind kind = Kind::Dyn;
  std::vector<CelType> params;  // List: element; Map: key, value; Optional: inner; Type: the type's type
  std::string param;

  static CelType of(Kind k) { return CelType{k, {}, {}}; }
  static CelType list(CelType elem) { return CelType{Kind::List, {std::move(elem)}, {}}; }
  static CelType map(CelType key, CelType value) {
    return CelType{Kind::Map, {std::move(key), std::move(value)}, {}};
  }
  // Parses a signature type: "int", "list(A)", "map(K, V)", "optional_type(A)", "A".
  static CelType parse(std::string_view text);

  bool isDyn() const { return kind == Kind::Dyn || kind == Kind::Any || kind == Kind::Free; }
  bool containsFree() const;
  // As the checker's errors print it ("any" for google.protobuf.Any).
  std::string toString() const;
  // As cel.Type.String() prints it ("google.protobuf.Any"), for the output-type error.
  std::string typeName() const;
  bool operator==(const CelType&) const = default;
};

// The value kind a runtime value of this static type has (Dyn and Param: any).
bool runtimeKindMatches(const CelType& t, const Value& v);

}  // namespace ks::cel
