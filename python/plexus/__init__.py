"""plexus: a multi-backend tensor runtime, for Python.

    import plexus as px
    x = px.tensor([[1., 2.], [3., 4.]], device="vulkan:0")
    y = (x @ x.T).relu().sum(dim=[1])
    print(y.cpu().tolist(), px.runtime().explain())

Importing plexus opens its runtime: it reads plexus.toml (PLEXUS_CONFIG,
./plexus.toml, $XDG_CONFIG_HOME/plexus/) and loads the plugins it allows.
Every catalog op is a function here and a method of Tensor; `plexus ops`
lists them.
"""
from . import _plexus
from ._plexus import (  # noqa: F401
    Device, Generator, Runtime, Tensor, CompiledFunction, CompileStats, arange, bernoulli_, compile,
    default_generator, empty, normal_, uniform_,
    from_dlpack, from_numpy, full, is_grad_enabled, load_safetensors, manual_seed, ones, ones_like, plugins,
    rand, randn, randperm, runtime, save_safetensors, set_grad_enabled, tensor, trace, zeros,
    zeros_like)
from ._plexus import dtype  # noqa: F401

# dtypes by name, as torch spells them.
bool = dtype.bool  # noqa: A001 (shadows the builtin inside this module only, as torch does)
uint8, int8, int16, int32, int64 = dtype.uint8, dtype.int8, dtype.int16, dtype.int32, dtype.int64
float16, bfloat16, float32, float64 = dtype.float16, dtype.bfloat16, dtype.float32, dtype.float64
half, float, double, long, int = float16, float32, float64, int64, int32  # noqa: A001


def init(config=None):
    """The runtime, opened with `config` (a plexus.toml path) if it is not open yet.

    Importing plexus already opens it with the default search; to pick a file
    for the whole process, set PLEXUS_CONFIG before importing plexus.
    """
    return _plexus.init(config)


class no_grad:
    """Context manager (and decorator) that turns gradient recording off."""

    def __init__(self, func=None):
        self._mode = _plexus._GradMode(False)
        self._func = func

    def __enter__(self):
        self._mode.__enter__()

    def __exit__(self, *exc):
        self._mode.__exit__(*exc)

    def __call__(self, *args, **kwargs):
        with no_grad():
            return self._func(*args, **kwargs)


class enable_grad(no_grad):
    """Context manager that turns gradient recording back on."""

    def __init__(self, func=None):
        self._mode = _plexus._GradMode(True)
        self._func = func


_OP_NAMES = frozenset(_plexus._op_names())

# Every catalog op as a function: px.relu(x), px.add(x, y, alpha=2). Names
# that are also Python builtins (abs, all, max, ...) are plexus's inside this
# module, as in torch.
for _name in _OP_NAMES:
    if "::" not in _name and not hasattr(_plexus, _name):
        globals()[_name] = getattr(_plexus._ops, _name)


def op(name):
    """The op called `name`, including vendors' ("myvendor::fused_gelu")."""
    if name not in _OP_NAMES:
        raise AttributeError(f"plexus has no op '{name}' (`plexus ops` lists them)")
    return lambda *args, **kwargs: _plexus._call_op(name, *args, **kwargs)


_plexus.init(None)

from . import autograd, nn, optim  # noqa: E402,F401


def _register_hook(self, hook):
    """Runs hook(grad) each time this tensor's gradient is computed; a result
    other than None replaces the gradient. Returns a handle whose remove()
    turns the hook off."""
    hooks = {}
    handle = nn.RemovableHandle(hooks)
    hooks[handle.id] = hook

    def run(grad):
        h = hooks.get(handle.id)
        return None if h is None else h(grad)

    self._register_hook(run)
    return handle


Tensor.register_hook = _register_hook
