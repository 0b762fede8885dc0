# rb-testbed's cache (sourced by scripts/testbed/rb-testbed): the host
# packages, the guest kernel (lib/kernel.sh: the one --kernel names,
# downloaded and unpacked once into $cache/kernels/; its ELF image beside
# it) and the initramfs (busybox, the modules in load order, testbed/init),
# built once per kernel and init.  What --prepare makes.  Reads
# rb-testbed's cache, kernel, tb_data and verbose; sets kdir kver kpkg
# initrd vmlinuz.
# shellcheck shell=bash

HOST_PACKAGES="qemu-system-x86 qemu-system-data seabios busybox-static cpio kmod
xz-utils zstd ibverbs-providers ibverbs-utils rdmacm-utils perftest iproute2 numactl
python3 apt tcpdump nftables prometheus"

install_packages() {
	say "installing host packages"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2 || die "apt-get update failed"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $HOST_PACKAGES >&2 ||
		die "apt-get install failed"
}

# Modules the guest loads, in order (dependencies come from modprobe).
GUEST_MODULES="virtio_pci 9pnet_virtio 9p overlay udp_tunnel ip6_udp_tunnel ib_core
ib_uverbs rdma_rxe ib_cm iw_cm rdma_cm rdma_ucm ib_umad crc32_generic dummy virtio_net
nfnetlink nf_tables sch_netem"
# Those a kernel may lack: from 6.15 rxe calls the crc32 library (built
# in), no longer the crypto API's crc32 (crc32_generic, gone in 7.x); 7.x
# builds nfnetlink in without a modules.builtin line.  sch_netem (tc's
# netem qdisc: loss, delay, for fault injection) is a module in Debian's
# 6.1 (CONFIG_NET_SCH_NETEM=m): the guest has no modprobe for its kernel,
# so it is loaded up front where the kernel has it.
GUEST_MODULES_OPTIONAL="crc32_generic nfnetlink sch_netem"

# Build the initramfs (busybox, the modules, init) once per kernel and init.
build_initrd() {
	local key tmp m f base
	key=$( (echo "$kver $GUEST_MODULES"; cat "$tb_data/init" /bin/busybox) | sha1sum | cut -c1-12)
	initrd=$cache/initrd-$kver-$key.cpio
	[ -s "$initrd" ] && return 0
	tmp=$(mktemp -d "$cache/tmp.XXXXXX") || die "cannot write to $cache"
	mkdir -p "$tmp"/{bin,lib/rb,proc,sys,dev}
	cp /bin/busybox "$tmp/bin/busybox"
	cp "$tb_data/init" "$tmp/init"; chmod 755 "$tmp/init"
	for m in $GUEST_MODULES; do
		modprobe -d "$kdir" -S "$kver" --show-depends "$m" 2>/dev/null && continue
		[[ " $GUEST_MODULES_OPTIONAL " == *" $m "* ]] || { rm -rf "$tmp"; die "module $m missing from $kver"; }
	done >"$tmp/deps"
	awk '$1 == "insmod" && !seen[$2]++ { print $2 }' "$tmp/deps" >"$tmp/order"
	while read -r f; do
		base=$(basename "$f")
		case $base in
		*.ko.xz) xz -dc "$f" >"$tmp/lib/rb/${base%.xz}"; base=${base%.xz} ;;
		*.ko.zst) zstd -qdc "$f" >"$tmp/lib/rb/${base%.zst}"; base=${base%.zst} ;;
		*.ko.gz) gzip -dc "$f" >"$tmp/lib/rb/${base%.gz}"; base=${base%.gz} ;;
		*) cp "$f" "$tmp/lib/rb/$base" ;;
		esac || die "cannot copy $f"
		case $base in dummy.ko) echo "$base numdummies=0" ;; *) echo "$base" ;; esac
	done <"$tmp/order" >"$tmp/lib/rb/load.list"
	rm "$tmp/order" "$tmp/deps"
	(cd "$tmp" && find . | cpio -o -H newc --quiet) >"$initrd.tmp" &&
		mv "$initrd.tmp" "$initrd"
	rm -rf "$tmp"
	[ -s "$initrd" ] || die "initramfs build failed"
	say "built $initrd"
}

# The uncompressed ELF kernel, booted through its PVH entry: saves the ~5 s
# the emulated CPU spends decompressing the bzImage.  Falls back to vmlinuz.
extract_vmlinux() {
	local elf=$kdir/boot/vmlinux-$kver pos
	if [ ! -s "$elf" ]; then
		pos=$(grep -abo $'\xfd7zXZ\x00' "$vmlinuz" | head -n1 | cut -d: -f1)
		if [ -n "$pos" ]; then
			tail -c+$((pos + 1)) "$vmlinuz" | xz -dc >"$elf.tmp" 2>/dev/null
		else
			pos=$(grep -abo $'\x28\xb5\x2f\xfd' "$vmlinuz" | head -n1 | cut -d: -f1)
			[ -n "$pos" ] && tail -c+$((pos + 1)) "$vmlinuz" | zstd -qdc >"$elf.tmp" 2>/dev/null
		fi
		# xz/zstd complain about the trailing bytes; the ELF is whole all the same
		if [ -s "$elf.tmp" ] && [ "$(head -c4 "$elf.tmp" | od -An -c | tr -d ' ')" = 177ELF ]; then
			mv "$elf.tmp" "$elf"
		else
			rm -f "$elf.tmp"
		fi
	fi
	if [ -s "$elf" ]; then vmlinuz=$elf; else say "booting the compressed kernel (slower)"; fi
}

prepare_cache() {
	[ -r "$tb_data/init" ] || die "the test bed's scripts (testbed/init, guest.sh, rxe.sh) not found; set RB_TESTBED_DATA"
	mkdir -p "$cache" || die "cannot create $cache"
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (use --install)"
	[ -x /bin/busybox ] || die "/bin/busybox missing (use --install)"
	local t0=$SECONDS
	select_kernel
	build_initrd
	vmlinuz=$kdir/boot/vmlinuz-$kver
	[ -r "$vmlinuz" ] || die "no $vmlinuz"
	extract_vmlinux
	vsay "cache ready in $((SECONDS - t0)) s"
}
