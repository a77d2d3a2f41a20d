// What the distributed sources share: the MPI bootstrap and the registry of
// communication backends.
#pragma once

#include <memory>
#include <string>

#include "plexus/distributed.h"

namespace plexus::distributed::detail {

// Initializes MPI once for the process (MPI_THREAD_MULTIPLE: every group has
// a worker thread of its own) unless the application already did; finalizes
// it at exit if plexus initialized it.
void ensure_mpi();
// A new MPI backend over a duplicate of MPI_COMM_WORLD (collective: every
// rank must call it in the same order). rank and size are set.
std::unique_ptr<CommBackend> make_mpi_backend(int& rank, int& size);
// Ends the job from a process whose group is broken (MPI_Abort): the ranks
// still blocked in an operation would otherwise wait forever.
[[noreturn]] void abort_job(const std::string& why);
// "Open MPI v4.1.4, ..." (first line), callable before MPI is initialized.
std::string mpi_version();

// The maker of a backend other than "mpi" (a registered one, else the
// built-in "nccl" where it is built); null if unknown.
CommBackendFactory find_backend(const std::string& name);

#ifdef PLEXUS_HAVE_NCCL
// nccl.cpp: NCCL's version and whether it can run here (the library opens
// and the CUDA runtime sees a GPU); opens the library on the first call.
CommBackendInfo nccl_info();
std::unique_ptr<CommBackend> make_nccl_backend(CommBackend& world, int rank, int size);
#endif

}  // namespace plexus::distributed::detail
