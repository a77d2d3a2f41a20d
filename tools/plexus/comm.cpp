// The communication backends `plexus devices` and `plexus doctor` list. The
// CLI links libplexus-distributed where MPI was found at configure time.
#include "commands.h"

#ifdef PLEXUS_HAVE_DISTRIBUTED
#include "plexus/distributed.h"
#endif

namespace plexus::cli {

std::vector<CommLine> comm_backend_lines() {
  std::vector<CommLine> out;
#ifdef PLEXUS_HAVE_DISTRIBUTED
  for (const distributed::CommBackendInfo& b : distributed::comm_backends())
    out.push_back({b.name, b.available, b.version, b.serves});
#else
  out.push_back({"mpi", false,
                 "not built: MPI was not found when plexus was configured "
                 "(apt-get install libopenmpi-dev, then configure again)",
                 "every device type"});
#endif
  return out;
}

nlohmann::json comm_backends_json() {
  nlohmann::json comm = nlohmann::json::array();
  for (const CommLine& c : comm_backend_lines())
    comm.push_back({{"name", c.name}, {"available", c.available}, {"detail", c.detail},
                    {"serves", c.serves}});
  return comm;
}

}  // namespace plexus::cli
