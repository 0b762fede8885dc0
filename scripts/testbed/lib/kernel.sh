# rb-testbed's guest kernel (sourced by scripts/testbed/rb-testbed): which
# Debian kernel package --kernel names, downloading and unpacking it once
# into $cache/kernels/PKG (never installed), and the choice offline.
# Reads rb-testbed's cache and kernel; sets kdir kver kpkg.
#
#   (default)       the package linux-image-amd64 depends on in the host's
#                   apt lists: on Debian 12, bookworm's 6.1
#   --kernel 6.1    the same, checked to be a 6.1
#   --kernel 6.12   bookworm-security's: what linux-image-6.12-amd64 depends on
#   --kernel X.Y    any other: the newest linux-image-X.Y.N+deb13-amd64 of
#                   trixie-backports (7.3 in December 2026), from package
#                   lists kept in $cache/apt-backports (a private apt
#                   configuration: the host's /etc/apt is left alone)
# trixie-backports splits a kernel into linux-binary-V (the bzImage),
# linux-modules-V and linux-base-V (config, modules.builtin) below
# /usr/lib/modules/V: all three are unpacked into one folder, laid out as
# bookworm's packages are (boot/vmlinuz-V, lib/modules/V).
# shellcheck shell=bash

BACKPORTS_SOURCE="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main"

# The options of apt-get/apt-cache for the private trixie-backports lists, into bp_opts.
bp_options() {
	local d=$cache/apt-backports
	bp_opts=(-o "Dir::Etc::sourcelist=$d/sources.list" -o Dir::Etc::sourceparts=-
		-o "Dir::Etc::preferencesparts=$d/preferences.d" -o "Dir::State::Lists=$d/lists"
		-o "Dir::Cache=$d/cache" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		-o APT::Sandbox::User=root)
}

# The private lists, fetched when missing or a day old (~1 s, 0.4 MB).
bp_update() {
	local d=$cache/apt-backports
	bp_options
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/preferences.d" || return 1
	echo "$BACKPORTS_SOURCE" >"$d/sources.list"
	# apt dates the lists by the archive's clock: a stamp of our own
	[ -n "$(find "$d/updated" -mmin -1440 2>/dev/null)" ] && return 0
	say "fetching trixie-backports' package lists into $d"
	apt-get "${bp_opts[@]}" update -q >&2 2>&1 || { say "apt-get update of trixie-backports failed"; return 1; }
	touch "$d/updated"
}

