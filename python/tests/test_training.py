"""Autograd, nn, optim and compile from Python."""
import math

import numpy as np
import pytest

import plexus as px


def test_backward_gives_the_gradient():
    x = px.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    assert y.grad_fn is not None and x.is_leaf


def test_autograd_grad_returns_gradients_without_touching_grad():
    x = px.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = px.tensor([0.5, -1.0, 2.0], requires_grad=True)
    unused = px.ones(3, requires_grad=True)
    y = (x * x * w).sum()
    gx, gw = px.autograd.grad(y, [x, w], retain_graph=True)
    assert gx.tolist() == [1.0, -4.0, 12.0]  # 2 x w
    assert gw.tolist() == [1.0, 4.0, 9.0]    # x^2
    assert x.grad is None  # grad() returned them; nothing was accumulated
    (g,) = px.autograd.grad([y * 2], [w], grad_outputs=[px.tensor(0.5)], retain_graph=True)
    assert g.tolist() == [1.0, 4.0, 9.0]
    assert px.autograd.grad(y, [unused], allow_unused=True) == (None,)


def test_autograd_grad_refuses_what_it_cannot_do():
    x = px.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    with pytest.raises(Exception, match="not part of the graph"):
        px.autograd.grad(y, [px.ones(2, requires_grad=True)], retain_graph=True)
    with pytest.raises(Exception, match="create_graph"):
        px.autograd.grad(y, [x], create_graph=True)
    with pytest.raises(Exception, match="create_graph"):
        y.backward(create_graph=True)
    with pytest.raises(ValueError, match="grad_outputs"):
        px.autograd.grad([y], [x], grad_outputs=[None, None])


def test_no_grad_records_nothing():
    x = px.ones(2, requires_grad=True)
    with px.no_grad():
        y = x * 2
    assert not y.requires_grad
    assert px.is_grad_enabled()


class SimpleNN(px.nn.Module):
    def __init__(self, gen):
        super().__init__()
        self.fc1 = px.nn.Linear(10, 64, generator=gen)
        self.fc2 = px.nn.Linear(64, 32, generator=gen)
        self.fc3 = px.nn.Linear(32, 1, generator=gen)

    def forward(self, x):
        return self.fc3(self.fc2(self.fc1(x).relu()).relu())


def test_modules_register_parameters_by_attribute():
    model = SimpleNN(px.Generator(1))
    names = [n for n, _ in model.named_parameters()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias"]
    state = model.state_dict()
    other = SimpleNN(px.Generator(2))
    other.load_state_dict(state)
    x = px.randn(4, 10)
    np.testing.assert_array_equal(model(x).detach().numpy(), other(x).detach().numpy())
    with pytest.raises(KeyError, match="missing"):
        other.load_state_dict({})


def train(compiled, steps=8):
    gen = px.Generator(3)
    model = SimpleNN(gen)
    opt = px.optim.Adam(list(model.named_parameters()), lr=1e-2, capturable=True)
    loss_fn = px.nn.MSELoss()

    def step(x, y):
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    run = px.compile(step) if compiled else step
    data = px.Generator(4)
    losses = [run(px.randn(16, 10, generator=data), px.randn(16, 1, generator=data)).item()
              for _ in range(steps)]
    return losses, model, run


def test_a_compiled_training_step_matches_eager():
    eager, m_eager, _ = train(False)
    compiled, m_compiled, run = train(True)
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)
    assert run.stats.replays >= 4 and run.stats.eager_calls == 0
    assert "adam_step_" in run.graph() and "placeholder" in run.graph()  # one list step
    w1 = m_eager.fc1.weight.detach().numpy()
    w2 = m_compiled.fc1.weight.detach().numpy()
    assert np.abs(w1 - w2).max() <= 1e-5 * np.abs(w1).max()


