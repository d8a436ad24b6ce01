// Fake NVML: exports the NVML functions the meter calls and answers them from a script (fake_nvml.hpp).
#include "fake_nvml.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "meter/nvml_library.hpp"

namespace {
namespace nvml = ecocompute::meter::nvml;
using Json = nlohmann::json;

struct PowerProfile {
  std::string kind = "constant";
  double watts = 100.0, before = 0.0, after = 0.0, at = 0.0;
  double low = 0.0, high = 0.0, period = 1.0, duty = 0.5, phase = 0.0;

  double power(double t) const {
    if (kind == "step") return t < at ? before : after;
    if (kind == "pulse") {
      const double u = t - phase;
      const double frac = u / period - std::floor(u / period);
      return frac < duty ? high : low;
    }
    return watts;
  }
  // On-time of the pulse train in [0, u) for a train switched on at 0 (valid for negative u).
  double on_time(double u) const {
    const double k = std::floor(u / period);
    return k * duty * period + std::min(u - k * period, duty * period);
  }
  double energy(double t) const {  // joules from 0 to t
    if (kind == "step") return t < at ? before * t : before * at + after * (t - at);
    if (kind == "pulse") return low * t + (high - low) * (on_time(t - phase) - on_time(-phase));
    return watts * t;
  }
};

struct Device {
  std::string name = "Fake GPU", uuid = "GPU-00000000-0000-0000-0000-000000000001";
  std::string pci_bus_id = "00000000:19:00.0", vbios = "00.00.00.00.00";
  unsigned domain = 0, bus = 0x19, dev = 0;
  unsigned architecture = 9, power_limit_mw = 700000, temperature_c = 40, sm_clock = 1980, mem_clock = 2619;
  unsigned long long reasons = 0, offset_mj = 0;
  int pstate = 0;
  bool ecc = true;
  PowerProfile profile;
  double update_period = 0.1, sample_period = 0.02;
  unsigned sample_buffer = 120;
  std::optional<double> reset_at, stuck_from;
  // Percent of each sample period a kernel ran (NVML_GPU_UTILIZATION_SAMPLES): a constant, or a step
  // at busy_step_at_s; absent: the driver answers NOT_SUPPORTED, as some do.
  std::optional<double> busy_pct, busy_after_pct;
  double busy_step_at = 0.0;
  std::vector<nvml::ProcessInfo> processes;

  double counter_time(double t) const {
    double ref = t;
    if (stuck_from && t >= *stuck_from) ref = *stuck_from;
    return std::floor(ref / update_period + 1e-9) * update_period;
  }
  unsigned long long counter_mj(double t) const {
    const double e = profile.energy(counter_time(t));
    if (reset_at && t >= *reset_at) {
      return static_cast<unsigned long long>(std::floor((e - profile.energy(counter_time(*reset_at))) * 1e3 + 1e-6));
    }
    return offset_mj + static_cast<unsigned long long>(std::floor(e * 1e3 + 1e-6));
  }
};

struct Failure {
  std::string function;
  unsigned call = 1;
  int code = 999;
  bool repeat = false;
};

struct State {
  bool loaded = false;
  bool virtual_clock = true;
  std::uint64_t time_us = 1'000'000'000;
  std::chrono::steady_clock::time_point real_start = std::chrono::steady_clock::now();
  std::uint64_t real_base_us = 0;
  std::string driver_version = "580.95.05";
  int cuda_version = 13000;
  std::vector<Device> devices;
  std::vector<Failure> failures;
  std::map<std::string, unsigned> delays_us;
  std::map<std::string, unsigned> calls;
  std::string load_error;
};

State& state() {
  static State s;
  return s;
}

// Real NVML counts nvmlInit_v2 / nvmlShutdown pairs and keeps its device handles valid while any
// init is open; a second library handle in one process (a meter and a fingerprint, say) must not
// re-read the script, which would move the devices and leave the first handle's devices stale.
unsigned& open_inits() {
  static unsigned n = 0;
  return n;
}

std::mutex& fake_mutex() {
  static std::mutex m;
  return m;
}

double now_s(State& s) {
  if (s.virtual_clock) return static_cast<double>(s.time_us) / 1e6;
  const auto elapsed = std::chrono::steady_clock::now() - s.real_start;
  return static_cast<double>(s.real_base_us) / 1e6 + std::chrono::duration<double>(elapsed).count();
}

void parse_pci(Device& d) {
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(d.pci_bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) == 4) {
    d.domain = domain;
    d.bus = bus;
    d.dev = dev;
  }
  char canonical[32];
  std::snprintf(canonical, sizeof canonical, "%08x:%02x:%02x.0", d.domain, d.bus, d.dev);
  d.pci_bus_id = canonical;
}

