// C++ API: adam_step_ and sgd_step_, per tensor and over lists.
#include "api/call.h"
#include "plexus/ops.h"

namespace plexus {

void adam_step_(const Tensor& self, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const Tensor& step, const Tensor& lr,
                const AdamStepOptions& o, const Tensor& max_exp_avg_sq) {
  if (max_exp_avg_sq.defined()) {
    static const Operator& op = detail::op("adam_step_.amsgrad");
    detail::call(op, {Value::tensor(self), Value::tensor(grad), Value::tensor(exp_avg),
                      Value::tensor(exp_avg_sq), Value::tensor(step), Value::tensor(lr),
                      Value::real(o.beta1), Value::real(o.beta2), Value::real(o.eps),
                      Value::real(o.weight_decay), Value::boolean(o.decoupled_weight_decay),
                      Value::tensor(max_exp_avg_sq)});
    return;
  }
  static const Operator& op = detail::op("adam_step_");
  detail::call(op, {Value::tensor(self), Value::tensor(grad), Value::tensor(exp_avg),
                    Value::tensor(exp_avg_sq), Value::tensor(step), Value::tensor(lr),
                    Value::real(o.beta1), Value::real(o.beta2), Value::real(o.eps),
                    Value::real(o.weight_decay), Value::boolean(o.decoupled_weight_decay)});
}

void adam_step_(std::span<const Tensor> self, std::span<const Tensor> grad,
                std::span<const Tensor> exp_avg, std::span<const Tensor> exp_avg_sq,
                std::span<const Tensor> step, const Tensor& lr, const AdamStepOptions& o,
                std::span<const Tensor> max_exp_avg_sq) {
  if (!max_exp_avg_sq.empty()) {
    static const Operator& op = detail::op("adam_step_.amsgrad_list");
    detail::call(op,
                 {Value::tensor_list(self), Value::tensor_list(grad), Value::tensor_list(exp_avg),
                  Value::tensor_list(exp_avg_sq), Value::tensor_list(step), Value::tensor(lr),
                  Value::real(o.beta1), Value::real(o.beta2), Value::real(o.eps),
                  Value::real(o.weight_decay), Value::boolean(o.decoupled_weight_decay),
                  Value::tensor_list(max_exp_avg_sq)});
    return;
  }
  static const Operator& op = detail::op("adam_step_.list");
  detail::call(op, {Value::tensor_list(self), Value::tensor_list(grad),
                    Value::tensor_list(exp_avg), Value::tensor_list(exp_avg_sq),
                    Value::tensor_list(step), Value::tensor(lr), Value::real(o.beta1),
                    Value::real(o.beta2), Value::real(o.eps), Value::real(o.weight_decay),
                    Value::boolean(o.decoupled_weight_decay)});
}

void sgd_step_(const Tensor& self, const Tensor& grad, const Tensor& momentum_buffer,
               const Tensor& lr, const SgdStepOptions& o) {
  static const Operator& op = detail::op("sgd_step_");
  detail::call(op, {Value::tensor(self), Value::tensor(grad), Value::tensor(momentum_buffer),
                    Value::tensor(lr), Value::real(o.momentum), Value::real(o.dampening),
                    Value::real(o.weight_decay), Value::boolean(o.nesterov),
                    Value::boolean(o.first_step)});
}

void sgd_step_(std::span<const Tensor> self, std::span<const Tensor> grad,
               std::span<const Tensor> momentum_buffer, const Tensor& lr,
               const SgdStepOptions& o) {
  static const Operator& op = detail::op("sgd_step_.list");
  detail::call(op, {Value::tensor_list(self), Value::tensor_list(grad),
                    Value::tensor_list(momentum_buffer), Value::tensor(lr),
                    Value::real(o.momentum), Value::real(o.dampening),
                    Value::real(o.weight_decay), Value::boolean(o.nesterov),
                    Value::boolean(o.first_step)});
}

}  // namespace plexus
