// The subcommands of the plexus CLI; each prints to stdout and returns an exit code.
#pragma once

namespace plexus::cli {

// `plexus devices`: every device type, its devices, or why it has none.
int devices(bool json);
// `plexus doctor`: the plugin search path and what happened to each candidate.
int doctor();
// `plexus ops`: the catalog, one op per line with its schema and kernels.
int ops(bool json);

}  // namespace plexus::cli
