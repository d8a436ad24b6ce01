#include "util/json_sink.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <random>
#include <stdexcept>

namespace ecocompute {
namespace {

constexpr auto kReplace = Json::error_handler_t::replace;

/// Writes a document through a sink value by value (never through json()), as an answer's writer does.
void write_through(JsonSink& sink, const Json& doc) {
  switch (doc.type()) {
    case Json::value_t::object:
      sink.begin_object();
      for (const auto& [k, v] : doc.items()) {
        sink.key(k);
        write_through(sink, v);
      }
      sink.end_object();
      break;
    case Json::value_t::array:
      sink.begin_array();
      for (const Json& v : doc) write_through(sink, v);
      sink.end_array();
      break;
    case Json::value_t::string: sink.text(doc.get_ref<const std::string&>()); break;
    case Json::value_t::boolean: sink.boolean(doc.get<bool>()); break;
    case Json::value_t::number_integer: sink.integer(doc.get<std::int64_t>()); break;
    case Json::value_t::number_unsigned: sink.unsigned_integer(doc.get<std::uint64_t>()); break;
    case Json::value_t::number_float: sink.number(doc.get<double>()); break;
    default: sink.null(); break;
  }
}

/// Strings of every kind the escaping must tell apart: plain ASCII, quotes, backslashes, every control
/// byte, DEL, valid 2-, 3- and 4-byte UTF-8, and the invalid forms (stray continuation bytes, truncated
/// sequences, overlong forms, surrogates, past U+10FFFF, bytes that never occur).
class RandomText {
 public:
  explicit RandomText(std::mt19937_64& rng) : rng_(rng) {}
  std::string operator()() {
    static const std::vector<std::string> pieces{
        "a", "Z", "0", " ", "/", "\"", "\\", "\x7f", "\xce\x94",  "\xe2\x80\x93", "\xc2\xb1", "\xf0\x9f\x94\x8b",
        "\xef\xbf\xbd", "\x80", "\xbf", "\xc3", "\xe2\x80", "\xf0\x9f\x94", "\xc0\xaf", "\xe0\x80\xaf",
        "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5", "\xff", "\xc1\xbf", "\xed\x9f\xbf", "\xf4\x8f\xbf\xbf"};
    std::string s;
    const int n = static_cast<int>(rng_() % 12);
    for (int i = 0; i < n; ++i) {
      const auto pick = rng_() % (pieces.size() + 8);
      if (pick < pieces.size()) {
        s += pieces[pick];
      } else {
        s += static_cast<char>(rng_() % 0x20);  // a control byte, NUL included
      }
    }
    return s;
  }

 private:
  std::mt19937_64& rng_;
};

double random_double(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0: return std::bit_cast<double>(rng());  // any bit pattern: NaN, infinities, subnormals too
    case 1: return static_cast<double>(static_cast<std::int64_t>(rng() % 2000001) - 1000000);  // whole numbers
    case 2: return static_cast<double>(static_cast<std::int64_t>(rng() % 200001) - 100000) / 1000.0;
    case 3: return std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(rng() % 200) - 100);
    case 4: return (rng() % 2 ? -1.0 : 1.0) * 0.0;
    default: return std::uniform_real_distribution<double>(-5000.0, 5000.0)(rng);
  }
}

Json random_document(std::mt19937_64& rng, int depth) {
  RandomText text(rng);
  const auto kind = depth == 0 ? rng() % 6 : rng() % 8;
  switch (kind) {
    case 0: return nullptr;
    case 1: return rng() % 2 == 0;
    case 2: return static_cast<std::int64_t>(rng());
    case 3: return static_cast<std::uint64_t>(rng());
    case 4: return random_double(rng);
    case 5: return text();
    case 6: {
      Json array = Json::array();
      for (int i = static_cast<int>(rng() % 5); i > 0; --i) array.push_back(random_document(rng, depth - 1));
      return array;
    }
    default: {
      Json object = Json::object();
      for (int i = static_cast<int>(rng() % 6); i > 0; --i) object[text()] = random_document(rng, depth - 1);
      return object;
    }
  }
}

