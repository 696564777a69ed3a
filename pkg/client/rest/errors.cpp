#include "pkg/client/rest/errors.h"

#include <charconv>

#include "pkg/api/json/codec.h"
#include "pkg/api/proto/codec.h"

namespace ks::client::rest {

std::string_view reasonForCode(int32_t httpStatus) {
  switch (httpStatus) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "";
  }
}

namespace {

// client-go's newUnstructuredResponseError messages.
std::string messageForCode(int32_t code, std::string_view body) {
  switch (code) {
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
      return "the server does not allow access to the requested resource";
    case 404:
      return "the server could not find the requested resource";
    case 409:
      return "the server reported a conflict";
    case 410:
      return "the server has received a request for an object that is no longer available";
    case 422:
      return "the server rejected our request due to an error in our request";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still "
             "be processing the request";
    default:
      break;
  }
  std::string m = "an error on the server (\"";
  m.append(body.substr(0, 1024));
  m += "\") has prevented the request from succeeding";
  return m;
}

int32_t parseRetryAfter(std::string_view header) {
  while (!header.empty() && header.front() == ' ') header.remove_prefix(1);
  while (!header.empty() && header.back() == ' ') header.remove_suffix(1);
  int32_t v = 0;
  auto [p, ec] = std::from_chars(header.data(), header.data() + header.size(), v);
  if (ec != std::errc() || p != header.data() + header.size() || v < 0) return 0;
  return v;
}

}  // namespace

ApiError apiErrorFromResponse(int32_t httpStatus, std::string_view body, std::string_view retryAfterHeader) {
  const int32_t headerRetry = parseRetryAfter(retryAfterHeader);
  const bool protobuf = api::isProtobufEnvelope(body);
  if (protobuf || (!body.empty() && body.find("\"Status\"") != std::string_view::npos)) {
    auto status = protobuf ? api::decodeProto<api::ApiStatus>(body) : api::decodeJson<api::ApiStatus>(body);
    if (status.ok() && (status->code != 0 || !status->reason.empty() || !status->message.empty())) {
      const api::ApiStatus& s = *status;
      const int32_t code = s.code != 0 ? s.code : httpStatus;
      std::string reason = s.reason.empty() ? std::string(reasonForCode(code)) : s.reason;
      int32_t retry = headerRetry;
      if (retry == 0 && s.details) retry = s.details->retryAfterSeconds;
      return ApiError(code, std::move(reason), s.message.empty() ? messageForCode(code, body) : s.message,
                      std::chrono::seconds(retry));
    }
  }
  return ApiError(httpStatus, std::string(reasonForCode(httpStatus)), messageForCode(httpStatus, body),
                  std::chrono::seconds(headerRetry));
}

bool isAlreadyAssignedTo(const ApiError& error, std::string_view node) {
  if (!error.isConflict()) return false;
  std::string needle = "is already assigned to node \"";
  needle.append(node);
  needle += '"';
  return error.message().find(needle) != std::string::npos;
}

}  // namespace ks::client::rest
