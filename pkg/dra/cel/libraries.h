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
// A Kubernetes named format's cost parameter (0 for an unknown key) and its Name (what == compares).
uint64_t namedFormatMaxRegexSize(std::string_view key);
std::string_view namedFormatName(std::string_view key);

}  // namespace ks::cel
