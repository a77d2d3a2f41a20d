# The sources the gpu plugins share, for plugins/cuda, plugins/hip and the
# simt test plugin (tests/plugins/cuda/simt) to include:
#   PLEXUS_GPU_DIR              plugins/cuda (the include directory: gpu.h and every header)
#   PLEXUS_GPU_RUNTIME_SOURCES  *.cpp: the plugin's runtime (plugin.cpp, backend.cpp, device.cpp,
#                               stream.cpp, memory*.cpp, errors.cpp, fast_path.cpp), plain
#                               C++ over gpu.h, built by the host compiler
#   PLEXUS_GPU_KERNEL_SOURCES   *.cu: the kernel families, built by nvcc, hipcc or
#                               (as C++ under the SIMT emulation) the host compiler
# Each build defines one of PLEXUS_GPU_CUDA, PLEXUS_GPU_HIP, PLEXUS_GPU_SIMT.
set(PLEXUS_GPU_DIR ${CMAKE_CURRENT_LIST_DIR})
file(GLOB PLEXUS_GPU_RUNTIME_SOURCES CONFIGURE_DEPENDS ${PLEXUS_GPU_DIR}/*.cpp)
file(GLOB PLEXUS_GPU_KERNEL_SOURCES CONFIGURE_DEPENDS ${PLEXUS_GPU_DIR}/*.cu)
