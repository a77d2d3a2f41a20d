"""Autograd functions beyond Tensor.backward, as torch.autograd spells them."""
from . import _plexus


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """The gradients of `outputs` with respect to `inputs`, returned rather than
    added to .grad. Tensors or sequences of them; a gradient of each output may
    be left out (None) for 1-element outputs. An input the outputs do not
    depend on is an error, or None with allow_unused=True. create_graph=True
    (higher-order gradients) is not supported yet and raises."""
    single = isinstance(outputs, _plexus.Tensor)
    outputs = [outputs] if single else list(outputs)
    inputs = [inputs] if isinstance(inputs, _plexus.Tensor) else list(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif isinstance(grad_outputs, _plexus.Tensor):
        grad_outputs = [grad_outputs]
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"grad: {len(grad_outputs)} grad_outputs for {len(outputs)} outputs")
    retain = create_graph if retain_graph is None else retain_graph
    result = _plexus._grad(outputs, inputs, list(grad_outputs), retain, create_graph,
                           allow_unused)
    return tuple(result)
