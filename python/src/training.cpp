// Autograd's switches, the optimizers, compile, and safetensors, for Python.
#include <fmt/format.h>

#include "bindings.h"
#include "plexus/autograd.h"
#include "plexus/graph.h"
#include "plexus/lr_scheduler.h"
#include "plexus/nn.h"
#include "plexus/optim.h"
#include "plexus/safetensors.h"

namespace plexus::python {
namespace {

// Parameters as optimizers take them: [(name, tensor)] or [tensor] (named "0", "1", ...).
optim::NamedParameters named(py::iterable params) {
  optim::NamedParameters out;
  size_t i = 0;
  for (py::handle p : params) {
    if (py::isinstance<Tensor>(p)) {
      out.emplace_back(std::to_string(i++), p.cast<Tensor>());
    } else {
      auto pair = p.cast<std::pair<std::string, Tensor>>();
      out.push_back(std::move(pair));
      ++i;
    }
  }
  return out;
}

// A compiled Python function: tensors in, a tensor or a tuple of tensors out.
class PyCompiled {
 public:
  PyCompiled(py::function fn, graph::CompileOptions options) : fn_(std::move(fn)) {
    compiled_ = std::make_unique<graph::CompiledFunction>(
        [this](std::span<const Tensor> in) {
          py::gil_scoped_acquire gil;
          py::tuple args(in.size());
          for (size_t i = 0; i < in.size(); ++i) args[i] = py::cast(in[i]);
          py::object r = fn_(*args);
          std::vector<Tensor> out;
          single_ = py::isinstance<Tensor>(r);
          if (single_) {
            out.push_back(r.cast<Tensor>());
          } else if (!r.is_none()) {
            for (py::handle e : r) out.push_back(e.cast<Tensor>());
          }
          none_ = r.is_none();
          return out;
        },
        std::move(options));
  }
  py::object call(py::args args) {
    std::vector<Tensor> in;
    for (py::handle a : args) {
      if (!py::isinstance<Tensor>(a))
        throw py::type_error("a compiled function takes tensors only");
      in.push_back(a.cast<Tensor>());
    }
    std::vector<Tensor> out = compiled_->call(in);
    if (none_) return py::none();
    if (single_) return py::cast(out.at(0));
    return py::cast(out);
  }
  graph::CompiledFunction& compiled() { return *compiled_; }

 private:
  py::function fn_;
  std::unique_ptr<graph::CompiledFunction> compiled_;
  bool single_ = true, none_ = false;
};

// A Python callable that autograd keeps in a node. The engine may drop the
// node on any thread without the GIL, so the reference is released under it
// (unless the interpreter is already gone at exit).
class PyHook {
 public:
  explicit PyHook(py::function fn) : fn_(std::move(fn)) {}
  ~PyHook() {
    if (!Py_IsInitialized()) {
      fn_.release();  // leaked on purpose: there is no interpreter to release it to
      return;
    }
    py::gil_scoped_acquire gil;
    fn_ = py::function();
  }
  PyHook(const PyHook&) = delete;
  PyHook& operator=(const PyHook&) = delete;
  // The hook's result replaces the gradient unless it is None.
  Tensor operator()(const Tensor& grad) const {
    py::gil_scoped_acquire gil;
    py::object r = fn_(grad);
    if (r.is_none()) return Tensor();
    if (!py::isinstance<Tensor>(r))
      throw py::type_error(fmt::format("a tensor hook must return a Tensor or None, got {}",
                                       py::str(py::type::of(r)).cast<std::string>()));
    return r.cast<Tensor>();
  }

 private:
  py::function fn_;
};

class GradMode {
 public:
  explicit GradMode(bool enabled) : enabled_(enabled) {}
  void enter() {
    prev_ = autograd::is_grad_enabled();
    autograd::set_grad_enabled(enabled_);
  }
  void exit(py::args) { autograd::set_grad_enabled(prev_); }

