// Expanding a plan into jobs and spelling each job's command line.
#include "sweep/job.hpp"

#include <fmt/format.h>

namespace ecocompute::sweep {
namespace {

namespace fs = std::filesystem;

// Folder names keep letters, digits, '.', '-' and '_' only.
std::string folder_safe(std::string text) {
  for (char& c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '-' || c == '_';
    if (!keep) c = '_';
  }
  return text;
}

std::string join(const std::vector<int>& items, std::string_view separator) {
  std::string out;
  for (int item : items) out += (out.empty() ? "" : std::string(separator)) + std::to_string(item);
  return out;
}

std::string seconds_text(double seconds) { return fmt::format("{}", seconds); }

}  // namespace

std::vector<Job> expand_jobs(const SweepPlan& plan) {
  std::vector<Job> jobs;
  for (const PlanModel& model : plan.models) {
    const std::string name = model.synth_arch.empty() ? model.path.stem().string() : model.synth_arch;
    for (const std::vector<int>& batches : plan.batch_lists) {
      Job job;
      job.index = jobs.size();
      job.id = folder_safe(fmt::format("{:03}-{}-b{}", job.index, name, join(batches, "-")));
      job.model = model;
      job.batches = batches;
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

JobPaths job_paths(const fs::path& sweep_dir, const Job& job) {
  JobPaths paths;
  paths.folder = sweep_dir / "jobs" / job.id;
  paths.model = job.model.synth_arch.empty() ? job.model.path : sweep_dir / "models" / (job.id + ".gguf");
  return paths;
}

std::vector<std::string> synth_arguments(const Job& job, const fs::path& output) {
  return {"synth", "--arch", job.model.synth_arch, "--type", job.model.synth_type,
          "--seed", std::to_string(job.model.synth_seed), "--output", output.string()};
}

std::vector<std::string> measure_arguments(const SweepPlan& plan, const Job& job, const JobPaths& paths,
                                           const fs::path& cache_dir, const std::string& gpu) {
  const PlanSettings& s = plan.settings;
  std::vector<std::string> args{"measure", "--model", paths.model.string(), "--out", paths.folder.string(),
                                "--batch", join(job.batches, ","), "--no-progress"};
  auto add = [&](std::string flag, std::string value) {
    args.push_back(std::move(flag));
    args.push_back(std::move(value));
  };
  if (!cache_dir.empty()) add("--cache-dir", cache_dir.string());
  if (!gpu.empty()) add("--gpu", gpu);
  if (s.baseline) add("--baseline", *s.baseline);
  if (!s.precisions.empty()) {
    std::string list;
    for (const std::string& p : s.precisions) list += (list.empty() ? "" : ",") + p;
    add("--precisions", list);
  }
  if (s.trials) add("--trials", std::to_string(*s.trials));
  if (s.warmups) add("--warmups", std::to_string(*s.warmups));
  if (s.tokens) add("--tokens", std::to_string(*s.tokens));
  if (s.threads) add("--threads", std::to_string(*s.threads));
  if (s.min_window_s) add("--min-window", seconds_text(*s.min_window_s));
  if (s.min_prefill_window_s) add("--min-prefill-window", seconds_text(*s.min_prefill_window_s));
  if (s.idle_window_s) add("--idle-window", seconds_text(*s.idle_window_s));
  if (s.cool_down_s) add("--cool-down", seconds_text(*s.cool_down_s));
  if (s.edges) add("--edges", *s.edges);
  if (s.quality && !*s.quality) args.emplace_back("--no-quality");
  args.insert(args.end(), s.measure_args.begin(), s.measure_args.end());
  return args;
}

}  // namespace ecocompute::sweep
