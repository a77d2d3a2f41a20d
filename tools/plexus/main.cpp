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

  std::string check_file;
  auto* config = app.add_subcommand("config", "Check a plexus.toml, or show the effective config");
  config->require_subcommand(1);
  auto* config_check = config->add_subcommand("check", "Check a config file: ok, or each error");
  config_check->add_option("FILE", check_file, "The plexus.toml to check")->required();
  auto* config_show =
      config->add_subcommand("show", "Every config key, its value and where it came from");
  // --config may also follow these subcommands.
  for (CLI::App* sub : {devices, doctor, config, config_show}) sub->fallthrough();

  bool ops_json = false;
  auto* ops = app.add_subcommand("ops", "List the op catalog with schemas and kernels");
  ops->add_flag("--json", ops_json, "Print JSON for machines");

  CLI11_PARSE(app, argc, argv);
  // The commands report problems themselves; loader warnings would repeat them.
  if (!plexus::env_var("PLEXUS_LOG_LEVEL")) plexus::log::set_level(spdlog::level::err);
  try {
    if (devices->parsed()) return plexus::cli::devices(devices_json, config_path);
    if (ops->parsed()) return plexus::cli::ops(ops_json);
    if (doctor->parsed()) return plexus::cli::doctor(config_path);
    if (config_check->parsed()) return plexus::cli::config_check(check_file);
    if (config_show->parsed()) return plexus::cli::config_show(config_path);
  } catch (const plexus::Error& e) {
    std::fprintf(stderr, "plexus: %s\n", e.what());
    return 1;
  }
  return 0;
}
