"""Optimizers with PyTorch's update formulas (plexus/optim.h).

    opt = px.optim.Adam(model.named_parameters(), lr=1e-3)
    opt.zero_grad(); loss.backward(); opt.step()

`params` is a list of tensors or of (name, tensor) pairs; names key the
optimizer's state. capturable=True keeps the step count and the learning
rate in 0-d tensors, so a compiled step (px.compile) sees `opt.lr = ...`
without capturing again. `opt.lr` reads and sets the learning rate of any
optimizer; px.optim.lr_scheduler has StepLR and CosineAnnealingLR.
"""
import sys
import types

from ._plexus import _optim

SGD = _optim.SGD
Adam = _optim.Adam
AdamW = _optim.AdamW
Optimizer = _optim.Optimizer

# px.optim.lr_scheduler.StepLR(opt, step_size, gamma), CosineAnnealingLR(opt,
# T_max, eta_min), as torch spells them; step() once per epoch.
lr_scheduler = types.ModuleType(__name__ + ".lr_scheduler",
                                "Learning-rate schedulers (plexus/lr_scheduler.h).")
lr_scheduler.LRScheduler = _optim.LRScheduler
lr_scheduler.StepLR = _optim.StepLR
lr_scheduler.CosineAnnealingLR = _optim.CosineAnnealingLR
sys.modules[lr_scheduler.__name__] = lr_scheduler
