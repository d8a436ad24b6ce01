// Arrays of numbers as base64 text of their little-endian bytes: a stored model keeps hundreds of
// thousands of cell values, which as JSON numbers cost most of its load in parsing and allocation.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ecocompute {

std::string pack_doubles(std::span<const double> values);
std::string pack_indices(std::span<const std::uint32_t> values);

/// Nullopt when `text` is not base64 or not a whole number of values.
std::optional<std::vector<double>> unpack_doubles(std::string_view text);
std::optional<std::vector<std::uint32_t>> unpack_indices(std::string_view text);

}  // namespace ecocompute
