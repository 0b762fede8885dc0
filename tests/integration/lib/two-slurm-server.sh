#!/bin/bash
# Guest A (rbguest1, 192.0.2.1) of tests/rxe-two.sh (tests/integration/lib/two-servers.sh):
# the Slurm controller and the first node (scripts/testbed/slurm-up), kept up
# until guest B's cases write $RB_SLURM_SHARED/done (or 400 s pass).
# RB_SLURM_SHARED: a folder both guests see (under the shared source tree),
# made fresh by rxe-two.sh; the munge key goes there.
here=$(cd "$(dirname "$0")" && pwd)
: "${RB_SLURM_SHARED:?RB_SLURM_SHARED not set}"
# the node names, without DNS
printf '192.0.2.1 rbguest1\n192.0.2.2 rbguest2\n' >>/etc/hosts
up=$("$here/../../../scripts/testbed/slurm-up" --cpus 1 --key "$RB_SLURM_SHARED/munge.key" \
	/run/rb-slurm rbguest1=192.0.2.1 rbguest2=192.0.2.2) || exit 1
eval "$up"
. "$here/nap.sh"
for _ in $(seq 2000); do
	[ -e "$RB_SLURM_SHARED/done" ] && break
	nap 0.2
done
[ -e "$RB_SLURM_SHARED/done" ] || echo "server: guest B never said done" >&2
cp /run/rb-slurm/*.log "$RB_SLURM_SHARED/" 2>/dev/null
sinfo -h >&2
"$here/../../../scripts/testbed/slurm-up" --stop /run/rb-slurm
[ -e "$RB_SLURM_SHARED/done" ]
