"""A measured program for the command engine's tests: CPU work whose cost scales with the tokens asked
for, speaking the protocol through contrib/ecocompute_marker.py. Fault modes misbehave on purpose.

  command_worker.py driven [--precision P] [--cost N] [--fault crash|hang|wrong-count|garbage|no-hello|error]
  command_worker.py marked [--windows N] [--tokens T] [--exit S] [--fault unclosed|nested|unknown]
  command_worker.py plain [--exit S]
"""
import argparse
import os
import sys
import time

import ecocompute_marker as eco


def work(n_tokens, cost):
    total = 0
    for i in range(n_tokens * cost):
        total += i * i % 7
    return total


def driven(args):
    if args.fault == "no-hello":
        sys.exit(3)
    calls = {"decode": 0}

    def handler(verb, n):
        if verb not in ("prefill", "decode"):
            raise ValueError("unknown request " + verb)
        if verb == "decode":
            calls["decode"] += 1
            # Faults start at the second decode: the first (a warm-up) succeeds, so the run gets going.
            if calls["decode"] >= 2:
                if args.fault == "crash":
                    os._exit(9)
                if args.fault == "hang":
                    time.sleep(3600)
                if args.fault == "wrong-count":
                    work(n, args.cost)
                    return n - 1
                if args.fault == "garbage":
                    os.write(eco._rep, b"\x01\x02 not a reply\n")
                    time.sleep(3600)
                if args.fault == "error":
                    raise RuntimeError("out of memory (pretend)")
        work(n, args.cost)
        return n

    eco.driven(handler, engine="pyworker", version="1.0", precision=args.precision, model="cpu-loop",
               params=1000, device="cpu", backend="CPU", weights="synthetic")


def marked(args):
    if args.fault == "unknown":
        eco._send("launch rockets")
        print("reply:", eco._inp.readline().strip(), flush=True)
    for i in range(args.windows):
        with eco.window("decode%d" % i) as w:
            work(args.tokens, 2000)
            w.tokens = args.tokens
    if args.fault == "nested":
        with eco.window("outer"):
            try:
                with eco.window("inner"):
                    pass
            except RuntimeError as e:
                print("refused:", e, flush=True)
    if args.fault == "unclosed":
        eco._ask("begin left-open")
    sys.exit(args.exit)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["driven", "marked", "plain"])
    parser.add_argument("--precision", default="FP32")
    parser.add_argument("--cost", type=int, default=200)
    parser.add_argument("--fault", default="")
    parser.add_argument("--windows", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=50)
    parser.add_argument("--exit", type=int, default=0)
    args = parser.parse_args()
    if args.mode == "driven":
        driven(args)
    elif args.mode == "marked":
        marked(args)
    else:
        work(100, 1000)
        sys.exit(args.exit)


main()
