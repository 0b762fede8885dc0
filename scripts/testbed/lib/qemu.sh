# rb-testbed's guests (sourced by scripts/testbed/rb-testbed): one guest's
# run folder (the guest's scripts, the caller's environment, its config and
# mounts), its qemu command line, starting it, its timings and post-mortem.
# Reads rb-testbed's options (mem mtu cpu_model tcg tick_us aslr keep_going
# verbose), shares, cached, tb_data, the cache's vmlinuz and initrd, and
# rail 1 (--nics 2; lib/modes.sh): rail1_nd rail1_ip rail1_peer; sets qargs
# and appends to pids.
# shellcheck shell=bash

# A free UDP port on 127.0.0.1.
free_udp_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		ss -Huln "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
	done
	echo $((20000 + RANDOM % 40000))
}

# The caller's exported variables, one `export NAME=VALUE` line each.
write_env() {
	local v
	for v in $(compgen -e); do
		case $v in
		RB_DEV | RB_GID_INDEX | RB_IP | RB_PEER | RB_TESTBED | RB_NETDEV) continue ;;
		RB_DEV1 | RB_GID_INDEX1 | RB_IP1 | RB_PEER1 | RB_NETDEV1) continue ;;
		PWD | OLDPWD | SHLVL | _ | BASH_* | SHELLOPTS | BASHOPTS | TMPDIR) continue ;;
		esac
		printf 'export %s=%q\n' "$v" "${!v}"
	done
}

# mount_list: the guest's mounts of shared and --cached folders, a "TAG PATH"
# line each ("cached PATH" for --cached), shallower paths first, so that a
# folder inside another one's mount is mounted over it, not hidden by it.
mount_list() {
	local i
	{
		for i in "${!shares[@]}"; do printf 'share%d %s\n' "$i" "${shares[$i]}"; done
		for i in "${cached[@]}"; do printf 'cached %s\n' "$i"; done
	} | awk '{ n = split($0, f, "/"); print n "\t" $0 }' | sort -s -n -k1,1 | cut -f2-
}

# prepare_guest DIR NETDEV IP PEER WAITFOR CMD...: fill a guest's run folder.
prepare_guest() {
	local dir=$1 nd=$2 ip=$3 peer=$4 waitfor=$5 i
	shift 5
	mkdir -p "$dir"
	cp "$tb_data/guest.sh" "$dir/stage2.sh"
	cp "$tb_data/rxe.sh" "$dir/rxe.sh"
	cp "$tb_data/tick.py" "$dir/tick.py"
	write_env >"$dir/env"
	{
		printf 'TB_NETDEV=%q TB_IP=%q TB_PEER=%q TB_MTU=%q TB_CWD=%q\n' \
			"$nd" "$ip" "$peer" "$mtu" "$PWD"
		printf 'TB_WAIT_FOR=%q TB_KEEP_GOING=%q TB_TICK_US=%q\n' "$waitfor" "$keep_going" \
			"$([ "$tcg" = single ] && echo "$tick_us" || echo 0)"
		[ -z "${rail1_nd:-}" ] || printf 'TB_NETDEV1=%q TB_IP1=%q TB_PEER1=%q\n' \
			"$rail1_nd" "$rail1_ip" "${rail1_peer:-}"
		printf 'TB_CMD=('; printf '%q ' "$@"; printf ')\n'
	} >"$dir/config"
	: >"$dir/out"; : >"$dir/err"
	mount_list >"$dir/shares"
}

# qemu_args DIR SMP EXTRA...: the command line of one guest, into qargs.
qemu_args() {
	local dir=$1 smp=$2 sec=none i append="console=ttyS0 quiet loglevel=3 panic=-1 edd=off no_timer_check"
	shift 2
	[ "$(id -u)" = 0 ] && sec=passthrough
	# Without address-space randomisation a library's code sits at the same
	# virtual address in every process, so qemu (7.2, whose translations are
	# keyed by it) translates it once rather than once per process: in the
	# guest /bin/true took 0.048 s against 0.022 s, an ASan+UBSan
	# rb_send_bw --version 0.30 s against 0.20-0.24, python3 0.32 s against
	# 0.20, and bench/write_bw.sh 19 s against 10 s (2026-12-01, one boot).
	[ "$aslr" = yes ] || append+=" norandmaps"
	[ -n "${RB_TESTBED_APPEND:-}" ] && append+=" $RB_TESTBED_APPEND"
	qargs=(qemu-system-x86_64 -machine pc -accel tcg,thread=$tcg -cpu "$cpu_model"
		-smp "$smp" -m "$mem" -nographic -no-reboot -nic none
		-kernel "$vmlinuz" -initrd "$initrd"
		-append "$append"
		-serial "file:$dir/console" -monitor none
		-fsdev "local,id=fsroot,path=/,security_model=$sec,readonly=on,multidevs=remap"
		-device virtio-9p-pci,fsdev=fsroot,mount_tag=hostroot
		-fsdev "local,id=fsrun,path=$dir,security_model=$sec,multidevs=remap"
		-device virtio-9p-pci,fsdev=fsrun,mount_tag=rbrun)
	for i in "${!shares[@]}"; do
		qargs+=(-fsdev "local,id=fs$i,path=${shares[$i]},security_model=$sec,multidevs=remap"
			-device "virtio-9p-pci,fsdev=fs$i,mount_tag=share$i")
	done
	qargs+=("$@")
}

# Start one guest in the background; its pid into the array pids.
start_guest() { # DIR
	vsay "${qargs[*]}"
	echo "$EPOCHREALTIME" >"$1/qemu.start"
	"${qargs[@]}" </dev/null >"$1/qemu.log" 2>&1 &
	pids+=($!)
}

# Print the guest's timings once its timing file appears (name: NAME).
report_timing() { # DIR NAME
	local f=$1/timing boot ready host
	[ -s "$f" ] || return 1
	host=$(awk -v a="$(cat "$1/qemu.start")" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	boot=$(sed -n 's/^boot_s=//p' "$f")
	ready=$(sed -n 's/^ready_s=//p' "$f")
	if [ -n "$ready" ]; then
		say "$2booted in ${boot} s, rxe0 ready at ${ready} s (guest uptime; ${host} s after qemu started); $(sed -n '/^dev=/p' "$f")"
	else
		say "$2booted in ${boot} s; $(grep -v '^boot_s=' "$f")"
	fi
}

# After a guest ended: why it ended without a status, with its console.
guest_post_mortem() { # DIR NAME
	say "${2}the guest ended before the command finished; console tail:"
	tail -n 25 "$1/console" >&2
	[ -s "$1/qemu.log" ] && { say "qemu said:"; tail -n 10 "$1/qemu.log" >&2; }
}

kill_guests() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
}
