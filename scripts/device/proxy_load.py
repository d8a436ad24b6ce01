#!/usr/bin/env python3
"""Load for `session.sh proxy:<arch>`: completions through `ecocompute proxy`, or straight to the server.

    meter mode  (under `ecocompute meter --json -- python3 proxy_load.py meter …`): reads the proxy's
                /metrics, opens the marked window `load`, sends the requests, waits until the proxy has
                settled every interval of them, closes the window, reads /metrics again. Writes one JSON
                with each request's usage (energy_j from its answer) and both /metrics readings, so the
                per-request sums can be set against the meter's window (docs/proxy.md, H200 check).
    latency mode (python3 proxy_load.py latency --url A --url B …): the same requests sent to each URL in
                turn, `--rounds` times, alternating; per pass the latency (sent → last byte) of every
                request and the pass's output tokens per second. No meter.

Requests: `--requests` completions of `--max-tokens` tokens (ignore_eos), prompts of 16-128 words drawn from
`--seed`, `--concurrency` in flight, streamed (a share `--unstreamed` sent whole, which the proxy answers with
X-Energy-J). Standard library only: the GPU machine has no package registry.
"""
import argparse
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/contrib")
import ecocompute_marker as eco  # noqa: E402

WORDS = "the energy of a token depends on the batch the engine the card and the size of the model".split()


def draw_requests(n, seed, unstreamed_share):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = rng.randint(16, 128)
        out.append({"prompt": " ".join(rng.choice(WORDS) for _ in range(words)),
                    "stream": rng.random() >= unstreamed_share, "index": i})
    return out


def scrape(base):
    with urllib.request.urlopen(base + "/metrics", timeout=10) as r:
        text = r.read().decode()
    values = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, _, value = line.rpartition(" ")
        if name.startswith("ecocompute_proxy_") and "_bucket" not in name:
            values[name] = float(value)
    return values


def one_request(base, model, req, max_tokens):
    """Sends one completion; returns its record (never raises: a failure is recorded)."""
    url = urllib.parse.urlparse(base)
    body = {"model": model, "prompt": req["prompt"], "max_tokens": max_tokens, "ignore_eos": True,
            "stream": req["stream"]}
    if req["stream"]:
        body["stream_options"] = {"include_usage": True}
    rec = {"index": req["index"], "stream": req["stream"], "ok": False}
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
    rec["sent"] = time.time()
    try:
        conn.request("POST", url.path.rstrip("/") + "/v1/completions", json.dumps(body),
                     {"Content-Type": "application/json"})
        resp = conn.getresponse()
        rec["status"] = resp.status
        usage = None
        if req["stream"]:
            for raw in resp:
                line = raw.decode().strip()
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                if "first" not in rec:
                    rec["first"] = time.time()
                chunk = json.loads(line[6:])
                if chunk.get("usage"):
                    usage = chunk["usage"]
        else:
            payload = json.loads(resp.read())
            usage = payload.get("usage")
            rec["x_energy_j"] = resp.getheader("X-Energy-J")
        rec["finished"] = time.time()
        rec["usage"] = usage
        rec["ok"] = resp.status == 200 and usage is not None
    except Exception as e:  # recorded, not dropped
        rec["finished"] = time.time()
        rec["error"] = "%s: %s" % (type(e).__name__, e)
    finally:
        conn.close()
    return rec


def run_pass(base, model, requests, concurrency, max_tokens):
    queue = list(requests)
    lock = threading.Lock()
    records = []

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                req = queue.pop(0)
            rec = one_request(base, model, req, max_tokens)
            with lock:
                records.append(rec)

    started = time.time()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return started, time.time(), sorted(records, key=lambda r: r["index"])


def settled_requests(metrics):
    return sum(v for k, v in metrics.items() if k.startswith("ecocompute_proxy_request_energy_joules_count"))


def wait_settled(base, expected, limit_s=30.0):
    """Until every request sent has been settled: booked in full, the interval it ended in closed too (a
    request still inside the open interval is neither in flight nor unsettled, so those two gauges alone
    would end the wait one counter update early)."""
    deadline = time.time() + limit_s
    while time.time() < deadline:
        m = scrape(base)
        if (m.get("ecocompute_proxy_requests_in_flight", 0) == 0
                and m.get("ecocompute_proxy_unsettled_energy_joules", 0) == 0 and settled_requests(m) >= expected):
            return True
        time.sleep(0.05)
    return False


def meter_mode(args):
    reqs = draw_requests(args.requests, args.seed, args.unstreamed)
    before = scrape(args.url)
    with eco.window("load") as w:
        started, ended, records = run_pass(args.url, args.model, reqs, args.concurrency, args.max_tokens)
        answered = sum(1 for r in records if "status" in r)
        settled = wait_settled(args.url, settled_requests(before) + answered)
        w.tokens = sum((r.get("usage") or {}).get("completion_tokens", 0) for r in records if r["ok"])
    after = scrape(args.url)
    json.dump({"mode": "meter", "url": args.url, "concurrency": args.concurrency, "max_tokens": args.max_tokens,
               "requests": args.requests, "unstreamed_share": args.unstreamed, "seed": args.seed,
               "load_started": started, "load_ended": ended, "settled": settled,
               "metrics_before": before, "metrics_after": after, "records": records},
              open(args.out, "w"), indent=1)


def latency_mode(args):
    reqs = draw_requests(args.requests, args.seed, args.unstreamed)
    passes = []
    for rnd in range(args.rounds):
        urls = args.url if rnd % 2 == 0 else list(reversed(args.url))
        for url in urls:
            started, ended, records = run_pass(url, args.model, reqs, args.concurrency, args.max_tokens)
            ok = [r for r in records if r["ok"]]
            tokens = sum(r["usage"].get("completion_tokens", 0) for r in ok)
            passes.append({"url": url, "round": rnd, "started": started, "ended": ended, "ok": len(ok),
                           "failed": len(records) - len(ok), "output_tokens": tokens,
                           "tokens_per_s": tokens / (ended - started),
                           "latencies_s": [r["finished"] - r["sent"] for r in ok],
                           "errors": sorted({r.get("error", str(r.get("status"))) for r in records if not r["ok"]})})
            print("%s round %d: %d ok, %d failed, %.0f tokens/s" % (url, rnd, len(ok), len(records) - len(ok),
                                                                    tokens / (ended - started)), file=sys.stderr)
            # Written after every pass: a call cut short keeps the passes it finished.
            json.dump({"mode": "latency", "concurrency": args.concurrency, "max_tokens": args.max_tokens,
                       "requests": args.requests, "unstreamed_share": args.unstreamed, "seed": args.seed,
                       "passes": passes}, open(args.out, "w"), indent=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["meter", "latency"])
    p.add_argument("--url", action="append", required=True, help="base URL (proxy or server), no /v1")
    p.add_argument("--model", default="model")
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--requests", type=int, default=128)
    p.add_argument("--max-tokens", type=int, default=96)
    p.add_argument("--unstreamed", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    if args.mode == "meter":
        args.url = args.url[0]
        meter_mode(args)
    else:
        latency_mode(args)


if __name__ == "__main__":
    main()
