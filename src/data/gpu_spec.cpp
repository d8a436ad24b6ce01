// GPU datasheet table (NVIDIA product pages; dense tensor throughput without sparsity, FP16 with FP32
// accumulation for GeForce cards) and name → architecture resolution.
#include "data/gpu_spec.hpp"
#include "util/quoted_input.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace ecocompute::data {
namespace {

std::string squash(std::string_view text) {  // lower case, letters and digits only
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  }
  return out;
}

}  // namespace

const std::vector<GpuSpec>& gpu_specs() {
  static const std::vector<GpuSpec> specs{
      // name, arch, memory GB, bandwidth GB/s, FP16 TFLOP/s, INT8 TOP/s, board W
      {"T4", "turing", 16, 320, 65, 130, 70},
      {"RTX 3090", "ampere", 24, 936, 71, 284, 350},
      {"A100 SXM", "ampere", 80, 2039, 312, 624, 400},
      {"A100 PCIe", "ampere", 40, 1555, 312, 624, 250},
      {"A800", "ampere", 80, 1935, 312, 624, 300},
      {"RTX 4090", "ada", 24, 1008, 165.2, 660.6, 450},
      {"RTX 4090D", "ada", 24, 1008, 147, 588, 425},
      {"L4", "ada", 24, 300, 121, 242, 72},
      {"L40S", "ada", 48, 864, 362, 733, 350},
      {"H100 SXM", "hopper", 80, 3350, 989, 1979, 700},
      {"H100 PCIe", "hopper", 80, 2000, 756, 1513, 350},
      {"H200", "hopper", 141, 4800, 989, 1979, 700},
      {"H200 NVL", "hopper", 141, 4800, 835, 1671, 600},
      {"RTX 5090", "blackwell", 32, 1792, 209.5, 838, 575},
      {"B200", "blackwell", 180, 8000, 2250, 4500, 1000},
  };
  return specs;
}

namespace {

// Other spellings of the table's cards, squashed: the family names people use for the variant the
// published data measured, and the names the driver reports (nvidia-smi, NVML). Nothing else matches:
// "H2000", "L40" and "T400" are not cards of the table, and "H200 NVL" is its own card.
struct GpuAlias {
  const char* spelling;
  const char* card;
};
constexpr GpuAlias kAliases[] = {
    {"a100", "A100 SXM"},        {"a100sxm4", "A100 SXM"},       {"a100sxm480gb", "A100 SXM"}, {"a10080gb", "A100 SXM"},
    {"a100sxm440gb", "A100 SXM"}, {"a100pcie40gb", "A100 PCIe"},  {"a10040gbpcie", "A100 PCIe"},
    {"a800sxm480gb", "A800"},    {"a80080gb", "A800"},
    {"h100", "H100 SXM"},        {"h100sxm5", "H100 SXM"},       {"h10080gbhbm3", "H100 SXM"}, {"h100sxm580gb", "H100 SXM"},
    {"h10080gb", "H100 SXM"},    {"h100pcie80gb", "H100 PCIe"},
    {"h200sxm", "H200"},         {"h200141gbhbm3e", "H200"},
    {"rtx4090d", "RTX 4090D"},   {"4090", "RTX 4090"},           {"4090d", "RTX 4090D"},      {"5090", "RTX 5090"},
    {"3090", "RTX 3090"},
};

std::string known_gpu_names() {
  std::string known;
  for (const GpuSpec& spec : gpu_specs()) known += (known.empty() ? "" : ", ") + spec.name;
  return known;
}

}  // namespace

