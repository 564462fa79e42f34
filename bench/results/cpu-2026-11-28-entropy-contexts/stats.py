#!/usr/bin/python3
import csv, os, subprocess, sys
os.environ["PCWTX_STATS"]="1"; os.environ.setdefault("PCWTX","0,0,0,0,0,2,6,0")
rows=[r for r in csv.DictReader(open("/tmp/cx/set16.csv")) if r["raw_bytes"]]
tot=[0]*8
print("image        ZERO   MQD   MAG  MANT  SIGN  MANT2  RAW   (share %)  total")
for i,r in enumerate(rows):
    a=["/tmp/cx/src/b/cli/pcwt","encode","--width",r["width"],"--height",r["height"],"--bits",r["bits_allocated"],"--bits-stored",r["bits_stored"],"--profile","compact"]+(["--signed"] if r["signed"]=="true" else [])+["/tmp/cx/set/%04d.raw"%i,"/tmp/cx/h/o.st"]
    p=subprocess.run(a,capture_output=True,text=True)
    v=[float(x) for x in p.stderr.split("XSTATS")[1].split()[:7]]
    t=sum(v); tot=[a+b for a,b in zip(tot,v+[t])]
    print("%-12s"%r["image"][:12]," ".join("%5.1f"%(100*x/t) for x in v), " %d"%t)
t=tot[7]; print("%-12s"%"ALL"," ".join("%5.1f"%(100*x/t) for x in tot[:7]), " %d"%t)
