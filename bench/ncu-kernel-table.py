#!/usr/bin/env python3
"""Sums an ncu CSV of per-kernel durations into a table, one line per kernel, largest first.

    ncu --metrics gpu__time_duration.sum --csv --print-units base CMD > run.csv
    bench/ncu-kernel-table.py [--by-grid] run.csv [TITLE]

Kernels are grouped by their demangled name without the parameter list (template arguments
stay, so fwd_level1_511<true, 4> and <false, 4> are apart); --by-grid: by name and grid size
(one run over two batches keeps their launches apart). Lines of the CSV that are not kernel
rows (the program's own output) are skipped.
"""
import csv
import sys


def short_name(name):
    """The demangled name up to its parameter list (the last top-level parenthesis)."""
    if not name.endswith(")"):
        return name
    depth = 0
    for k in range(len(name) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(name[k], 0)
        if depth == 0:
            return name[:k]
    return name


def main():
    args = sys.argv[1:]
    by_grid = "--by-grid" in args
    args = [a for a in args if a != "--by-grid"]
    if not args:
        sys.exit("usage: ncu-kernel-table.py [--by-grid] RUN.csv [TITLE]")
    title = args[1] if len(args) > 1 else args[0]
    with open(args[0], newline="", errors="replace") as f:
        lines = [line for line in f if line.startswith('"')]
    totals, counts, header = {}, {}, None
    for row in csv.reader(lines):
        if header is None:
            if "Kernel Name" in row and "Metric Value" in row:
                header = {n: k for k, n in enumerate(row)}
            continue
        if len(row) != len(header) or row[header["Metric Name"]] != "gpu__time_duration.sum":
            continue
        unit = row[header["Metric Unit"]] if "Metric Unit" in header else "ns"
        scale = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6}.get(unit, 1.0)
        ns = float(row[header["Metric Value"]].replace(",", "")) * scale
        name = short_name(row[header["Kernel Name"]]).replace("(anonymous namespace)::", "")
        name = name[5:] if name.startswith("void ") else name
        if by_grid and "Grid Size" in header:
            name += " grid" + row[header["Grid Size"]].replace(" ", "")
        totals[name] = totals.get(name, 0.0) + ns
        counts[name] = counts.get(name, 0) + 1
    if header is None:
        sys.exit("no kernel rows in " + args[0])
    total = sum(totals.values())
    print(f"## {title}: {sum(counts.values())} launches, {total / 1e6:.3f} ms summed")
    for name in sorted(totals, key=totals.get, reverse=True):
        print(f"{name[:80]:80s} n={counts[name]:5d} {totals[name] / 1e6:9.3f} ms {100 * totals[name] / total:5.1f}%")


if __name__ == "__main__":
    main()
