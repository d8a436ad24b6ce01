// Batch regimes: which kernels multiply the weights at a batch size. ΔE at batch 4 is not ΔE at
// batch 1 made smaller: llama.cpp (pinned commit 80fb11ac, ggml/src/ggml-cuda) multiplies quantized
// weights with its vector kernel (MMVQ) for up to MMVQ_MAX_BATCH_SIZE = 8 sequences (7 for Q4_K/Q5_K
// on Ada, 5 for Q2_K…Q5_K and 7 for Q6_K on Blackwell, tuned there), with 4 warps a block up to 4
// sequences and 2 from 5 (mmvq.cu calc_nwarps, the table NVIDIA cards from Ampere on use), and with
// its matrix kernel (MMQ) above. F16 weights go through its float vector kernel (mul_mat_vec_f) at
// batch 1, its float matrix kernel (mul_mat_f) up to 16 sequences and cuBLAS above (ggml-cuda.cu
// ggml_cuda_mul_mat; the kernel profile of docs/findings/h200-batch-atlas.md saw the same on the H200).
// So the log energy ratio has five regimes there (batch 1; MMVQ with 4 warps, MMVQ with 2 warps and
// MMQ, each against mul_mat_f; MMQ against cuBLAS) and the F16 energy three. The decision model
// fits each regime's effect from the data; this file only says where the kernels switch. An engine
// whose kernels we have not read has one regime above batch 1.
#pragma once

#include <string>
#include <string_view>

namespace ecocompute::decide {

/// The family of an engine whose kernels, and so whose variance components, are one: llama-server
/// runs llama.cpp's kernels ("llama.cpp"); every other engine is its own family.
std::string engine_family(std::string_view engine);

/// The regime of a batch size: 0 for batch 1. For llama.cpp's kernels and a quantized format: 1 up to
/// batch 4 (the vector kernel with 4 warps a block), 2 up to the vector kernel's limit on that
/// architecture (2 warps; none where the limit is 4), 3 up to 16 (the matrix kernel against F16's
/// mul_mat_f), 4 above (against cuBLAS). For F16 with llama.cpp: 1 up to 16, 2 above. For another
/// engine, 1 above batch 1. A number means the same kernels on every architecture of the engine.
int batch_regime(std::string_view engine, std::string_view precision, std::string_view arch, int batch);

/// The batch range of a regime and its kernels, in words ("batch 5–8: quantized weights by the vector
/// kernel (MMVQ, 2 warps a block), F16 by mul_mat_f").
std::string regime_text(std::string_view engine, std::string_view precision, std::string_view arch, int regime);

/// The largest batch of the regimes below `regime` (1 for regime 1): the origin of the regime's slope.
int regime_first_batch(std::string_view engine, std::string_view precision, std::string_view arch, int regime);

/// Where a batch lies in its regime, the covariate of the regime's slope: 0 at the regime's first batch
/// (and at batch 1), ln(batch / first) above. Inside the vector kernel's regimes of a quantized format it
/// is linear in the batch instead, scaled to meet ln(last / first) at the regime's last batch: there
/// every sequence adds its own dequantizing and dot products to one read of the weights, so the energy
/// ratio (W_q + b·c_q) / (W_f + b·c_f) moves with b, not ln b, to first order (at 8 B on Hopper, batch 3
/// sits at 0.64–0.70 of the way from batch 1 to 4 in ln ΔE ratio for all five formats, where ln batch
/// puts it at 0.79 and b at 0.67).
double regime_coordinate(std::string_view engine, std::string_view precision, std::string_view arch, int batch);
/// The same, for a batch whose regime (batch_regime's) the caller already has.
double regime_coordinate(std::string_view engine, std::string_view precision, std::string_view arch, int batch, int regime);

}  // namespace ecocompute::decide
