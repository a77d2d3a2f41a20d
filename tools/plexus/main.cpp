// plexus: the command line tool for inspecting devices and ops.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.h"
#include "plexus/error.h"

int main(int argc, char** argv) {
  CLI::App app{"plexus: inspect the devices and ops of the plexus tensor runtime"};
  app.set_version_flag("--version", std::string("plexus ") + PLEXUS_VERSION_STRING);
  app.require_subcommand(1);

  bool devices_json = false;
  auto* devices = app.add_subcommand("devices", "List every device type and its devices");
  devices->add_flag("--json", devices_json, "Print JSON for machines");

  bool ops_json = false;
  auto* ops = app.add_subcommand("ops", "List the op catalog with schemas and kernels");
  ops->add_flag("--json", ops_json, "Print JSON for machines");

  CLI11_PARSE(app, argc, argv);
  try {
    if (devices->parsed()) return plexus::cli::devices(devices_json);
    if (ops->parsed()) return plexus::cli::ops(ops_json);
  } catch (const plexus::Error& e) {
    std::fprintf(stderr, "plexus: %s\n", e.what());
    return 1;
  }
  return 0;
}
