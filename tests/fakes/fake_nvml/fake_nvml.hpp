// The fake NVML's control functions (found with dlsym) and its script format.
//
// Script (JSON, path in $FAKE_NVML_SCRIPT; without it one constant-100-W device is simulated):
// {
//   "clock": "virtual" | "real",          virtual: time moves only by fake_nvml_set_time_us/advance;
//                                         real: the wall clock (for benchmarks and manual runs)
//   "start_time_s": 1000,                 virtual time at load (also the sample timestamps' base)
//   "driver_version": "580.95.05", "cuda_driver_version": 13000,
//   "devices": [{
//     "name": "NVIDIA H200", "uuid": "GPU-…", "pci_bus_id": "00000000:19:00.0", "architecture": 9,
//     "vbios": "96.00.AF.00.01", "power_limit_mw": 700000, "ecc": true,
//     "power": {"kind": "constant", "watts": 100}
//            | {"kind": "step", "before_watts": 100, "after_watts": 300, "at_s": 1001}
//            | {"kind": "pulse", "low_watts": 100, "high_watts": 500, "period_s": 1, "duty": 0.25, "phase_s": 0},
//     "counter_update_period_s": 0.1, "counter_offset_mj": 0,
//     "counter_reset_at_s": 1005, "counter_stuck_from_s": 1003,
//     "sample_period_s": 0.02, "sample_buffer": 120,
//     "busy_pct": 97, "busy_after_pct": 40, "busy_step_at_s": 1003,   GPU-utilization samples (absent:
//                                         NOT_SUPPORTED), on the power samples' timestamps; "failures" and
//                                         call counts name them "nvmlDeviceGetSamples(utilization)"
//     "temperature_c": 40, "sm_clock_mhz": 1980, "memory_clock_mhz": 2619,
//     "clocks_event_reasons": 4, "pstate": 0,
//     "processes": [{"pid": 4242, "used_memory_bytes": 1048576} | {"pid": "self"}]
//   }],
//   "failures": [{"function": "nvmlDeviceGetTotalEnergyConsumption", "call": 3, "code": 15, "repeat": false}],
//   "slow": [{"function": "nvmlDeviceGetTotalEnergyConsumption", "delay_us": 1000}]
// }
// Times are seconds on the fake's clock. Energy E(t) is the exact integral of the power profile from 0;
// the counter shows E at the last multiple of the update period, in whole mJ.
#pragma once

#include <cstdint>

extern "C" {
/// Sets the virtual clock (microseconds).
void fake_nvml_set_time_us(std::uint64_t time_us);
/// Advances the virtual clock.
void fake_nvml_advance_us(std::uint64_t delta_us);
/// Returns the fake's current time (virtual or real) in microseconds.
std::uint64_t fake_nvml_time_us();
/// Returns how many times an NVML function was called since the script was loaded.
unsigned fake_nvml_call_count(const char* function);
}
