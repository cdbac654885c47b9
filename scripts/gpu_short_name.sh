# Sourced by scripts/qualify.sh and scripts/sweep.sh: the name a record or a
# sweep gives the machine's GPU.
#
# gpu_short_name MODEL: the model's first word such as h100, gh200 or a100
# (of "NVIDIA H100 80GB HBM3", "NVIDIA GH200 480GB", "NVIDIA A100-SXM4-80GB"),
# else its last word; lower case, anything but letters and digits a dash.
gpu_short_name() {
  echo "${1:-gpu}" | awk '{ for (i = 1; i <= NF; i++) { w = $i; sub(/-.*/, "", w)
      if (w ~ /^[A-Za-z][A-Za-z]?[0-9][0-9][0-9]?[0-9]?$/) { print tolower(w); exit } }
    print tolower($NF) }' | tr -c 'a-z0-9\n' '-'
}
