// `ecocompute selftest`: checks the energy meter on the real GPU and writes what it found.
#include <cstdio>
#include <string>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "meter/selftest.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {
namespace {

struct SelftestArgs {
  meter::SelftestOptions options;
  std::string markdown;
  std::string json;
  double steady_s = 20.0;
  double pulse_period_ms = 100.0;
};

}  // namespace

Command make_selftest_command(CLI::App& root) {
  auto args = std::make_shared<SelftestArgs>();
  CLI::App* app = root.add_subcommand(
      "selftest", "Check the GPU energy meter: counter update period, trace vs counter at steady load, instant "
                  "field under pulse trains, NVML read cost (needs a GPU and a CUDA build)");
  app->add_option("--gpu", args->options.gpu, "GPU to test: GPU-<uuid>, a PCI bus id or cuda:N (default cuda:0)");
  app->add_option("--markdown", args->markdown, "Also write the report as Markdown to this file");
  app->add_option("--json", args->json, "Also write the report as JSON to this file");
  app->add_option("--steady-s", args->steady_s, "Steady-load window in seconds")->check(CLI::Range(5.0, 600.0));
  app->add_option("--pulse-period-ms", args->pulse_period_ms, "Pulse-train period in milliseconds")
      ->check(CLI::Range(20.0, 2000.0));
  app->add_flag("--allow-shared", args->options.allow_shared, "Run even when other processes use the GPU");
  return {app, [args] {
            args->options.steady = Seconds{args->steady_s};
            args->options.pulse_period = Seconds{args->pulse_period_ms / 1e3};
            auto report = meter::run_selftest(args->options);
            if (!report) {
              log::error("selftest: {}", report.error().describe());
              return report.error().code() == ErrorCode::invalid_argument ? static_cast<int>(exit_usage)
                                                                          : static_cast<int>(exit_environment);
            }
            const std::string md = meter::to_markdown(*report);
            std::fputs(md.c_str(), stdout);
            if (!args->markdown.empty()) {
              if (auto w = write_file_atomic(args->markdown, md); !w) return report_error(w.error());
            }
            if (!args->json.empty()) {
              if (auto w = write_file_atomic(args->json, meter::to_json(*report).dump(2) + "\n"); !w) {
                return report_error(w.error());
              }
            }
            // A missing, stuck or reset counter makes the environment unusable for measurement.
            return report->passed() ? static_cast<int>(exit_ok) : static_cast<int>(exit_environment);
          }};
}

}  // namespace ecocompute::cli
