// The sbatch text.
#include "sweep/slurm_script.hpp"

#include <fmt/format.h>

namespace ecocompute::sweep {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Result<std::string> slurm_script(const SweepPlan& plan, std::size_t job_count, const SlurmOptions& o) {
  if (job_count == 0) return unexpected(ErrorCode::invalid_argument, "the plan expands to no job");
  const std::pair<const char*, const std::string*> directives[] = {
      {"--partition", &o.partition}, {"--gres", &o.gres}, {"--time", &o.time_limit}};
  for (const auto& [flag, value] : directives) {
    if (value->find_first_of(" \t\n'\"") != std::string::npos) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("{}: '{}' may not contain spaces or quotes", flag, *value));
    }
  }
  const fs::path dir = fs::absolute(o.dir).lexically_normal();
  if (dir.string().find('\n') != std::string::npos) {
    return unexpected(ErrorCode::invalid_argument, "--out: the folder name may not contain a newline");
  }
  const std::string name = plan.name.empty() ? "sweep" : plan.name;
  std::string s = "#!/bin/bash\n";
  s += "# Written by `ecocompute sweep slurm`: one array task per job of the plan. Submit with sbatch;\n";
  s += "# `ecocompute sweep status` on the folder shows the progress, and a task that is run again\n";
  s += "# (requeued, resubmitted) skips a job already done and redoes an unfinished one.\n";
  std::string job_name = "ecocompute-" + name;
  for (char& c : job_name) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\'' || c == '"') c = '_';
  }
  s += fmt::format("#SBATCH --job-name={}\n", job_name);
  s += fmt::format("#SBATCH --array=0-{}{}\n", job_count - 1, o.max_parallel > 0 ? fmt::format("%{}", o.max_parallel) : "");
  if (!o.gres.empty()) s += fmt::format("#SBATCH --gres={}\n", o.gres);
  if (!o.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.time_limit.empty()) s += fmt::format("#SBATCH --time={}\n", o.time_limit);
  if (o.cpus_per_task > 0) s += fmt::format("#SBATCH --cpus-per-task={}\n", o.cpus_per_task);
  const bool plain_dir = dir.string().find_first_of(" \t'\"") == std::string::npos;
  if (plain_dir) s += fmt::format("#SBATCH --output={}/slurm/%A_%a.out\n", dir.string());
  s += "#SBATCH --open-mode=append\n";
  s += "#SBATCH --requeue\n";
  s += "set -euo pipefail\n";
  std::string command = fmt::format("exec {} sweep task {} --out {} --index \"$SLURM_ARRAY_TASK_ID\"",
                                    shell_quote(fs::absolute(o.binary).string()),
                                    shell_quote(fs::absolute(o.plan).lexically_normal().string()), shell_quote(dir.string()));
  if (!o.post_url.empty()) command += " --post " + shell_quote(o.post_url);
  if (!o.post_key_file.empty()) command += " --post-key-file " + shell_quote(fs::absolute(o.post_key_file).string());
  s += command + "\n";
  return s;
}

}  // namespace ecocompute::sweep
