// Batch regimes: which kernels multiply the weights at a batch size. ΔE at batch 4 is not ΔE at
// batch 1 made smaller: llama.cpp (pinned commit 80fb11ac, ggml/src/ggml-cuda) multiplies quantized
// weights with its vector kernel (MMVQ) for up to MMVQ_MAX_BATCH_SIZE = 8 sequences (7 for Q4_K/Q5_K
// on Ada, 5 for Q2_K…Q5_K and 7 for Q6_K on Blackwell, tuned there) and with its matrix kernel (MMQ)
// above; F16 weights go through the F16 vector kernel at batch 1 and cuBLAS / MMF above. So the log
// energy ratio has three regimes there (batch 1; vector kernel against cuBLAS; matrix kernel against
// cuBLAS) and the F16 energy two. The decision model fits each regime's effect from the data; this
// file only says where the kernels switch. An engine whose kernels we have not read has one regime
// above batch 1.
#pragma once

#include <string>
#include <string_view>

namespace ecocompute::decide {

/// The family of an engine whose kernels, and so whose variance components, are one: llama-server
/// runs llama.cpp's kernels ("llama.cpp"); every other engine is its own family.
std::string engine_family(std::string_view engine);

/// The regime of a batch size: 0 for batch 1; for llama.cpp's kernels and a quantized format, 1 up
/// to the vector kernel's limit on that architecture and 2 above; for F16 or another engine, 1 above
/// batch 1.
int batch_regime(std::string_view engine, std::string_view precision, std::string_view arch, int batch);

/// The batch range of a regime, in words ("batch 2–8: quantized weights by the vector kernel (MMVQ),
/// F16 by cuBLAS").
std::string regime_text(std::string_view engine, std::string_view precision, std::string_view arch, int regime);

/// The largest batch of the regime below `regime` (1 for regime 1): the origin of the regime's slope
/// in ln batch.
int regime_first_batch(std::string_view engine, std::string_view precision, std::string_view arch, int regime);

}  // namespace ecocompute::decide
