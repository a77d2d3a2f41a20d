"""Learning-rate schedulers (plexus/lr_scheduler.h), as torch spells them:
StepLR(opt, step_size, gamma) and CosineAnnealingLR(opt, T_max, eta_min);
call step() once per epoch."""
from .._plexus import CosineAnnealingLR, LRScheduler, StepLR

__all__ = ["LRScheduler", "StepLR", "CosineAnnealingLR"]
