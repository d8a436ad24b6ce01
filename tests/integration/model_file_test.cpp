// Malformed model files never take a command down: one flipped metadata byte of the trained fixture
// made llama.cpp's loader abort (SIGABRT, exit 134) inside `quantize` and `measure`; now the loader
// runs first in a child process and the commands exit 2 naming the file and llama.cpp's reason.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "support/scratch_dir.hpp"

namespace {
namespace fs = std::filesystem;

struct ModelFileOutcome {
  bool exited = false;   ///< false: ended by a signal
  int code = -1;         ///< exit code, or the signal number when !exited
  std::string err;
};

class ModelFileTest : public ecocompute::testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    std::ifstream in(std::string(ECOCOMPUTE_SOURCE_DIR) + "/data/fixture/fixture-kjv-f16.gguf", std::ios::binary);
    fixture_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    ASSERT_GT(fixture_.size(), 2000u);
  }

  // Writes the fixture with byte `position` XOR `mask`.
  fs::path flipped(std::size_t position, unsigned char mask, const std::string& name) const {
    std::vector<char> bytes = fixture_;
    bytes[position] = static_cast<char>(static_cast<unsigned char>(bytes[position]) ^ mask);
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  ModelFileOutcome ecocompute(const std::string& args) const {
    const fs::path err = dir_ / "stderr";
    const std::string command = "ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 GGML_NO_BACKTRACE=1 '" +
                                std::string(ECOCOMPUTE_BINARY) + "' " + args + " > /dev/null 2> '" + err.string() + "'";
    const int status = std::system(command.c_str());
    ModelFileOutcome o;
    // std::system's shell reports a child killed by signal N as exit 128 + N.
    o.exited = WIFEXITED(status) && WEXITSTATUS(status) < 128;
    o.code = WIFEXITED(status) ? (o.exited ? WEXITSTATUS(status) : WEXITSTATUS(status) - 128) : WTERMSIG(status);
    std::ifstream in(err);
    o.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return o;
  }

  std::vector<char> fixture_;
};

TEST_F(ModelFileTest, FlippedBytesThatAbortedTheLoaderAreBadInput) {
  // The two flips an outsider found: byte 1121 ^ 195 (more next-token layers than layers) and byte
  // 675 ^ 191 (no experts used).
  for (const auto& [position, mask] : {std::pair<std::size_t, unsigned char>{1121, 195}, {675, 191}}) {
    const fs::path model = flipped(position, mask, "flip-" + std::to_string(position) + ".gguf");
    // In-process, llama.cpp's loader still aborts: what the child absorbs.
    const ModelFileOutcome raw = ecocompute("inspect --in-process '" + model.string() + "'");
    EXPECT_FALSE(raw.exited) << position << ": " << raw.err;
    EXPECT_EQ(raw.code, SIGABRT) << position;

    const std::vector<std::string> commands{
        "inspect", "quantize --type Q8_0 --cache-dir '" + (dir_ / "cache").string() + "' -m",
        "measure --no-progress -p Q8_0 -k 1 --out '" + (dir_ / "out").string() + "' -m"};
    for (const std::string& command : commands) {
      const ModelFileOutcome o = ecocompute(command + " '" + model.string() + "'");
      EXPECT_TRUE(o.exited) << command << " died by signal " << o.code << ": " << o.err;
      EXPECT_EQ(o.code, 2) << command << ": " << o.err;
      EXPECT_NE(o.err.find(model.filename().string()), std::string::npos) << o.err;
      EXPECT_NE(o.err.find("llama.cpp's loader aborts on this file"), std::string::npos) << o.err;
      EXPECT_NE(o.err.find("GGML_ASSERT"), std::string::npos) << o.err;
    }
  }
}

TEST_F(ModelFileTest, NoFlippedByteMakesInspectOrQuantizeDieBySignal) {
  // 120 seeded flips over the header and tensor table (the first 4 KiB hold the metadata and the
  // tokenizer's start), and 40 anywhere: each command answers 0 (loads) or 2 (bad input), never a signal.
  std::mt19937 random(20261130);
  std::uniform_int_distribution<std::size_t> header(0, 4095);
  std::uniform_int_distribution<std::size_t> anywhere(0, fixture_.size() - 1);
  std::uniform_int_distribution<int> mask(1, 255);
  int bad_input = 0;
  for (int i = 0; i < 160; ++i) {
    const std::size_t position = i < 120 ? header(random) : anywhere(random);
    const auto m = static_cast<unsigned char>(mask(random));
    const fs::path model = flipped(position, m, "random.gguf");
    const ModelFileOutcome o = ecocompute("inspect --quiet '" + model.string() + "'");
    ASSERT_TRUE(o.exited) << "byte " << position << " ^ " << int(m) << ": signal " << o.code << ": " << o.err;
    ASSERT_TRUE(o.code == 0 || o.code == 2) << "byte " << position << " ^ " << int(m) << ": exit " << o.code << ": " << o.err;
    if (o.code == 2) ++bad_input;
    if (i % 8 == 0) {  // quantize does real work: a sample of the flips
      const ModelFileOutcome q = ecocompute("quantize --type Q8_0 --cache-dir '" + (dir_ / "cache").string() + "' -m '" +
                                   model.string() + "'");
      ASSERT_TRUE(q.exited) << "quantize, byte " << position << " ^ " << int(m) << ": signal " << q.code << ": " << q.err;
      ASSERT_TRUE(q.code == 0 || q.code == 2) << "quantize, byte " << position << ": exit " << q.code << ": " << q.err;
      fs::remove_all(dir_ / "cache");
    }
  }
  EXPECT_GT(bad_input, 10);  // the flips did hit what matters
  RecordProperty("refused_as_bad_input", bad_input);
}

TEST_F(ModelFileTest, AMissingModelIsAnEnvironmentError) {
  for (const std::string command : {"inspect", "quantize --type Q8_0 -m", "measure --no-progress -m"}) {
    const ModelFileOutcome o = ecocompute(command + " '" + (dir_ / "nope.gguf").string() + "'");
    EXPECT_TRUE(o.exited);
    EXPECT_EQ(o.code, 3) << command << ": " << o.err;  // README: 3 = environment unusable … model missing
    EXPECT_NE(o.err.find("nope.gguf"), std::string::npos) << o.err;
  }
}

}  // namespace
