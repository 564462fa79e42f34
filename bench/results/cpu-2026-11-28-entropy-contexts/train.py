#!/usr/bin/python3
# train.py DUMPDIR OUT: per class and model p = (ones + 1/2) / (bits + 1), clamped; unused -> 0 (keep default)
import glob, sys, collections
b=collections.Counter(); o=collections.Counter()
for fn in glob.glob(sys.argv[1]+"/d.*"):
    for l in open(fn):
        c,i,nb,no=map(int,l.split()); b[(c,i)]+=nb; o[(c,i)]+=no
with open(sys.argv[2],"w") as f:
    for (c,i),nb in sorted(b.items()):
        if nb < 20: continue
        p=int((2*o[(c,i)]+1)*32768/(2*nb+2)); p=max(64,min(32704,p))
        f.write("%d %d %d\n"%(c,i,p))
