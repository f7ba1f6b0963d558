#!/bin/sh
# beam_mem.sh: the peak resident memory (VmHWM) of a maslda-beam driver
# process and, separately, of the worker processes it starts (the
# PROCESS environment), sampled every 0.2 s from /proc (docs/scale.md).
#
#   docs/scripts/beam_mem.sh ./maslda-beam train --config m.hcl --docs docs.ldac \
#       --out out --work work --shard-size 1000 \
#       [-- --environment_type PROCESS --environment_config '{"command":"/path/bootwrap.sh"}' --worker_binary ./maslda-beam]
#
# Prints the command's output, then "driver peak RSS: N kB" and "worker
# peak RSS: N kB" (the largest of its descendants; 0 under LOOPBACK,
# where the workers run inside the driver).
"$@" &
pid=$!
drv=0
wrk=0
hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
desc() { # the descendants of $1
	for c in $(cat /proc/$1/task/*/children 2>/dev/null); do
		echo "$c"
		desc "$c"
	done
}
while kill -0 "$pid" 2>/dev/null; do
	h=$(hwm "$pid")
	[ -n "$h" ] && [ "$h" -gt "$drv" ] && drv=$h
	for c in $(desc "$pid"); do
		h=$(hwm "$c")
		[ -n "$h" ] && [ "$h" -gt "$wrk" ] && wrk=$h
	done
	sleep 0.2
done
wait "$pid"
rc=$?
echo "driver peak RSS: $drv kB"
echo "worker peak RSS: $wrk kB"
exit $rc
