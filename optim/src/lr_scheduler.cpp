// StepLR and CosineAnnealingLR: PyTorch's closed forms of their schedules.
#include "plexus/lr_scheduler.h"

#include <cmath>

#include "plexus/error.h"

namespace plexus::optim {

LRScheduler::LRScheduler(Optimizer& optimizer)
    : optimizer_(optimizer), base_lr_(optimizer.lr()) {}

void LRScheduler::step() {
  optimizer_.set_lr(lr_at(++epoch_));
}

StepLR::StepLR(Optimizer& optimizer, StepLROptions o) : LRScheduler(optimizer), o_(o) {
  PLEXUS_CHECK(o.step_size > 0, ErrorCode::InvalidArgument,
               "StepLR: step_size must be positive, got {}", o.step_size);
  PLEXUS_CHECK(o.gamma >= 0, ErrorCode::InvalidArgument,
               "StepLR: gamma must not be negative, got {}", o.gamma);
}

double StepLR::lr_at(int64_t epoch) const {
  return base_lr() * std::pow(o_.gamma, static_cast<double>(epoch / o_.step_size));
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, CosineAnnealingLROptions o)
    : LRScheduler(optimizer), o_(o) {
  PLEXUS_CHECK(o.t_max > 0, ErrorCode::InvalidArgument,
               "CosineAnnealingLR: t_max must be positive, got {}", o.t_max);
  PLEXUS_CHECK(o.eta_min >= 0, ErrorCode::InvalidArgument,
               "CosineAnnealingLR: eta_min must not be negative, got {}", o.eta_min);
}

double CosineAnnealingLR::lr_at(int64_t epoch) const {
  const double pi = std::acos(-1.0);
  return o_.eta_min + (base_lr() - o_.eta_min) *
                          (1 + std::cos(pi * static_cast<double>(epoch) / o_.t_max)) / 2;
}

}  // namespace plexus::optim
