// InTreeToCSITranslator over csi-translation-lib's port.

#include "pkg/scheduler/framework/plugins/volumebinding/binder.h"
#include "pkg/volume/csitranslation/csi_translation.h"

namespace ks::volumebinding {

namespace {

class CSITranslator final : public InTreeToCSITranslator {
 public:
  bool isPVMigratable(const api::PersistentVolume& pv) const override { return t_.isPVMigratable(pv); }
  Result<std::string> inTreePluginName(const api::PersistentVolume& pv) const override {
    return t_.getInTreePluginNameFromSpec(&pv, nullptr);
  }
  Result<api::PersistentVolume> translateInTreePVToCSI(const api::PersistentVolume& pv) const override {
    return t_.translateInTreePVToCSI(pv);
  }

 private:
  volume::csitranslation::Translator t_;
};

}  // namespace

std::shared_ptr<const InTreeToCSITranslator> newInTreeToCSITranslator() {
  return std::make_shared<const CSITranslator>();
}

}  // namespace ks::volumebinding
