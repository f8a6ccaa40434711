#!/bin/bash
# swigen tune on a Slurm cluster: one array task per shard, each on one
# GPU and into its own DB, then one job that merges the shards' DBs
# (docs/DESIGN.md#tuning-across-gpus-and-hosts). Submit both with
#
#   bash docs/recipes/tune-slurm.sh
#
# Every task must get the same kind of GPU (the DB key names it, and the
# prune model counts its SMs), and $out must be on storage every node
# mounts. A task that fails, times out or is requeued resumes where it
# stopped when it runs again (sbatch --array=I docs/recipes/tune-slurm.sh
# resubmits task I): its DB holds every result so far. The merge job
# waits for every task to succeed; after a resubmitted task, run the
# merge's swigen line below by hand.
#SBATCH --job-name=swigen-tune
#SBATCH --array=0-7
#SBATCH --gpus=1
#SBATCH --time=04:00:00
#SBATCH --requeue
#SBATCH --output=swigen-tune-%A_%a.log
set -euo pipefail

# The number of tasks in --array above. Not $SLURM_ARRAY_TASK_COUNT: a
# task resubmitted alone would see 1 and take another shard.
shards=8
out=${SWIGEN_TUNE_OUT:-$HOME/swigen-tune}

if [[ -z ${SLURM_ARRAY_TASK_ID:-} ]]; then
	mkdir -p "$out"
	array=$(sbatch --parsable "$0")
	sbatch --parsable --dependency=afterok:"$array" --job-name=swigen-tune-merge --output="$out/merge.log" <<EOT
#!/bin/bash
swigen tune merge "$out"/shard-*.json -o "$out/suite-fwd-out.json"
EOT
	exit
fi

swigen tune --suite --kernel fwd_gateup --store-out \
	--shard "$SLURM_ARRAY_TASK_ID/$shards" \
	--db "$out/shard-$SLURM_ARRAY_TASK_ID.json"
