#!/usr/bin/env bash
# Build and run the NVLink peer-bandwidth probe. Extra args go to peer_bw
# (e.g. ./run.sh -m tma,ce -n 50 -s 256M -d both).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
set -x
"$NVCC" -arch=sm_90 -O3 -Xcompiler -Wall -o /tmp/peer_bw "$HERE/peer_bw.cu" || exit 1
nvidia-smi topo -m 2>&1 | head -5
timeout 120 /tmp/peer_bw "$@"
rc=$?
set +x
echo "peer_bw exit code $rc"
exit $rc
