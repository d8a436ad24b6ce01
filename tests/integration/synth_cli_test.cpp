// `ecocompute synth --hf-config`: the shape's Hugging Face config is written on its own (no GGUF), and
// bad requests are refused with the input named.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/scratch_dir.hpp"

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;

class SynthCliTest : public ecocompute::testing::ScratchDirTest {
 protected:
  ecocompute::testing::CliOutcome synth(const std::string& args) const {
    return ecocompute::testing::run_ecocompute("", "synth " + args, dir_);
  }
};

TEST_F(SynthCliTest, HfConfigAloneWritesTheShapesConfigAndNoModel) {
  const fs::path config = dir_ / "config.json";
  const auto run = synth("--arch llama3-1b --hf-config '" + config.string() + "'");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto c = nlohmann::json::parse(slurp(config));
  EXPECT_EQ(c["architectures"][0], "LlamaForCausalLM");
  EXPECT_EQ(c["num_hidden_layers"], 16);
  EXPECT_EQ(c["hidden_size"], 2048);
  EXPECT_TRUE(c["tie_word_embeddings"].get<bool>());
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_NE(entry.path().extension(), ".gguf") << "no model is written without -o: " << entry.path();
  }
}

TEST_F(SynthCliTest, UnknownShapesAndMissingOutputsAreUsageErrors) {
  const auto unknown = synth("--arch llama9-1t --hf-config '" + (dir_ / "c.json").string() + "'");
  EXPECT_EQ(unknown.status, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("llama9-1t"), std::string::npos) << unknown.err;
  EXPECT_FALSE(fs::exists(dir_ / "c.json"));

  const auto nothing = synth("--arch llama3-1b");
  EXPECT_EQ(nothing.status, 2) << nothing.err;
  EXPECT_NE(nothing.err.find("--hf-config"), std::string::npos) << nothing.err;
}

}  // namespace
