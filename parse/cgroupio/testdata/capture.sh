#!/usr/bin/env bash
# Copies this machine's cgroup I/O counters into this folder as fixtures:
#
#   v1/root-io_service_bytes.txt, v1/root-io_serviced.txt
#       the root blkio group's blkio.throttle.io_service_bytes and
#       blkio.throttle.io_serviced: every device the machine has done I/O on
#   v1/empty-io_service_bytes.txt
#       a group just made, which has done no I/O: the kernel prints "Total 0"
#   v1/dd-io_service_bytes.txt, v1/dd-io_serviced.txt (and their _recursive)
#       a group of its own after dd read and wrote 8 MiB with O_DIRECT in it,
#       on the device that holds this folder
#
# It needs root and cgroup v1's blkio controller mounted at
# /sys/fs/cgroup/blkio (cgroup v2's io.stat fixtures are not made here: see
# README.md). The group it makes is removed at the end. Then run
# `go test ./parse/cgroupio -update` to rewrite the goldens.
set -euo pipefail

cd "$(dirname "$0")"
root=/sys/fs/cgroup/blkio
[ -e "$root/blkio.throttle.io_service_bytes" ] || { echo "no cgroup v1 blkio at $root" >&2; exit 1; }
cat "$root/blkio.throttle.io_service_bytes" >v1/root-io_service_bytes.txt
cat "$root/blkio.throttle.io_serviced" >v1/root-io_serviced.txt

group=$root/pgstudy-fixture-$$
mkdir "$group"
scratch=$(mktemp -d ./scratch.XXXXXX)
cleanup() {
	echo $$ >"$root/cgroup.procs"
	rmdir "$group"
	rm -rf "$scratch"
}
trap cleanup EXIT
cat "$group/blkio.throttle.io_service_bytes" >v1/empty-io_service_bytes.txt
dd if=/dev/urandom of="$scratch/f" bs=1M count=8 status=none
sync
echo 3 >/proc/sys/vm/drop_caches
# This shell joins the group: dd, its child, does its I/O in it.
echo $$ >"$group/cgroup.procs"
dd if="$scratch/f" of=/dev/null bs=1M iflag=direct status=none
dd if=/dev/zero of="$scratch/g" bs=1M count=8 oflag=direct conv=fsync status=none
# Out of the group again before the copies are written, so that writing
# them does not move the counters being copied.
echo $$ >"$root/cgroup.procs"
for f in io_service_bytes io_serviced io_service_bytes_recursive io_serviced_recursive; do
	cat "$group/blkio.throttle.$f" >"v1/dd-$f.txt"
done
wc -l v1/*.txt
