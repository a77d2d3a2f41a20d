"""Functions behind the modules of plexus.nn, as torch.nn.functional spells them.

    import plexus.nn.functional as F
    loss = F.cross_entropy(logits, labels)

Each is a catalog op or a short composite of them, so autograd, compile and
every device work as for the ops themselves.
"""
from .. import _plexus

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(name, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{name}: reduction must be one of {sorted(_REDUCTIONS)}, "
                         f"got {reduction!r}")
    return reduction


def _reduce(t, reduction):
    if reduction == "mean":
        return t.mean()
    if reduction == "sum":
        return t.sum()
    return t


def linear(input, weight, bias=None):
    if bias is None:
        return input @ weight.t()
    return _plexus._call_op("linear", input, weight, bias)


def relu(input):
    return _plexus._call_op("relu", input)


def silu(input):
    return _plexus._call_op("silu", input)


def gelu(input, approximate="none"):
    return _plexus._call_op("gelu", input, approximate=approximate)


def tanh(input):
    return _plexus._call_op("tanh", input)


def sigmoid(input):
    return _plexus._call_op("sigmoid", input)


def softmax(input, dim):
    return _plexus._call_op("softmax", input, dim)


def log_softmax(input, dim):
    return _plexus._call_op("log_softmax", input, dim)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return _plexus._call_op("layer_norm", input, shape, weight, bias, eps)


def embedding(input, weight, padding_idx=None):
    return _plexus._call_op("embedding", weight, input, -1 if padding_idx is None else padding_idx)


def dropout(input, p=0.5, training=True, generator=None):
    """Zeroes elements with probability p and scales the rest by 1 / (1 - p),
    drawing the mask on the input's device (bernoulli_)."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout: p is a probability in [0, 1], got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0.0
    keep = _plexus.empty(*input.shape, dtype=input.dtype, device=str(input.device))
    _plexus.bernoulli_(keep, 1.0 - p, generator=generator)
    return input * (keep * (1.0 / (1.0 - p)))


def mse_loss(input, target, reduction="mean"):
    return _plexus._call_op("mse_loss", input, target,
                            _REDUCTIONS[_reduction("mse_loss", reduction)])


def l1_loss(input, target, reduction="mean"):
    return _reduce((input - target).abs(), _reduction("l1_loss", reduction))


def nll_loss(input, target, reduction="mean"):
    """The negative log-likelihood of log-probabilities [N, C] at the class
    indices target [N] (integers in [0, C); checked)."""
    return _plexus._nll_loss(input, target, _reduction("nll_loss", reduction))


def cross_entropy(input, target, reduction="mean"):
    """Cross entropy of logits [N, C] against class indices [N]."""
    return nll_loss(log_softmax(input, 1), target, reduction)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalizes each channel (dim 1) of [N, C, ...] over the other dims.

    In training the batch's statistics are used, and running_mean/running_var
    (when given) move towards them by `momentum`, with the unbiased variance,
    as in PyTorch; otherwise the running statistics are used.
    """
    if input.dim() < 2:
        raise ValueError(f"batch_norm: expected [N, C, ...], got shape {tuple(input.shape)}")
    channels = input.shape[1]
    dims = [0] + list(range(2, input.dim()))
    view = [1, channels] + [1] * (input.dim() - 2)
    if training:
        count = input.numel() // channels
        if count < 2:
            raise ValueError(f"batch_norm: training needs more than one value per channel, "
                             f"got shape {tuple(input.shape)}")
        mean = input.mean(dims, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dims, keepdim=True)
        if running_mean is not None:
            with _plexus._GradMode(False):
                running_mean[...] = (running_mean * (1 - momentum)
                                     + mean.detach().reshape([channels]) * momentum)
                unbiased = var.detach().reshape([channels]) * (count / (count - 1))
                running_var[...] = running_var * (1 - momentum) + unbiased * momentum
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: eval mode needs running_mean and running_var")
        centered = input - running_mean.reshape(view)
        var = running_var.reshape(view)
    out = centered * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(view)
    if bias is not None:
        out = out + bias.reshape(view)
    return out
