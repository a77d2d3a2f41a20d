"""The seed's training program in Python, on plexus.

A small network (10 -> 64 -> 32 -> 1, ReLU) trained with Adam (lr 1e-3) on
synthetic regression data under 5-fold cross-validation, then on the whole
training set, scored on a held-out test set. The device comes from
plexus.toml (or PLEXUS_DEVICE); --compile runs each step through px.compile.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/train.py [--compile]

Saves the loss curves with matplotlib (Debian's python3-matplotlib) when it
is installed.
"""
import argparse
import os
import sys
import time

import numpy as np

import plexus as px


class SimpleNN(px.nn.Module):
    def __init__(self, device):
        super().__init__()
        self.fc1 = px.nn.Linear(10, 64, device=device)
        self.fc2 = px.nn.Linear(64, 32, device=device)
        self.fc3 = px.nn.Linear(32, 1, device=device)
        self.relu = px.nn.ReLU()

    def forward(self, x):
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def make_data(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((1000, 10)).astype(np.float32)
    w = rng.standard_normal((10, 1)).astype(np.float32)
    y = X @ w + 0.1 * rng.standard_normal((1000, 1)).astype(np.float32)
    order = rng.permutation(1000)
    train, test = order[:800], order[800:]
    mean, std = X[train].mean(0), X[train].std(0)  # StandardScaler, fitted on train
    return (X[train] - mean) / std, y[train], (X[test] - mean) / std, y[test]


def kfold(n, k, rng):
    order = rng.permutation(n)
    folds = np.array_split(order, k)
    for i in range(k):
        yield np.concatenate([folds[j] for j in range(k) if j != i]), folds[i]


class Trainer:
    def __init__(self, device, compiled):
        self.model = SimpleNN(device)
        self.criterion = px.nn.MSELoss()
        self.optimizer = px.optim.Adam(list(self.model.named_parameters()), lr=1e-3,
                                       capturable=compiled)
        self.compiled = px.compile(self.train_step) if compiled else None
        self.step = self.compiled or self.train_step

    def train_step(self, xb, yb):
        loss = self.criterion(self.model(xb), yb)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss

    def epoch(self, X, y, batch, rng):
        # A shuffled copy of the rows (embedding is a row gather).
        order = px.tensor(rng.permutation(X.shape[0])).to(X.device)
        xs, ys = px.embedding(X, order), px.embedding(y, order)
        total = 0.0
        for start in range(0, X.shape[0], batch):
            xb, yb = xs[start:start + batch], ys[start:start + batch]
            total += self.step(xb, yb).item() * xb.shape[0]
        return total / X.shape[0]

    def evaluate(self, X, y):
        with px.no_grad():
            return self.criterion(self.model(X), y).item()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--compile", action="store_true", help="compile each training step")
    p.add_argument("--out", default=None, help="folder for the loss plot (default: temp dir)")
    a = p.parse_args()

    device = os.environ.get("PLEXUS_DEVICE") or str(px.runtime().device)
    print(f"device: {device}")
    t0 = time.time()
    Xtr, ytr, Xte, yte = make_data(a.seed)
    rng = np.random.default_rng(a.seed + 1)
    train_curve = np.zeros(a.epochs)
    val_curve = np.zeros(a.epochs)
    for k, (tr, va) in enumerate(kfold(len(Xtr), a.folds, rng)):
        X, y = px.tensor(Xtr[tr], device=device), px.tensor(ytr[tr], device=device)
        Xv, yv = px.tensor(Xtr[va], device=device), px.tensor(ytr[va], device=device)
        t = Trainer(device, a.compile)
        for e in range(a.epochs):
            train_curve[e] += t.epoch(X, y, a.batch, rng) / a.folds
            val_curve[e] += t.evaluate(Xv, yv) / a.folds
        print(f"fold {k + 1}/{a.folds}: train loss {t.evaluate(X, y):.5f}, "
              f"validation loss {t.evaluate(Xv, yv):.5f}")
    final = Trainer(device, a.compile)
    X, y = px.tensor(Xtr, device=device), px.tensor(ytr, device=device)
    for e in range(a.epochs):
        final.epoch(X, y, a.batch, rng)
    with px.no_grad():
        pred = final.model(px.tensor(Xte, device=device)).cpu().numpy()
    mse = float(np.mean((pred - yte) ** 2))
    r2 = 1 - mse / float(np.var(yte))
    print(f"cross-validation ({a.folds} folds, {a.epochs} epochs): last epoch train loss "
          f"{train_curve[-1]:.5f}, validation loss {val_curve[-1]:.5f}")
    print(f"Test MSE: {mse:.5f}")
    print(f"Test R^2: {r2:.5f}")
    print(f"time: {time.time() - t0:.2f} s on {device}{', compiled' if a.compile else ''}")
    if final.compiled is not None:
        s = final.compiled.stats
        print(f"compiled steps of the final model: {s.replays} replayed, {s.captures} captured, "
              f"{s.eager_calls} eager")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("loss plot: skipped (python3-matplotlib is not installed)")
        return 0
    out = a.out or os.environ.get("TMPDIR", "/tmp")
    os.makedirs(out, exist_ok=True)
    plt.plot(train_curve, label="train (mean over folds)")
    plt.plot(val_curve, label="validation (mean over folds)")
    plt.xlabel("epoch")
    plt.ylabel("MSE")
    plt.yscale("log")
    plt.legend()
    path = os.path.join(out, "plexus-train-losses-python.png")
    plt.savefig(path)
    print(f"loss plot: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
