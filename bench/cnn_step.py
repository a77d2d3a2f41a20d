"""A small CNN's training step from Python, plexus against torch 1.13, in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/cnn_step.py [--alone]

The network of plexus-bench-train's cnn_step_b32: on 28x28 images at batch 32,
conv 3x3 (1 -> 8) + relu + max_pool 2, conv 3x3 (8 -> 16) + relu + max_pool 2,
linear to 10; MSE loss, Adam. torch starts from plexus's weights. Each figure
is the best of 7 runs of 10 steps, in milliseconds per step; torch runs with
its default threads and with one. --alone does not import torch: with torch
loaded, its OpenMP runtime and the cpu plugin's share the two cores and both
slow down (bench/README.md).
"""
import sys
import time

import numpy as np

import plexus as px

torch = None
if "--alone" not in sys.argv:
    try:
        import torch
    except ImportError:  # the peer is optional
        pass


def best_ms(step, steps=10, runs=7):
    step()
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(steps):
            step()
        best = min(best, (time.perf_counter() - t) / steps)
    return best * 1e3


def main():
    g = px.Generator(2)
    net = px.nn.Sequential(
        px.nn.Conv2d(1, 8, 3, padding=1, generator=g), px.nn.ReLU(), px.nn.MaxPool2d(2),
        px.nn.Conv2d(8, 16, 3, padding=1, generator=g), px.nn.ReLU(), px.nn.MaxPool2d(2),
        px.nn.Flatten(), px.nn.Linear(16 * 7 * 7, 10, generator=g))
    x = px.randn(32, 1, 28, 28, generator=g)
    y = px.randn(32, 10, generator=g)
    state = {k: v.detach().numpy().copy() for k, v in net.named_parameters()}
    opt = px.optim.Adam(net.named_parameters(), lr=1e-3)

    def step():
        loss = px.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    ms = best_ms(step)
    if torch is None:
        print(f"cnn_step_b32   plexus {ms:7.2f} ms   (no torch in the process)")
        return
    tnet = torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(16 * 7 * 7, 10))
    with torch.no_grad():
        for name, p in tnet.named_parameters():
            p.copy_(torch.from_numpy(state[name]))
    topt = torch.optim.Adam(tnet.parameters(), lr=1e-3)
    tx, ty = torch.from_numpy(x.numpy().copy()), torch.from_numpy(y.numpy().copy())

    def tstep():
        loss = torch.nn.functional.mse_loss(tnet(tx), ty)
        topt.zero_grad()
        loss.backward()
        topt.step()

    threads = torch.get_num_threads()
    tms = best_ms(tstep)
    torch.set_num_threads(1)
    tms1 = best_ms(tstep)
    print(f"cnn_step_b32   plexus {ms:7.2f} ms   torch {tms:7.2f} ms ({threads} threads), "
          f"{tms1:7.2f} ms (1 thread)   torch / plexus {tms / ms:.2f}, {tms1 / ms:.2f}")


if __name__ == "__main__":
    main()