 private:
  bool enabled_, prev_ = true;
};

}  // namespace

void bind_training(py::module_& m) {
  py::class_<GradMode>(m, "_GradMode")
      .def(py::init<bool>())
      .def("__enter__", &GradMode::enter)
      .def("__exit__", &GradMode::exit);
  m.def("is_grad_enabled", &autograd::is_grad_enabled);
  m.def("set_grad_enabled", &autograd::set_grad_enabled);
  m.def("_grad", [](const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                    const std::vector<std::optional<Tensor>>& grad_outputs, bool retain_graph,
                    bool create_graph, bool allow_unused) {
          std::vector<Tensor> given;
          for (const auto& g : grad_outputs) given.push_back(g.value_or(Tensor()));
          std::vector<Tensor> result;
          {
            py::gil_scoped_release release;
            result = autograd::grad(outputs, inputs, given, retain_graph, allow_unused,
                                    create_graph);
          }
          py::list out;  // None for an unused input
          for (const Tensor& g : result) out.append(g.defined() ? py::cast(g) : py::none());
          return out;
        });

  m.def("_nll_loss",
        [](const Tensor& log_probs, const Tensor& target, const std::string& reduction) {
          py::gil_scoped_release release;
          return nn::nll_loss(log_probs, target, reduction);
        });
  // Tensor.register_hook is written in Python over this (its handle's remove()).
  py::type::of<Tensor>().attr("_register_hook") = py::cpp_function(
      [](const Tensor& self, py::function hook) {
        auto h = std::make_shared<PyHook>(std::move(hook));
        self.register_hook([h](const Tensor& g) { return (*h)(g); });
      },
      py::is_method(py::type::of<Tensor>()), py::arg("hook"));

  // The optimizers and schedulers live at the module's top level (plexus.optim
  // re-exports them): a submodule of an extension module cannot have a stub.
  py::module_& optim = m;
  py::class_<optim::Optimizer>(optim, "Optimizer")
      .def("step", [](optim::Optimizer& o) {
        py::gil_scoped_release release;
        o.step();
      })
      .def("zero_grad", &optim::Optimizer::zero_grad, py::arg("set_to_none") = true)
      .def("state_dict", &optim::Optimizer::state_dict)
      .def("load_state_dict", &optim::Optimizer::load_state_dict, py::arg("state"),
           py::arg("strict") = true)
      .def("save", [](const optim::Optimizer& o, const std::string& file) { o.save(file); })
      .def("load", [](optim::Optimizer& o, const std::string& file, bool strict) {
             o.load(file, strict);
           }, py::arg("file"), py::arg("strict") = true)
      .def_property("lr", &optim::Optimizer::lr, &optim::Optimizer::set_lr);
  py::class_<optim::SGD, optim::Optimizer>(optim, "SGD")
      .def(py::init([](py::iterable params, double lr, double momentum, double dampening,
                       double weight_decay, bool nesterov) {
             return new optim::SGD(named(params), {lr, momentum, dampening, weight_decay, nesterov});
           }), py::arg("params"), py::arg("lr") = 1e-2, py::arg("momentum") = 0.0,
           py::arg("dampening") = 0.0, py::arg("weight_decay") = 0.0, py::arg("nesterov") = false);
  auto adam_init = [](bool decoupled) {
    return [decoupled](py::iterable params, double lr, std::pair<double, double> betas,
                       double eps, std::optional<double> weight_decay, bool amsgrad,
                       bool capturable) {
      optim::AdamOptions o{.lr = lr, .beta1 = betas.first, .beta2 = betas.second, .eps = eps,
                           .weight_decay = weight_decay.value_or(decoupled ? 1e-2 : 0.0),
                           .amsgrad = amsgrad, .decoupled_weight_decay = decoupled,
                           .capturable = capturable};
      return decoupled ? new optim::AdamW(named(params), o) : new optim::Adam(named(params), o);
    };
  };
  py::class_<optim::Adam, optim::Optimizer>(optim, "Adam")
      .def(py::init([f = adam_init(false)](py::iterable p, double lr, std::pair<double, double> b,
                                           double eps, std::optional<double> wd, bool ams,
                                           bool cap) { return f(p, lr, b, eps, wd, ams, cap); }),
           py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = std::pair{0.9, 0.999},
           py::arg("eps") = 1e-8, py::arg("weight_decay") = py::none(), py::arg("amsgrad") = false,
           py::arg("capturable") = false)
      .def("steps", &optim::Adam::steps)
      .def_property(
          "betas",
          [](const optim::Adam& a) {
            return std::pair{a.beta1(), a.beta2()};
          },
          [](optim::Adam& a, std::pair<double, double> b) { a.set_betas(b.first, b.second); },
          "(beta1, beta2) of the next steps; a compiled step captures again after a change");
  py::class_<optim::AdamW, optim::Adam>(optim, "AdamW")
      .def(py::init([f = adam_init(true)](py::iterable p, double lr, std::pair<double, double> b,
                                          double eps, std::optional<double> wd, bool ams,
                                          bool cap) {
             return static_cast<optim::AdamW*>(f(p, lr, b, eps, wd, ams, cap));
           }),
           py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = std::pair{0.9, 0.999},
           py::arg("eps") = 1e-8, py::arg("weight_decay") = py::none(),
           py::arg("amsgrad") = false, py::arg("capturable") = false);

  // Schedulers keep their optimizer alive (keep_alive): Python may drop it first.
  py::class_<optim::LRScheduler>(optim, "LRScheduler")
      .def("step", &optim::LRScheduler::step)
      .def("get_last_lr", [](const optim::LRScheduler& s) { return std::vector{s.last_lr()}; })
      .def_property_readonly("last_epoch", &optim::LRScheduler::epoch)
      .def_property_readonly("base_lrs", [](const optim::LRScheduler& s) {
        return std::vector{s.base_lr()};
      });
  py::class_<optim::StepLR, optim::LRScheduler>(optim, "StepLR")
      .def(py::init([](optim::Optimizer& o, int64_t step_size, double gamma) {
             return new optim::StepLR(o, {step_size, gamma});
           }), py::arg("optimizer"), py::arg("step_size"), py::arg("gamma") = 0.1,
           py::keep_alive<1, 2>());
  py::class_<optim::CosineAnnealingLR, optim::LRScheduler>(optim, "CosineAnnealingLR")
      .def(py::init([](optim::Optimizer& o, int64_t t_max, double eta_min) {
             return new optim::CosineAnnealingLR(o, {t_max, eta_min});
           }), py::arg("optimizer"), py::arg("T_max"), py::arg("eta_min") = 0.0,
           py::keep_alive<1, 2>());

  py::class_<graph::CompileStats>(m, "CompileStats")
      .def_readonly("captures", &graph::CompileStats::captures)
      .def_readonly("replays", &graph::CompileStats::replays)
      .def_readonly("eager_calls", &graph::CompileStats::eager_calls)
      .def_readonly("recaptures", &graph::CompileStats::recaptures)
      .def("__repr__", [](const graph::CompileStats& s) {
        return fmt::format("CompileStats(captures={}, replays={}, eager_calls={}, recaptures={})",
                           s.captures, s.replays, s.eager_calls, s.recaptures);
      });
  py::class_<PyCompiled>(m, "CompiledFunction")
      .def("__call__", &PyCompiled::call)
      .def_property_readonly("stats", [](PyCompiled& c) { return c.compiled().stats(); })
      .def_property_readonly("eager_reason", [](PyCompiled& c) { return c.compiled().eager_reason(); })
      .def("graph", [](PyCompiled& c) -> py::object {
        const graph::Graph* g = c.compiled().graph();
        if (!g) return py::none();
        return py::str(g->str());
      }, "The table of the graph replayed for the last call's inputs, or None.")
      .def("reset", [](PyCompiled& c) { c.compiled().reset(); });
  m.def("compile", [](py::function fn, bool print, py::object backend, py::object names,
                      int max_captures, int verify_every) {
          graph::CompileOptions o;
          o.print = print;
          o.max_captures = max_captures;
          o.verify_every = verify_every;
          // Any callable: a function, or a module (named by its class; its
          // parameters name the printed graph's tensors unless names says).
          o.name = py::hasattr(fn, "__name__")
                       ? py::str(fn.attr("__name__")).cast<std::string>()
                       : py::str(py::type::of(fn).attr("__name__")).cast<std::string>();
          if (names.is_none() && py::hasattr(fn, "named_parameters"))
            names = py::list(fn.attr("named_parameters")());
          if (!backend.is_none()) {
            py::function b = backend;
            o.backend = [b](const graph::Graph& g) {
              py::gil_scoped_acquire gil;
              b(g.str());
            };
          }
          if (!names.is_none()) o.names = named(names);
          return new PyCompiled(fn, std::move(o));
        }, py::arg("fn"), py::kw_only(), py::arg("print") = false, py::arg("backend") = py::none(),
        py::arg("names") = py::none(), py::arg("max_captures") = 4, py::arg("verify_every") = 0,
        "Captures fn's ops (forward, backward, optimizer) as a graph once two calls agree, then "
        "replays it. fn may be a module. Results that require grad can be differentiated (their "
        "backward is captured too). backend(table) sees each graph's printed table.");
  m.def(
      "trace",
      [](py::function fn, py::args inputs, bool run_kernels, py::object names) {
        std::vector<Tensor> in;
        for (py::handle a : inputs) {
          if (!py::isinstance<Tensor>(a)) throw py::type_error("trace takes tensors as inputs");
          in.push_back(a.cast<Tensor>());
        }
        graph::TraceOptions o;
        o.run_kernels = run_kernels;
        if (!names.is_none()) o.names = named(names);
        graph::Graph g = graph::trace(
            [&fn](std::span<const Tensor> t) {
              py::tuple args(t.size());
              for (size_t i = 0; i < t.size(); ++i) args[i] = py::cast(t[i]);
              py::object r = fn(*args);
              std::vector<Tensor> out;
              if (py::isinstance<Tensor>(r))
                out.push_back(r.cast<Tensor>());
              else if (!r.is_none())
                for (py::handle e : r) out.push_back(e.cast<Tensor>());
              return out;
            },
            in, o);
        return g.str();
      },
      py::arg("fn"), py::kw_only(), py::arg("run_kernels") = false, py::arg("names") = py::none(),
      "The printed table of the graph of fn(*inputs), captured once. Without run_kernels no "
      "kernel runs (meta functions give each result's dtype and shape): parameters and "
      "optimizer state are left as they were, and gradients fn set are cleared.");

  m.def("save_safetensors", [](const std::string& path, std::map<std::string, Tensor> tensors,
                               std::map<std::string, std::string> metadata) {
          save_safetensors(path, tensors, metadata);
        }, py::arg("path"), py::arg("tensors"), py::arg("metadata") = std::map<std::string, std::string>{});
  m.def("load_safetensors", [](const std::string& path) { return load_safetensors(path).tensors; },
        py::arg("path"), "The tensors of a safetensors file, on the cpu, by name.");
}

}  // namespace plexus::python
