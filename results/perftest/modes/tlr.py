import glob,sys
B=float(sys.argv[2]) if len(sys.argv)>2 else 0.25
for fn in sorted(glob.glob(sys.argv[1])):
    rows=[list(map(float,l.split())) for l in open(fn)]
    t=[r[0] for r in rows]; s=[r[1] for r in rows]; c=[r[2] for r in rows]
    ch=[i for i in range(1,len(s)) if s[i]!=s[i-1]]
    if not ch: continue
    i0=ch[0]-1; i1=ch[-1]
    out=[]; j=i0
    for i in range(i0,i1+1):
        if t[i]-t[j]>=B or i==i1:
            out.append("%3.0f/%d"%((s[i]-s[j])/(t[i]-t[j])/1000, c[i]-c[j])); j=i
    print(fn.split('/')[-1], " ".join(out))
