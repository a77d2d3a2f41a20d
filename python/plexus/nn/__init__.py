"""Modules in the style of torch.nn, written in Python over plexus ops.

Parameters, buffers and submodules are registered by assigning them to
attributes, as in PyTorch:

    class SimpleNN(px.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = px.nn.Linear(10, 64)
            self.fc2 = px.nn.Linear(64, 1)
            self.register_buffer("scale", px.ones(1))
        def forward(self, x):
            return self.fc2(self.fc1(x).relu()) * self.scale

A tensor assigned to an attribute is a parameter when it is a leaf that
requires grad (plexus has no Parameter class: `Parameter(t)` makes such a
leaf). A buffer is state that is saved and moved with the module but not
trained (register_buffer). Forward hooks run around forward() and may
replace its arguments or its result; backward hooks are tensors' own
(Tensor.register_hook).
"""
import math
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Optional, Set

from .. import _plexus
from .._plexus import Tensor
from . import functional

__all__ = [
    "Parameter", "Module", "RemovableHandle", "Identity", "Linear", "Conv2d", "MaxPool2d",
    "Dropout", "ReLU", "SiLU", "Tanh", "Sigmoid", "GELU", "Softmax", "LogSoftmax", "Flatten",
    "LayerNorm", "BatchNorm1d", "BatchNorm2d", "Embedding", "Sequential", "ModuleList",
    "ModuleDict", "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "functional",
]


def Parameter(t, requires_grad=True):
    """A leaf tensor that requires grad (a detached copy of t's values)."""
    p = t.detach().clone()
    p.requires_grad_(requires_grad)
    return p


def _is_parameter(value):
    return isinstance(value, Tensor) and value.requires_grad and value.is_leaf


