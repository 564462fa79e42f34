#!/bin/bash
# run.sh NAME [extra pcwt args]; env PCWTF etc pass through
name=$1; shift
export PCWT=${PCWT:-/tmp/xf/src/b/cli/pcwt} PCWT_ARGS="$*"
/tmp/xf/measure.py set > /tmp/xf/r/$name.set
/tmp/xf/measure.py corpus > /tmp/xf/r/$name.corp
echo "$name set $(tail -1 /tmp/xf/r/$name.set | cut -f4) corpus $(tail -1 /tmp/xf/r/$name.corp | cut -f4) fails $(cat /tmp/xf/r/$name.set /tmp/xf/r/$name.corp | grep -c FAIL)"
