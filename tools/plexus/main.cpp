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

  bool devices_json = false;
  auto* devices = app.add_subcommand("devices", "List every device type and its devices");
  devices->add_flag("--json", devices_json, "Print JSON for machines");

  auto* doctor = app.add_subcommand("doctor", "Explain where plugins were looked for and what happened");

  bool ops_json = false;
  auto* ops = app.add_subcommand("ops", "List the op catalog with schemas and kernels");
  ops->add_flag("--json", ops_json, "Print JSON for machines");

  CLI11_PARSE(app, argc, argv);
  // The commands report problems themselves; loader warnings would repeat them.
  if (!plexus::env_var("PLEXUS_LOG_LEVEL")) plexus::log::set_level(spdlog::level::err);
  try {
    if (devices->parsed()) return plexus::cli::devices(devices_json);
    if (ops->parsed()) return plexus::cli::ops(ops_json);
    if (doctor->parsed()) return plexus::cli::doctor();
  } catch (const plexus::Error& e) {
    std::fprintf(stderr, "plexus: %s\n", e.what());
    return 1;
  }
  return 0;
}
