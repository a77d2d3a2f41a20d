#!/usr/bin/env python3
"""PyTorch as the peer of plexus-bench's cases, on the same device kind.

Times the cases of bench/cases.cpp that PyTorch has a direct form for, the
same way plexus-bench does (a warm-up call, runs calibrated to about 50 ms,
best of --repeats, a device synchronize after each run), and, given
plexus-bench's --json output of the same machine, prints plexus's speed over
PyTorch's for each case (above 1: plexus is faster).

PyTorch's times include its Python call (a few µs), as a PyTorch user sees
them. Float32 matrix products and convolutions run without TF32, as plexus's
cuBLAS and cuDNN paths do.

    build/bin/plexus-bench --device cuda:0 --json > plexus.json
    python3 bench/torch_peers.py --device cuda --plexus plexus.json
"""
import argparse
import json
import sys
import time

import torch
import torch.nn.functional as F

K16M = 16 << 20
K4M = 4 << 20


def cases(dev):
    f32 = dict(dtype=torch.float32, device=dev)

    def full(sizes, v=1.0, **o):
        return torch.full(sizes, v, **(o or f32))

    def add_out():
        a, b, out = full([1]), full([1]), full([1])
        return lambda: torch.add(a, b, out=out)

    def add_alloc():
        a, b = full([1]), full([1])
        return lambda: a + b

    def add16():
        a, b, out = full([K16M]), full([K16M]), full([K16M])
        return lambda: torch.add(a, b, out=out)

    def copy16():
        x, out = full([K16M]), full([K16M])
        return lambda: out.copy_(x)

    def transpose():
        x, out = full([4096, 4096]), full([4096, 4096])
        return lambda: out.copy_(x.t())

    def sgemm(m, p, k):
        def make():
            a, b, c = full([m, k], 0.5), full([k, p], 0.25), full([m, p])
            return lambda: torch.mm(a, b, out=c)
        return make

    def softmax():
        x = full([4096, 1024], 0.5)
        return lambda: torch.softmax(x, -1)

    def sum16():
        x = full([K16M])
        return lambda: torch.sum(x)

    def conv(groups, cin, cout, bias):
        def make():
            x = full([8, cin, 56, 56], 0.5)
            w = full([cout, cin // groups, 3, 3], 0.1)
            b = full([cout]) if bias else None
            return lambda: F.conv2d(x, w, b, 1, 1, 1, groups)
        return make

    def layer_norm():
        x, w, b = full([4096, 1024], 0.5), full([1024]), full([1024], 0.0)
        return lambda: F.layer_norm(x, [1024], w, b)

    def add_i32():
        o = dict(dtype=torch.int32, device=dev)
        a, b, out = full([K4M], 3, **o), full([K4M], 2, **o), torch.empty([K4M], **o)
        return lambda: torch.add(a, b, out=out)

    def mul_f16():
        o = dict(dtype=torch.float16, device=dev)
        a, b, out = full([K4M], 1.5, **o), full([K4M], 0.5, **o), torch.empty([K4M], **o)
        return lambda: torch.mul(a, b, out=out)

    def row_broadcast():
        a, row, out = full([2048, 2048]), full([2048], 2.0), full([2048, 2048])
        return lambda: torch.add(a, row, out=out)

    def argmax():
        x = full([2048, 2048])
        return lambda: torch.argmax(x, 1)

    def max_pool():
        x = full([8, 64, 112, 112], 0.5)
        return lambda: F.max_pool2d(x, 3, 2, 1)

    return {
        "add_1elem_out": add_out,
        "add_1elem_alloc": add_alloc,
        "add_16M_f32": add16,
        "copy_16M_f32": copy16,
        "transpose_copy_4096": transpose,
        "sgemm_256": sgemm(256, 256, 256),
        "sgemm_1024": sgemm(1024, 1024, 1024),
        "sgemm_2048": sgemm(2048, 2048, 2048),
        "sgemm_4096x512x14336": sgemm(4096, 512, 14336),
        "softmax_4096x1024": softmax,
        "sum_16M_f32": sum16,
        "conv2d_resnet": conv(1, 64, 64, True),
        "layer_norm_4096x1024": layer_norm,
        "add_4M_i32": add_i32,
        "mul_4M_f16": mul_f16,
        "add_row_broadcast_2048": row_broadcast,
        "argmax_2048x2048": argmax,
        "max_pool2d_resnet": max_pool,
        "conv2d_depthwise": conv(128, 128, 128, False),
    }


def time_ns(op, sync, repeats):
    op()
    sync()
    t0 = time.perf_counter()
    op()
    sync()
    iters = max(1, min(10_000_000, int(0.05 / max(time.perf_counter() - t0, 1e-9))))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(iters):
            op()
        sync()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best * 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", help="torch device (cpu, cuda, cuda:1)")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--plexus", help="plexus-bench --json output to compare with")
    ap.add_argument("--json", help="write torch's rows here, as plexus-bench --json does")
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device(args.device)
    sync = (lambda: torch.cuda.synchronize(dev)) if dev.type == "cuda" else (lambda: None)
    plexus = {}
    if args.plexus:
        with open(args.plexus) as f:
            plexus = {r["name"]: r for r in json.load(f) if "/" not in r["name"]}

    print(f"torch {torch.__version__} on {dev}"
          + (f" ({torch.cuda.get_device_name(dev)})" if dev.type == "cuda" else ""))
    print(f"{'case':32} {'torch':>12} {'plexus':>12}  plexus/torch")
    rows = []
    with torch.no_grad():
        for name, make in cases(dev).items():
            try:
                ns = time_ns(make(), sync, args.repeats)
            except Exception as e:  # a case torch cannot run here: say so, go on
                print(f"{name:32} error: {e}")
                continue
            rows.append({"name": name + "/torch", "device": str(dev), "ns_per_op": ns})
            p = plexus.get(name, {}).get("ns_per_op")
            ratio = f"{ns / p:12.2f}" if p else ""
            pt = f"{p / 1e3:9.2f} us" if p else ""
            print(f"{name:32} {ns / 1e3:9.2f} us {pt:>12}  {ratio}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
