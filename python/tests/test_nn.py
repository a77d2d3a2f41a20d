"""px.nn against torch.nn: module registration (parameters, buffers, submodules),
hooks, state dicts, and each layer's forward and gradients."""
import numpy as np
import pytest
import torch

import plexus as px
import plexus.nn.functional as F


def to_px(t, requires_grad=False):
    x = px.tensor(t.detach().numpy())
    if requires_grad:
        x.requires_grad_(True)
    return x


def copy_params(px_module, torch_module):
    """Gives the plexus module the torch module's parameter and buffer values."""
    state = {k: px.tensor(v.detach().numpy()) for k, v in torch_module.state_dict().items()}
    px_module.load_state_dict(state)


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


class Scaled(px.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = px.nn.Linear(3, 2, generator=px.Generator(1))
        self.register_buffer("scale", px.full([2], 2.0))
        self.register_buffer("calls", px.zeros(1), persistent=False)
        self.blocks = px.nn.ModuleList([px.nn.ReLU(), px.nn.Tanh()])

    def forward(self, x):
        y = self.fc(x) * self.scale
        for b in self.blocks:
            y = b(y)
        return y


def test_buffers_are_saved_and_moved_but_not_trained():
    m = Scaled()
    assert [n for n, _ in m.named_parameters()] == ["fc.weight", "fc.bias"]
    assert [n for n, _ in m.named_buffers()] == ["scale", "calls"]
    # As torch orders it: own parameters and buffers, then each child's; calls is not persistent.
    assert list(m.state_dict()) == ["scale", "fc.weight", "fc.bias"]
    assert [n for n, _ in m.named_modules()] == ["", "fc", "blocks", "blocks.0", "blocks.1"]
    assert m.get_submodule("blocks.1") is m.blocks[1]
    with pytest.raises(AttributeError, match="no submodule 'nope'"):
        m.get_submodule("blocks.nope")

    # Assigning a tensor to a buffer's name replaces the buffer.
    m.scale = px.full([2], 3.0)
    assert m.state_dict()["scale"].tolist() == [3.0, 3.0]

    m.double()
    assert m.fc.weight.dtype == px.float64 and m.scale.dtype == px.float64
    assert m.fc.weight.requires_grad and m.fc.weight.is_leaf
    assert m.parameters()[0] is m.fc.weight  # the table follows the attribute
    assert not m.scale.requires_grad

    other = Scaled()
    keys = other.load_state_dict(m.state_dict())
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    assert other.scale.dtype == px.float32 and other.scale.tolist() == [3.0, 3.0]
    x = px.randn(4, 3)
    np.testing.assert_allclose(other(x).detach().numpy(), m(x.to(px.float64)).detach().numpy(), rtol=1e-6)

    partial = {"scale": px.ones(2), "extra": px.ones(1)}
    with pytest.raises(KeyError, match=r"missing \['fc.bias', 'fc.weight'\], unexpected \['extra'\]"):
        other.load_state_dict(partial)
    keys = other.load_state_dict(partial, strict=False)
    assert keys.missing_keys == ["fc.bias", "fc.weight"] and keys.unexpected_keys == ["extra"]
    assert other.scale.tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="scale has shape"):
        other.load_state_dict({"scale": px.ones(3)}, strict=False)


def test_registration_by_name_and_removal():
    m = px.nn.Module()
    m.register_parameter("w", px.nn.Parameter(px.ones(2)))
    m.register_parameter("b", None)
    m.register_buffer("stat", None)
    m.add_module("inner", px.nn.Identity())
    assert [n for n, _ in m.named_parameters()] == ["w"]
    assert m.b is None and m.stat is None and len(m.children()) == 1
    with pytest.raises(ValueError, match="leaf tensor that requires grad"):
        m.register_parameter("x", px.ones(2))
    with pytest.raises(KeyError, match="without '.'"):
        m.register_buffer("a.b", px.ones(1))
    with pytest.raises(TypeError, match="expected a Tensor"):
        m.register_buffer("c", [1.0])
    del m.w
    assert m.parameters() == []
    seen = []
    px.nn.Sequential(px.nn.ReLU(), px.nn.Sequential(px.nn.Tanh())).apply(
        lambda mod: seen.append(type(mod).__name__))
    assert seen == ["ReLU", "Tanh", "Sequential", "Sequential"]
    frozen = px.nn.Linear(2, 2).requires_grad_(False)
    assert not any(p.requires_grad for p in frozen.parameters())