class RemovableHandle:
    """What register_*_hook returns: remove() unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


_IncompatibleKeys = namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class Module:
    # Set in __init__ (through object.__setattr__); declared for type checkers.
    _parameters: "OrderedDict[str, Optional[Tensor]]"
    _buffers: "OrderedDict[str, Optional[Tensor]]"
    _non_persistent: Set[str]
    _modules: "OrderedDict[str, Optional[Module]]"
    _forward_pre_hooks: "OrderedDict[int, Callable[..., Any]]"
    _forward_hooks: "OrderedDict[int, Callable[..., Any]]"
    training: bool

    def __init__(self):
        set_ = object.__setattr__
        set_(self, "_parameters", OrderedDict())
        set_(self, "_buffers", OrderedDict())
        set_(self, "_non_persistent", set())
        set_(self, "_modules", OrderedDict())
        set_(self, "_forward_pre_hooks", OrderedDict())
        set_(self, "_forward_hooks", OrderedDict())
        set_(self, "training", True)

    def _forget(self, name):
        self._parameters.pop(name, None)
        self._buffers.pop(name, None)
        self._non_persistent.discard(name)
        self._modules.pop(name, None)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("call super().__init__() before assigning to a Module")
        if name in self._buffers and (value is None or isinstance(value, Tensor)):
            self._buffers[name] = value  # a buffer stays a buffer, as in PyTorch
        elif isinstance(value, Module):
            self._forget(name)
            self._modules[name] = value
        elif _is_parameter(value) or (value is None and name in self._parameters):
            self._forget(name)
            self._parameters[name] = value
        else:
            self._forget(name)
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only reached for names that are not set: registered parameters,
        # buffers and submodules are plain attributes. Declared so that type
        # checkers accept them (model.fc1, self.running_mean).
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        self._forget(name)
        object.__delattr__(self, name)

    # Registration by name, for names chosen at run time.
    def _check_name(self, kind, name):
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"{kind} name must be a non-empty string without '.', got {name!r}")
        if name in self.__dict__ and name not in self._parameters and \
                name not in self._buffers and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists and is not a {kind}")

    def register_parameter(self, name, param):
        """Adds `param` (a leaf that requires grad, or None) as a parameter."""
        self._check_name("parameter", name)
        if param is not None and not _is_parameter(param):
            raise ValueError(f"register_parameter('{name}'): expected a leaf tensor that requires "
                             "grad (px.nn.Parameter(t)) or None")
        self._forget(name)
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def register_buffer(self, name, tensor, persistent=True):
        """Adds `tensor` (or None) as a buffer: moved by to(), saved in state_dict
        unless persistent=False, never trained."""
        self._check_name("buffer", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer('{name}'): expected a Tensor or None, "
                            f"got {type(tensor).__name__}")
        self._forget(name)
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)
        object.__setattr__(self, name, tensor)

    def add_module(self, name, module):
        self._check_name("module", name)
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module('{name}'): expected a Module, got {type(module).__name__}")
        self._forget(name)
        self._modules[name] = module
        object.__setattr__(self, name, module)

    register_module = add_module

    def get_submodule(self, target):
        m = self
        for part in target.split(".") if target else []:
            child = m._modules.get(part)
            if child is None:
                raise AttributeError(f"{type(m).__name__} has no submodule '{part}' "
                                     f"(looking up '{target}')")
            m = child
        return m

    # Forward and its hooks.
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward()")

    def register_forward_pre_hook(self, hook):
        """hook(module, args) runs before forward; a result other than None
        replaces the positional arguments (a tuple, or one value)."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        """hook(module, args, output) runs after forward; a result other than
        None replaces the output."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def __call__(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            r = hook(self, args, out)
            if r is not None:
                out = r
        return out

    # Walking the tree.
    def named_children(self):
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self):
        return [m for _, m in self.named_children()]

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, m in self.named_children():
            yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self):
        return [m for _, m in self.named_modules()]

    def _named(self, table, prefix):
        for path, m in self.named_modules(prefix):
            for name, t in getattr(m, table).items():
                if t is not None:
                    yield (f"{path}.{name}" if path else name), t

    def named_parameters(self, prefix=""):
        return self._named("_parameters", prefix)

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def named_buffers(self, prefix=""):
        return self._named("_buffers", prefix)

    def buffers(self):
        return [b for _, b in self.named_buffers()]

    def apply(self, fn):
        """Calls fn on every submodule, children first, then on self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad = _plexus.zeros_like(p.grad)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError(f"train: mode is a bool, got {mode!r}")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def to(self, device=None, dtype=None):
        """Moves every parameter and buffer to `device` and/or converts the
        floating ones to `dtype`: to("vulkan:0"), to(px.float64), to(d, dtype).
        Parameters become new leaves, as with PyTorch's .to()."""
        if isinstance(device, _plexus.dtype):
            device, dtype = None, device
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"Module.to: dtype must be floating point, got {dtype}")

        def convert(t):
            if device is not None:
                t = t.to(device)
            if dtype is not None and t.dtype.is_floating_point:
                t = t.to(dtype)
            return t

        for m in self.modules():
            for name, p in list(m._parameters.items()):
                if p is not None:
                    m._parameters[name] = Parameter(convert(p), p.requires_grad)
                    object.__setattr__(m, name, m._parameters[name])
            for name, b in list(m._buffers.items()):
                if b is not None:
                    m._buffers[name] = convert(b)
                    object.__setattr__(m, name, m._buffers[name])
        return self

    def cpu(self):
        return self.to("cpu")

    def float(self):
        return self.to(dtype=_plexus.dtype.float32)

    def double(self):
        return self.to(dtype=_plexus.dtype.float64)

    # State.
    def state_dict(self, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name (detached unless keep_vars)."""
        out = OrderedDict()
        for path, m in self.named_modules(prefix.rstrip(".")):
            head = f"{path}." if path else ""
            for name, p in m._parameters.items():
                if p is not None:
                    out[head + name] = p if keep_vars else p.detach()
            for name, b in m._buffers.items():
                if b is not None and name not in m._non_persistent:
                    out[head + name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state, strict=True):
        """Copies values into the parameters and buffers (converting dtype and
        device). Strict: missing and unexpected keys are errors; a mis-shaped
        value always is. Nothing changes unless every check passes. Returns
        (missing_keys, unexpected_keys)."""
        own = self.state_dict(keep_vars=True)
        missing = sorted(set(own) - set(state))
        unexpected = sorted(set(state) - set(own))
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict: missing {missing}, unexpected {unexpected}")
        for name, t in state.items():
            if name not in own:
                continue
            if not isinstance(t, Tensor):
                raise TypeError(f"load_state_dict: {name} is a {type(t).__name__}, not a Tensor")
            if tuple(t.shape) != tuple(own[name].shape):
                raise ValueError(f"load_state_dict: {name} has shape {tuple(t.shape)}, "
                                 f"expected {tuple(own[name].shape)}")
        with _plexus._GradMode(False):
            for name, t in state.items():
                if name in own:
                    target = own[name]
                    target[...] = t.to(target.device, target.dtype)
        return _IncompatibleKeys(missing, unexpected)

    def extra_repr(self):
        """The text inside this module's parentheses in repr()."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        children = [f"({name}): " + repr(m).replace("\n", "\n  ")
                    for name, m in self.named_children()]
        if not children:
            return f"{type(self).__name__}({extra})"
        lines = ([extra] if extra else []) + children
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