void load(State& s) {
  s = {};
  s.loaded = true;
  const char* path = std::getenv("FAKE_NVML_SCRIPT");
  Json script = Json::object();
  if (path != nullptr && *path != '\0') {
    std::ifstream in(path);
    script = Json::parse(in, nullptr, false);
    if (script.is_discarded() || !script.is_object()) {
      s.load_error = std::string("fake NVML: cannot parse script ") + path;
      return;
    }
  }
  try {
    s.virtual_clock = script.value("clock", std::string("virtual")) == "virtual";
    s.time_us = static_cast<std::uint64_t>(script.value("start_time_s", 1000.0) * 1e6);
    // Real mode runs on the wall clock, the time base of real NVML sample timestamps.
    s.real_base_us = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                    std::chrono::system_clock::now().time_since_epoch())
                                                    .count());
    s.real_start = std::chrono::steady_clock::now();
    s.driver_version = script.value("driver_version", s.driver_version);
    s.cuda_version = script.value("cuda_driver_version", s.cuda_version);
    Json devices = script.value("devices", Json::array({Json::object()}));
    for (const Json& j : devices) {
      Device d;
      d.name = j.value("name", d.name);
      d.uuid = j.value("uuid", d.uuid);
      d.pci_bus_id = j.value("pci_bus_id", d.pci_bus_id);
      parse_pci(d);
      d.architecture = j.value("architecture", d.architecture);
      d.vbios = j.value("vbios", d.vbios);
      d.power_limit_mw = j.value("power_limit_mw", d.power_limit_mw);
      d.ecc = j.value("ecc", d.ecc);
      d.temperature_c = j.value("temperature_c", d.temperature_c);
      d.sm_clock = j.value("sm_clock_mhz", d.sm_clock);
      d.mem_clock = j.value("memory_clock_mhz", d.mem_clock);
      d.reasons = j.value("clocks_event_reasons", d.reasons);
      d.pstate = j.value("pstate", d.pstate);
      d.update_period = j.value("counter_update_period_s", d.update_period);
      d.offset_mj = j.value("counter_offset_mj", d.offset_mj);
      d.sample_period = j.value("sample_period_s", d.sample_period);
      d.sample_buffer = j.value("sample_buffer", d.sample_buffer);
      if (j.contains("counter_reset_at_s")) d.reset_at = j.at("counter_reset_at_s").get<double>();
      if (j.contains("counter_stuck_from_s")) d.stuck_from = j.at("counter_stuck_from_s").get<double>();
      if (j.contains("busy_pct")) d.busy_pct = j.at("busy_pct").get<double>();
      if (j.contains("busy_after_pct")) d.busy_after_pct = j.at("busy_after_pct").get<double>();
      d.busy_step_at = j.value("busy_step_at_s", 0.0);
      const Json p = j.value("power", Json::object());
      d.profile.kind = p.value("kind", std::string("constant"));
      d.profile.watts = p.value("watts", 100.0);
      d.profile.before = p.value("before_watts", 0.0);
      d.profile.after = p.value("after_watts", 0.0);
      d.profile.at = p.value("at_s", 0.0);
      d.profile.low = p.value("low_watts", 0.0);
      d.profile.high = p.value("high_watts", 0.0);
      d.profile.period = p.value("period_s", 1.0);
      d.profile.duty = p.value("duty", 0.5);
      d.profile.phase = p.value("phase_s", 0.0);
      for (const Json& q : j.value("processes", Json::array())) {
        nvml::ProcessInfo info{};
        info.pid = q.at("pid").is_string() ? static_cast<unsigned>(getpid()) : q.at("pid").get<unsigned>();
        info.usedGpuMemory = q.value("used_memory_bytes", 0ull);
        d.processes.push_back(info);
      }
      s.devices.push_back(d);
    }
    for (const Json& f : script.value("failures", Json::array())) {
      s.failures.push_back(Failure{f.at("function").get<std::string>(), f.value("call", 1u), f.value("code", 999),
                                   f.value("repeat", false)});
    }
    for (const Json& f : script.value("slow", Json::array())) {
      s.delays_us[f.at("function").get<std::string>()] = f.value("delay_us", 0u);
    }
  } catch (const std::exception& e) {
    s.load_error = std::string("fake NVML: bad script: ") + e.what();
    s.devices.clear();
  }
}

