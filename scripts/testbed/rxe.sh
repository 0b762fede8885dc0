# shellcheck shell=bash
# Soft-RoCE setup, shared by the guest (guest.sh) and rb-testbed --host.
# Sourced by bash.  rxe_setup NETDEV IP MTU CREATE_DUMMY [DEV] makes DEV
# (default rxe0; rb-testbed --nics 2 makes rxe1 too) on NETDEV, waits (at
# most 20 s) for port 1 ACTIVE and the IPv4-mapped RoCE v2 GID of IP, and
# sets RB_GID_INDEX (rxe0) or RB_GID_INDEX<N> (rxe<N>, e.g. RB_GID_INDEX1).
# Returns non-zero with a message on stderr otherwise.

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
	local nd=$1 ip=$2 mtu=$3 dummy=$4 dev=${5:-rxe0} t gid="" state=""
	if [ "$dummy" = yes ]; then
		ip link add "$nd" type dummy || { echo "cannot create $nd" >&2; return 1; }
	fi
	ip link set "$nd" mtu "$mtu" || { echo "cannot set MTU $mtu on $nd" >&2; return 1; }
	ip addr add "$ip/24" dev "$nd" || { echo "cannot add $ip to $nd" >&2; return 1; }
	ip link set "$nd" up || { echo "cannot bring $nd up" >&2; return 1; }
	rdma link add "$dev" type rxe netdev "$nd" || { echo "rdma link add $dev failed" >&2; return 1; }
	for ((t = 0; t < 200; t++)); do
		read -r state <"/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null
		if [[ $state == *ACTIVE* ]] && gid=$(rxe_gid_index "$dev" "$ip"); then
			if [ "$dev" = rxe0 ]; then RB_GID_INDEX=$gid; else printf -v "RB_GID_INDEX${dev#rxe}" %s "$gid"; fi
			return 0
		fi
		sleep 0.1
	done
	echo "$dev: no ACTIVE port or RoCE v2 GID for $ip after 20 s" >&2
	return 1
}

# rxe_describe NETDEV IP [DEV]: one line on what was made (DEV, default
# rxe0), for the logs.
rxe_describe() {
	local dev=${3:-rxe0} gv=RB_GID_INDEX
	[ "$dev" = rxe0 ] || gv=RB_GID_INDEX${dev#rxe}
	echo "dev=$dev netdev=$1 gid_index=${!gv} ip=$2" \
		"mtu=$(cat /sys/class/net/$1/mtu 2>/dev/null)" \
		"active_mtu=$(ibv_devinfo -d "$dev" 2>/dev/null | awk '/active_mtu/ { print $2; exit }')"
}
