#!/bin/bash
# bins.sh: range-coded bins per sample over the 16 images (PCWTSTATS counts them)
tb=0; tn=0; n=0
while IFS=, read -r img file frame mod ph src w h comp ba bs sg rest; do
  [ "$img" = image ] && continue
  i=$(printf %04d $n); n=$((n+1)); s=""; [ "$sg" = true ] && s=--signed
  b=$(PCWTSTATS=1 ./src/b/cli/pcwt encode --width $w --height $h --bits $ba --bits-stored $bs $s --profile compact ${PCWT_ARGS} set/$i.raw h/bins.out 2>&1 | awk '/XBINS/{print $2}')
  tb=$((tb+b)); tn=$((tn+w*h))
done < <(n=0; cat set16.csv)
echo "bins/sample $(echo "scale=4; $tb/$tn" | bc)"
