"""The Python overhead of plexus against torch 1.13, measured in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py

Rows (best of 7 repeats of 20,000 calls; microseconds per call):
  add_1elem      x + 1 on a 1-element float32 tensor
  relu_method    x.relu(): a catalog op reached through Tensor.__getattr__
  add_function   px.add(x, y): a catalog op through the schema-driven overloads
  asarray_16M    np.asarray of a 16M-element cpu tensor (shares memory: no copy)
"""
import timeit

import numpy as np

import plexus as px

try:
    import torch
except ImportError:  # the peer is optional
    torch = None


def best_us(stmt, number=20000, repeat=7):
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number * 1e6


def row(name, plexus_us, torch_us, note=""):
    if torch_us is None:
        print(f"{name:<14} {plexus_us:8.3f} us   (torch not installed) {note}")
    else:
        print(f"{name:<14} {plexus_us:8.3f} us   torch {torch_us:8.3f} us   "
              f"plexus / torch {plexus_us / torch_us:.2f} {note}")


def main():
    x, y = px.ones(1), px.ones(1)
    tx, ty = (torch.ones(1), torch.ones(1)) if torch else (None, None)
    row("add_1elem", best_us(lambda: x + 1), best_us(lambda: tx + 1) if torch else None)
    row("relu_method", best_us(lambda: x.relu()), best_us(lambda: tx.relu()) if torch else None)
    row("add_function", best_us(lambda: px.add(x, y)),
        best_us(lambda: torch.add(tx, ty)) if torch else None)
    big = px.ones(1 << 24)
    t = best_us(lambda: np.asarray(big), number=200)
    a = np.asarray(big)
    a[0] = 7
    shared = big[0].item() == 7
    tb = torch.ones(1 << 24) if torch else None
    row("asarray_16M", t, best_us(lambda: np.asarray(tb), number=200) if torch else None,
        f"(shares memory: {shared})")


if __name__ == "__main__":
    main()
