#!/usr/bin/env bash
# Everything the GPU machine is needed for, in one call: checks, then performance.
bash "$(dirname "$0")/gpu_check.sh"
bash "$(dirname "$0")/gpu_perf.sh"
