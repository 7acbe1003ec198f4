#!/usr/bin/env bash
# Copies this machine's /proc/diskstats into this folder as a fixture, and
# derives from it the older kernels' shapes by cutting each line short:
#
#   NAME.txt          the copy, as the kernel printed it
#   NAME-18field.txt  each line without its last 2 fields (flushes), as
#                     Linux 4.18 to 5.4 print it
#   NAME-14field.txt  each line without its last 6 fields (discards and
#                     flushes), as kernels before 4.18 print it
#
# NAME is the first argument, or linux-MAJOR.MINOR of the running kernel.
# The cut copies are made only from a 20-field snapshot. Then run
# `go test ./parse/diskstats -update` to rewrite the goldens.
set -euo pipefail

cd "$(dirname "$0")"
name=${1:-linux-$(uname -r | cut -d. -f1,2)}
cat /proc/diskstats >"$name.txt"
if awk 'NF != 20 { bad = 1 } END { exit bad }' "$name.txt"; then
	# Drop trailing counters, keeping the kernel's own spacing.
	sed -E 's/( +[0-9]+){2}$//' "$name.txt" >"$name-18field.txt"
	sed -E 's/( +[0-9]+){6}$//' "$name.txt" >"$name-14field.txt"
fi
wc -l "$name"*.txt
