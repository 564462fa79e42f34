import csv,sys
def load(p):
    d={}
    for r in csv.DictReader(open(p)):
        if r['codec']=='pcwt-compact-cpu': d[(r['file'],r['frame'])]=(int(r['raw_bytes']),int(r['coded_bytes']),r['lossless'],r['modality'])
    return d
a=load(sys.argv[1]); b=load(sys.argv[2])
ra=sum(v[0] for v in a.values()); ca=sum(v[1] for v in a.values()); cb=sum(b[k][1] for k in a)
print('frames %d base %.4f new %.4f %+.2f%%  lossless all: %s'%(len(a), ra/ca, ra/cb, (ca/cb-1)*100, all(b[k][2]=='true' for k in a)))
ch=sorted(((a[k][1]/b[k][1]-1)*100,k) for k in a)
for c,k in ch[:5]: print('worst %+.2f%% %s'%(c,k[0].split('/')[-1]+'#'+k[1]))
for c,k in ch[-3:]: print('best %+.2f%% %s'%(c,k[0].split('/')[-1]+'#'+k[1]))
mods={}
for k in a:
    m=a[k][3]; x=mods.setdefault(m,[0,0,0,0]); x[0]+=a[k][0]; x[1]+=a[k][1]; x[2]+=b[k][1]; x[3]+=1
for m,x in sorted(mods.items()): print('%s %d %.4f -> %.4f %+.2f%%'%(m,x[3],x[0]/x[1],x[0]/x[2],(x[1]/x[2]-1)*100))
