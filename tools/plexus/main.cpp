// plexus: the command line tool for inspecting devices and ops.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.h"
#include "plexus/env.h"
#include "plexus/error.h"
#include "plexus/log.h"

int main(int argc, char** argv) {
  CLI::App app{"plexus: inspect the devices and ops of the plexus tensor runtime"};
  app.set_version_flag("--version", std::string("plexus ") + PLEXUS_VERSION_STRING);
  app.require_subcommand(1);
  std::string config_path;
  app.add_option("--config", config_path, "Read this plexus.toml instead of searching for one");

  bool devices_json = false;
  auto* devices = app.add_subcommand("devices", "List every device type and its devices");
  devices->add_flag("--json", devices_json, "Print JSON for machines");

  auto* doctor = app.add_subcommand("doctor", "Explain where plugins were looked for and what happened");
  bool doctor_json = false;
  doctor->add_flag("--json", doctor_json, "Print JSON for machines");
  bool doctor_probe = false;
  doctor->add_flag("--probe", doctor_probe,
                   "Load each plugin in a child process first (plugins.probe): a plugin whose "
                   "init crashes or hangs is reported instead of ending plexus");

  std::string check_file;
  auto* config = app.add_subcommand("config", "Check a plexus.toml, or show the effective config");
  config->require_subcommand(1);
  auto* config_check = config->add_subcommand("check", "Check a config file: ok, or each error");
  config_check->add_option("FILE", check_file, "The plexus.toml to check")->required();
  auto* config_show =
      config->add_subcommand("show", "Every config key, its value and where it came from");
  bool config_show_json = false;
  config_show->add_flag("--json", config_show_json, "Print JSON for machines");
  // --config may also follow these subcommands.
  for (CLI::App* sub : {devices, doctor, config, config_show}) sub->fallthrough();

  bool ops_json = false, ops_schemas = false;
  std::vector<std::string> op_names;
  auto* ops = app.add_subcommand(
      "ops", "Show how each op runs on each backend (native, composite, fallback, missing)");
  ops->add_option("NAME", op_names, "Show these ops' schemas and kernels (\"add\", \"add.out\")");
  ops->add_flag("--schemas", ops_schemas, "List every op's schema and the backends with kernels");
  ops->add_flag("--json", ops_json, "Print JSON for machines");
  ops->fallthrough();  // --config may follow it

  // plexus bench passes its options to plexus-bench (bench.cpp says why).
  std::vector<std::string> bench_args;
  auto* bench = app.add_subcommand("bench", "Run the benchmark cases (plexus-bench)");
  auto forward = [&](const char* name, const char* help) {
    bench->add_option_function<std::string>(
        name, [&bench_args, name](const std::string& v) { bench_args.insert(bench_args.end(), {name, v}); },
        help);
  };
  forward("--device", "Device to run on (default cpu)");
  forward("--filter", "Run only the cases whose name matches this glob");
  forward("--iters", "Calls per timed run (default: calibrated to about 50 ms)");
  forward("--repeats", "Timed runs per case; the best is reported (default 5)");
  for (const char* flag : {"--json", "--quick"})
    bench->add_flag_callback(
        flag, [&bench_args, flag] { bench_args.push_back(flag); },
        std::string(flag) == "--json" ? "Print JSON for machines"
                                      : "One call per case, timing nothing: a smoke test");

  bool profile_json = false;
  std::string profile_output;
  auto* profile = app.add_subcommand(
      "profile", "Run a program with the profiler on and print its ops: calls, time, fallbacks");
  profile->add_flag("--json", profile_json, "Print JSON for machines");
  profile->add_option("-o,--output", profile_output, "Write the table to this file, not stderr");
  profile->prefix_command();  // everything from the program's name on is the program's
  profile->footer("Usage: plexus profile [--json] [-o FILE] PROGRAM [ARGS...]");

  CLI11_PARSE(app, argc, argv);
  // The commands report problems themselves; loader warnings would repeat them.
  if (!plexus::env_var("PLEXUS_LOG_LEVEL")) plexus::logging::set_level(spdlog::level::err);
  try {
    if (devices->parsed()) return plexus::cli::devices(devices_json, config_path);
    if (ops->parsed()) return plexus::cli::ops(ops_json, ops_schemas, op_names, config_path);
    if (bench->parsed()) return plexus::cli::bench(bench_args);
    if (profile->parsed())
      return plexus::cli::profile(profile->remaining(), profile_json, profile_output);
    if (doctor->parsed()) return plexus::cli::doctor(config_path, doctor_json, doctor_probe);
    if (config_check->parsed()) return plexus::cli::config_check(check_file);
    if (config_show->parsed()) return plexus::cli::config_show(config_path, config_show_json);
  } catch (const plexus::Error& e) {
    std::fprintf(stderr, "plexus: %s\n", e.what());
    return 1;
  }
  return 0;
}
