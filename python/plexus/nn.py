"""Modules in the style of torch.nn, written in Python over plexus ops.

Parameters and submodules are registered by assigning them to attributes:

    class SimpleNN(px.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = px.nn.Linear(10, 64)
            self.fc2 = px.nn.Linear(64, 1)
        def forward(self, x):
            return self.fc2(self.fc1(x).relu())
"""
import math
from collections import OrderedDict

from . import _plexus
from ._plexus import Tensor


def Parameter(t, requires_grad=True):
    """A leaf tensor that requires grad (a detached copy of t's values)."""
    p = t.detach().clone()
    p.requires_grad_(requires_grad)
    return p


class Module:
    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("call super().__init__() before assigning to a Module")
        if isinstance(value, Module):
            self._modules[name] = value
            self._parameters.pop(name, None)
        elif isinstance(value, Tensor) and value.requires_grad and value.is_leaf:
            self._parameters[name] = value
            self._modules.pop(name, None)
        else:
            self._parameters.pop(name, None)
            self._modules.pop(name, None)
        object.__setattr__(self, name, value)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix=""):
        for name, p in self._parameters.items():
            yield prefix + name, p
        for name, m in self._modules.items():
            yield from m.named_parameters(prefix + name + ".")

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def named_modules(self, prefix=""):
        yield prefix.rstrip("."), self
        for name, m in self._modules.items():
            yield from m.named_modules(prefix + name + ".")

    def children(self):
        return list(self._modules.values())

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def train(self, mode=True):
        for _, m in self.named_modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def to(self, device):
        """Moves every parameter to `device` (new leaf tensors, as PyTorch's .to())."""
        for _, m in self.named_modules():
            for name, p in list(m._parameters.items()):
                setattr(m, name, Parameter(p.to(device), p.requires_grad))
        return self

    def state_dict(self):
        return OrderedDict((n, p.detach()) for n, p in self.named_parameters())

    def load_state_dict(self, state):
        own = dict(self.named_parameters())
        missing = sorted(set(own) - set(state))
        unexpected = sorted(set(state) - set(own))
        if missing or unexpected:
            raise KeyError(f"load_state_dict: missing {missing}, unexpected {unexpected}")
        for name, t in state.items():
            if tuple(t.shape) != tuple(own[name].shape):
                raise ValueError(f"load_state_dict: {name} has shape {tuple(t.shape)}, "
                                 f"expected {tuple(own[name].shape)}")
        with _plexus._GradMode(False):
            for name, t in state.items():
                own[name][...] = t.to(own[name].device)

    def __repr__(self):
        lines = [f"{type(self).__name__}("]
        for name, m in self._modules.items():
            lines.append(f"  ({name}): " + repr(m).replace("\n", "\n  "))
        return "\n".join(lines) + ")" if len(lines) > 1 else f"{type(self).__name__}()"


_default_generator = _plexus.Generator(0)


class Linear(Module):
    """y = x W^T + b, initialized as PyTorch does: uniform in +-1/sqrt(in_features)."""

    def __init__(self, in_features, out_features, bias=True, generator=None, device=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        gen = generator if generator is not None else _default_generator
        bound = 1.0 / math.sqrt(in_features)
        w = _plexus.rand(out_features, in_features, generator=gen) * (2 * bound) - bound
        self.weight = Parameter(w if device is None else w.to(device))
        if bias:
            b = _plexus.rand(out_features, generator=gen) * (2 * bound) - bound
            self.bias = Parameter(b if device is None else b.to(device))
        else:
            self.bias = None

    def forward(self, x):
        if self.bias is None:
            return x @ self.weight.t()
        return _plexus._call_op("linear", x, self.weight, self.bias)

    def __repr__(self):
        return (f"Linear(in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None})")


def _pair(name, v, low):
    """A window argument: one int (both dims) or two, each at least `low`."""
    two = [v, v] if isinstance(v, int) else list(v)
    if len(two) == 1:
        two = two * 2
    if len(two) != 2 or any(not isinstance(e, int) or e < low for e in two):
        raise ValueError(f"{name} takes one or two ints of at least {low}, got {v!r}")
    return two


def _batched(op, x, *args):
    """A 2-D window op over [N, C, H, W], or over [C, H, W] as a batch of one."""
    if x.dim() == 3:
        return _plexus._call_op(op, x.unsqueeze(0), *args).squeeze(0)
    return _plexus._call_op(op, x, *args)


class Conv2d(Module):
    """2-D convolution, initialized as PyTorch does: weight and bias uniform in
    +-1/sqrt(fan_in), fan_in = in_channels / groups * kH * kW."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, generator=None, device=None):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv2d({in_channels}, {out_channels}): groups={groups} must divide "
                             "both channel counts")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _pair("kernel_size", kernel_size, 1)
        self.stride = _pair("stride", stride, 1)
        self.padding = _pair("padding", padding, 0)
        self.dilation = _pair("dilation", dilation, 1)
        gen = generator if generator is not None else _default_generator
        kh, kw = self.kernel_size
        bound = 1.0 / math.sqrt(in_channels // groups * kh * kw)
        w = _plexus.rand(out_channels, in_channels // groups, kh, kw, generator=gen) * (2 * bound) - bound
        self.weight = Parameter(w if device is None else w.to(device))
        if bias:
            b = _plexus.rand(out_channels, generator=gen) * (2 * bound) - bound
            self.bias = Parameter(b if device is None else b.to(device))
        else:
            self.bias = None

    def forward(self, x):
        return _batched("conv2d", x, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)

    def __repr__(self):
        return (f"Conv2d({self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding})")


class MaxPool2d(Module):
    """2-D max pooling; stride defaults to kernel_size, as in PyTorch."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        super().__init__()
        self.kernel_size = _pair("kernel_size", kernel_size, 1)
        self.stride = self.kernel_size if stride is None else _pair("stride", stride, 1)
        self.padding = _pair("padding", padding, 0)
        self.dilation = _pair("dilation", dilation, 1)
        self.ceil_mode = ceil_mode

    def forward(self, x):
        return _batched("max_pool2d", x, self.kernel_size, self.stride, self.padding,
                        self.dilation, self.ceil_mode)


class Dropout(Module):
    """Zeroes each element with probability p in training and scales the rest by
    1 / (1 - p); the identity in eval. Masks are drawn on the input's device
    from the module's generator (default: the default generator of that
    device): the same seed gives the same masks on every device."""

    def __init__(self, p=0.5, generator=None):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"Dropout: p is a probability in [0, 1], got {p}")
        self.p = p
        object.__setattr__(self, "_gen", generator)

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return x * 0.0
        keep = _plexus.empty(*x.shape, dtype=x.dtype, device=str(x.device))
        _plexus.bernoulli_(keep, 1.0 - self.p, generator=self._gen)
        return x * (keep * (1.0 / (1.0 - self.p)))


class _Elementwise(Module):
    op = None

    def forward(self, x):
        return _plexus._call_op(self.op, x)


class ReLU(_Elementwise):
    op = "relu"


class Tanh(_Elementwise):
    op = "tanh"


class Sigmoid(_Elementwise):
    op = "sigmoid"


class GELU(_Elementwise):
    op = "gelu"


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return x.flatten(self.start_dim, self.end_dim)


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            setattr(self, str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        codes = {"none": 0, "mean": 1, "sum": 2}
        if reduction not in codes:
            raise ValueError(f"MSELoss: reduction must be one of {sorted(codes)}, got {reduction!r}")
        self.reduction = codes[reduction]

    def forward(self, input, target):
        return _plexus._call_op("mse_loss", input, target, self.reduction)
