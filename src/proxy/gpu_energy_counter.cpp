#include "proxy/gpu_energy_counter.hpp"

#include <set>

#include "util/log.hpp"

namespace ecocompute::proxy {

Result<GpuEnergyCounter> GpuEnergyCounter::open(const std::vector<std::string>& gpus, const std::string& nvml_library) {
  auto nvml = meter::NvmlLibrary::open(nvml_library);
  if (!nvml) return nvml.error();
  const std::vector<std::string> named = gpus.empty() ? std::vector<std::string>{""} : gpus;
  std::vector<meter::GpuDevice> devices;
  std::set<std::string> seen;
  for (const std::string& name : named) {
    auto spec = meter::parse_gpu_spec(name);
    if (!spec) return Error{ErrorCode::invalid_argument, "--gpus: '" + name + "'", spec.error()};
    auto gpu = meter::select_gpu(**nvml, *spec);
    if (!gpu) {
      return Error{gpu.error().code(), "--gpus: " + (name.empty() ? std::string("the first visible GPU") : name) +
                                           " cannot be read", gpu.error()};
    }
    if (!seen.insert(gpu->uuid).second) {
      return unexpected(ErrorCode::invalid_argument, "--gpus: " + gpu->uuid + " is named twice");
    }
    if (auto energy = (*nvml)->total_energy_mj(gpu->handle); !energy) {
      return Error{ErrorCode::unavailable, "--gpus: " + gpu->uuid + " has no readable energy counter", energy.error()};
    }
    devices.push_back(*gpu);
  }
  return GpuEnergyCounter(*nvml, std::move(devices));
}

Result<std::uint64_t> GpuEnergyCounter::read_total_mj() const {
  std::uint64_t total = 0;
  for (const meter::GpuDevice& gpu : gpus_) {
    auto energy = nvml_->total_energy_mj(gpu.handle);
    if (!energy) return Error{energy.error().code(), "reading the energy counter of " + gpu.uuid, energy.error()};
    total += *energy;
  }
  return total;
}

std::vector<std::string> GpuEnergyCounter::devices() const {
  std::vector<std::string> out;
  for (const meter::GpuDevice& gpu : gpus_) out.push_back(gpu.name + " " + gpu.uuid);
  return out;
}

CounterPoller::CounterPoller(GpuEnergyCounter counter, EnergyLedger& ledger, std::shared_ptr<Clock> clock,
                             std::chrono::milliseconds poll_interval)
    : counter_(std::move(counter)), ledger_(ledger), clock_(std::move(clock)), poll_interval_(poll_interval) {}

CounterPoller::~CounterPoller() { stop(); }

Result<void> CounterPoller::start() {
  auto first = counter_.read_total_mj();
  if (!first) return first.error();
  first_mj_ = *first;
  last_mj_ = *first;
  ledger_.start(clock_->now().value);
  thread_ = std::thread([this] { run(); });
  return {};
}

void CounterPoller::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stop_) return;
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CounterPoller::poll_once() {
  auto reading = counter_.read_total_mj();
  const double now_s = clock_->now().value;
  if (!reading) {
    // A failed read leaves the interval open: the next good reading closes it with all its energy.
    if (failed_reads_++ % 1000 == 0) log::warn("{}", reading.error().describe());
    return;
  }
  if (!last_mj_ || *reading == *last_mj_) return;
  if (*reading < *last_mj_) {
    log::warn("the GPU energy counter went back ({} → {} mJ): the interval ending now is not attributed", *last_mj_,
              *reading);
    ledger_.skip_interval(now_s);
  } else {
    ledger_.close_interval(now_s, static_cast<double>(*reading - *last_mj_) / 1e3);
  }
  std::lock_guard lock(mutex_);
  last_mj_ = *reading;
}

double CounterPoller::counter_advance_j() const {
  std::lock_guard lock(mutex_);
  if (!first_mj_ || !last_mj_) return 0.0;
  return static_cast<double>(*last_mj_ - *first_mj_) / 1e3;
}

void CounterPoller::run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    lock.unlock();
    poll_once();
    lock.lock();
    stop_cv_.wait_for(lock, poll_interval_, [this] { return stop_; });
  }
}

}  // namespace ecocompute::proxy