_default_generator = _plexus.Generator(0)


def _on(t, device):
    """t moved to `device`, or t itself when no device is given."""
    return t if device is None else t.to(device)


def _uniform(shape, bound, gen, device):
    """A tensor of `shape` drawn uniformly from [-bound, bound) (PyTorch's default
    initialisation of Linear and Conv2d), on `device`."""
    return _on(_plexus.rand(*shape, generator=gen) * (2 * bound) - bound, device)


class Identity(Module):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return x


class Linear(Module):
    """y = x W^T + b, initialized as PyTorch does: uniform in +-1/sqrt(in_features)."""

    def __init__(self, in_features, out_features, bias=True, generator=None, device=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        gen = generator if generator is not None else _default_generator
        bound = 1.0 / math.sqrt(in_features)
        self.weight = Parameter(_uniform((out_features, in_features), bound, gen, device))
        if bias:
            self.bias = Parameter(_uniform((out_features,), bound, gen, device))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return functional.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


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
        self.weight = Parameter(_uniform((out_channels, in_channels // groups, kh, kw), bound, gen,
                                         device))
        if bias:
            self.bias = Parameter(_uniform((out_channels,), bound, gen, device))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return _batched("conv2d", x, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)

    def extra_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={tuple(self.kernel_size)}, "
                f"stride={tuple(self.stride)}, padding={tuple(self.padding)}")


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

    def extra_repr(self):
        return (f"kernel_size={tuple(self.kernel_size)}, stride={tuple(self.stride)}, "
                f"padding={tuple(self.padding)}")


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
        self._gen = generator

    def forward(self, x):
        return functional.dropout(x, self.p, self.training, self._gen)

    def extra_repr(self):
        return f"p={self.p}"


class _Elementwise(Module):
    op = ""  # the catalog op

    def forward(self, x):
        return _plexus._call_op(self.op, x)


class ReLU(_Elementwise):
    op = "relu"


class SiLU(_Elementwise):
    op = "silu"


class Tanh(_Elementwise):
    op = "tanh"


class Sigmoid(_Elementwise):
    op = "sigmoid"


class GELU(Module):
    """gelu, exact ("none") or with the tanh approximation ("tanh")."""

    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x):
        return functional.gelu(x, self.approximate)

    def extra_repr(self):
        return f"approximate='{self.approximate}'"


