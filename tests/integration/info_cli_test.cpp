// `ecocompute info` as a whole binary: with the fake NVML, and with no NVML at all.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

struct CommandRun {
  int exit_code = -1;
  std::string out;
};

// Runs `env ... ecocompute args` through the shell, capturing stdout; stderr goes to the test log.
CommandRun run(const std::string& env, const std::string& args) {
  const std::string command = env + " '" + ECOCOMPUTE_BINARY + "' " + args;
  CommandRun result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

constexpr const char* uuid = "GPU-2f6d5b7e-1c3a-4e8b-9d0f-a1b2c3d4e5f6";

TEST(InfoCliTest, DescribesTheFakeGpuAsJson) {
  const auto script = std::filesystem::temp_directory_path() / "info_cli_fake_nvml.json";
  std::ofstream(script) << R"({"devices": [{"name": "NVIDIA H200", "uuid": ")" << uuid
                        << R"(", "pci_bus_id": "00000000:19:00.0", "architecture": 9, "power_limit_mw": 700000}]})";
  const CommandRun r = run(std::string("ECOCOMPUTE_NVML_LIBRARY='") + FAKE_NVML_PATH + "' FAKE_NVML_SCRIPT='" + script.string() + "'",
                    std::string("info --json --gpu ") + uuid);
  std::filesystem::remove(script);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["energy"]["nvml_available"], true);
  EXPECT_EQ(json["energy"]["gpu"]["name"], "NVIDIA H200");
  EXPECT_EQ(json["energy"]["gpu"]["uuid"], uuid);
  EXPECT_EQ(json["energy"]["gpu"]["pci_bus_id"], "0000:19:00.0");
  EXPECT_EQ(json["energy"]["gpu"]["arch"], "hopper");
  EXPECT_EQ(json["energy"]["gpu"]["power_limit_w"], 700.0);
  EXPECT_EQ(json["energy"]["nvidia_driver"], "580.95.05");
  EXPECT_EQ(json["engine"]["name"], "llama.cpp");
  EXPECT_TRUE(json["ecocompute"].contains("commit"));
}

TEST(InfoCliTest, WithoutNvmlSaysSoAndExitsZero) {
  const CommandRun r = run("ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1", "info");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("GPU energy:    no GPU energy source: cannot load NVML (/nonexistent/libnvidia-ml.so.1)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("engine:        llama.cpp"), std::string::npos) << r.out;
}

TEST(InfoCliTest, WithoutNvmlJsonHasNullGpu) {
  const CommandRun r = run("ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1", "info --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["energy"]["nvml_available"], false);
  EXPECT_TRUE(json["energy"]["gpu"].is_null());
}

TEST(SelftestCliTest, WithoutCudaBuildOrGpuExitsThreeWithoutNumbers) {
  const CommandRun r = run("ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1", "selftest");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");  // nothing measured, nothing printed on stdout
}

}  // namespace