def test_backward_through_a_compiled_forward_matches_eager():
    eager, model = SimpleNN(px.Generator(6)), SimpleNN(px.Generator(6))
    forward = px.compile(model)
    data = px.Generator(7)
    for _ in range(5):
        x, y = px.randn(16, 10, generator=data), px.randn(16, 1, generator=data)
        px.mse_loss(eager(x), y).backward()
        out = forward(x)
        assert out.requires_grad
        px.mse_loss(out, y).backward()
    assert out.grad_fn == "CompiledFunctionBackward"
    assert forward.stats.replays == 3 and forward.stats.eager_calls == 0
    for (name, a), (_, b) in zip(eager.named_parameters(), model.named_parameters()):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=name)


def test_learning_rate_changes_reach_a_compiled_step():
    gen = px.Generator(5)
    model = SimpleNN(gen)
    opt = px.optim.Adam(list(model.named_parameters()), lr=1e-3, capturable=True)

    @px.compile
    def step(x, y):
        loss = px.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    x, y = px.randn(8, 10), px.randn(8, 1)
    for i in range(20):
        opt.lr = 1e-3 * math.cos(i / 20)
        step(x, y)
    assert step.stats.recaptures == 0 and step.stats.replays == 17


def test_compile_reports_a_graph_break():
    @px.compile
    def f(x):
        return x * 2 if (x.sum().item() > 0) else x * -1

    for v in [1.0, -1.0, 2.0]:
        assert f(px.full([2], v)).tolist() == ([v * 2] * 2 if v > 0 else [-v] * 2)
    assert "item()" in f.eager_reason


def test_trace_prints_a_step_without_running_it():
    gen = px.Generator(5)
    model = SimpleNN(gen)
    opt = px.optim.Adam(list(model.named_parameters()), lr=1e-2, capturable=True)
    before = model.fc1.weight.detach().numpy().copy()

    def step(x, y):
        loss = px.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    x, y = px.randn(8, 10), px.randn(8, 1)
    table = px.trace(step, x, y, names=list(model.named_parameters()))
    assert "addmm" in table and "threshold_backward" in table and "fc1_weight" in table
    # Nothing ran: the weights are as they were and no gradient is left.
    np.testing.assert_array_equal(model.fc1.weight.detach().numpy(), before)
    assert model.fc1.weight.grad is None
    with pytest.raises(TypeError):
        px.trace(step, x, 3)
    with pytest.raises(NotImplementedError, match="item"):
        px.trace(lambda t: t * t.sum().item(), x)


def test_safetensors_round_trip(tmp_path):
    t = {"w": px.randn(3, 4), "i": px.arange(5)}
    px.save_safetensors(str(tmp_path / "m.safetensors"), t, {"format": "pt"})
    back = px.load_safetensors(str(tmp_path / "m.safetensors"))
    assert sorted(back) == ["i", "w"]
    np.testing.assert_array_equal(back["w"].numpy(), t["w"].numpy())
    with pytest.raises((LookupError, OSError)):
        px.load_safetensors(str(tmp_path / "missing.safetensors"))


