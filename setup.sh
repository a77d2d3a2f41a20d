#!/usr/bin/env bash
# Set-up for a fresh Debian 12 machine (root, or a user with sudo): installs the
# Debian packages plexus needs that are missing, builds, and runs a job.
#   ./setup.sh main   install, build, run the main job (the device table, then
#                     examples/train, the seed's training program, compiled, on
#                     the device examples/plexus.toml picks); arguments after
#                     `main` go to the program (--print-graphs, --epochs 10, ...)
#   ./setup.sh test   install, build, run the whole test suite (what CI runs)
# Safe to run again: installed packages are skipped and the build is incremental.
set -euo pipefail
cd "$(dirname "$0")"

job=${1:-}
case "$job" in
  main|test) shift ;;
  *) echo "usage: ./setup.sh main [program options] | ./setup.sh test" >&2; exit 2 ;;
esac

packages=(
  cmake ninja-build ccache g++ pkg-config git
  libspdlog-dev libfmt-dev catch2 libboost-dev nlohmann-json3-dev
  libtomlplusplus-dev libdnnl-dev libcli11-dev libssl-dev
  ocl-icd-opencl-dev  # oneDNN's CMake package asks for OpenCL (a Recommends of libdnnl-dev)
  libxml2-utils  # xmllint: the tests check the conformance JUnit report against its schema
  libvulkan-dev glslc  # the vulkan plugin: Vulkan headers and loader, GLSL to SPIR-V at build time
  libshaderc-dev  # the vulkan plugin's graph compiler: GLSL to SPIR-V at run time (opened on first use)
  mesa-vulkan-drivers  # lavapipe, the CPU Vulkan device conformance.vulkan runs on
  libboost-context-dev  # fibers of the SIMT emulation (plugins/cuda/simt)
  hipcc libamdhip64-dev  # the hip plugin (plugins/hip): 103 MB download, 656 MB with clang-15
  libopenmpi-dev openmpi-bin  # plexus::distributed and its tests (mpirun -np 2)
  libtorch-dev  # libtorch 1.13: the oracle of tests/parity and the peer of plexus-bench-train
  python3-dev pybind11-dev python3-numpy python3-pytest  # the plexus Python package and its tests
  python3-torch  # the Python tests' DLPack peer and bench/python_overhead.py's (the same torch 1.13)
  python3-mypy  # checks the package's type stubs against the module and a typed program
  # The cuda plugin needs the CUDA Toolkit (13.0 here), which does not come from
  # Debian's main archive: it is used when preinstalled at /usr/local/cuda or on
  # PATH, and skipped otherwise (PLEXUS_WITH_CUDA=AUTO; ON makes configure fail).
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# ccache keys on paths relative to the checkout, so a fresh clone elsewhere
# (CI's) reuses what an earlier build compiled.
export CCACHE_BASEDIR="$PWD"
cmake --preset default >/dev/null
case "$job" in
  main)
    cmake --build --preset default --target plexus-cli plexus-cpu plexus-example-train plexus-python
    ./build/bin/plexus devices
    ./build/bin/plexus-example-train --config examples/plexus.toml --compile "$@"
    ;;
  test)
    cmake --build --preset default
    ctest --preset default -j "$(nproc)"
    ;;
esac
