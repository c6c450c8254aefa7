#!/bin/sh
# run.sh DIR [TASKS]: one fresh run of the measured match in DIR, locally or with --slurm TASKS.
cd /tmp/meas/$1 && rm -rf results*.jsonl records slurm
export SLURM_CONF=/tmp/ryoshi-slurm.YghXJA/slurm.conf   # printed by scripts/slurm-cluster start
if [ -n "$2" ]; then exec /work/wt/slurm/target/release/ryoshi match /tmp/meas/$1/engines.toml --slurm $2 >/dev/null; fi
exec /work/wt/slurm/target/release/ryoshi match /tmp/meas/$1/engines.toml >/dev/null