class Softmax(Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return functional.softmax(x, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, x):
        return functional.log_softmax(x, self.dim)


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class LayerNorm(Module):
    """Normalizes over the last dims (normalized_shape), with weight 1 and bias 0
    to start."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None):
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        if not shape or any(not isinstance(s, int) or s < 1 for s in shape):
            raise ValueError(f"LayerNorm: normalized_shape must be positive ints, "
                             f"got {normalized_shape!r}")
        self.normalized_shape, self.eps = tuple(shape), eps
        if elementwise_affine:
            self.weight = Parameter(_on(_plexus.ones(*shape), device))
            self.bias = Parameter(_on(_plexus.zeros(*shape), device))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x):
        return functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.weight is not None}")


class _BatchNorm(Module):
    """Batch normalization over dim 1 (channels), with running statistics kept
    as buffers: running_mean, running_var and num_batches_tracked."""

    dims: tuple = ()  # the input ranks taken

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(_on(_plexus.ones(num_features), device))
            self.bias = Parameter(_on(_plexus.zeros(num_features), device))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _on(_plexus.zeros(num_features), device))
            self.register_buffer("running_var", _on(_plexus.ones(num_features), device))
            self.register_buffer("num_batches_tracked",
                                 _on(_plexus.zeros(1, dtype=_plexus.dtype.int64).reshape([]),
                                     device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, x):
        if x.dim() not in self.dims or x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}({self.num_features}): expected "
                             f"{' or '.join(f'{d}-d' for d in self.dims)} input with "
                             f"{self.num_features} channels in dim 1, got shape {tuple(x.shape)}")
        # Batch statistics in training, and in eval when none are tracked.
        use_batch = self.training or self.running_mean is None
        if self.training and self.num_batches_tracked is not None:
            with _plexus._GradMode(False):
                self.num_batches_tracked[...] = self.num_batches_tracked + 1
        return functional.batch_norm(x, self.running_mean, self.running_var, self.weight,
                                     self.bias, use_batch, self.momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Over [N, C] or [N, C, L]."""
    dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Over [N, C, H, W]."""
    dims = (4,)


class Embedding(Module):
    """A lookup table of num_embeddings rows, initialised from N(0, 1) as in
    PyTorch (the padding_idx row zero; it gets no gradient)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, generator=None,
                 device=None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx {padding_idx} is out of range for "
                                 f"{num_embeddings} embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = padding_idx
        w = _plexus.randn(num_embeddings, embedding_dim,
                          generator=generator if generator is not None else _default_generator)
        if padding_idx is not None:
            w[padding_idx] = 0.0
        self.weight = Parameter(_on(w, device))

    def forward(self, indices):
        return functional.embedding(indices, self.weight, self.padding_idx)

    def extra_repr(self):
        pad = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}"


class Sequential(Module):
    """Runs its modules in order; they are named "0", "1", ..."""

    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, i):
        items = list(self._modules.values())
        if isinstance(i, slice):
            return type(self)(*items[i])
        return items[i]


class ModuleList(Module):
    """A list of modules, registered as "0", "1", ... (no forward of its own)."""

    def __init__(self, modules=()):
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, i):
        items = list(self._modules.values())
        if isinstance(i, slice):
            return ModuleList(items[i])
        return items[i]

    def __setitem__(self, i, module):
        names = list(self._modules)
        setattr(self, names[i], module)


class ModuleDict(Module):
    """Modules by name, in insertion order (no forward of its own)."""

    def __init__(self, modules=None):
        super().__init__()
        for name, m in (dict(modules) if modules is not None else {}).items():
            self[name] = m

    def __getitem__(self, name):
        return self._modules[name]

    def __setitem__(self, name, module):
        self.add_module(name, module)

    def __delitem__(self, name):
        delattr(self, name)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, name):
        return name in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()


class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        functional._reduction(type(self).__name__, reduction)
        self.reduction = reduction

    def extra_repr(self):
        return f"reduction='{self.reduction}'"


class MSELoss(_Loss):
    def forward(self, input, target):
        return functional.mse_loss(input, target, self.reduction)


class L1Loss(_Loss):
    def forward(self, input, target):
        return functional.l1_loss(input, target, self.reduction)


class NLLLoss(_Loss):
    """Negative log-likelihood of log-probabilities [N, C] at class indices [N]."""

    def forward(self, input, target):
        return functional.nll_loss(input, target, self.reduction)


class CrossEntropyLoss(_Loss):
    """Cross entropy of logits [N, C] against class indices [N]."""

    def forward(self, input, target):
        return functional.cross_entropy(input, target, self.reduction)
