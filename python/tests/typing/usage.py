"""A typed program over plexus: python.stubs type-checks it with the generated
stubs (and runs it, so it stays true to the module)."""
from typing import List, Tuple

import numpy as np

import plexus as px
import plexus.nn.functional as F


class Net(px.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = px.nn.Linear(4, 8, generator=px.Generator(1))
        self.norm = px.nn.LayerNorm(8)
        self.fc2 = px.nn.Linear(8, 3, generator=px.Generator(2))

    def forward(self, x: px.Tensor) -> px.Tensor:
        return self.fc2(F.gelu(self.norm(self.fc1(x)), approximate="tanh"))


def train(steps: int) -> List[float]:
    model = Net()
    opt = px.optim.Adam(model.named_parameters(), lr=1e-2)
    sched = px.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    x = px.randn(16, 4, generator=px.Generator(3))
    labels = px.tensor(np.arange(16) % 3)
    losses: List[float] = []
    for _ in range(steps):
        opt.zero_grad()
        loss: px.Tensor = F.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


def ops() -> Tuple[px.Tensor, float]:
    a = px.ones(2, 3, dtype=px.float32)
    b: px.Tensor = px.add(a, 2, alpha=3).relu().sum([1], keepdim=True)
    c = px.where(a > 0, a, px.zeros_like(a)).mean()
    d: px.dtype = b.dtype
    dev: px.Device = a.device
    assert d == px.float32 and dev.type == "cpu"
    return b.to(px.float64), c.item()


if __name__ == "__main__":
    losses = train(10)
    assert losses[-1] < losses[0], losses
    print(ops())
