import glob,sys
for fn in sorted(glob.glob(sys.argv[1])):
    rows=[list(map(float,l.split())) for l in open(fn)]
    t=[r[0] for r in rows]; s=[r[1] for r in rows]; c=[r[2] for r in rows]
    ch=[i for i in range(1,len(s)) if s[i]!=s[i-1]]
    if not ch: print(fn, "no traffic"); continue
    i0=ch[0]-1; i1=ch[-1]
    stalls=[]
    for a,b in zip(ch,ch[1:]):
        # no change between samples a and b-1
        if t[b-1]-t[a] > 0.02: stalls.append((round(t[a]-t[i0],3), round(t[b-1]-t[a],3), int(c[b]-c[a])))
    tot=sum(x[1] for x in stalls)
    print(fn.split('/')[-1], "active %.2f s, samples %d, pkts %d, retries %d, stalls>20ms: %d totalling %.2f s" % (t[i1]-t[i0], i1-i0, s[i1]-s[i0], c[i1]-c[i0], len(stalls), tot))
    print("   ", stalls[:40])
