"""The seed's training step from Python, eager against compiled, in one run and
without torch in the process (torch sets one OpenMP thread for all).

    PYTHONPATH=build/python /usr/bin/python3 bench/seed_step.py
    PYTHONPATH=build/python OMP_NUM_THREADS=1 /usr/bin/python3 bench/seed_step.py

SimpleNN 10 -> 64 -> 32 -> 1 (ReLU), MSE loss, capturable Adam, at batch 32
and 800. Each figure is the best of 5 runs of 300 steps, in microseconds per
step.
"""
import timeit

import plexus as px


class SimpleNN(px.nn.Module):
    def __init__(self, gen):
        super().__init__()
        self.fc1 = px.nn.Linear(10, 64, generator=gen)
        self.fc2 = px.nn.Linear(64, 32, generator=gen)
        self.fc3 = px.nn.Linear(32, 1, generator=gen)

    def forward(self, x):
        return self.fc3(self.fc2(self.fc1(x).relu()).relu())


def main():
    for batch in (32, 800):
        model = SimpleNN(px.Generator(1))
        opt = px.optim.Adam(list(model.named_parameters()), lr=1e-3, capturable=True)

        def step(x, y):
            loss = px.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss

        compiled = px.compile(step)
        x, y = px.randn(batch, 10), px.randn(batch, 1)
        for _ in range(5):
            compiled(x, y)
        eager_us = min(timeit.repeat(lambda: step(x, y), number=300, repeat=5)) / 300 * 1e6
        compiled_us = min(timeit.repeat(lambda: compiled(x, y), number=300, repeat=5)) / 300 * 1e6
        print(f"step_b{batch:<4} eager {eager_us:8.1f} us   compiled {compiled_us:8.1f} us   "
              f"ratio {eager_us / compiled_us:.2f}")


if __name__ == "__main__":
    main()
