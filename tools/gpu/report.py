#!/usr/bin/env python3
"""Markdown tables from a tools/gpu/check.sh log folder: plexus-bench's cases
on the GPU beside their CUDA peers (same process) and PyTorch (same machine,
same run of check.sh), as written into bench/README.md.

    python3 tools/gpu/report.py LOG_DIR
"""
import json
import os
import sys


def load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)


def us(ns):
    return f"{ns / 1e3:.2f}" if ns is not None else "—"


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "gpu-logs"
    bench = load(os.path.join(d, "bench.json"))
    torch = {r["name"].split("/")[0]: r["ns_per_op"] for r in load(os.path.join(d, "torch.json"))}
    cases = [r for r in bench if "/" not in r["name"]]
    peers = {}
    for r in bench:
        if "/" in r["name"]:
            case, peer = r["name"].split("/", 1)
            peers.setdefault(case, []).append((peer, r))
    print("| case | plexus µs | throughput | CUDA peer in the same process | peer µs | plexus/peer "
          "| PyTorch µs | plexus/PyTorch |")
    print("|---|---|---|---|---|---|---|---|")
    for r in cases:
        if r.get("error"):
            print(f"| `{r['name']}` | error: {r['error']} | | | | | | |")
            continue
        ns = r["ns_per_op"]
        tput = (f"{r['gflops']:.0f} GFLOP/s" if r.get("gflops") else
                f"{r['gbps']:.0f} GB/s" if r.get("gbps") else "")
        ps = peers.get(r["name"], [(None, None)])
        t = torch.get(r["name"])
        for i, (peer, pr) in enumerate(ps):
            first = i == 0
            cells = [f"`{r['name']}`" if first else "", us(ns) if first else "",
                     tput if first else ""]
            if peer:
                cells += [peer, us(pr["ns_per_op"]), f"{pr['ns_per_op'] / ns:.2f}"]
            else:
                cells += ["", "", ""]
            cells += [us(t) if first else "", f"{t / ns:.2f}" if first and t else ""]
            print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
