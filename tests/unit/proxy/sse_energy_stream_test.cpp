// The SSE editor: every event passes byte for byte except the last before [DONE], which gains the
// energy fields; the server's usage chunk is the one it edits, else one chunk is added.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "proxy/sse_energy_stream.hpp"

namespace ecocompute::proxy {
namespace {

std::string chunk(const std::string& text) {
  return "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":7,\"model\":\"m\",\"choices\":[{\"index\":0,"
         "\"delta\":{\"content\":\"" + text + "\"}}]}\n\n";
}
const std::string usage_chunk =
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[],"
    "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3,\"total_tokens\":8}}\n\n";
const std::string done = "data: [DONE]\n\n";

struct Recorder {
  int outputs = 0;
  int finishes = 0;
  ReportedUsage usage;
  SseEnergyStream stream{[this] { ++outputs; }, [this](const ReportedUsage& u) {
                           ++finishes;
                           usage = u;
                           AnswerEnergy answer;
                           answer.energy.joules = 12.0;
                           answer.energy.counter_read = true;
                           answer.prompt_tokens = u.prompt_tokens.value_or(0);
                           answer.completion_tokens = u.completion_tokens.value_or(0);
                           return answer;
                         }};
};

nlohmann::json data_of(const std::string& event) { return nlohmann::json::parse(event.substr(6)); }

TEST(SseEnergyStream, UsageChunkGainsTheEnergyAndEverythingElsePassesUnchanged) {
  Recorder r;
  const std::string events = chunk("a") + chunk("b") + chunk("c");
  std::string out = r.stream.feed(events);
  EXPECT_EQ(out, events);
  out = r.stream.feed(usage_chunk);
  EXPECT_EQ(out, "");  // held until the stream says whether it is the last
  out = r.stream.feed(done);
  ASSERT_TRUE(out.ends_with(done));
  const nlohmann::json edited = data_of(out.substr(0, out.size() - done.size()));
  nlohmann::json original = data_of(usage_chunk);
  EXPECT_DOUBLE_EQ(edited["usage"]["energy_j"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(edited["usage"]["energy_j_per_output_token"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(edited["usage"]["energy_j_per_total_token"].get<double>(), 1.5);
  EXPECT_EQ(edited["usage"]["energy_basis"], "attributed");
  nlohmann::json without = edited;
  for (const char* key : {"energy_j", "energy_j_per_output_token", "energy_j_per_total_token", "energy_estimated_j", "energy_basis"}) {
    without["usage"].erase(key);
  }
  EXPECT_EQ(without, original);
  EXPECT_EQ(r.outputs, 3);
  EXPECT_EQ(r.finishes, 1);
  EXPECT_EQ(r.usage.completion_tokens, 3.0);
}

TEST(SseEnergyStream, WithoutAUsageChunkOneChunkIsAddedBeforeDone) {
  Recorder r;
  std::string out = r.stream.feed(chunk("a") + done);
  ASSERT_TRUE(out.starts_with(chunk("a")));
  ASSERT_TRUE(out.ends_with(done));
  const std::string added = out.substr(chunk("a").size(), out.size() - chunk("a").size() - done.size());
  const nlohmann::json json = data_of(added);
  EXPECT_TRUE(json["choices"].empty());
  EXPECT_EQ(json["id"], "c1");
  EXPECT_EQ(json["model"], "m");
  EXPECT_DOUBLE_EQ(json["usage"]["energy_j"].get<double>(), 12.0);
  EXPECT_TRUE(json["usage"]["energy_j_per_output_token"].is_null());  // no usage: token counts unknown here
}

TEST(SseEnergyStream, EventsSplitAcrossReadsAreReassembled) {
  Recorder r;
  const std::string all = chunk("hello") + chunk("world") + usage_chunk + done;
  std::string out;
  for (char c : all) out += r.stream.feed(std::string(1, c));
  out += r.stream.end();
  EXPECT_TRUE(out.starts_with(chunk("hello") + chunk("world")));
  EXPECT_TRUE(out.ends_with(done));
  EXPECT_EQ(r.outputs, 2);
  EXPECT_EQ(r.finishes, 1);
}

TEST(SseEnergyStream, CrLfSeparatedEventsAreKeptAsSent) {
  Recorder r;
  const std::string event = "data: {\"choices\":[{\"text\":\"x\"}]}\r\n\r\n";
  EXPECT_EQ(r.stream.feed(event), event);
  EXPECT_EQ(r.outputs, 1);
}

TEST(SseEnergyStream, AChunkAfterTheUsageChunkReleasesItUnchanged) {
  Recorder r;
  EXPECT_EQ(r.stream.feed(usage_chunk), "");
  EXPECT_EQ(r.stream.feed(chunk("late")), usage_chunk + chunk("late"));
}

TEST(SseEnergyStream, AStreamCutBeforeDoneStillEndsTheRequestOnce) {
  Recorder r;
  EXPECT_EQ(r.stream.feed(chunk("a") + "data: {\"partial"), chunk("a"));
  EXPECT_EQ(r.stream.end(), "data: {\"partial");
  EXPECT_EQ(r.finishes, 1);
  r.stream.end();
  EXPECT_EQ(r.finishes, 1);
}

TEST(SseEnergyStream, MalformedEventsPassThrough) {
  Recorder r;
  const std::string junk = "data: {not json\n\n: comment\n\n";
  EXPECT_EQ(r.stream.feed(junk), junk);
  EXPECT_EQ(r.outputs, 0);
}

TEST(SseEnergyStream, AnOversizedEventSwitchesToPassThrough) {
  Recorder r;
  const std::string huge = "data: " + std::string(SseEnergyStream::kMaxEventBytes + 10, 'x');
  EXPECT_EQ(r.stream.feed(huge), huge);
  EXPECT_EQ(r.stream.feed(done), done);  // unparsed from here on
  r.stream.end();
  EXPECT_EQ(r.finishes, 1);
}

TEST(SseEnergyStream, TheTextScanAgreesWithTheParsedChunk) {
  for (const char* data : {R"({"choices":[{"text":"a"}]})", R"({"choices":[{"text":""}]})", R"({"choices": [{"delta": {"content": "x"}}]})",
                           R"({"choices":[{"delta":{"content":""}}]})", R"({"choices":[{"delta":{"role":"assistant"}}]})",
                           R"({"choices":[{"delta":{"tool_calls":[{"id":"t"}]}}]})", R"({"choices":[{"delta":{"tool_calls":[]}}]})",
                           R"({"choices":[{"delta":{"reasoning_content":"hm"}}]})", R"({"choices":[]})"}) {
    EXPECT_EQ(scan_carries_output(data), carries_output(nlohmann::ordered_json::parse(data))) << data;
  }
}

}  // namespace
}  // namespace ecocompute::proxy
