"""The GPU's measured memory bandwidth, for the roofline of decode (weight bytes per token over it).

Two figures on one buffer of --gib GiB (device memory, far larger than any cache): a device-to-device
copy (bytes read + bytes written per second) and a full read (a sum over the buffer: bytes read per
second, the access pattern of a batch-1 decode step reading every weight once). Each is the median of
--repeats timed runs (CUDA events) after two untimed ones. Prints JSON.
"""
import argparse
import json
import statistics

import torch


def timed(fn, repeats):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1000.0)
    return statistics.median(times), min(times), max(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gib", type=float, default=8.0)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    n_bytes = int(args.gib * (1 << 30)) // 4 * 4
    src = torch.ones(n_bytes // 4, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    copy_s = timed(lambda: dst.copy_(src), args.repeats)
    read_s = timed(lambda: src.sum(), args.repeats)
    print(json.dumps({
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "buffer_bytes": n_bytes,
        "repeats": args.repeats,
        "copy_gb_per_s": {"median": 2 * n_bytes / copy_s[0] / 1e9, "best": 2 * n_bytes / copy_s[1] / 1e9,
                          "worst": 2 * n_bytes / copy_s[2] / 1e9, "counts": "bytes read + bytes written"},
        "read_gb_per_s": {"median": n_bytes / read_s[0] / 1e9, "best": n_bytes / read_s[1] / 1e9,
                          "worst": n_bytes / read_s[2] / 1e9, "counts": "bytes read (sum over the buffer)"},
    }, indent=2))


if __name__ == "__main__":
    main()