def test_forward_hooks_change_inputs_and_outputs_until_removed():
    lin = px.nn.Linear(2, 2, generator=px.Generator(5))
    x = px.randn(3, 2)
    plain = lin(x).detach().numpy()
    calls = []
    pre = lin.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    post = lin.register_forward_hook(lambda mod, args, out: calls.append(tuple(out.shape)))
    np.testing.assert_allclose(lin(x).detach().numpy(), lin.forward(x * 2).detach().numpy())
    assert calls == [(3, 2)]
    pre.remove()
    with lin.register_forward_hook(lambda mod, args, out: out * 0):
        assert lin(x).abs().sum().item() == 0
    assert calls == [(3, 2), (3, 2)]
    post.remove()
    np.testing.assert_array_equal(lin(x).detach().numpy(), plain)
    assert len(calls) == 2


def test_tensor_hooks_see_and_replace_gradients():
    x = px.tensor([1.0, 2.0, 3.0])
    x.requires_grad_(True)
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    handle = x.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    assert seen == [[6.0, 12.0, 18.0]]
    assert x.grad.tolist() == [180.0, 360.0, 540.0]  # 10 * 3 * 2y
    handle.remove()
    x.grad = None
    (x * 1.0).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]

    def fails(g):
        raise RuntimeError("hook says no")
    z = x * 2
    z.register_hook(fails)
    with pytest.raises(RuntimeError, match="hook says no"):
        z.sum().backward()
    w = x * 2
    w.register_hook(lambda g: "not a tensor")
    with pytest.raises(TypeError, match="must return a Tensor or None"):
        w.sum().backward()
    with pytest.raises(ValueError, match="does not require grad"):
        px.ones(2).register_hook(lambda g: g)


@pytest.mark.parametrize("make", [
    lambda: (torch.nn.SiLU(), px.nn.SiLU()),
    lambda: (torch.nn.GELU(approximate="tanh"), px.nn.GELU(approximate="tanh")),
    lambda: (torch.nn.Softmax(dim=1), px.nn.Softmax(dim=1)),
    lambda: (torch.nn.LogSoftmax(dim=0), px.nn.LogSoftmax(dim=0)),
    lambda: (torch.nn.LayerNorm([5]), px.nn.LayerNorm(5)),
    lambda: (torch.nn.LayerNorm([4, 5], elementwise_affine=False),
             px.nn.LayerNorm([4, 5], elementwise_affine=False)),
], ids=["silu", "gelu_tanh", "softmax", "log_softmax", "layer_norm", "layer_norm_plain"])
def test_layers_match_torch(make):
    torch_m, px_m = make()
    torch.manual_seed(0)
    for p in torch_m.parameters():  # not the trivial initial values
        torch.nn.init.uniform_(p, -1, 1)
    copy_params(px_m, torch_m)
    xt = torch.randn(3, 4, 5, requires_grad=True)
    xp = to_px(xt, requires_grad=True)
    yt, yp = torch_m(xt), px_m(xp)
    close(yp, yt)
    weight = torch.randn(yt.shape)
    (yt * weight).sum().backward()
    (yp * to_px(weight)).sum().backward()
    close(xp.grad, xt.grad, rtol=1e-4, atol=1e-5)
    for (name, pp), (_, pt) in zip(px_m.named_parameters(), torch_m.named_parameters()):
        close(pp.grad, pt.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (8, 3)), ("BatchNorm1d", (8, 3, 5)),
                                       ("BatchNorm2d", (4, 3, 5, 2))])
