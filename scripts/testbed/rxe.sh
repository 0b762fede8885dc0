# shellcheck shell=bash
# Soft-RoCE setup, shared by the guest (guest.sh) and rb-testbed --host.
# Sourced by bash.  rxe_setup NETDEV IP MTU CREATE_DUMMY makes rxe0 on NETDEV,
# waits (at most 20 s) for port 1 ACTIVE and the IPv4-mapped RoCE v2 GID of IP,
# and sets RB_GID_INDEX.  Returns non-zero with a message on stderr otherwise.

# rxe_gid_index DEV IP: the index of IP's IPv4-mapped RoCE v2 GID on DEV port 1.
rxe_gid_index() {
	local p=/sys/class/infiniband/$1/ports/1 want g gid type
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	# builtins only: every exec costs under emulation
	for g in "$p"/gids/*; do
		read -r gid <"$g" 2>/dev/null || continue
		[ "$gid" = "$want" ] || continue
		read -r type <"$p/gid_attrs/types/${g##*/}" 2>/dev/null || continue
		[ "$type" = "RoCE v2" ] || continue
		echo "${g##*/}"
		return 0
	done
	return 1
}

rxe_setup() {
	local nd=$1 ip=$2 mtu=$3 dummy=$4 t gid="" state=""
	if [ "$dummy" = yes ]; then
		ip link add "$nd" type dummy || { echo "cannot create $nd" >&2; return 1; }
	fi
	ip link set "$nd" mtu "$mtu" || { echo "cannot set MTU $mtu on $nd" >&2; return 1; }
	ip addr add "$ip/24" dev "$nd" || { echo "cannot add $ip to $nd" >&2; return 1; }
	ip link set "$nd" up || { echo "cannot bring $nd up" >&2; return 1; }
	rdma link add rxe0 type rxe netdev "$nd" || { echo "rdma link add rxe0 failed" >&2; return 1; }
	for ((t = 0; t < 200; t++)); do
		read -r state <"/sys/class/infiniband/rxe0/ports/1/state" 2>/dev/null
		if [[ $state == *ACTIVE* ]] && gid=$(rxe_gid_index rxe0 "$ip"); then
			RB_GID_INDEX=$gid
			return 0
		fi
		sleep 0.1
	done
	echo "rxe0: no ACTIVE port or RoCE v2 GID for $ip after 20 s" >&2
	return 1
}

# rxe_describe: one line on what was made, for the logs.
rxe_describe() {
	echo "dev=rxe0 netdev=$1 gid_index=$RB_GID_INDEX ip=$2" \
		"mtu=$(cat /sys/class/net/$1/mtu 2>/dev/null)" \
		"active_mtu=$(ibv_devinfo -d rxe0 2>/dev/null | awk '/active_mtu/ { print $2; exit }')"
}