Result<GpuSpec> find_gpu(std::string_view name) {
  std::string key = squash(name);
  // Vendor and brand words ("NVIDIA GeForce RTX 4090", "Tesla T4") say nothing about the card.
  for (int round = 0; round < 2; ++round) {
    for (const char* prefix : {"nvidia", "geforce", "tesla"}) {
      const std::string p(prefix);
      if (key.starts_with(p)) key = key.substr(p.size());
    }
  }
  for (const GpuSpec& spec : gpu_specs()) {
    if (squash(spec.name) == key) return spec;
  }
  for (const GpuAlias& alias : kAliases) {
    if (key != alias.spelling) continue;
    for (const GpuSpec& spec : gpu_specs()) {
      if (spec.name == alias.card) return spec;
    }
  }
  return unexpected(ErrorCode::not_found, "unknown GPU " + quoted_input(name) + " (known: " + known_gpu_names() +
                                              "; also A100 and H100 for their SXM cards, and the names nvidia-smi prints)");
}

const std::vector<std::string>& known_architectures() {
  static const std::vector<std::string> archs{"turing", "ampere", "ada", "hopper", "blackwell"};
  return archs;
}

Result<std::string> parse_architecture(std::string_view text) {
  const std::string key = squash(text);
  for (const std::string& arch : known_architectures()) {
    if (key == arch) return arch;
  }
  if (key == "adalovelace" || key == "lovelace" || key == "sm89") return std::string("ada");
  if (key == "sm75") return std::string("turing");
  if (key == "sm80" || key == "sm86" || key == "sm87") return std::string("ampere");
  if (key == "sm90" || key == "sm90a") return std::string("hopper");
  if (key == "sm100" || key == "sm120" || key == "sm100a") return std::string("blackwell");
  return unexpected(ErrorCode::not_found, "unknown GPU architecture " + quoted_input(text) +
                                              " (known: turing, ampere, ada, hopper, blackwell)");
}

Result<std::string> resolve_architecture(std::string_view gpu_or_arch) {
  if (auto arch = parse_architecture(gpu_or_arch)) return arch;
  if (auto gpu = find_gpu(gpu_or_arch)) return gpu->arch;
  return unexpected(ErrorCode::not_found, quoted_input(gpu_or_arch) +
                                              " is neither a known GPU nor a known architecture "
                                              "(architectures: turing, ampere, ada, hopper, blackwell)");
}

std::string architecture_name(std::string_view arch) {
  if (arch == "turing") return "Turing";
  if (arch == "ampere") return "Ampere";
  if (arch == "ada") return "Ada Lovelace";
  if (arch == "hopper") return "Hopper";
  if (arch == "blackwell") return "Blackwell";
  return std::string(arch);
}

std::optional<std::string> default_borrow(std::string_view arch) {
  if (arch == "hopper") return std::string("ampere");
  return std::nullopt;
}

std::vector<std::string> architectures_nearest_to(std::string_view arch) {
  const auto& all = known_architectures();  // in order of generation
  const auto at = std::find(all.begin(), all.end(), arch);
  const long here = at == all.end() ? 0 : at - all.begin();
  std::vector<std::string> out;
  for (const std::string& a : all) {
    if (a != arch) out.push_back(a);
  }
  std::stable_sort(out.begin(), out.end(), [&](const std::string& x, const std::string& y) {
    const auto distance = [&](const std::string& a) {
      return std::abs(static_cast<long>(std::find(all.begin(), all.end(), a) - all.begin()) - here);
    };
    return distance(x) < distance(y);
  });
  return out;
}

Result<GpuSpec> representative_gpu(std::string_view arch) {
  auto parsed = parse_architecture(arch);
  if (!parsed) return parsed.error();
  const std::string preferred = *parsed == "ada"      ? "RTX 4090"
                                : *parsed == "blackwell" ? "RTX 5090"
                                : *parsed == "ampere"    ? "A800"
                                : *parsed == "hopper"    ? "H100 SXM"
                                                         : "T4";
  for (const GpuSpec& spec : gpu_specs()) {
    if (spec.name == preferred) return spec;
  }
  return unexpected(ErrorCode::internal, "no GPU of architecture " + *parsed + " in the table");
}

}  // namespace ecocompute::data
