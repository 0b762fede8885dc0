import time, sys, os
d = "/sys/class/infiniband/rxe0/ports/1/hw_counters/"
names = ["sent_pkts", "completer_retry_err", "duplicate_request"]
fds = [open(d + n) for n in names]
out = []
open(sys.argv[2] + '.ready', 'w').close()
t_end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < t_end:
    vals = []
    for f in fds:
        f.seek(0); vals.append(int(f.read()))
    out.append((time.monotonic(), *vals))
    time.sleep(0.003)
with open(sys.argv[2], "w") as o:
    for r in out:
        o.write("%.4f %d %d %d\n" % r)
