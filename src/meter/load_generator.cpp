// LoadGenerator: the CUDA burner (load_generator.cu) behind the Result-returning interface, or, in
// builds without CUDA, a generator that says it is absent.
#include "meter/load_generator.hpp"

#ifdef ECOCOMPUTE_WITH_CUDA
#include "meter/load_generator_cuda.hpp"
#endif

namespace ecocompute::meter {

#ifdef ECOCOMPUTE_WITH_CUDA
namespace {
class CudaLoadGenerator final : public LoadGenerator {
 public:
  explicit CudaLoadGenerator(detail::CudaBurner* burner) : burner_(burner) {}
  ~CudaLoadGenerator() override { detail::cuda_burner_close(burner_); }
  CudaLoadGenerator(const CudaLoadGenerator&) = delete;
  CudaLoadGenerator& operator=(const CudaLoadGenerator&) = delete;

  Result<void> busy_for(Seconds duration) override {
    const std::string failure = detail::cuda_burner_run(burner_, duration.value);
    if (!failure.empty()) return unexpected(ErrorCode::device, "load generator: " + failure);
    return {};
  }

 private:
  detail::CudaBurner* burner_;
};
}  // namespace

bool LoadGenerator::compiled_in() noexcept { return true; }

Result<std::unique_ptr<LoadGenerator>> LoadGenerator::open(const std::string& gpu_uuid) {
  detail::CudaBurner* burner = nullptr;
  const std::string failure = detail::cuda_burner_open(gpu_uuid, &burner);
  if (!failure.empty()) return unexpected(ErrorCode::unavailable, "load generator: " + failure);
  return std::unique_ptr<LoadGenerator>(std::make_unique<CudaLoadGenerator>(burner));
}
#else
bool LoadGenerator::compiled_in() noexcept { return false; }

Result<std::unique_ptr<LoadGenerator>> LoadGenerator::open(const std::string& /*gpu_uuid*/) {
  return unexpected(ErrorCode::unavailable,
                    "this build has no CUDA load generator; rebuild with -DECOCOMPUTE_CUDA=ON to run the selftest");
}
#endif

}  // namespace ecocompute::meter
