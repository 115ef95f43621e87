"""Readers of CalculiX's printed output, which ductile writes in the same layout
(OUT/results.dat, docs/interop.md): the reaction-force and PEEQ blocks of a .dat file and the
increments of a .sta file. Python 3 standard library only.
"""
import re

HEAD = re.compile(r"^\s*(forces|equivalent plastic strain|displacements|stresses)\s*\([^)]*\)\s*"
                  r"for set (\S+) and time\s+(\S+)")


def read_dat(path, rf_dof=None):
    """History of the blocks of a .dat file: {"rf": [(time, sum of the component rf_dof (1-3)
    over the set's nodes)], "peeq": [(time, max PEEQ over the set's points)], "rf_set": name,
    "peeq_points": points in the last PEEQ block}. Blocks of the same time (a step's last
    increment printed twice) are kept once."""
    rf, peeq, kind, acc, n, rf_set, pts = [], [], None, None, 0, None, 0

    def close():
        if kind == "forces" and rf_dof:
            put(rf, (t, acc))
        elif kind == "equivalent plastic strain":
            put(peeq, (t, acc))

    def put(lst, item):
        if lst and abs(lst[-1][0] - item[0]) < 1e-12:
            lst[-1] = item
        else:
            lst.append(item)

    with open(path, errors="replace") as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                if kind is not None:
                    close()
                kind, t, n = m.group(1), float(m.group(3)), 0
                acc = 0.0
                if kind == "forces":
                    rf_set = m.group(2)
                continue
            if kind is None:
                continue
            p = line.split()
            if not p:
                if n:  # a blank line after rows ends the block
                    close()
                    if kind == "equivalent plastic strain":
                        pts = n
                    kind = None
                continue
            try:
                if kind == "forces" and rf_dof:
                    acc += float(p[rf_dof])
                elif kind == "equivalent plastic strain":
                    acc = max(acc, float(p[2]))
                n += 1
            except (ValueError, IndexError):
                close()
                kind = None
    if kind is not None:
        close()
        if kind == "equivalent plastic strain":
            pts = n
    return {"rf": rf, "peeq": peeq, "rf_set": rf_set, "peeq_points": pts}


def read_sta(path):
    """CalculiX's .sta: [{"step", "increment", "attempts", "iterations", "time", "dt"}] for every
    converged increment; attempts - 1 are the increment's cutbacks."""
    rows = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                p = line.split()
                if len(p) == 7 and p[0].isdigit() and p[1].isdigit():
                    att = p[2]
                    rows.append({"step": int(p[0]), "increment": int(p[1]),
                                 "attempts": int(re.sub(r"\D", "", att) or 1), "iterations": int(p[3]),
                                 "time": float(p[4]), "dt": float(p[6])})
    except FileNotFoundError:
        pass
    return rows


def ccx_cutback_reasons(log):
    """{reason: count} of CalculiX's cutbacks, from its standard output: each cutback prints
    "<reason>; the increment size is decreased to ..." (divergence, no convergence, too slow
    convergence, ...); a run that gives up prints "increment size smaller than minimum"."""
    out = {}
    for line in log.splitlines():
        low = line.strip().lower()
        if "increment size is decreased" in low:
            why = low.split(";")[0].strip(" *") or "decreased"
            out[why] = out.get(why, 0) + 1
        elif "increment size smaller than minimum" in low:
            out["increment below the minimum (gave up)"] = out.get("increment below the minimum (gave up)", 0) + 1
    return out
