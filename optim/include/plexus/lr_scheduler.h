// Learning-rate schedulers with PyTorch's formulas: each step() sets the
// optimizer's learning rate for the next epoch (a capturable Adam reads it
// from a 0-d tensor, so a compiled step sees it without capturing again).
//
//   optim::StepLR sched(opt, {.step_size = 30, .gamma = 0.1});
//   for (epoch ...) { train(); sched.step(); }
#pragma once

#include <cstdint>

#include "plexus/optim.h"

namespace plexus::optim {

class LRScheduler {
 public:
  // Takes the optimizer's current learning rate as the base (epoch 0).
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  // Ends an epoch: the learning rate becomes the schedule's value for the next.
  void step();
  int64_t epoch() const { return epoch_; }
  double base_lr() const { return base_lr_; }
  // The learning rate step() set last (the base before any step).
  double last_lr() const { return optimizer_.lr(); }

 protected:
  // The schedule: the learning rate of `epoch`.
  virtual double lr_at(int64_t epoch) const = 0;

 private:
  Optimizer& optimizer_;
  double base_lr_;
  int64_t epoch_ = 0;
};

// PyTorch's StepLR: base_lr * gamma^(epoch / step_size), the division rounded down.
struct StepLROptions {
  int64_t step_size = 1;
  double gamma = 0.1;
};
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, StepLROptions options);

 protected:
  double lr_at(int64_t epoch) const override;

 private:
  StepLROptions o_;
};

// PyTorch's CosineAnnealingLR (its closed form): eta_min + (base_lr - eta_min)
// * (1 + cos(pi * epoch / t_max)) / 2; past t_max the cosine goes on, as PyTorch's does.
struct CosineAnnealingLROptions {
  int64_t t_max = 1;
  double eta_min = 0;
};
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, CosineAnnealingLROptions options);

 protected:
  double lr_at(int64_t epoch) const override;

 private:
  CosineAnnealingLROptions o_;
};

}  // namespace plexus::optim
