import re,sys
txt=open(sys.argv[1]).read()
sets=re.split(r'^== set ',txt,flags=re.M)[1:]
for s in sets:
    name=s.split('\n')[0].split(' (exit')[0]
    wall=float(re.search(r'wall ([\d.]+) s',s).group(1))
    tl=dict((k.strip(),float(v)) for k,v in re.findall(r'([a-zA-Z0-9 ]+?) ([\d.]+)(?:,|$)',re.search(r'timeline \(s since the start\): (.*)',s).group(1)))
    cl=re.search(r'timeline: cleanup ([\d.]+) \(the process started ([\d.]+)',s)
    mem=re.search(r'peak resident (\d+) MB',s).group(1)
    hf=re.search(r'handles freed after the summary: (\d+) parts together in ([\d.]+) s',s)
    reg=re.search(r'page-locked regions .*',s)
    print(f"{name[:60]:60s} wall {wall:.3f} in {tl.get('first batch in'):.3f} coded {tl.get('first batch coded'):.3f} coders {tl.get('coders done'):.3f} summ {tl.get('summary'):.3f} freed {hf.group(2) if hf else '-'} exit {wall-float(cl.group(1))-float(cl.group(2)):.3f} end {wall-tl.get('summary')-float(cl.group(2)):.3f} peak {mem}")
