#!/bin/bash
# delta.sh REF CAND COLL: frames changed by more than 0.1%, and counts by modality
paste r/$1.$3 r/$2.$3 | awk -F'\t' '$1!="AGG"{d=($4/$10-1)*100; if (d<-0.1||d>0.1) printf "%-62s %s %8d %8d %+.2f%%\n",$1"#"$2,$3,$4,$10,d; if(d>0.1)n[$3]++; if(d<-0.1)m[$3]++; t[$3]++; a[$3]+=$4; b[$3]+=$10} END{for(k in t) printf "%s: %d frames, %d better, %d worse, %+.2f%%\n",k,t[k],n[k],m[k],(a[k]/b[k]-1)*100}'
