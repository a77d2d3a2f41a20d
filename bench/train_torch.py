#!/usr/bin/env python3
"""The seed's training program in PyTorch: the peer of plexus's main job.

The same work as examples/train (plexus-example-train): a 10 -> 64 -> 32 -> 1
ReLU network, Adam (lr 1e-3), 1000 synthetic samples split 800/20 and
standardized, 5-fold cross-validation of 100 epochs with mini-batches of 32
(rows shuffled on the device each epoch, the epoch's loss summed on the device
and read once), then a final model on the whole training set, scored on the
test set. The whole program is timed, data and set-up included, as the main
job times itself.

--mode eager: PyTorch as written; --mode graphs: each trainer's whole step
(forward, backward, Adam with capturable=True) captured once as a CUDA graph
and replayed, the fastest way PyTorch runs such a step on a GPU and the peer
of `plexus-example-train --compile`.

    python3 bench/train_torch.py --device cuda --mode eager
    python3 bench/train_torch.py --device cuda --mode graphs
"""
import argparse
import sys
import time

import numpy as np
import torch
from torch import nn


def make_data(seed, dev):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((1000, 10)).astype(np.float32)
    w = rng.standard_normal((10, 1)).astype(np.float32)
    y = X @ w + 0.1 * rng.standard_normal((1000, 1)).astype(np.float32)
    order = rng.permutation(1000)
    tr, te = order[:800], order[800:]
    mean, std = X[tr].mean(0), X[tr].std(0)
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a)).to(dev)
    return t((X[tr] - mean) / std), t(y[tr]), t((X[te] - mean) / std), t(y[te])


class Trainer:
    def __init__(self, dev, batch, graphs):
        self.model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(),
                                   nn.Linear(32, 1)).to(dev)
        self.loss_fn = nn.MSELoss()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3, capturable=graphs)
        self.graph = None
        if graphs:
            self.xb = torch.zeros(batch, 10, device=dev)
            self.yb = torch.zeros(batch, 1, device=dev)
            # Warm-up steps on a side stream (as CUDA graph capture requires),
            # on zeros with the learning rate at 0 so the weights stay put.
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            lr = self.opt.param_groups[0]["lr"]
            self.opt.param_groups[0]["lr"] = 0.0
            with torch.cuda.stream(side):
                for _ in range(3):
                    self._step(self.xb, self.yb)
            torch.cuda.current_stream().wait_stream(side)
            self.opt.param_groups[0]["lr"] = lr
            for s in self.opt.state.values():  # the warm-up steps do not count
                s["step"].zero_()
                s["exp_avg"].zero_()
                s["exp_avg_sq"].zero_()
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.loss = self._step(self.xb, self.yb)

    def _step(self, xb, yb):
        self.opt.zero_grad(set_to_none=True)
        loss = self.loss_fn(self.model(xb), yb)
        loss.backward()
        self.opt.step()
        return loss

    def step(self, xb, yb):
        if self.graph is None or xb.shape[0] != self.xb.shape[0]:
            return self._step(xb, yb)  # eager, or a last short batch
        self.xb.copy_(xb)
        self.yb.copy_(yb)
        self.graph.replay()
        return self.loss

    def epoch(self, X, y, batch):
        n = X.shape[0]
        order = torch.randperm(n, device=X.device)
        xs, ys = X.index_select(0, order), y.index_select(0, order)
        total = torch.zeros((), device=X.device)
        for start in range(0, n, batch):
            xb, yb = xs[start:start + batch], ys[start:start + batch]
            total += self.step(xb, yb).detach() * xb.shape[0]
        return total.item() / n

    def evaluate(self, X, y):
        with torch.no_grad():
            return self.loss_fn(self.model(X), y).item()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--mode", choices=["eager", "graphs"], default="eager")
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    dev = torch.device(a.device)
    graphs = a.mode == "graphs"
    if graphs and dev.type != "cuda":
        ap.error("--mode graphs needs a cuda device")
    torch.manual_seed(a.seed)
    torch.backends.cuda.matmul.allow_tf32 = False
    if dev.type == "cuda":
        torch.zeros(1, device=dev)  # the CUDA context, outside the timing as in plexus's Runtime
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    Xtr, ytr, Xte, yte = make_data(a.seed, dev)
    n = Xtr.shape[0]
    folds = torch.randperm(n, device=dev).tensor_split(a.folds)
    for k in range(a.folds):
        va = folds[k]
        tr = torch.cat([folds[j] for j in range(a.folds) if j != k])
        X, y, Xv, yv = Xtr[tr], ytr[tr], Xtr[va], ytr[va]
        t = Trainer(dev, a.batch, graphs)
        for _ in range(a.epochs):
            t.epoch(X, y, a.batch)
            t.evaluate(Xv, yv)
        print(f"fold {k + 1}/{a.folds}: train loss {t.evaluate(X, y):.5f}, "
              f"validation loss {t.evaluate(Xv, yv):.5f}")
    final = Trainer(dev, a.batch, graphs)
    for _ in range(a.epochs):
        final.epoch(Xtr, ytr, a.batch)
    with torch.no_grad():
        mse = final.loss_fn(final.model(Xte), yte).item()
    seconds = time.perf_counter() - t0
    steps = (a.folds * (n - n // a.folds) // a.batch + n // a.batch) * a.epochs
    print(f"Test MSE: {mse:.5f}")
    print(f"time: {seconds:.2f} s on {dev} ({a.mode}; torch {torch.__version__}), "
          f"{steps} steps, {seconds / steps * 1e6:.1f} us per step overall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
