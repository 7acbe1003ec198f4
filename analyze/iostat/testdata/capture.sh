#!/usr/bin/env bash
# Captures two snapshots of this machine's /proc/diskstats with a known read
# workload between them, as the fixtures of iostat_test.go:
#
#   before.txt, after.txt   /proc/diskstats, verbatim, before and after
#   interval.txt            the seconds between the two reads of it
#   *-18field.txt           each line without its last 2 fields (flushes),
#                           the shape Linux 4.18 to 5.4 print
#   *-14field.txt           each line without its last 6 fields (discards
#                           and flushes), the shape of kernels before 4.18
#
# The workload, in a temporary folder beside this script (so on the disk
# holding the repository): a 64 MiB file of random data, written and
# fsynced before the first snapshot, is read back with O_DIRECT in 64 KiB
# requests (1024 reads, bypassing the page cache); then a 16 MiB file is
# written with O_DIRECT in 64 KiB requests and fsynced (writes and a
# flush), removed, and the file system synced (discards, if it is mounted
# with -o discard). Needs GNU dd. The expected values in iostat_test.go
# are worked out by hand from these files: after running this again, work
# them out again.
set -euo pipefail

cd "$(dirname "$0")"
tmp=$(mktemp -d -p .)
trap 'rm -rf "$tmp"' EXIT
dd if=/dev/urandom of="$tmp/data" bs=1M count=64 conv=fsync status=none
sleep 1

t0=$EPOCHREALTIME
cat /proc/diskstats >before.txt
dd if="$tmp/data" of=/dev/null bs=64k iflag=direct status=none
dd if=/dev/zero of="$tmp/written" bs=64k count=256 oflag=direct conv=fsync status=none
rm "$tmp/written"
sync
sleep 1
t1=$EPOCHREALTIME
cat /proc/diskstats >after.txt
# $EPOCHREALTIME is seconds with microseconds; its decimal point follows
# the locale, so it is read as two integers.
awk -v a="${t0//[.,]/ }" -v b="${t1//[.,]/ }" 'BEGIN {
	split(a, x, " "); split(b, y, " ")
	printf "%.6f\n", (y[1] - x[1]) + (y[2] - x[2]) / 1e6
}' >interval.txt

for f in before after; do
	if awk 'NF != 20 { bad = 1 } END { exit bad }' "$f.txt"; then
		# Drop trailing counters, keeping the kernel's own spacing.
		sed -E 's/( +[0-9]+){2}$//' "$f.txt" >"$f-18field.txt"
		sed -E 's/( +[0-9]+){6}$//' "$f.txt" >"$f-14field.txt"
	fi
done
wc -l ./*.txt
