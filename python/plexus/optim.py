"""Optimizers with PyTorch's update formulas (plexus/optim.h).

    opt = px.optim.Adam(model.named_parameters(), lr=1e-3)
    opt.zero_grad(); loss.backward(); opt.step()

`params` is a list of tensors or of (name, tensor) pairs; names key the
optimizer's state. capturable=True keeps the step count and the learning
rate in 0-d tensors, so a compiled step (px.compile) sees `opt.lr = ...`
without capturing again.
"""
from ._plexus import _optim

SGD = _optim.SGD
Adam = _optim.Adam
AdamW = _optim.AdamW
Optimizer = _optim.Optimizer
