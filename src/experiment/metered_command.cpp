// Marked mode: the program's markers open and close meter windows; the tool acknowledges each edge.
#include "experiment/metered_command.hpp"

#include <signal.h>

#include <fmt/format.h>

#include "engine/command_protocol.hpp"
#include "meter/gpu_info.hpp"
#include "util/log.hpp"
#include "util/text_list.hpp"

namespace ecocompute::experiment {
namespace {

// No time limit on a marked program: it runs as long as it runs (Ctrl-C ends it).
constexpr Seconds kNoLimit{1e9};

// Ignores SIGINT and SIGQUIT in the tool while it lives, as system(3) does around a child: the
// terminal's Ctrl-C ends the program, and the tool then reports what was measured.
class IgnoreTerminalSignals {
 public:
  IgnoreTerminalSignals() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &previous_int_);
    sigaction(SIGQUIT, &ignore, &previous_quit_);
  }
  ~IgnoreTerminalSignals() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGQUIT, &previous_quit_, nullptr);
  }
  IgnoreTerminalSignals(const IgnoreTerminalSignals&) = delete;
  IgnoreTerminalSignals& operator=(const IgnoreTerminalSignals&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_quit_ {};
};

// Closes a window into a result row; an invalid measurement keeps its status as the failure.
MeteredWindow close_window(meter::Meter& meter, meter::Window window, std::optional<std::int64_t> tokens) {
  MeteredWindow row;
  row.label = window.label();
  row.tokens = tokens;
  auto measurement = meter.end(std::move(window));
  if (!measurement) {
    row.failure = measurement.error().describe();
    return row;
  }
  // A meter without an energy source closes every window `unavailable`: durations only, not a failure.
  const bool no_source = measurement->status == meter::WindowStatus::unavailable && !meter.measures_energy();
  if (!measurement->is_valid() && !no_source) {
    row.failure = fmt::format("{}{}", meter::to_string(measurement->status),
                              measurement->invalid_reason.empty() ? "" : ": " + measurement->invalid_reason);
  }
  row.measurement = std::move(*measurement);
  return row;
}

}  // namespace

std::optional<double> MeteredWindow::joules_per_token() const {
  if (!failure.empty() || !measurement || !measurement->energy || !tokens || *tokens <= 0) return std::nullopt;
  return measurement->energy->value / static_cast<double>(*tokens);
}

int MeteredRun::exit_code() const {
  const int program = exit.shell_status();
  if (program != 0) return program;
  for (const MeteredWindow& w : windows) {
    if (!w.failure.empty()) return 4;
  }
  return protocol_errors.empty() ? 0 : 4;
}

Result<MeteredRun> run_metered_command(const std::vector<std::string>& argv, const meter::MeterOptions& options) {
  auto opened = meter::open_meter(options);
  if (!opened) return opened.error();
  meter::Meter& meter = **opened;
  MeteredRun run;
  run.source = meter.source();
  run.device = meter.device();
  run.measures_energy = meter.measures_energy();

  ChildProcess::Options child_options;
  child_options.own_process_group = false;
  child_options.stdin_null = false;  // the program is run as the user's command: it keeps the terminal
  if (options.use_gpu) {
    std::string visible;  // every GPU the meter reads, so the program works on those and no other
    if (!options.gpus.empty()) {
      visible = join_commas(options.gpus);
    } else {
      const meter::EnergySources sources = meter::describe_energy_sources(options.gpu, options.nvml_library);
      if (sources.gpu) visible = sources.gpu->uuid;
    }
    if (!visible.empty()) {
      child_options.environment.emplace_back("ECOCOMPUTE_GPU_UUID", visible);
      child_options.environment.emplace_back("CUDA_VISIBLE_DEVICES", visible);
    }
  }

  const IgnoreTerminalSignals ignore;
  std::optional<meter::Window> whole = meter.begin("run");
  auto child = ChildProcess::start(argv, child_options);
  if (!child) {
    (void)meter.end(std::move(*whole));
    return child.error();
  }

  std::optional<meter::Window> open;  // the program's window now open, if any
  while (true) {
    auto line = child->read_line(kNoLimit);
    if (!line) {
      if (line.error().code() == ErrorCode::invalid_input) {
        run.protocol_errors.push_back(line.error().describe() + "; the program was stopped");
        (void)child->stop(Seconds{2.0});
      }
      break;  // the program ended or closed its reply pipe
    }
    auto marker = engine::parse_marker(*line);
    std::string refusal;
    if (!marker) {
      refusal = marker.error().describe();
    } else if (marker->kind == engine::Marker::Kind::begin) {
      if (open) {
        refusal = fmt::format("window '{}' is still open; windows do not nest", open->label());
      } else {
        if (whole) {
          // The program marks its own windows: the start-to-exit window is not one of them.
          (void)meter.end(std::move(*whole));
          whole.reset();
          run.marked = true;
        }
        open.emplace(meter.begin(marker->label));
      }
    } else if (!open || open->label() != marker->label) {
      refusal = fmt::format("no window '{}' is open", marker->label);
    } else {
      run.windows.push_back(close_window(meter, std::move(*open), marker->tokens));
      open.reset();
    }
    if (!refusal.empty()) {
      run.protocol_errors.push_back(refusal);
      log::warn("meter: {}", refusal);
    }
    if (auto sent = child->write_line(refusal.empty() ? std::string("ok") : "error " + refusal); !sent) break;
  }
  run.exit = child->wait();
  if (whole) {
    MeteredWindow row = close_window(meter, std::move(*whole), std::nullopt);
    run.windows.push_back(std::move(row));
  }
  if (open) {
    MeteredWindow row = close_window(meter, std::move(*open), std::nullopt);
    row.failure = "the program ended inside the window (no end marker)";
    run.windows.push_back(std::move(row));
  }
  return run;
}