def test_batch_norm_matches_torch_in_training_and_eval(cls, shape):
    torch.manual_seed(1)
    tm = getattr(torch.nn, cls)(3, momentum=0.2)
    pm = getattr(px.nn, cls)(3, momentum=0.2)
    torch.nn.init.uniform_(tm.weight, 0.5, 1.5)
    torch.nn.init.uniform_(tm.bias, -1, 1)
    copy_params(pm, tm)
    assert list(pm.state_dict()) == list(tm.state_dict())
    for _ in range(3):
        xt = torch.randn(*shape) * 3 + 1
        xt.requires_grad_(True)
        xp = to_px(xt, requires_grad=True)
        yt, yp = tm(xt), pm(xp)
        close(yp, yt, rtol=1e-4, atol=1e-5)
        weight = torch.randn(shape)
        (yt * weight).sum().backward()
        (yp * to_px(weight)).sum().backward()
        close(xp.grad, xt.grad, rtol=1e-4, atol=1e-4)
    close(pm.weight.grad, tm.weight.grad, rtol=1e-4, atol=1e-4)
    close(pm.bias.grad, tm.bias.grad, rtol=1e-4, atol=1e-4)
    close(pm.running_mean, tm.running_mean)
    close(pm.running_var, tm.running_var, rtol=1e-5)
    assert pm.num_batches_tracked.item() == tm.num_batches_tracked.item() == 3
    tm.eval()
    pm.eval()
    xt = torch.randn(*shape)
    close(pm(to_px(xt)), tm(xt), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="3 channels in dim 1"):
        pm(px.ones(2, 4))


def test_embedding_matches_torch_and_keeps_the_padding_row():
    tm = torch.nn.Embedding(6, 3, padding_idx=2)
    pm = px.nn.Embedding(6, 3, padding_idx=2)
    assert pm.weight[2].abs().sum().item() == 0
    copy_params(pm, tm)
    idx = torch.tensor([[0, 2, 5], [2, 1, 0]])
    yt, yp = tm(idx), pm(px.tensor(idx.numpy()))
    close(yp, yt)
    yt.pow(2).sum().backward()
    yp.pow(2).sum().backward()
    close(pm.weight.grad, tm.weight.grad)
    assert pm.weight.grad[2].abs().sum().item() == 0
    with pytest.raises(ValueError, match="padding_idx 6 is out of range"):
        px.nn.Embedding(6, 3, padding_idx=6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(reduction):
    torch.manual_seed(2)
    logits = torch.randn(5, 4, requires_grad=True)
    labels = torch.tensor([3, 0, 1, 1, 2])
    pl = to_px(logits, requires_grad=True)
    plabels = px.tensor(labels.numpy())
    for tl, pf in [(torch.nn.CrossEntropyLoss(reduction=reduction),
                    px.nn.CrossEntropyLoss(reduction=reduction)),
                   (torch.nn.NLLLoss(reduction=reduction), px.nn.NLLLoss(reduction=reduction))]:
        logits.grad, pl.grad = None, None
        lt, lp = tl(logits, labels), pf(pl, plabels)
        close(lp, lt)
        lt.sum().backward()
        lp.sum().backward()
        close(pl.grad, logits.grad)
    target = torch.randn(5, 4)
    close(px.nn.L1Loss(reduction)(pl, to_px(target)),
          torch.nn.L1Loss(reduction=reduction)(logits, target))
    with pytest.raises(ValueError, match="class indices must be in \\[0, 4\\)"):
        F.cross_entropy(pl, px.tensor([0, 1, 2, 3, 4]))
    with pytest.raises(ValueError, match="reduction must be one of"):
        px.nn.CrossEntropyLoss(reduction="avg")


def test_containers_register_their_modules():
    seq = px.nn.Sequential(px.nn.Linear(2, 3), px.nn.ReLU())
    seq.append(px.nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[1], px.nn.ReLU)
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(seq[:2]) == 2
    heads = px.nn.ModuleDict({"a": px.nn.Linear(2, 2), "b": px.nn.Linear(2, 1, bias=False)})
    assert list(heads) == ["a", "b"] and "b" in heads
    assert [n for n, _ in heads.named_parameters()] == ["a.weight", "a.bias", "b.weight"]
    del heads["a"]
    assert [n for n, _ in heads.named_parameters()] == ["b.weight"]
    assert repr(px.nn.Sequential(px.nn.Linear(2, 1))) == (
        "Sequential(\n  (0): Linear(in_features=2, out_features=1, bias=True)\n)")
