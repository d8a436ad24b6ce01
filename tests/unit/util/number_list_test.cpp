// The one parser of comma lists of whole numbers (--batch, --prompt-lengths, --concurrency, atlas batches).
#include "util/number_list.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ecocompute {
namespace {

const NumberListRules kBatch{.what = "--batch", .noun = "batch size", .max = 512, .unique = true};

std::string error_of(std::string_view text, const NumberListRules& rules) {
  auto parsed = parse_number_list(text, rules);
  return parsed ? std::string("(parsed)") : parsed.error().message();
}

TEST(NumberList, KeepsTheOrderGiven) {
  auto parsed = parse_number_list("16,1,4", kBatch);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, (std::vector<std::int64_t>{16, 1, 4}));
}

TEST(NumberList, RefusesWhatIsNotAWholeNumberInRangeNamingTheInputAndTheBound) {
  EXPECT_EQ(error_of("1,0", kBatch), "--batch: '0' is not a batch size from 1 to 512");
  EXPECT_EQ(error_of("513", kBatch), "--batch: '513' is not a batch size from 1 to 512");
  EXPECT_EQ(error_of("1.5", kBatch), "--batch: '1.5' is not a batch size from 1 to 512");
  EXPECT_EQ(error_of("99999999999999999999999", kBatch), "--batch: '99999999999999999999999' is not a batch size from 1 to 512");
  EXPECT_EQ(error_of("4,4", kBatch), "--batch: 4 is listed twice");
  EXPECT_EQ(error_of("", kBatch), "--batch: no batch size given");
}

TEST(NumberList, QuotesAtMostFortyCharactersOfABadItem) {
  const std::string message = error_of(std::string(100000, '7'), kBatch);
  EXPECT_LT(message.size(), 120u) << message;
}

TEST(NumberList, BoundsTheNumberOfItemsAndMayAllowAnEmptyList) {
  NumberListRules rules = kBatch;
  rules.max_items = 2;
  EXPECT_EQ(error_of("1,2,3", rules), "--batch: more than 2 items (give at most 2)");
  rules.allow_empty = true;
  auto empty = parse_number_list("", rules);
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace ecocompute
