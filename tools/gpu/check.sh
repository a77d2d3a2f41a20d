#!/bin/bash
# The cuda plugin's checks on a machine with an NVIDIA GPU, in one go, from
# the repository root, with a bundle made by tools/gpu/bundle.sh:
#
#   tools/gpu/check.sh [BUNDLE_TARBALL] [LOG_DIR]   (default: .gpu/bundle.tar.xz, $OUT or gpu-logs)
#
# Each step has its own time limit and the next runs whatever it returned, so
# one hang or crash costs one step. Everything goes to LOG_DIR/log.txt; the
# conformance report, plexus-bench's and PyTorch's figures beside it.
# PLEXUS_GPU_STEPS (space-separated step names) runs only those steps.
set -u
bundle=${1:-.gpu/bundle.tar.xz}
logs=${2:-${OUT:-gpu-logs}}
steps=${PLEXUS_GPU_STEPS:-"devices runtime nccl conformance train bench torch train_torch grad composites own_kernels conv_algos sanitizer"}
mkdir -p "$logs"
log=$logs/log.txt
root=$(mktemp -d /tmp/plexus-gpu.XXXX)
tar -xJf "$bundle" -C "$root"

# cuBLAS and cuDNN: the toolkit's, or the ones PyTorch's wheels bring.
libdirs=()
for lib in libcublas.so.13 libcublasLt.so.13 libcudnn.so.9; do
  f=$(find /usr/local/cuda*/ /usr/lib/x86_64-linux-gnu /opt /usr/local/lib -name "$lib" 2>/dev/null | head -1)
  [ -n "$f" ] && libdirs+=("$(dirname "$f")")
done
cuda_libs=$(printf '%s\n' "${libdirs[@]}" | sort -u | paste -sd:)
# NCCL: the toolkit's, or the one PyTorch's wheels bring (opened at run time).
nccl=$(find /usr/local/cuda*/ /usr/lib/x86_64-linux-gnu /opt /usr/local/lib -name libnccl.so.2 2>/dev/null | head -1)
plexus_env=(env "LD_LIBRARY_PATH=$root/lib:$root/deps:$cuda_libs" "PATH=$root/bin:$PATH"
            "PLEXUS_NCCL_LIBRARY=$nccl")

{
  echo "== machine: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
  echo "cuBLAS/cuDNN from: ${cuda_libs:-not found}"
  echo "NCCL: ${nccl:-not found}"
} >>"$log" 2>&1

# step NAME SECONDS COMMAND...: runs a step, appends its output and status.
step() {
  local name=$1 secs=$2
  shift 2
  [[ " $steps " == *" $name "* ]] || return 0
  echo "== step $name (limit ${secs}s): $*" >>"$log"
  local t0=$SECONDS
  timeout -k 5 "$secs" "$@" >>"$log" 2>&1
  local rc=$?
  echo "== step $name: exit $rc after $((SECONDS - t0))s" | tee -a "$log"
}

cat >"$root/cuda.toml" <<'TOML'
[runtime]
device = "cuda:0"
TOML
cat >"$root/cuda-own-gemm.toml" <<'TOML'
[runtime]
device = "cuda:0"
[options.cuda]
cublas = "off"
cudnn = "off"
TOML
conf="$root/bin/plexus-conformance --plugin cuda"

step devices 30 "${plexus_env[@]}" plexus devices
step runtime 60 "${plexus_env[@]}" PLEXUS_TEST_GPU_PLUGIN_DIR="$root/lib/plexus/plugins" \
  plexus-gpu-tests 'cuda:*'
step nccl 120 "${plexus_env[@]}" PLEXUS_TEST_PLUGIN_DIR="$root/lib/plexus/plugins" \
  plexus-distributed-nccl --durations yes
step conformance 200 "${plexus_env[@]}" $conf --json "$logs/conformance.json"
step train 90 "${plexus_env[@]}" bash -c "PLEXUS_DEVICE=cpu plexus-example-train --out $root/curves &&
  plexus-example-train --config $root/cuda.toml --out $root/curves &&
  plexus-example-train --config $root/cuda.toml --out $root/curves --compile"
step bench 120 "${plexus_env[@]}" bash -c "plexus-bench --device cuda:0 --json > $logs/bench.json"
step torch 90 "${PYTHON:-python3}" bench/torch_peers.py --device cuda --plexus "$logs/bench.json" --json "$logs/torch.json"
step train_torch 90 bash -c "${PYTHON:-python3} bench/train_torch.py --device cuda --mode eager &&
  ${PYTHON:-python3} bench/train_torch.py --device cuda --mode graphs"
step grad 45 "${plexus_env[@]}" $conf --grad
step composites 45 "${plexus_env[@]}" $conf --composites
step own_kernels 40 "${plexus_env[@]}" env PLEXUS_CONFIG="$root/cuda-own-gemm.toml" \
  plexus-bench --device cuda:0 --filter '[sc][go][en][mv]*' --repeats 5
step conv_algos 20 "${plexus_env[@]}" env PLEXUS_LOG_LEVEL=debug \
  plexus-bench --device cuda:0 --filter 'conv2d_*' --quick
step sanitizer 60 "${plexus_env[@]}" compute-sanitizer --tool memcheck --error-exitcode 3 \
  $conf --filter '*/float32/*/functional'
[ -f "$logs/conformance.json" ] && gzip -f "$logs/conformance.json"
echo "== done: $(date -u +%FT%TZ)" >>"$log"
