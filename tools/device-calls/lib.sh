# Shared by the call scripts: a deadline so the results are always packed.
export NCCL_NVLS_ENABLE=0
T0=$(date +%s); R=/tmp/res; rm -rf $R; mkdir -p $R
el() { echo $(( $(date +%s)-T0 )); }
# step CAP CMD...: runs CMD with timeout min(CAP, DEADLINE - elapsed)
step() { local cap=$1; shift; local left=$(( DEADLINE - $(el) )); [ $left -lt $cap ] && cap=$left;
  [ $cap -le 5 ] && { echo "SKIPPED (no time): $*"; return 99; }
  timeout $cap "$@"; local rc=$?; echo "[$(el)s] rc=$rc cap=$cap: $*" >&2; return $rc; }
hdr() { echo "# command: NCCL_NVLS_ENABLE=0 $*"; echo "# machine: $(hostname), $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader|head -1)"; echo "# date: $(date -u +%FT%TZ)"; }
