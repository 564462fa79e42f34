#!/usr/bin/python3
"""oracle.py W NAME... : per frame the smallest of the named runs (base included)."""
import sys
def load(p):
    d={}
    for l in open(p):
        f=l.split("\t")
        if f[0]!="AGG": d[(f[0],f[1])]=(int(f[3]),int(f[6]),f[2])
    return d
w=sys.argv[1]; b=load("/tmp/mdl/r/base."+w); ds=[load("/tmp/mdl/r/%s.%s"%(n,w)) for n in sys.argv[2:]]
raw=sum(v[1] for v in b.values()); best={k:min([b[k][0]]+[d[k][0] for d in ds]) for k in b}
print(w,"oracle %.4f base %.4f %+.2f%%"%(raw/sum(best.values()), raw/sum(v[0] for v in b.values()), 100*(sum(v[0] for v in b.values())/sum(best.values())-1)))
for k in b:
    if k[0][:3] in ("CT1","XA1","MR1") or best[k] < b[k][0]*0.995: print("  %s#%s %s %.4f -> %.4f"%(k[0],k[1],b[k][2],b[k][1]/b[k][0],b[k][1]/best[k]))
