#pragma once
// Go's strconv.Quote (what fmt's %q prints for a string), for error texts carried over from Go.

#include <string>
#include <string_view>

namespace ks::cel {

// `s` in double quotes with Go's escapes: \a \b \f \n \r \t \v \\ \", \xNN for bytes that are not
// UTF-8 and for other ASCII controls, \uNNNN or \UNNNNNNNN for code points Go does not print.
std::string goQuote(std::string_view s);

}  // namespace ks::cel