// Counts the call, applies a scripted delay and returns a scripted failure code (or success).
nvml::Return enter(State& s, const char* function) {
  const unsigned n = ++s.calls[function];
  if (auto it = s.delays_us.find(function); it != s.delays_us.end() && it->second > 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(it->second));
  }
  for (const Failure& f : s.failures) {
    if (f.function == function && (n == f.call || (f.repeat && n >= f.call))) return f.code;
  }
  return nvml::success;
}

Device* device_of(State& s, nvml::Device handle) {
  for (Device& d : s.devices) {
    if (reinterpret_cast<nvml::Device>(&d) == handle) return &d;
  }
  return nullptr;
}

void copy_string(const std::string& from, char* to, unsigned length) {
  if (length == 0) return;
  std::snprintf(to, length, "%s", from.c_str());
}

unsigned mw(double watts) { return static_cast<unsigned>(std::llround(watts * 1e3)); }

}  // namespace

#define FAKE_ENTER(name)                                \
  State& s = state();                                   \
  std::lock_guard lock(fake_mutex());                        \
  if (!s.loaded) return 1; /* UNINITIALIZED */          \
  if (nvml::Return rc_ = enter(s, name); rc_ != 0) return rc_

#define FAKE_DEVICE(name)                               \
  FAKE_ENTER(name);                                     \
  Device* d = device_of(s, device);                     \
  if (d == nullptr) return 2; /* INVALID_ARGUMENT */    \
  const double t = now_s(s);                            \
  (void)t

