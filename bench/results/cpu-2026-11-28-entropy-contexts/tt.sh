#!/bin/bash
# tt.sh NAME PCWTX : train on corpus and on set, evaluate crosswise
name=$1; x=$2
export PCWT=/tmp/cx/src/b/cli/pcwt PCWTX=$x
for k in set corpus; do rm -rf /tmp/cx/tr/$name.$k; mkdir -p /tmp/cx/tr/$name.$k; PCWTX_DUMP=/tmp/cx/tr/$name.$k/d /tmp/cx/h/measure.py $k > /dev/null; /tmp/cx/h/train.py /tmp/cx/tr/$name.$k /tmp/cx/tr/$name.$k.tab; done
cat /tmp/cx/tr/$name.set/d.* > /dev/null
mkdir -p /tmp/cx/tr/$name.both; cp /tmp/cx/tr/$name.set/d.* /tmp/cx/tr/$name.corpus/d.* /tmp/cx/tr/$name.both/; /tmp/cx/h/train.py /tmp/cx/tr/$name.both /tmp/cx/tr/$name.both.tab
for t in corpus set both; do
  PCWTX_TAB=/tmp/cx/tr/$name.$t.tab /tmp/cx/h/measure.py set > /tmp/cx/r/$name-T$t.set
  PCWTX_TAB=/tmp/cx/tr/$name.$t.tab /tmp/cx/h/measure.py corpus > /tmp/cx/r/$name-T$t.corp
  echo "$name trained on $t: set $(tail -1 /tmp/cx/r/$name-T$t.set | cut -f4) corpus $(tail -1 /tmp/cx/r/$name-T$t.corp | cut -f4)"
done