def test_conv_pool_dropout_modules_train():
    gen = px.Generator(3)
    conv = px.nn.Conv2d(1, 1, 2, stride=2, generator=gen)
    assert tuple(conv.weight.shape) == (1, 1, 2, 2)
    assert all(abs(v) <= 0.5 for v in conv.weight.detach().numpy().ravel())  # 1/sqrt(4)
    net = px.nn.Sequential(conv, px.nn.MaxPool2d(4), px.nn.Flatten(),
                           px.nn.Linear(1, 1, generator=gen))
    x = px.randn(64, 1, 8, 8, generator=gen)
    blocks = x.numpy().reshape(64, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(64, 16)
    y = px.tensor(blocks.max(axis=1, keepdims=True))
    opt = px.optim.Adam(net.named_parameters(), lr=0.01)
    first = None
    for _ in range(200):
        opt.zero_grad()
        loss = px.mse_loss(net(x), y)
        first = first if first is not None else loss.item()
        loss.backward()
        opt.step()
    assert loss.item() < first / 4
    # Unbatched input goes through as a batch of one.
    assert tuple(conv(px.randn(1, 8, 8, generator=gen)).shape) == (1, 4, 4)
    with pytest.raises(ValueError, match="groups=3"):
        px.nn.Conv2d(4, 6, 3, groups=3)

    drop = px.nn.Dropout(0.25, generator=px.Generator(4))
    ones = px.ones(200, 50)
    kept = drop(ones).numpy()
    assert abs((kept == 0).mean() - 0.25) < 0.03
    np.testing.assert_allclose(kept[kept != 0], 1 / 0.75, rtol=1e-6)
    drop.eval()
    np.testing.assert_array_equal(drop(ones).numpy(), ones.numpy())


def test_lr_schedulers_follow_torch():
    torch = pytest.importorskip("torch")
    for make_px, make_torch in [
        (lambda o: px.optim.lr_scheduler.StepLR(o, step_size=4, gamma=0.3),
         lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=4, gamma=0.3)),
        (lambda o: px.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10, eta_min=1e-3),
         lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10, eta_min=1e-3)),
    ]:
        opt = px.optim.SGD([px.ones(2, requires_grad=True)], lr=0.1)
        topt = torch.optim.SGD([torch.ones(2, requires_grad=True)], lr=0.1)
        sched, tsched = make_px(opt), make_torch(topt)
        for _ in range(20):
            assert sched.get_last_lr()[0] == pytest.approx(tsched.get_last_lr()[0], rel=1e-9)
            assert opt.lr == sched.get_last_lr()[0]
            topt.step()
            sched.step()
            tsched.step()
        assert sched.last_epoch == tsched.last_epoch == 20


def test_optimizer_state_saves_and_resumes(tmp_path):
    def steps(model, opt, data, n):
        for _ in range(n):
            loss = px.mse_loss(model(px.randn(8, 10, generator=data)),
                               px.randn(8, 1, generator=data))
            opt.zero_grad()
            loss.backward()
            opt.step()

    whole = SimpleNN(px.Generator(6))
    whole_opt = px.optim.Adam(list(whole.named_parameters()), lr=1e-2)
    steps(whole, whole_opt, px.Generator(7), 6)

    first = SimpleNN(px.Generator(6))
    first_opt = px.optim.Adam(list(first.named_parameters()), lr=1e-2)
    data = px.Generator(7)
    steps(first, first_opt, data, 3)
    px.save_safetensors(str(tmp_path / "model.safetensors"), dict(first.state_dict()))
    first_opt.save(str(tmp_path / "optim.safetensors"))
    assert "fc1.weight.exp_avg" in first_opt.state_dict()

    resumed = SimpleNN(px.Generator(8))
    resumed.load_state_dict(px.load_safetensors(str(tmp_path / "model.safetensors")))
    resumed_opt = px.optim.Adam(list(resumed.named_parameters()), lr=1e-2)
    resumed_opt.load(str(tmp_path / "optim.safetensors"))
    steps(resumed, resumed_opt, data, 3)
    np.testing.assert_array_equal(resumed.fc2.weight.detach().numpy(),
                                  whole.fc2.weight.detach().numpy())
    with pytest.raises(ValueError, match="unexpected keys"):
        resumed_opt.load_state_dict({"fc7.weight.exp_avg": px.zeros(2)})


def test_adam_betas_can_change_between_steps():
    w = px.tensor([1.0, -2.0], requires_grad=True)
    opt = px.optim.Adam([("w", w)], lr=0.1, betas=(0.8, 0.9))
    assert opt.betas == (0.8, 0.9)
    opt.betas = (0.5, 0.6)
    assert opt.betas == (0.5, 0.6)
    with pytest.raises(ValueError, match="betas"):
        opt.betas = (1.5, 0.6)
    (w * w).sum().backward()
    opt.step()
    assert w.detach().tolist() != [1.0, -2.0]
