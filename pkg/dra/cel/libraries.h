#pragma once
// The function libraries defined outside functions.cpp, each declaring its overloads into the registry.

#include "pkg/dra/cel/functions.h"

namespace ks::cel {

// cel-go's timestamp and duration functions (constructors, accessors, conversions, arithmetic).
void defineTimeLibrary(FunctionRegistry& registry);
// Kubernetes' ip() and cidr() libraries.
void defineNetLibrary(FunctionRegistry& registry);
// Kubernetes' url() library.
void defineUrlLibrary(FunctionRegistry& registry);
// cel-go's string.format() and Kubernetes' format library.
void defineFormatLibrary(FunctionRegistry& registry);

}  // namespace ks::cel
