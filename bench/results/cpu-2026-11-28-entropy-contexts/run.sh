#!/bin/bash
# run.sh NAME PCWTX [extra pcwt args]
name=$1; x=$2; shift 2
export PCWT=/tmp/cx/src/b/cli/pcwt PCWT_ARGS="$*"
if [ "$x" != "-" ]; then export PCWTX=$x; fi
/tmp/cx/h/measure.py set > /tmp/cx/r/$name.set
/tmp/cx/h/measure.py corpus > /tmp/cx/r/$name.corp
echo "$name set $(tail -1 /tmp/cx/r/$name.set | cut -f4) corpus $(tail -1 /tmp/cx/r/$name.corp | cut -f4) fails $(cat /tmp/cx/r/$name.set /tmp/cx/r/$name.corp | grep -c FAIL)"
