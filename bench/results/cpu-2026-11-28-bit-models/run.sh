#!/bin/bash
# run.sh NAME PCWTM [set|corp|both]
name=$1; export PCWTM=$2; w=${3:-set}
if [ $w = set -o $w = both ]; then /tmp/mdl/measure.py set > /tmp/mdl/r/$name.set; fi
if [ $w = corp -o $w = both ]; then /tmp/mdl/measure.py corpus > /tmp/mdl/r/$name.corp; fi
echo "$name [$2] set $(tail -1 /tmp/mdl/r/$name.set 2>/dev/null| cut -f4) corpus $(tail -1 /tmp/mdl/r/$name.corp 2>/dev/null | cut -f4) fails $(cat /tmp/mdl/r/$name.* | grep -c FAIL)"
