#!/bin/sh
# bootwrap.sh: the PROCESS environment's command for prism 2.77 (docs/scale.md).
# Prism starts it as `bootwrap.sh --id='ID' --provision_endpoint=HOST:PORT`:
# the id comes with literal quotes, which the SDK's boot binary would keep
# (the job then hangs), so they are stripped. Prism ends the environment
# with SIGKILL, which leaves boot's worker process running: boot runs in a
# process group of its own, and a watchdog kills that group when this
# script or boot is gone. BOOT (default: boot next to this script) is the
# boot binary: go build -o boot github.com/apache/beam/sdks/v2/go/container
id=$(printf '%s' "$1" | sed "s/^--id='\(.*\)'\$/\1/; s/^--id=//")
shift
boot=${BOOT:-$(dirname "$0")/boot}
setsid "$boot" --id="$id" "$@" &
pid=$!
me=$$
(
	while kill -0 "$me" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do
		sleep 0.2
	done
	kill -9 "-$pid" 2>/dev/null
) &
wait "$pid"
