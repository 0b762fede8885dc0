#!/bin/sh
# distfiles.sh SRCDIR DISTDIR: make dist's check (Makefile.am dist-hook)
# that the release tarball holds what its own files use.  In a git checkout,
# lists the tracked files that DISTDIR (the tarball's tree, filled) lacks,
# and fails on each one that a shipped file names: the README's quick start,
# a test, a script, a document, the Makefile, ...  A file is named by its
# path from the top (a word of its own: "scripts/tools/rb-quickstart",
# "$top_srcdir/scripts/tools/rb-quickstart"), or through one of its folders named
# as such ("results/perftest", "results/": every file under it).  The
# tracked files no shipped file names are listed, and let pass (.gitignore).
# Not in a git checkout (the tarball's own make dist, in distcheck): says
# so, and checks nothing.
srcdir=$1 distdir=$2
top=$(git -C "$srcdir" rev-parse --show-toplevel 2>/dev/null)
if [ -z "$top" ] || [ "$(cd "$top" && pwd -P)" != "$(cd "$srcdir" && pwd -P)" ]; then
	echo "distfiles: $srcdir is not a git checkout: its files are not compared with the tarball's"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "distfiles: no python3: the tarball's files are not compared with git's" >&2
	exit 0
fi
git -C "$srcdir" ls-files -z | python3 -c '
import os, re, sys
distdir = sys.argv[1]
tracked = [f for f in sys.stdin.read().split("\0") if f]
shipped = [f for f in tracked if os.path.lexists(os.path.join(distdir, f))]
missing = [f for f in tracked if f not in set(shipped)]
if not missing:
    print("distfiles: the tarball holds all %d tracked files" % len(tracked))
    sys.exit(0)

# The words of the shipped tracked files that look like paths (a trailing
# "." or ":" is punctuation), and who uses each.
users = {}
for f in shipped:
    path = os.path.join(distdir, f)
    if os.path.islink(path) or not os.path.isfile(path):
        continue
    data = open(path, "rb").read()
    if b"\0" in data[:8192]:
        continue
    for word in set(re.findall(r"[A-Za-z0-9_.+/-]+", data.decode("utf-8", "replace"))):
        word = word.rstrip(".:")
        if "/" in word:
            users.setdefault(word.lstrip("./") if word.startswith("./") else word, set()).add(f)

def named(f):
    """(files naming F by its path, folder, files naming that folder as
    one).  F by its path: a word, or the end of one after a "/"
    ($top_srcdir/F).  A folder of F as a folder: a top one with its "/"
    ("results/"), a deeper one with or without ("results/perftest")."""
    def who(names):
        found = set()
        for word, users_of in users.items():
            if any(word == n or word.endswith("/" + n) for n in names):
                found |= users_of
        return sorted(found)
    parts = f.split("/")
    for k in range(1, len(parts)):
        d = "/".join(parts[:k])
        folder = who([d + "/"] + ([d] if k > 1 else []))
        if folder:
            return who([f]), d + "/", folder
    return who([f]), None, []

def names(files):
    return ", ".join(files[:4]) + (" ..." if len(files) > 4 else "")

bad, folders = 0, {}
for f in missing:
    direct, d, folder = named(f)
    if direct:
        bad += 1
        print("distfiles: %s is tracked, named by %s, and not in the tarball" % (f, names(direct)),
              file=sys.stderr)
    elif d:
        bad += 1
        folders.setdefault(d, [folder, 0])[1] += 1
    else:
        print("distfiles: %s is tracked, not in the tarball, named by no file in it" % f)
for d, (folder, n) in sorted(folders.items()):
    print("distfiles: %s: %d tracked files not in the tarball; the folder is named by %s"
          % (d, n, names(folder)), file=sys.stderr)
if bad:
    print("distfiles: %d files the tarball uses are missing: add them to EXTRA_DIST (Makefile.am)"
          % bad, file=sys.stderr)
    sys.exit(1)
print("distfiles: the tarball holds every tracked file its own files name (%d of %d tracked files)"
      % (len(shipped), len(tracked)))
' "$distdir"
