// Base64 packing of numeric arrays (see packed_numbers.hpp), by OpenSSL's block coder.
#include "util/packed_numbers.hpp"

#include <openssl/evp.h>

#include <bit>
#include <cstring>

namespace ecocompute {
namespace {

static_assert(std::endian::native == std::endian::little, "packed numbers are the host's bytes: little-endian only");

std::string encode(const void* data, std::size_t bytes) {
  std::string out(4 * ((bytes + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), static_cast<const unsigned char*>(data),
                                      static_cast<int>(bytes));
  out.resize(static_cast<std::size_t>(written));
  return out;
}

// The decoded bytes, without the padding EVP_DecodeBlock leaves as zero bytes.
std::optional<std::vector<unsigned char>> decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::vector<unsigned char> out(text.size() / 4 * 3);
  if (text.empty()) return out;
  const int written = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (written < 0) return std::nullopt;
  std::size_t padding = 0;
  for (std::size_t i = text.size(); i-- > text.size() - 2 && text[i] == '=';) ++padding;
  out.resize(static_cast<std::size_t>(written) - padding);
  return out;
}

template <typename T>
std::optional<std::vector<T>> unpack(std::string_view text) {
  auto bytes = decode(text);
  if (!bytes || bytes->size() % sizeof(T) != 0) return std::nullopt;
  std::vector<T> out(bytes->size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes->data(), bytes->size());
  return out;
}

}  // namespace

std::string pack_doubles(std::span<const double> values) { return encode(values.data(), values.size_bytes()); }
std::string pack_indices(std::span<const std::uint32_t> values) { return encode(values.data(), values.size_bytes()); }
std::optional<std::vector<double>> unpack_doubles(std::string_view text) { return unpack<double>(text); }
std::optional<std::vector<std::uint32_t>> unpack_indices(std::string_view text) { return unpack<std::uint32_t>(text); }

}  // namespace ecocompute
