#include "util/packed_numbers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ecocompute {
namespace {

TEST(PackedNumbers, DoublesComeBackBitForBit) {
  const std::vector<double> values{0.2626445504286741, -1e-300, 5.184366610761051e-05, 0.0, -0.0,
                                   std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min()};
  // Every length modulo 3 bytes: 8, 16 and 24 bytes end the base64 text with two, one and no '='.
  for (std::size_t n = 0; n <= values.size(); ++n) {
    const std::span<const double> part(values.data(), n);
    const auto back = unpack_doubles(pack_doubles(part));
    ASSERT_TRUE(back.has_value()) << n;
    ASSERT_EQ(back->size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(std::signbit((*back)[i]), std::signbit(values[i]));
      EXPECT_EQ((*back)[i], values[i]);
    }
  }
}

TEST(PackedNumbers, IndicesComeBack) {
  const std::vector<std::uint32_t> values{0, 1, 7348, 4294967295u, 12};
  for (std::size_t n = 0; n <= values.size(); ++n) {
    const auto back = unpack_indices(pack_indices(std::span<const std::uint32_t>(values.data(), n)));
    ASSERT_TRUE(back.has_value()) << n;
    EXPECT_EQ(*back, std::vector<std::uint32_t>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n)));
  }
}

TEST(PackedNumbers, TextThatIsNotAWholeNumberOfValuesIsRefused) {
  EXPECT_FALSE(unpack_doubles("abc").has_value());                   // not a multiple of 4 characters
  EXPECT_FALSE(unpack_doubles("a!b?").has_value());                  // not base64
  EXPECT_FALSE(unpack_doubles(pack_indices(std::vector<std::uint32_t>{1, 2, 3})).has_value());  // 12 bytes: not doubles
  EXPECT_FALSE(unpack_indices("AAA=").has_value());                  // 2 bytes: not an index
  EXPECT_EQ(unpack_doubles("")->size(), 0U);
}

}  // namespace
}  // namespace ecocompute
