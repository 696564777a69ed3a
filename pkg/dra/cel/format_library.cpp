// cel-go's string.format() (ext strings version 2) and Kubernetes' format library.

#include "pkg/dra/cel/format.h"
#include "pkg/dra/cel/libraries.h"

namespace ks::cel {
namespace {

using Args = std::span<const Value>;

Value stringFormat(Args a) {
  const ValueList& args = a[1].items();
  FormatOutcome out = interpolateFormat(a[0].text(), args.size(), true,
                                        [&](size_t i, char verb, std::optional<int64_t> precision) {
                                          return formatClause(args[i], verb, precision);
                                        });
  if (auto* f = std::get_if<FormatFailure>(&out)) return Value::error(f->message);
  return Value::string(std::move(std::get<std::string>(out)));
}

}  // namespace

void defineFormatLibrary(FunctionRegistry& r) {
  r.define("format", "string_format", true, {"string", "list(dyn)"}, "string", stringFormat);
}

}  // namespace ks::cel