nlohmann::ordered_json to_json(const MeteredRun& run) {
  auto number_or_null = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json windows = nlohmann::ordered_json::array();
  for (const MeteredWindow& w : run.windows) {
    const meter::Measurement* m = w.measurement ? &*w.measurement : nullptr;
    const bool measured = w.failure.empty() && m != nullptr && m->energy.has_value();
    windows.push_back({
        {"label", w.label},
        {"status", w.failure.empty() ? (measured ? "measured" : "unavailable") : "failed"},
        {"duration_s", m != nullptr ? nlohmann::ordered_json(m->duration.value) : nlohmann::ordered_json(nullptr)},
        {"energy_j", number_or_null(measured ? std::optional(m->energy->value) : std::nullopt)},
        {"edge_uncertainty_j",
         number_or_null(measured && m->edge_uncertainty ? std::optional(m->edge_uncertainty->value) : std::nullopt)},
        {"tokens", w.tokens ? nlohmann::ordered_json(*w.tokens) : nlohmann::ordered_json(nullptr)},
        {"j_per_token", number_or_null(w.joules_per_token())},
        {"avg_power_w", number_or_null(measured && m->average_power() ? std::optional(m->average_power()->value) : std::nullopt)},
        {"reason", w.failure.empty() ? (measured ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json("no energy source read the window"))
                                     : nlohmann::ordered_json(w.failure)},
    });
    // The host's CPU and DRAM, read beside a GPU counter: their own figures, never in energy_j.
    if (m != nullptr && m->cpu_energy) windows.back()["cpu_energy_j"] = m->cpu_energy->value;
    if (m != nullptr && m->dram_energy) windows.back()["dram_energy_j"] = m->dram_energy->value;
    if (m != nullptr && !m->per_device.empty()) {
      nlohmann::ordered_json shares = nlohmann::ordered_json::array();
      for (const meter::Measurement& part : m->per_device) {
        const std::optional<Watts> power = part.average_power();
        shares.push_back({{"device", part.device},
                          {"energy_j", part.energy ? nlohmann::ordered_json(part.energy->value) : nlohmann::ordered_json(nullptr)},
                          {"avg_power_w", power ? nlohmann::ordered_json(power->value) : nlohmann::ordered_json(nullptr)}});
      }
      windows.back()["per_gpu"] = std::move(shares);
    }
  }
  return {{"source", run.source},
          {"device", run.device},
          {"marked", run.marked},
          {"windows", windows},
          {"protocol_errors", run.protocol_errors},
          {"exit", {{"code", run.exit.code ? nlohmann::ordered_json(*run.exit.code) : nlohmann::ordered_json(nullptr)},
                    {"signal", run.exit.signal ? nlohmann::ordered_json(*run.exit.signal) : nlohmann::ordered_json(nullptr)}}}};
}

std::string format_metered_run(const MeteredRun& run) {
  std::string out = fmt::format("{:<24} {:>10} {:>12} {:>10} {:>10} {:>12} {:>9}\n", "window", "seconds", "energy J",
                                "± J", "tokens", "J/token", "W");
  auto cell = [](const std::optional<double>& v, const char* format) {
    return v ? fmt::format(fmt::runtime(format), *v) : std::string("—");
  };
  for (const MeteredWindow& w : run.windows) {
    const meter::Measurement* m = w.measurement ? &*w.measurement : nullptr;
    const bool measured = w.failure.empty() && m != nullptr && m->energy.has_value();
    out += fmt::format("{:<24} {:>10} {:>12} {:>10} {:>10} {:>12} {:>9}", w.label.substr(0, 24),
                       cell(m != nullptr ? std::optional(m->duration.value) : std::nullopt, "{:.3f}"),
                       cell(measured ? std::optional(m->energy->value) : std::nullopt, "{:.3f}"),
                       cell(measured && m->edge_uncertainty ? std::optional(m->edge_uncertainty->value) : std::nullopt, "{:.3f}"),
                       w.tokens ? std::to_string(*w.tokens) : std::string("—"), cell(w.joules_per_token(), "{:.6f}"),
                       cell(measured && m->average_power() ? std::optional(m->average_power()->value) : std::nullopt, "{:.1f}"));
    out += w.failure.empty() ? "\n" : "  failed: " + w.failure + "\n";
    for (const meter::Measurement& part : m != nullptr ? m->per_device : std::vector<meter::Measurement>{}) {
      const std::size_t uuid = part.device.find("GPU-");  // "GPU-1a2b3c4d", enough to tell the cards apart
      out += fmt::format("  {:<22} {:>10} {:>12} {:>10} {:>10} {:>12} {:>9}\n",
                         uuid == std::string::npos ? part.device.substr(0, 22) : part.device.substr(uuid, 12),
                         "", cell(part.energy ? std::optional(part.energy->value) : std::nullopt, "{:.3f}"), "", "", "",
                         cell(part.average_power() ? std::optional(part.average_power()->value) : std::nullopt, "{:.1f}"));
    }
  }
  out += fmt::format("energy source: {} ({}){}\n", run.source, run.device,
                     run.measures_energy ? "" : "; no energy was measured, only durations and tokens");
  for (const std::string& e : run.protocol_errors) out += "refused marker: " + e + "\n";
  out += fmt::format("program: {}\n", run.exit.describe());
  return out;
}

}  // namespace ecocompute::experiment
