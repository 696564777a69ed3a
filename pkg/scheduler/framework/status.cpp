#include "pkg/scheduler/framework/status.h"

namespace ks::framework {

namespace {
const std::vector<std::string> kNoReasons;
const std::string kNoPlugin;
}  // namespace

std::string_view codeName(Code code) {
  switch (code) {
    case Code::Success:
      return "Success";
    case Code::Error:
      return "Error";
    case Code::Unschedulable:
      return "Unschedulable";
    case Code::UnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::Wait:
      return "Wait";
    case Code::Skip:
      return "Skip";
    case Code::Pending:
      return "Pending";
  }
  return "Unknown";
}

Status::Status(Code code, std::string reason) {
  if (code == Code::Success && reason.empty()) return;
  rep_ = std::make_unique<Rep>();
  rep_->code = code;
  if (!reason.empty()) rep_->reasons.push_back(std::move(reason));
}

Status::Status(Code code, std::vector<std::string> reasons) {
  if (code == Code::Success && reasons.empty()) return;
  rep_ = std::make_unique<Rep>();
  rep_->code = code;
  rep_->reasons = std::move(reasons);
}

Status::Status(const Status& other) : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

Status Status::fromError(Error err) {
  Status s;
  Rep& r = s.mutableRep();
  r.code = Code::Error;
  r.reasons.push_back(err.message());
  r.err = std::move(err);
  return s;
}

const std::vector<std::string>& Status::reasons() const {
  return rep_ ? rep_->reasons : kNoReasons;
}

std::string Status::message() const {
  std::string out;
  for (const auto& r : reasons()) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

const std::string& Status::plugin() const {
  return rep_ ? rep_->plugin : kNoPlugin;
}

Status::Rep& Status::mutableRep() {
  if (!rep_) rep_ = std::make_unique<Rep>();
  return *rep_;
}

void Status::setPlugin(std::string plugin) {
  mutableRep().plugin = std::move(plugin);
}

Status Status::withPlugin(std::string plugin) && {
  setPlugin(std::move(plugin));
  return std::move(*this);
}

void Status::appendReason(std::string reason) {
  mutableRep().reasons.push_back(std::move(reason));
}

std::optional<Error> Status::asError() const {
  if (isSuccess() || isWait() || isSkip()) return std::nullopt;
  if (rep_->err) return *rep_->err;
  return Error(message());
}

bool Status::operator==(const Status& other) const {
  if (code() != other.code()) return false;
  if (reasons() != other.reasons()) return false;
  if (plugin() != other.plugin()) return false;
  const bool hasErr = rep_ && rep_->err;
  const bool otherHasErr = other.rep_ && other.rep_->err;
  if (hasErr != otherHasErr) return false;
  return !hasErr || *rep_->err == *other.rep_->err;
}

std::string Status::toString() const {
  std::string out(codeName(code()));
  std::string msg = message();
  if (!msg.empty()) {
    out += ": ";
    out += msg;
  }
  if (!plugin().empty()) {
    out += " (plugin ";
    out += plugin();
    out += ")";
  }
  return out;
}

}  // namespace ks::framework
