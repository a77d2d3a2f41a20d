"""Optimizers with PyTorch's update formulas (plexus/optim.h).

    opt = px.optim.Adam(model.named_parameters(), lr=1e-3)
    opt.zero_grad(); loss.backward(); opt.step()

`params` is a list of tensors or of (name, tensor) pairs; names key the
optimizer's state. capturable=True keeps the step count and the learning
rate in 0-d tensors, so a compiled step (px.compile) sees `opt.lr = ...`
without capturing again. `opt.lr` reads and sets the learning rate of any
optimizer; px.optim.lr_scheduler has StepLR and CosineAnnealingLR.
"""
from .._plexus import SGD, Adam, AdamW, Optimizer
from . import lr_scheduler

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "lr_scheduler"]
