#!/bin/bash
# Packs what tools/gpu/check.sh needs from a build into one tarball, to run on
# a GPU machine that has the NVIDIA driver but neither Debian's libraries nor
# this build: the programs, libplexus, the cpu and cuda plugins with their
# manifests, the CUDA bench peers, and every shared library they need that is
# not glibc's or the CUDA libraries the GPU machine brings (cuBLAS, cuDNN).
#
#   tools/gpu/bundle.sh [BUILD_DIR] [OUT_TARBALL]   (default: build .gpu/bundle.tar.xz)
set -euo pipefail
build=${1:-build}
out=${2:-.gpu/bundle.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/plexus/plugins" "$stage/deps" "$(dirname "$out")"

programs=(plexus plexus-conformance plexus-bench plexus-example-train plexus-gpu-tests
          plexus-distributed-nccl)
for p in "${programs[@]}"; do cp "$build/bin/$p" "$stage/bin/"; done
cp -P "$build"/lib/libplexus*.so* "$stage/lib/"  # libplexus, -distributed, the bench's CUDA peers
for n in cpu cuda; do
  cp "$build/lib/plexus/plugins/libplexus-$n.so" "$build/lib/plexus/plugins/$n.json" \
     "$stage/lib/plexus/plugins/"
done

# What the GPU machine brings: glibc, the C++ runtime, cuBLAS and cuDNN (and
# NCCL, which libplexus-distributed opens at run time, so ldd does not list it).
system='^(linux-vdso|ld-linux|libc\.|libstdc\+\+|libgcc_s|libm\.|libdl\.|librt\.|libpthread\.|libcublas|libcudnn)'
# The libraries ldd resolves, less those and the build's own.
skip="${system%)}|libplexus)"
for f in "$stage"/bin/* "$stage"/lib/*.so* "$stage"/lib/plexus/plugins/*.so; do
  ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $skip ]] || cp -L "$path" "$stage/deps/$name"
done
strip --strip-unneeded "$stage"/bin/* "$stage"/deps/* 2>/dev/null || true

# Self-contained: with the bundle first on the library path, nothing may
# resolve into the build tree or to a library the GPU machine lacks.
outside=$(for f in "$stage"/bin/* "$stage"/lib/*.so* "$stage"/lib/plexus/plugins/*.so; do
  LD_LIBRARY_PATH="$stage/lib:$stage/deps" ldd "$f" |
    awk -v f="$f" '$2 == "=>" && $3 ~ /^\// {print f ": " $1 " => " $3}'
done | grep -v " => $stage/" | awk '{print $2, $0}' | grep -Ev "$system" | cut -d' ' -f2- || true)
if [ -n "$outside" ]; then
  echo "bundle.sh: these libraries are not in the bundle:" >&2
  echo "$outside" >&2
  exit 1
fi
tar -C "$stage" -cf - . | xz -T2 -6 > "$out"
echo "$out: $(du -h "$out" | cut -f1) ($(ls "$stage/deps" | wc -l) libraries beside the build's)"