# The kernel package linux-image-amd64 depends on now, e.g. linux-image-6.1.0-56-amd64.
# apt-cache takes 1.5 s of CPU a call where apt keeps no binary cache (CI),
# once or twice a boot: the answer is kept in the cache folder, keyed by the
# package lists it came from (apt-get update makes a new key).
resolve_kernel_pkg() {
	local key f=$cache/kernel-pkg pkg
	key=$(stat -c '%n %s %Y' /var/lib/apt/lists/*Packages* 2>/dev/null | cksum)
	if [ -r "$f" ] && [ "$(head -n1 "$f")" = "$key" ]; then
		sed -n 2p "$f"
		return
	fi
	pkg=$(apt_depends_image linux-image-amd64)
	[ -n "$pkg" ] && [ -w "$cache" ] && printf '%s\n%s\n' "$key" "$pkg" >"$f.$$" && mv "$f.$$" "$f"
	echo "$pkg"
}

# apt_depends_image META [APT OPTIONS]: the linux-image-V package META depends on.
apt_depends_image() {
	local meta=$1
	shift
	apt-cache "$@" depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n1
}

# resolve_kernel_choice X.Y: the package of --kernel X.Y (not 6.1): from the
# host's lists, else trixie-backports' (+deb13); "" when none is known.
resolve_kernel_choice() {
	local v=$1 pkg
	pkg=$(apt_depends_image "linux-image-$v-amd64")
	if [ -n "$pkg" ]; then echo "$pkg"; return; fi
	bp_update || return 0
	apt-cache "${bp_opts[@]}" pkgnames "linux-image-$v." 2>/dev/null |
		grep -E "^linux-image-${v//./\\.}\.[0-9]+\+deb13-amd64$" | sort -V | tail -n1
}

# The packages that make up kernel PKG: itself, or trixie-backports' parts.
kernel_parts() { # PKG APT-OPTIONS...
	local pkg=$1 v=${1#linux-image-}
	shift
	if apt-cache "$@" depends "$pkg" 2>/dev/null | grep -q "linux-modules-$v"; then
		echo "linux-binary-$v linux-modules-$v linux-base-$v"
	else
		echo "$pkg"
	fi
}

# Lay an unpacked /usr/lib/modules/V (trixie's) out as bookworm's: lib/modules/V, boot/vmlinuz-V.
kernel_layout() { # ROOT
	local r=$1 v
	if [ -d "$r/usr/lib/modules" ] && [ ! -d "$r/lib/modules" ]; then
		mkdir -p "$r/lib" && mv "$r/usr/lib/modules" "$r/lib/modules" || return 1
	fi
	v=$(ls "$r/lib/modules" | head -n1)
	mkdir -p "$r/boot"
	[ -e "$r/lib/modules/$v/vmlinuz" ] && mv "$r/lib/modules/$v/vmlinuz" "$r/boot/vmlinuz-$v"
	[ -e "$r/lib/modules/$v/config" ] && mv "$r/lib/modules/$v/config" "$r/boot/config-$v"
	return 0
}

# fetch_kernel PKG [APT OPTIONS]: download and unpack PKG into
# $cache/kernels/PKG (once).  Prints that folder.
fetch_kernel() {
	local pkg=$1 dir=$cache/kernels/$1 tmp parts f t0=$SECONDS
	shift
	if [ -e "$dir/.done" ]; then echo "$dir"; return 0; fi
	tmp=$(mktemp -d "$cache/tmp.XXXXXX") || return 1
	parts=$(kernel_parts "$pkg" "$@")
	say "downloading $parts"
	# shellcheck disable=SC2086
	if ! (cd "$tmp" && apt-get -o APT::Sandbox::User=root "$@" download -q $parts >&2 2>&1); then
		rm -rf "$tmp"; return 1
	fi
	for f in "$tmp"/*.deb; do
		dpkg-deb -x "$f" "$tmp/root" || { rm -rf "$tmp"; return 1; }
	done
	dpkg-deb -f "$(ls "$tmp"/*.deb | head -n1)" Version >"$tmp/root/.version"
	rm -f "$tmp"/*.deb
	kernel_layout "$tmp/root" || { rm -rf "$tmp"; return 1; }
	rm -rf "$dir"; mkdir -p "$cache/kernels"
	mv "$tmp/root" "$dir" && rmdir "$tmp"
	local ver
	ver=$(ls "$dir/lib/modules" | head -n1)
	depmod -b "$dir" "$ver" || return 1
	touch "$dir/.done"
	say "$pkg unpacked into $dir in $((SECONDS - t0)) s"
	echo "$dir"
}

# The newest cached kernel of --kernel's series; by default the one
# linux-image-amd64 named last (kernel-pkg), else the newest ("" when none).
cached_kernel() {
	local d v last
	last=$(sed -n 2p "$cache/kernel-pkg" 2>/dev/null)
	if [ -z "$kernel" ] && [ -n "$last" ] && [ -e "$cache/kernels/$last/.done" ]; then
		echo "$cache/kernels/$last"
		return
	fi
	for d in "$cache"/kernels/*/.done; do
		d=${d%/.done}
		[ -d "$d/lib/modules" ] || continue
		v=$(ls "$d/lib/modules" | head -n1)
		[ -z "$kernel" ] || [[ $v == "$kernel".* ]] && echo "$v $d"
	done | sort -V | tail -n1 | cut -d' ' -f2-
}

# Pick the kernel --kernel names (downloaded if missing); offline, the
# newest one of that series already cached.  Sets kdir kver kpkg.
select_kernel() {
	local kopts=()
	case $kernel in
	"" | 6.1) kpkg=$(resolve_kernel_pkg) ;;
	*) kpkg=$(resolve_kernel_choice "$kernel") ;;
	esac
	# trixie-backports' package: downloaded through the private lists
	[[ $kpkg == *+deb13-* ]] && bp_options && kopts=("${bp_opts[@]}")
	kdir=""
	if [ -n "$kpkg" ]; then
		kdir=$(fetch_kernel "$kpkg" "${kopts[@]}") || kdir=""
	fi
	if [ -z "$kdir" ]; then
		kdir=$(cached_kernel)
		[ -n "$kdir" ] || die "no ${kernel:-linux-image-amd64} kernel: apt knows none (run with --install, or apt-get update; --kernel X.Y other than 6.1 and 6.12 comes from trixie-backports) and none is cached in $cache"
		say "could not get ${kpkg:-a ${kernel:-linux-image-amd64} kernel}; using the cached $(basename "$kdir")"
		kpkg=$(basename "$kdir")
	fi
	kver=$(ls "$kdir/lib/modules" | head -n1)
	[ -z "$kernel" ] || [[ $kver == "$kernel".* ]] || die "--kernel $kernel: $kpkg is kernel $kver"
	say "kernel $kpkg $(cat "$kdir/.version" 2>/dev/null) ($kver)"
}