extern "C" {

void fake_nvml_set_time_us(std::uint64_t time_us) {
  std::lock_guard lock(fake_mutex());
  state().time_us = time_us;
}
void fake_nvml_advance_us(std::uint64_t delta_us) {
  std::lock_guard lock(fake_mutex());
  state().time_us += delta_us;
}
std::uint64_t fake_nvml_time_us() {
  std::lock_guard lock(fake_mutex());
  return static_cast<std::uint64_t>(std::llround(now_s(state()) * 1e6));
}
unsigned fake_nvml_call_count(const char* function) {
  std::lock_guard lock(fake_mutex());
  auto it = state().calls.find(function);
  return it == state().calls.end() ? 0u : it->second;
}

nvml::Return nvmlInit_v2() {
  State& s = state();
  std::lock_guard lock(fake_mutex());
  if (open_inits() == 0) load(s);
  if (!s.load_error.empty()) {
    std::fprintf(stderr, "%s\n", s.load_error.c_str());
    s.loaded = false;
    return 999;
  }
  const nvml::Return rc = enter(s, "nvmlInit_v2");
  if (rc == 0) ++open_inits();
  return rc;
}
nvml::Return nvmlShutdown() {
  FAKE_ENTER("nvmlShutdown");
  if (open_inits() > 0) --open_inits();
  return 0;
}
const char* nvmlErrorString(nvml::Return code) {
  switch (code) {
    case 0: return "Success";
    case 3: return "Not Supported";
    case 6: return "Not Found";
    case 15: return "GPU is lost";
    default: return "Fake NVML error";
  }
}
nvml::Return nvmlSystemGetDriverVersion(char* version, unsigned length) {
  FAKE_ENTER("nvmlSystemGetDriverVersion");
  copy_string(s.driver_version, version, length);
  return 0;
}
nvml::Return nvmlSystemGetCudaDriverVersion_v2(int* version) {
  FAKE_ENTER("nvmlSystemGetCudaDriverVersion_v2");
  *version = s.cuda_version;
  return 0;
}
nvml::Return nvmlDeviceGetCount_v2(unsigned* count) {
  FAKE_ENTER("nvmlDeviceGetCount_v2");
  *count = static_cast<unsigned>(s.devices.size());
  return 0;
}
nvml::Return nvmlDeviceGetHandleByIndex_v2(unsigned index, nvml::Device* device) {
  FAKE_ENTER("nvmlDeviceGetHandleByIndex_v2");
  if (index >= s.devices.size()) return 2;
  *device = reinterpret_cast<nvml::Device>(&s.devices[index]);
  return 0;
}
nvml::Return nvmlDeviceGetHandleByUUID(const char* uuid, nvml::Device* device) {
  FAKE_ENTER("nvmlDeviceGetHandleByUUID");
  for (Device& d : s.devices) {
    if (strcasecmp(d.uuid.c_str(), uuid) == 0) {
      *device = reinterpret_cast<nvml::Device>(&d);
      return 0;
    }
  }
  return 6;
}
nvml::Return nvmlDeviceGetHandleByPciBusId_v2(const char* pci_bus_id, nvml::Device* device) {
  FAKE_ENTER("nvmlDeviceGetHandleByPciBusId_v2");
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(pci_bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) return 2;
  for (Device& d : s.devices) {
    if (d.domain == domain && d.bus == bus && d.dev == dev) {
      *device = reinterpret_cast<nvml::Device>(&d);
      return 0;
    }
  }
  return 6;
}
nvml::Return nvmlDeviceGetName(nvml::Device device, char* name, unsigned length) {
  FAKE_DEVICE("nvmlDeviceGetName");
  copy_string(d->name, name, length);
  return 0;
}
nvml::Return nvmlDeviceGetUUID(nvml::Device device, char* uuid, unsigned length) {
  FAKE_DEVICE("nvmlDeviceGetUUID");
  copy_string(d->uuid, uuid, length);
  return 0;
}
nvml::Return nvmlDeviceGetPciInfo_v3(nvml::Device device, nvml::PciInfo* pci) {
  FAKE_DEVICE("nvmlDeviceGetPciInfo_v3");
  *pci = nvml::PciInfo{};
  pci->domain = d->domain;
  pci->bus = d->bus;
  pci->device = d->dev;
  copy_string(d->pci_bus_id, pci->busId, sizeof pci->busId);
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04x:%02x:%02x.0", d->domain & 0xffffu, d->bus, d->dev);
  return 0;
}
nvml::Return nvmlDeviceGetTotalEnergyConsumption(nvml::Device device, unsigned long long* energy_mj) {
  FAKE_DEVICE("nvmlDeviceGetTotalEnergyConsumption");
  *energy_mj = d->counter_mj(t);
  return 0;
}
nvml::Return nvmlDeviceGetPowerUsage(nvml::Device device, unsigned* power_mw) {
  FAKE_DEVICE("nvmlDeviceGetPowerUsage");
  *power_mw = mw(d->profile.power(t));
  return 0;
}
nvml::Return nvmlDeviceGetFieldValues(nvml::Device device, int count, nvml::FieldValue* values) {
  FAKE_DEVICE("nvmlDeviceGetFieldValues");
  for (int i = 0; i < count; ++i) {
    nvml::FieldValue& v = values[i];
    v.timestamp = static_cast<long long>(std::llround(t * 1e6));
    v.latencyUsec = 0;
    v.valueType = nvml::value_unsigned_int;
    v.nvmlReturn = 0;
    if (v.fieldId == nvml::field_power_average) {
      v.value.uiVal = mw(d->profile.energy(t) - d->profile.energy(t - 1.0));  // J over the last 1 s = W
    } else if (v.fieldId == nvml::field_power_instant) {
      v.value.uiVal = mw(d->profile.power(t));
    } else {
      v.nvmlReturn = 3;
    }
  }
  return 0;
}
nvml::Return nvmlDeviceGetSamples(nvml::Device device, int type, unsigned long long last_seen_us, int* value_type,
                                  unsigned* count, nvml::Sample* samples) {
  // Utilization samples count as a function of their own, so a script's failures of the power buffer
  // keep their call numbers whatever the meter asks of the other.
  const bool busy = type == nvml::gpu_utilization_samples;
  FAKE_DEVICE(busy ? "nvmlDeviceGetSamples(utilization)" : "nvmlDeviceGetSamples");
  if (!busy && type != nvml::total_power_samples) return 3;
  if (busy && !d->busy_pct) return 3;
  *value_type = nvml::value_unsigned_int;
  // Sample k is taken at k × sample_period; the buffer holds the newest sample_buffer of them.
  const auto newest = static_cast<long long>(std::floor(t / d->sample_period + 1e-9));
  long long first = newest - static_cast<long long>(d->sample_buffer) + 1;
  while (first <= newest &&
         static_cast<unsigned long long>(std::llround(static_cast<double>(first) * d->sample_period * 1e6)) <= last_seen_us) {
    ++first;
  }
  if (first > newest) return 6;  // NVML_ERROR_NOT_FOUND: nothing newer
  const auto available = static_cast<unsigned>(newest - first + 1);
  if (samples == nullptr) {
    *count = available;
    return 0;
  }
  const unsigned n = std::min(*count, available);
  for (unsigned i = 0; i < n; ++i) {
    const double at = static_cast<double>(first + i) * d->sample_period;
    samples[i].timeStamp = static_cast<unsigned long long>(std::llround(at * 1e6));
    const bool stepped = d->busy_after_pct && at >= d->busy_step_at;
    samples[i].sampleValue.uiVal = busy ? static_cast<unsigned>(std::lround(stepped ? *d->busy_after_pct : *d->busy_pct))
                                        : mw(d->profile.power(at));
  }
  *count = n;
  return 0;
}
nvml::Return nvmlDeviceGetTemperature(nvml::Device device, int /*sensor*/, unsigned* temp) {
  FAKE_DEVICE("nvmlDeviceGetTemperature");
  *temp = d->temperature_c;
  return 0;
}
nvml::Return nvmlDeviceGetClockInfo(nvml::Device device, int type, unsigned* clock) {
  FAKE_DEVICE("nvmlDeviceGetClockInfo");
  *clock = type == nvml::clock_mem ? d->mem_clock : d->sm_clock;
  return 0;
}
nvml::Return nvmlDeviceGetEnforcedPowerLimit(nvml::Device device, unsigned* limit) {
  FAKE_DEVICE("nvmlDeviceGetEnforcedPowerLimit");
  *limit = d->power_limit_mw;
  return 0;
}
nvml::Return nvmlDeviceGetCurrentClocksEventReasons(nvml::Device device, unsigned long long* reasons) {
  FAKE_DEVICE("nvmlDeviceGetCurrentClocksEventReasons");
  *reasons = d->reasons;
  return 0;
}
nvml::Return nvmlDeviceGetPerformanceState(nvml::Device device, int* pstate) {
  FAKE_DEVICE("nvmlDeviceGetPerformanceState");
  *pstate = d->pstate;
  return 0;
}
nvml::Return nvmlDeviceGetComputeRunningProcesses_v3(nvml::Device device, unsigned* count, nvml::ProcessInfo* infos) {
  FAKE_DEVICE("nvmlDeviceGetComputeRunningProcesses_v3");
  const auto n = static_cast<unsigned>(d->processes.size());
  if (*count < n) {
    *count = n;
    return nvml::error_insufficient_size;
  }
  for (unsigned i = 0; i < n; ++i) infos[i] = d->processes[i];
  *count = n;
  return 0;
}
nvml::Return nvmlDeviceGetVbiosVersion(nvml::Device device, char* version, unsigned length) {
  FAKE_DEVICE("nvmlDeviceGetVbiosVersion");
  copy_string(d->vbios, version, length);
  return 0;
}
nvml::Return nvmlDeviceGetEccMode(nvml::Device device, int* current, int* pending) {
  FAKE_DEVICE("nvmlDeviceGetEccMode");
  *current = d->ecc ? 1 : 0;
  *pending = *current;
  return 0;
}
nvml::Return nvmlDeviceGetArchitecture(nvml::Device device, unsigned* architecture) {
  FAKE_DEVICE("nvmlDeviceGetArchitecture");
  *architecture = d->architecture;
  return 0;
}

}  // extern "C"
