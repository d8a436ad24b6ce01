// libFuzzer target: an uploaded energy.json through everything POST /v1/replications does with it —
// depth check and JSON parse, schema validation, basis checks, the dataset reader and the grader.
// Nothing may crash, hang or read out of bounds, whatever the bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "published_evidence.hpp"
#include "server/replication_upload.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz_support::load_published_evidence_once();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ecocompute::server::CheckedUpload checked =
      ecocompute::server::check_upload(text, fuzz_support::published_evidence());
  // Exactly one of the two is set.
  if (checked.replication.has_value() == checked.rejection.has_value()) __builtin_trap();
  return 0;
}