TEST(JsonSink, TextIsByteForByteTheDocumentsDumpAndTheTreeIsTheDocument) {
  std::mt19937_64 rng(20261206);
  for (int round = 0; round < 3000; ++round) {
    const Json doc = random_document(rng, 4);
    std::string text;
    JsonTextSink text_sink(text);
    write_through(text_sink, doc);
    ASSERT_EQ(text, doc.dump(-1, ' ', false, kReplace)) << "round " << round;

    Json tree;
    JsonTreeSink tree_sink(tree);
    write_through(tree_sink, doc);
    ASSERT_EQ(tree.dump(-1, ' ', false, kReplace), text) << "round " << round;
  }
}

// Plain text is copied eight bytes at a time: a quote, backslash, control byte or multi-byte sequence
// at every place of a word (and across two words), with plain runs before and after it, still
// comes out as the document writes it.
TEST(JsonSink, AStopAtEveryPlaceOfAWordIsWrittenAsTheDocumentWritesIt) {
  const std::vector<std::string> stops{"\"", "\\", std::string(1, '\0'), "\x1f", "\n", "\x7f", "\xce\x94", "\xe2\x80\x93",
                                       "\xf0\x9f\x94\x8b", "\xff", "\xc3", "\xe2\x80"};
  const std::string plain = "The quick brown fox jumps over the lazy dog 0123456789 ~!#$%&'()*+,-./:;<=>?@[]^_`{|}";
  for (const std::string& stop : stops) {
    for (std::size_t before = 0; before <= 17; ++before) {
      for (std::size_t after : {0, 1, 7, 8, 9, 23}) {
        const std::string value = plain.substr(0, before) + stop + plain.substr(plain.size() - after) + stop;
        std::string text;
        append_json_string(text, value);
        ASSERT_EQ(text, Json(value).dump(-1, ' ', false, kReplace)) << "stop " << Json(stop).dump(-1, ' ', true, kReplace)
                                                                   << ", " << before << " bytes before, " << after << " after";
      }
    }
  }
  std::string text;
  append_json_string(text, plain + plain);
  EXPECT_EQ(text, "\"" + plain + plain + "\"");
}

TEST(JsonSink, EdgeNumbersAreWrittenAsTheDocumentWritesThem) {
  const std::vector<double> doubles{0.0, -0.0, 1.0, -1.0, 0.1, 1e15, 1e16, 1e17, 1e-4, 1e-5, 123456789012345678.0,
                                    std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
                                    std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN(), 2.565928953859114, -48.27381343201173};
  for (const double d : doubles) {
    std::string text;
    JsonTextSink sink(text);
    sink.value(d);
    EXPECT_EQ(text, Json(d).dump()) << d;
  }
  std::string text;
  JsonTextSink sink(text);
  sink.begin_array();
  sink.value(std::numeric_limits<std::int64_t>::min());
  sink.value(std::numeric_limits<std::uint64_t>::max());
  sink.value(std::size_t{0});
  sink.value(-7);
  sink.end_array();
  EXPECT_EQ(text, "[-9223372036854775808,18446744073709551615,0,-7]");
}

TEST(JsonSink, KeysOutOfTheDocumentsOrderAreTheWritersMistake) {
  std::string text;
  JsonTextSink sink(text);
  sink.begin_object();
  sink.field("b", 1);
  EXPECT_THROW(sink.key("a"), std::logic_error);  // the document would put a first
  EXPECT_THROW(sink.key("b"), std::logic_error);  // a key twice
  sink.field("ba", 2);                            // a longer key after its prefix: in order
  sink.end_object();
  EXPECT_EQ(text, R"({"b":1,"ba":2})");
}

TEST(JsonSink, ValuesAndBracketsOutOfPlaceAreRefused) {
  std::string text;
  JsonTextSink sink(text);
  EXPECT_THROW(sink.key("a"), std::logic_error);  // no object open
  sink.begin_object();
  EXPECT_THROW(sink.value(1), std::logic_error);  // a value without its key
  EXPECT_THROW(sink.end_array(), std::logic_error);
  sink.key("a");
  EXPECT_THROW(sink.key("b"), std::logic_error);  // two keys, no value between
  EXPECT_THROW(sink.end_object(), std::logic_error);
  sink.begin_array();
  sink.value("x");
  sink.value(std::optional<double>{});
  sink.end_array();
  sink.end_object();
  EXPECT_THROW(sink.end_object(), std::logic_error);
  EXPECT_EQ(text, R"({"a":["x",null]})");
}

}  // namespace
}  // namespace ecocompute
