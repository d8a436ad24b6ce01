#!/usr/bin/env python3
"""The proxy against `meter` and the proxy's overhead, from a `session.sh proxy:<arch>` folder.

    python3 scripts/proxy_check.py data/sessions/<folder>

Per load (meter-c<C>.json: `ecocompute meter --json` around scripts/device/proxy_load.py meter, and
meter-load-c<C>.json: what that load wrote): the meter's window energy; the proxy's counter, attributed,
idle and unsettled energy between its two /metrics readings (taken just outside the window); the sum of
usage.energy_j over the answers (the figure each answer carried when it ended) against the settled
attribution; and requests that failed. Then latency.json: per path the p50 / p99 latency and the
throughput of each pass, and the proxy's added p50 and throughput ratio per round.
"""
import glob
import json
import os
import statistics
import sys


def delta(before, after, prefix):
    return sum(v - before.get(k, 0.0) for k, v in after.items() if k.startswith(prefix))


def meter_rows(folder):
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "meter-load-c*.json"))):
        c = path.rsplit("-c", 1)[1][:-5]
        load = json.load(open(path))
        meter = json.load(open(os.path.join(folder, "meter-c%s.json" % c)))
        window = meter["windows"][0]
        b, a = load["metrics_before"], load["metrics_after"]
        recs = load["records"]
        ok = [r for r in recs if r["ok"]]
        out.append({
            "concurrency": int(c), "requests": len(recs), "ok": len(ok),
            "meter_j": window["energy_j"], "meter_edge_j": window["edge_uncertainty_j"],
            "counter_j": delta(b, a, "ecocompute_proxy_counter_energy_joules_total"),
            "attributed_j": delta(b, a, "ecocompute_proxy_attributed_energy_joules_total"),
            "idle_j": delta(b, a, "ecocompute_proxy_idle_energy_joules_total"),
            "unsettled_j": a.get("ecocompute_proxy_unsettled_energy_joules", 0.0),
            "skipped": delta(b, a, "ecocompute_proxy_skipped_intervals_total"),
            "answers_j": sum(r["usage"]["energy_j"] for r in ok),
            "settled": load["settled"], "output_tokens": window["tokens"],
        })
    return out


def percentile(values, q):
    v = sorted(values)
    if not v:
        return float("nan")
    pos = (len(v) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def main():
    folder = sys.argv[1]
    print("## The proxy against `meter` (same load, same GPU)\n")
    print("| C | requests ok | meter J (edge ±) | proxy counter J | counter − meter | attributed J | idle J | unsettled J "
          "| Σ answers J | Σ answers − attributed | J per output token (attributed) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in meter_rows(folder):
        print("| %d | %d / %d | %.1f (±%.1f) | %.1f | %+.2f %% | %.1f | %.1f | %.1f | %.1f | %+.2f %% | %.3f |" % (
            r["concurrency"], r["ok"], r["requests"], r["meter_j"], r["meter_edge_j"], r["counter_j"],
            100 * (r["counter_j"] / r["meter_j"] - 1), r["attributed_j"], r["idle_j"], r["unsettled_j"], r["answers_j"],
            100 * (r["answers_j"] / r["attributed_j"] - 1) if r["attributed_j"] else float("nan"),
            r["attributed_j"] / r["output_tokens"] if r["output_tokens"] else float("nan")))
        if not r["settled"] or r["skipped"]:
            print("  C = %d: %s, %d counter intervals skipped" % (
                r["concurrency"], "settled" if r["settled"] else "NOT every request settled before the second reading",
                r["skipped"]))
    lat_path = os.path.join(folder, "latency.json")
    if not os.path.exists(lat_path):
        return
    lat = json.load(open(lat_path))
    print("\n## Added latency and throughput at %d streams\n" % lat["concurrency"])
    print("| round | path | ok / failed | p50 s | p99 s | output tokens/s |")
    print("|---:|---|---|---:|---:|---:|")
    by_round = {}
    for p in lat["passes"]:
        path = "proxy" if p["url"] == lat["passes"][0]["url"] else "direct"
        by_round.setdefault(p["round"], {})[path] = p
        print("| %d | %s | %d / %d | %.3f | %.3f | %.0f |" % (p["round"], path, p["ok"], p["failed"], percentile(p["latencies_s"], 0.5),
                                                        percentile(p["latencies_s"], 0.99), p["tokens_per_s"]))
    print()
    for rnd, paths in sorted(by_round.items()):
        if "proxy" in paths and "direct" in paths:
            pp, dd = paths["proxy"], paths["direct"]
            print("round %d: added p50 %+.2f %%, throughput proxy/direct %.3f" % (
                rnd, 100 * (percentile(pp["latencies_s"], 0.5) / percentile(dd["latencies_s"], 0.5) - 1),
                pp["tokens_per_s"] / dd["tokens_per_s"]))
    print("medians over rounds: direct p50 %.3f s, proxy p50 %.3f s" % (
        statistics.median(percentile(p["direct"]["latencies_s"], 0.5) for p in by_round.values() if "direct" in p),
        statistics.median(percentile(p["proxy"]["latencies_s"], 0.5) for p in by_round.values() if "proxy" in p)))


if __name__ == "__main__":
    main()
