#!/usr/bin/env python3
"""Grows a dataset store to N measured rows by copying its sessions as new ones (new id, label and
fingerprint; every energy of a copied session scaled by one factor near 1, as another card of the same
GPU would shift them, and its ratios by a second factor, as cards differ in ΔE). The places measured do
not change: a store of many users measuring the usual models. Standard library only (sqlite3).
Usage: large_store.py STORE.sqlite N_ROWS [SEED]"""
import hashlib
import random
import sqlite3
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, target = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20261203)
    db = sqlite3.connect(path)
    sessions = db.execute("SELECT id, fingerprint, label, gpu, gpu_arch, engine, engine_version, software, date, provenance FROM sessions").fetchall()
    columns = [r[1] for r in db.execute("PRAGMA table_info(measurements)")]
    rows_by_session = {}
    for row in db.execute(f"SELECT {', '.join(columns)} FROM measurements"):
        rows_by_session.setdefault(row[0], []).append(row)
    have = sum(len(v) for v in rows_by_session.values())
    energy, fp16 = columns.index("energy_per_token_mj"), columns.index("fp16_energy_per_token_mj")
    copy = 0
    while have < target:
        for s in sessions:
            rows = rows_by_session.get(s[0], [])
            if not rows or have >= target:
                continue
            copy += 1
            fingerprint = hashlib.sha256(f"{s[1]}|copy {copy}".encode()).hexdigest()
            sid = fingerprint[:16]
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (sid, fingerprint, f"{s[2]} copy {copy}", *s[3:9], "bench/large_store.py"))
            card = rng.gauss(1.0, 0.02)   # the card's absolute energy
            ratio = rng.gauss(1.0, 0.01)  # its ΔE
            for r in rows:
                r = list(r)
                r[0] = sid
                r[fp16] = r[fp16] * card
                r[energy] = r[energy] * card * ratio
                db.execute(f"INSERT INTO measurements ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", r)
                have += 1
    db.commit()
    print(f"{path}: {have} rows in {len(sessions) + copy} sessions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
