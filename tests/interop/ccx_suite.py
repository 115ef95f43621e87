#!/usr/bin/env python3
"""Runs every deck of CalculiX's own regression suite (Debian's calculix-ccx-test package:
/usr/share/doc/calculix-ccx-test/examples/test, NAME.inp or NAME.inp.gz with the reference
NAME.dat.ref or NAME.dat.ref.gz, and for 52 decks NAME.frd.ref[.gz]) through ductile-solve and
tallies what happens.

Every deck is
  1. classified by reading it (CalculiX is not run): IN SCOPE when every step is *STATIC (no
     NLGEOM, no PERTURBATION), nothing is thermal, there is no contact, every element type is one
     ductile's importer lists (solver/io/import_inp_mesh.c) and every material option is *ELASTIC
     (isotropic), *PLASTIC, *CYCLIC HARDENING or *DENSITY. Otherwise the first failing criterion,
     in that order, is the reason ("procedure *FREQUENCY", "NLGEOM", "thermal *TEMPERATURE",
     "contact *CONTACT PAIR", "element B32R", "material *EXPANSION"); every failing criterion
     is kept as a blocker too. The keywords and element types ductile's importer does not know
     (solver/io/import_inp.c's table) are listed as the deck's "needs".
  2. run with ductile-solve --backend cpu (or --backend) in a temporary copy (the deck, uncompressed, and the
     files it *INCLUDEs), with a time limit, and put in one category:
       unsupported     exit 1, the message says "unsupported"/"not supported"
       input error     exit 1, another message (ductile finds the deck invalid; CalculiX ran it)
       no convergence  exit 2
       internal error  exit 3 (documented: resources or internal errors)
       usage           exit 64 (this runner called it wrongly)
       timeout         still running at the time limit (killed)
       crash           a signal, an exit code outside ductile-solve's documented set
                       (0, 1, 2, 3, 64: solver/tools/ductile_solve.c) or a sanitizer report
       passed / differs / no common block   exit 0, compared with the reference .dat and .frd
  3. compared when it ran: the blocks both programs print (displacements, forces, stresses,
     strains, equivalent plastic strain, internal energy density, internal energy, volume and
     the energy and volume totals; read by ccx_compare.read_dat) are matched by (kind, set,
     time); a block agrees when max |ductile - CalculiX| <= 1e-3 * max |CalculiX| over the
     block (for stresses, max |CalculiX| counts as at least ZERO_STRESS * the deck's largest
     Young's modulus: below that a field is round-off of zero) (element blocks: CalculiX's expanded 2D elements map onto ductile's points as in
     ccx_compare.point_map; the shears sxz, syz of its axisymmetric sectors, which the ring
     lacks, are not compared: ccx_compare.drop_sector_shears). Where a reference .frd exists, ductile's .frd is compared with it
     by the same rule (compare_frd: sets paired by time, the blocks both files have, node by
     node; 2D models by (x, y), as CalculiX writes its expanded nodes). A deck passes when every
     common block of both files agrees and at least one was compared; a failure names its file.

Prints the tallies (full suite and in scope), the top reasons and the in-scope failures; --json
writes everything per deck. Exit status: 0; 1 when a deck crashed or a refusal (exit 1) names no
file and line (what tests/interop/CMakeLists.txt's interop_ccx_suite asserts), a --expect is
unmet, or the solver is missing; 77 (ctest's skip) when the suite directory is missing. The pass
rate is not asserted.

    ccx_suite.py --solver build/solver/ductile-solve [--suite DIR] [--jobs 2] [--limit 60]
                 [--only NAME,...] [--json report.json] [--keep] [--expect NAME=CATEGORY[:TEXT],...]
"""
import argparse
import collections
import concurrent.futures
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ccx_compare  # noqa: E402  (the .dat parser and CalculiX's 2D integration-point map)
import frd_compare  # noqa: E402  (the .frd parser)

SOURCE = os.path.normpath(os.path.join(HERE, "..", "..", "solver", "io"))
DEFAULT_SUITE = "/usr/share/doc/calculix-ccx-test/examples/test"
EXIT_CODES = {0: "ok", 1: "input", 2: "not converged", 3: "internal", 64: "usage"}  # ductile_solve.c
KINDS = ("displacements", "forces", "stresses", "strains", "equivalent plastic strain", "internal energy density",
         "internal energy", "volume", "total internal energy", "total volume")
RTOL = 1e-3

# ductile's importer: element types (import_inp_mesh.c) and keywords (import_inp.c); read from
# the source when it is there so the scope follows the importer, else these copies.
ELEMENTS_FALLBACK = ["C3D8", "C3D8R", "C3D4", "C3D10", "C3D20", "C3D20R", "C3D6", "C3D15", "CPE4", "CPS4", "CPE3",
                     "CPS3", "CPE8", "CPS8"]
KEYWORDS_FALLBACK = ["*HEADING", "*NODE", "*ELEMENT", "*NSET", "*ELSET", "*SURFACE", "*MATERIAL", "*ELASTIC",
                     "*PLASTIC", "*CYCLIC HARDENING", "*DENSITY", "*SOLID SECTION", "*BOUNDARY", "*STEP", "*STATIC",
                     "*CLOAD", "*DLOAD", "*CONTROLS", "*NODE PRINT", "*EL PRINT", "*NODE FILE", "*EL FILE",
                     "*END STEP"]

# CalculiX's procedures (a step's analysis type); only *STATIC is in scope.
PROCEDURES = ["STATIC", "FREQUENCY", "BUCKLE", "DYNAMIC", "MODAL DYNAMIC", "STEADY STATE DYNAMICS", "HEAT TRANSFER",
              "COUPLED TEMPERATURE-DISPLACEMENT", "UNCOUPLED TEMPERATURE-DISPLACEMENT", "VISCO", "COMPLEX FREQUENCY",
              "SENSITIVITY", "GREEN", "ELECTROMAGNETICS", "CFD", "SUBSTRUCTURE GENERATE", "NO ANALYSIS",
              "FEASIBLE DIRECTION", "CRACK PROPAGATION", "ROBUSTDESIGN"]
THERMAL = ["TEMPERATURE", "DFLUX", "CFLUX", "FILM", "RADIATE", "VIEWFACTOR", "GAP CONDUCTANCE", "GAP HEAT GENERATION",
           "BOUNDARYF", "VALUES AT INFINITY"]
CONTACT = ["CONTACT PAIR", "SURFACE INTERACTION", "SURFACE BEHAVIOR", "GAP", "FRICTION", "CONTACT DAMPING",
           "CONTACT PRINT", "CONTACT FILE", "CONTACT OUTPUT", "CLEARANCE", "CHANGE FRICTION",
           "CHANGE SURFACE BEHAVIOR", "CHANGE CONTACT TYPE"]
MATERIAL_OK = ["ELASTIC", "PLASTIC", "CYCLIC HARDENING", "DENSITY"]
MATERIAL_OTHER = ["EXPANSION", "CONDUCTIVITY", "SPECIFIC HEAT", "HYPERELASTIC", "HYPERFOAM", "CREEP", "USER MATERIAL",
                  "DEPVAR", "DEFORMATION PLASTICITY", "DAMPING", "ELECTRICAL CONDUCTIVITY", "MAGNETIC PERMEABILITY",
                  "FLUID CONSTANTS", "SPECIFIC GAS CONSTANT", "CHANGE MATERIAL", "CHANGE PLASTIC"]


def canon(name):
    """CalculiX ignores blanks in keywords (*ENDSTEP is *END STEP): compare without them."""
    return re.sub(r"\s+", "", name).upper().lstrip("*")


CANON = {canon(n): n for n in PROCEDURES + THERMAL + CONTACT + MATERIAL_OK + MATERIAL_OTHER}


def importer_lists():
    """(element types, keywords) ductile's importer supports, and where they came from."""
    try:
        with open(os.path.join(SOURCE, "import_inp_mesh.c")) as f:
            elems = re.findall(r'\{"([A-Z0-9]+)",\s*DT_ELEM_', f.read())
        with open(os.path.join(SOURCE, "import_inp.c")) as f:
            kws = re.findall(r'\{"(\*[A-Z ]+)",\s*inp_\w+,', f.read())
        if elems and kws:
            return elems, kws, "solver/io"
    except OSError:
        pass
    return ELEMENTS_FALLBACK, KEYWORDS_FALLBACK, "built-in list"


def open_text(path):
    return gzip.open(path, "rt", encoding="latin-1") if path.endswith(".gz") else open(path, encoding="latin-1")


def keyword_lines(path, depth=0):
    """[(keyword as written, upper case with single blanks; {KEY: VALUE}; file; line)] of a deck,
    *INCLUDEs expanded (relative to the including file); keyword lines ending in ',' continued."""
    out = []
    with open_text(path) as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        text, line = lines[i].strip(), i + 1
        i += 1
        if not text.startswith("*") or text.startswith("**"):
            continue
        while text.endswith(",") and i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith("*"):
            text += lines[i].strip()
            i += 1
        parts = [p.strip() for p in text.split(",")]
        name = re.sub(r"\s+", " ", parts[0]).upper()
        params = {}
        for p in parts[1:]:
            if p:
                k, _, v = p.partition("=")
                params[canon(k)] = v.strip().upper()
        if canon(name) == "INCLUDE" and "INPUT" in params and depth < 10:
            inc = os.path.join(os.path.dirname(path), [p.partition("=")[2].strip() for p in parts[1:]
                                                       if canon(p.partition("=")[0]) == "INPUT"][0].strip('"'))
            out.append((name, params, path, line))
            if os.path.exists(inc):
                out.extend(keyword_lines(inc, depth + 1))
            continue
        out.append((name, params, path, line))
    return out


def includes(path, depth=0):
    """The files a deck *INCLUDEs (recursively), as paths relative to the deck's folder."""
    found = []
    base = os.path.dirname(path)
    with open_text(path) as fh:
        for raw in fh:
            m = re.match(r"\s*\*\s*INCLUDE\s*,.*INPUT\s*=\s*\"?([^\",]+)", raw, re.I)
            if m:
                rel = m.group(1).strip()
                full = os.path.join(base, rel)
                if os.path.exists(full) and rel not in found and depth < 10:
                    found.append(rel)
                    found.extend(r for r in includes(full, depth + 1) if r not in found)
    return found


def stage_global_results(path, work):
    """A submodel deck (*SUBMODEL, INPUT=global.frd) reads its global model's result file, which
    CalculiX's test script makes by running the global deck first: the suite's reference result
    of that deck (global.frd.ref[.gz], CalculiX's own) is put in the work folder under the name
    the deck gives, so the submodel is checked alone. Returns the files staged."""
    staged = []
    with open_text(path) as fh:
        for raw in fh:
            m = re.match(r"\s*\*\s*SUBMODEL\s*,.*INPUT\s*=\s*\"?([^\",]+)", raw, re.I)
            if not m:
                continue
            rel = m.group(1).strip()
            for ref in (rel + ".ref.gz", rel + ".ref"):
                src = os.path.join(os.path.dirname(path), ref)
                if os.path.exists(src) and rel not in staged:
                    with open_text(src) as f, open(os.path.join(work, rel), "w", encoding="latin-1") as out:
                        shutil.copyfileobj(f, out)
                    staged.append(rel)
                    break
    return staged


def classify(path, elements, keywords):
    """Scope of a deck: {"in_scope", "reason", "blockers", "needs", "elements", "procedures"}."""
    kws = keyword_lines(path)
    blockers = []

    def block(reason):
        if reason not in blockers:
            blockers.append(reason)

    supported_kw = {canon(k): k for k in keywords}
    elem_types, procedures, needs = [], [], []
    in_step, step_procs = False, []
    for name, params, _, _ in kws:
        c = canon(name)
        if c == "STEP":
            in_step, step_procs = True, []
            if "NLGEOM" in params and params["NLGEOM"] not in ("NO",):
                block("NLGEOM")
            if "PERTURBATION" in params:
                block("*STEP PERTURBATION")
            if "THERMALNETWORK" in params:
                block("thermal *STEP THERMAL NETWORK")
        elif c == "ENDSTEP":
            if not step_procs:
                block("step without a procedure")
            in_step = False
        elif c in (canon(p) for p in PROCEDURES):
            proc = CANON[c]
            step_procs.append(proc)
            if proc not in procedures:
                procedures.append(proc)
            if proc != "STATIC":
                block("procedure *" + proc)
        elif c in (canon(t) for t in THERMAL):
            block("thermal *" + CANON[c])
        elif c == "INITIALCONDITIONS" and params.get("TYPE", "") == "TEMPERATURE":
            block("thermal *INITIAL CONDITIONS TYPE=TEMPERATURE")
        elif c in (canon(t) for t in CONTACT):
            block("contact *" + CANON[c])
        elif c == "ELEMENT":
            t = params.get("TYPE", "?")
            if t not in elem_types:
                elem_types.append(t)
            if t not in elements:
                block("element " + t)
        elif c == "ELASTIC" and params.get("TYPE", "ISO") not in ("ISO", "ISOTROPIC"):
            block("material *ELASTIC TYPE=" + params["TYPE"])
        elif c == "PLASTIC" and params.get("HARDENING", "ISOTROPIC") not in ("ISOTROPIC", "KINEMATIC", "COMBINED"):
            block("material *PLASTIC HARDENING=" + params["HARDENING"])
        elif c in (canon(t) for t in MATERIAL_OTHER):
            block("material *" + CANON[c])
        # what ductile's importer would need: keywords it does not list (spelled as it reads them)
        if name not in keywords and c != "INCLUDE":
            need = "keyword " + name if c not in supported_kw else "keyword %s (spelled %s)" % (supported_kw[c], name)
            if need not in needs:
                needs.append(need)
        if c == "ELEMENT" and params.get("TYPE", "?") not in elements and "element " + params.get("TYPE", "?") not in needs:
            needs.append("element " + params.get("TYPE", "?"))
    order = ["procedure", "step without", "NLGEOM", "*STEP", "thermal", "contact", "element", "material"]
    blockers.sort(key=lambda b: next(i for i, o in enumerate(order) if b.startswith(o)))
    return {"in_scope": not blockers, "reason": blockers[0] if blockers else None, "blockers": blockers,
            "needs": needs, "elements": elem_types, "procedures": procedures}


def find_decks(suite):
    """{name: (deck path, reference .dat path or None, reference .frd path or None)} of the suite's
    decks: NAME.inp[.gz] that no other deck *INCLUDEs."""
    files = os.listdir(suite)
    decks = {}
    for f in sorted(files):
        m = re.match(r"^(.+)\.inp(\.gz)?$", f)
        if m and m.group(1) not in decks:
            decks[m.group(1)] = os.path.join(suite, f)
    included = set()
    for p in decks.values():
        included.update(os.path.normpath(os.path.join(suite, r)) for r in includes(p))
    out = {}
    for name, p in decks.items():
        if os.path.normpath(p) in included:
            continue
        ref = next((os.path.join(suite, name + e) for e in (".dat.ref", ".dat.ref.gz", ".dat")
                    if os.path.exists(os.path.join(suite, name + e))), None)
        frd = next((os.path.join(suite, name + e) for e in (".frd.ref", ".frd.ref.gz")
                    if os.path.exists(os.path.join(suite, name + e))), None)
        out[name] = (p, ref, frd)
    return out


def tail(path, n=4000):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


SANITIZER = re.compile(r"(AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|"
                       r"MemorySanitizer|runtime error:)")
FILE_LINE = re.compile(r"(?:^|[\s'\"(])([^\s:'\"()]+\.inp):(\d+):")


def message(stderr):
    """ductile-solve's error message: its last stderr line that is not a warning."""
    lines = [l for l in stderr.splitlines() if l.strip() and ": warning: " not in l]
    return lines[-1].strip() if lines else ""


def reason_key(msg):
    """A message without its file:line and explanations, numbers as N: the tally key."""
    m = re.sub(r"^ductile-solve: (invalid job|cannot read the job|[a-z_ ]+ error): ", "", msg)
    m = re.sub(r"^[^\s:]+\.inp:\d+: ", "", m)
    m = re.sub(r"\s*\((see docs|supported:|ISOTROPIC|isotropic|only|MOD or|P1\.\.|1-3)[^)]*\)", "", m)
    m = re.sub(r"\*ELEMENT: element type (\S+) is not supported", lambda t: "element type " + t.group(1).upper(), m)
    m = re.sub(r"(?<![\w*])[-+]?\d+(\.\d+)?([eE][-+]?\d+)?\b", "N", m)
    m = re.sub(r"'[^']*'", "'...'", m) if "data line where" in m else m
    return m.strip()


# A stress block whose CalculiX maximum is below this fraction of the deck's largest Young's
# modulus (a strain of 1e-9) is round-off of a zero field (inistrain: 4e-12 MPa where E is 2.1e5):
# its differences are measured against that floor, since no two solvers agree on round-off.
ZERO_STRESS = 1e-9


def largest_modulus(deck):
    """The largest Young's modulus of the deck's *ELASTIC data lines (0 when none is read)."""
    e_max, in_elastic = 0.0, False
    with open_text(deck) as f:
        for line in f:
            t = line.strip()
            if t.startswith("**") or not t:
                continue
            if t.startswith("*"):
                in_elastic = t.upper().replace(" ", "").startswith("*ELASTIC")
                continue
            if in_elastic:
                try:
                    e_max = max(e_max, abs(float(t.split(",")[0])))
                except ValueError:
                    pass
    return e_max


def compare_dat(ref_path, got_path, floors=None, axisym=None):
    """The comparison of ductile's results.dat with CalculiX's reference .dat (see the top);
    floors: the least scale of a block, by kind (ZERO_STRESS); axisym: the deck's axisymmetric
    elements, whose sector shears are not compared (ccx_compare.drop_sector_shears)."""
    tmp = None
    if ref_path.endswith(".gz"):
        fd, tmp = tempfile.mkstemp(suffix=".dat")
        with os.fdopen(fd, "w") as out, open_text(ref_path) as f:
            shutil.copyfileobj(f, out)
        ref_path = tmp
    try:
        ref = ccx_compare.read_dat(ref_path, KINDS)
        ccx_compare.drop_sector_shears(ref, axisym)
    finally:
        if tmp:
            os.unlink(tmp)
    got = ccx_compare.read_dat(got_path, KINDS) if os.path.exists(got_path) else []
    pool = collections.defaultdict(list)  # (kind, set) -> [(time, block)] of ductile's, unused yet
    for kind, name, t, b in got:
        pool[kind, name].append((t, b))
    res = {"ref_blocks": len(ref), "got_blocks": len(got), "compared": 0, "agree": 0, "worst": None, "fail": None}
    worst = -1.0
    for kind, name, t, b in ref:
        cands = pool.get((kind, name), [])
        j = next((i for i, (tg, _) in enumerate(cands) if abs(tg - t) <= 1e-6 * max(1.0, abs(t))), None)
        if j is None:
            continue
        _, g = cands.pop(j)
        res["compared"] += 1
        where = "%s for set %s at time %.6g" % (kind, name, t)
        keys = None
        if kind in ("stresses", "strains", "equivalent plastic strain", "internal energy density"):
            keys = ccx_compare.point_map(g, b)
            if keys is None:
                res["fail"] = res["fail"] or "%s: integration points differ (CalculiX %d, ductile %d in the block)" % (
                    where, len(b), len(g))
                continue
        keys = keys or {k: k for k in b}
        if kind in ("displacements", "forces"):
            # CalculiX prints the ids of a GENERATE range that the deck never defines as nodes,
            # with zeros; ductile leaves them out of the set (with a warning): not compared
            b = {k: v for k, v in b.items() if k in g or any(x != 0.0 for x in v)}
        missing = [k for k in b if keys[k] not in g]
        if missing:
            res["fail"] = res["fail"] or "%s: ductile lacks %d of CalculiX's %d rows (e.g. %s)" % (
                where, len(missing), len(b), missing[0])
            continue
        scale = max((abs(v) for u in b.values() for v in u), default=0.0)
        scale = max(scale, (floors or {}).get(kind, 0.0))
        diff = max((abs(g[keys[k]][c] - b[k][c]) for k in b for c in range(min(len(b[k]), len(g[keys[k]])))),
                   default=0.0)
        err = diff / scale if scale > 0 else diff
        ok = diff <= RTOL * scale if scale > 0 else diff <= 1e-10
        if err > worst:
            worst = err
            res["worst"] = {"block": where, "error": err, "scale": scale}
        if ok:
            res["agree"] += 1
        elif not res["fail"]:
            k = max(b, key=lambda k: max(abs(x - y) for x, y in zip(b[k], g[keys[k]])))
            res["fail"] = "%s: max |difference| = %.3g x max |CalculiX| (%.4g), e.g. at %s: CalculiX %s, ductile %s" % (
                where, err, scale, k, " ".join("%.4g" % v for v in b[k]), " ".join("%.4g" % v for v in g[keys[k]]))
    return res


def read_frd(path):
    """frd_compare.read_frd of a .frd, gzip-compressed or not."""
    if not path.endswith(".gz"):
        return frd_compare.read_frd(path)
    fd, tmp = tempfile.mkstemp(suffix=".frd")
    try:
        with os.fdopen(fd, "w", encoding="latin-1") as out, open_text(path) as f:
            shutil.copyfileobj(f, out)
        return frd_compare.read_frd(tmp)
    finally:
        os.unlink(tmp)


PLANE_TYPES = (7, 8, 9, 10)  # cgx's 2D element types: tri3, tri6, quad4, quad8


def frd_node_map(ref, got):
    """({CalculiX's node: ductile's node}, how, [CalculiX's nodes ductile lacks]).
    3D: by id, where the coordinates agree to the file's six digits. A 2D model (ductile's
    elements all plane, z = 0): by (x, y), since CalculiX expands plane elements into 3D and,
    with OUTPUT=3D, writes the expanded nodes (new ids, z = -t/2, 0, t/2) instead of the deck's;
    each of them stands for ductile's node at the same (x, y)."""
    plane = got["elements"] and all(e[0] in PLANE_TYPES for e in got["elements"].values()) and \
        all(x[2] == 0.0 for x in got["nodes"].values())
    out, lacks = {}, []
    if plane:
        at = {(x[0], x[1]): n for n, x in got["nodes"].items()}
        for n, x in ref["nodes"].items():
            m = at.get((x[0], x[1]))
            if m is None:
                lacks.append(n)
            else:
                out[n] = m
        return out, "2D: CalculiX's nodes matched to ductile's by (x, y)", lacks
    for n, x in ref["nodes"].items():
        y = got["nodes"].get(n)
        if y is not None and all(abs(p - q) <= 2 * frd_compare.unit6(max(abs(p), abs(q))) for p, q in zip(x, y)):
            out[n] = n
        else:
            lacks.append(n)
    return out, "3D: nodes matched by id and coordinates", lacks


def compare_frd(ref_path, got_path):
    """ductile's .frd against CalculiX's reference .frd: result sets paired by time (in file order
    where several share one), in each the blocks both files have (DISP, STRESS, TOSTRAIN, FORC, PE,
    ...; CalculiX's ERROR has no counterpart), node by node through frd_node_map; a block agrees
    when max |ductile - CalculiX| <= 1e-3 * max |CalculiX| over the block, as for the .dat. In a 2D
    model FORC is compared as the sum over CalculiX's nodes at one (x, y): the expanded element's
    nodal forces are its layers' shares of the plane node's force."""
    res = {"ref_blocks": 0, "got_blocks": 0, "compared": 0, "agree": 0, "worst": None, "fail": None,
           "nodes": None}
    try:
        ref = read_frd(ref_path)
    except (OSError, ValueError, IndexError, KeyError) as e:
        res["fail"] = "CalculiX's reference .frd is unreadable: %s" % e
        return res
    res["ref_blocks"] = sum(len(s["blocks"]) for s in ref["sets"])
    if not os.path.exists(got_path):
        return res
    try:
        got = read_frd(got_path)
    except (OSError, ValueError, IndexError, KeyError) as e:
        res["fail"] = "ductile's .frd is unreadable: %s" % e
        return res
    res["got_blocks"] = sum(len(s["blocks"]) for s in got["sets"])
    nmap, how, lacks = frd_node_map(ref, got)
    res["nodes"] = "%s; %d of CalculiX's %d nodes matched" % (how, len(nmap), len(ref["nodes"]))
    plane = how.startswith("2D")
    pool = list(got["sets"])
    worst = -1.0
    for sr in ref["sets"]:
        j = next((i for i, sg in enumerate(pool) if abs(sg["time"] - sr["time"]) <= 1e-6 * max(1.0, abs(sr["time"]))),
                 None)
        if j is None:
            continue
        sg = pool.pop(j)
        for name, b in sr["blocks"].items():
            g = sg["blocks"].get(name)
            if g is None:
                continue
            res["compared"] += 1
            where = "%s at time %.6g (step %d, increment %d)" % (name, sr["time"], sr["step"], sr["inc"])
            missing = [n for n in b if n not in nmap or nmap[n] not in g]
            if missing:
                res["fail"] = res["fail"] or "%s: ductile lacks %d of CalculiX's %d nodes (e.g. %s)" % (
                    where, len(missing), len(b), missing[0])
                continue
            if plane and name == "FORC":
                summed = collections.OrderedDict()
                for n, v in b.items():
                    acc = summed.setdefault(nmap[n], [0.0] * len(v))
                    for c, x in enumerate(v):
                        acc[c] += x
                pairs = [(m, v, g[m]) for m, v in summed.items()]
            else:
                pairs = [(n, v, g[nmap[n]]) for n, v in b.items()]
            scale = max((abs(x) for _, v, _ in pairs for x in v), default=0.0)
            diff = max((abs(x - y) for _, v, w in pairs for x, y in zip(v, w)), default=0.0)
            err = diff / scale if scale > 0 else diff
            ok = diff <= RTOL * scale if scale > 0 else diff <= 1e-10
            if err > worst:
                worst = err
                res["worst"] = {"block": where, "error": err, "scale": scale}
            if ok:
                res["agree"] += 1
            elif not res["fail"]:
                k, v, w = max(pairs, key=lambda p: max(abs(x - y) for x, y in zip(p[1], p[2])))
                res["fail"] = "%s: max |difference| = %.3g x max |CalculiX| (%.4g), e.g. at node %s: CalculiX %s, " \
                    "ductile %s" % (where, err, scale, k, " ".join("%.4g" % x for x in v),
                                    " ".join("%.4g" % x for x in w))
    return res


def frd_path(out):
    """ductile's .frd in OUT: the name summary.json gives (files.frd), else None."""
    try:
        with open(os.path.join(out, "summary.json")) as f:
            name = json.load(f).get("files", {}).get("frd")
    except (OSError, ValueError):
        return None
    return os.path.join(out, name) if name else None


def run_deck(name, deck, ref, frd, args, elements, keywords, work):
    r = {"name": name, "deck": os.path.basename(deck), "reference": ref and os.path.basename(ref),
         "reference_frd": frd and os.path.basename(frd)}
    try:
        r.update(classify(deck, elements, keywords))
    except (OSError, UnicodeError, IndexError) as e:
        r.update({"in_scope": False, "reason": "unreadable deck: %s" % e, "blockers": ["unreadable deck"],
                  "needs": [], "elements": [], "procedures": []})
    if args.in_scope_only and not r["in_scope"]:
        r.update({"category": "not run", "why": "out of scope (--in-scope-only)", "message": ""})
        return r
    d = os.path.join(work, name)
    os.makedirs(d)
    with open_text(deck) as f, open(os.path.join(d, name + ".inp"), "w", encoding="latin-1") as out:
        shutil.copyfileobj(f, out)
    for rel in includes(deck):
        os.makedirs(os.path.dirname(os.path.join(d, rel)) or d, exist_ok=True)
        src = os.path.join(os.path.dirname(deck), rel)
        with open_text(src) as f, open(os.path.join(d, rel), "w", encoding="latin-1") as out:
            shutil.copyfileobj(f, out)
    stage_global_results(deck, d)
    cmd = [args.solver, name + ".inp", "-o", "out", "--backend", args.backend, "--quiet"]
    if args.backend == "cpu":
        cmd[-1:-1] = ["--threads", "1"]
    if args.gpus:  # a split run (docs/multi-gpu.md): one METIS part per listed device
        cmd += ["--gpus", args.gpus]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    t0 = time.time()
    with open(os.path.join(d, "stdout.txt"), "w") as so, open(os.path.join(d, "stderr.txt"), "w") as se:
        p = subprocess.Popen(cmd, cwd=d, stdout=so, stderr=se, env=env, start_new_session=True)
        try:
            rc = p.wait(timeout=args.limit)
            timed_out = False
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            rc, timed_out = p.wait(), True
    r["seconds"] = round(time.time() - t0, 2)
    r["exit"] = rc
    err = tail(os.path.join(d, "stderr.txt"), 20000)
    msg = message(err)
    r["warnings"] = sorted({re.sub(r"^ductile-solve: warning: [^\s:]+(:\d+)?: ", "", l.strip())
                            for l in err.splitlines() if ": warning: " in l})[:10]
    if timed_out:
        r["category"], r["why"] = "timeout", "still running after %g s (killed)" % args.limit
    elif rc < 0 or rc not in EXIT_CODES or SANITIZER.search(err):
        sig = -rc if rc < 0 else None
        how = ("signal %d (%s)" % (sig, signal.Signals(sig).name) if sig in signal.Signals._value2member_map_
               else "signal %d" % sig) if sig else "exit %d" % rc
        if SANITIZER.search(err):
            how += ", sanitizer report"
        r["category"], r["why"] = "crash", "%s: %s" % (how, (msg or tail(os.path.join(d, "stdout.txt"), 300)
                                                              .strip().splitlines()[-1:] or [""])[0][:400])
        r["stderr_tail"] = err[-2000:]
    elif rc == 1:
        r["message"] = msg
        r["category"] = "unsupported" if re.search(r"unsupported|not supported", msg) else "input error"
        r["why"] = reason_key(msg)
        m = FILE_LINE.search(msg)
        r["file_line"] = bool(m and (os.path.basename(m.group(1)) == name + ".inp"
                                     or os.path.exists(os.path.join(d, m.group(1)))))
    elif rc == 2:
        r["category"], r["why"], r["message"] = "no convergence", reason_key(msg), msg
    elif rc == 3:
        r["category"], r["why"], r["message"] = "internal error", reason_key(msg), msg
    elif rc == 64:
        r["category"], r["why"], r["message"] = "usage", msg, msg
    else:
        if not ref and not frd:
            r["category"], r["why"] = "no common block", "no reference .dat or .frd"
        else:
            out = os.path.join(d, "out")
            floors = {"stresses": ZERO_STRESS * largest_modulus(deck)}
            cd = compare_dat(ref, os.path.join(out, "results.dat"), floors,
                             ccx_compare.axisym_elements(os.path.join(d, name + ".inp"))) if ref else None
            cf = compare_frd(frd, frd_path(out) or os.path.join(out, name + ".frd")) if frd else None
            r["compare"], r["compare_frd"] = cd, cf
            both = [("the .dat", c) for c in (cd,) if c] + [("the .frd", c) for c in (cf,) if c]
            compared = sum(c["compared"] for _, c in both)
            fail = "; ".join("%s: %s" % (f, c["fail"]) for f, c in both if c["fail"])
            if fail:
                r["category"], r["why"] = "differs", fail
            elif compared == 0:
                r["category"] = "no common block"
                r["why"] = "; ".join("%s: ductile wrote no block matching CalculiX's %d; ductile wrote %d" % (
                    f, c["ref_blocks"], c["got_blocks"]) for f, c in both)
            else:
                r["category"], r["why"] = "passed", "; ".join(
                    "%s: %d of CalculiX's %d blocks compared, all agree" % (f, c["compared"], c["ref_blocks"])
                    for f, c in both if c["ref_blocks"])
    if not args.keep:
        shutil.rmtree(d, ignore_errors=True)
    return r


CATEGORIES = ["passed", "differs", "no common block", "no convergence", "timeout", "unsupported", "input error",
              "internal error", "usage", "crash"]
RAN = ("passed", "differs", "no common block")


def tally(rows, key):
    c = collections.Counter()
    for r in rows:
        v = key(r)
        for x in (v if isinstance(v, list) else [v]):
            if x is not None:
                c[x] += 1
    return c


def fmt(counter, top=None):
    return ", ".join("%s %d" % (k, n) for k, n in counter.most_common(top)) or "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solver", required=True, help="ductile-solve")
    ap.add_argument("--suite", default=DEFAULT_SUITE, help="the decks and NAME.dat.ref[.gz] (default %(default)s)")
    ap.add_argument("--jobs", type=int, default=2, help="decks run in parallel (default 2)")
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda"),
                    help="ductile-solve's backend (default cpu, one thread per deck)")
    ap.add_argument("--limit", type=float, default=60, help="seconds per deck (default 60)")
    ap.add_argument("--gpus", help="split every run into one part per listed device, e.g. 0,1,2 "
                    "(on the cpu backend the parts run on the host)")
    ap.add_argument("--only", help="NAME,... (deck names without .inp)")
    ap.add_argument("--json", help="write the report here")
    ap.add_argument("--keep", action="store_true", help="keep the work folders")
    ap.add_argument("--top", type=int, default=10, help="reasons listed per tally (default 10)")
    ap.add_argument("--in-scope-only", action="store_true", help="run only the decks in scope")
    ap.add_argument("--min-passed", type=int, default=0,
                    help="fail (exit 1) when fewer in-scope decks pass (a guard of the pass rate)")
    ap.add_argument("--expect", help="NAME=CATEGORY[:TEXT],...: fail (exit 1) unless each named deck ends in that "
                                     "category, with TEXT in its why when given")
    args = ap.parse_args()
    if not os.path.isdir(args.suite):
        print("SKIP: CalculiX's test suite is not at %s (install Debian's calculix-ccx-test: "
              "apt-get install calculix-ccx-test, or scripts/setup-debian.sh)" % args.suite)
        return 77
    args.solver = os.path.abspath(args.solver)
    if not os.access(args.solver, os.X_OK):
        print("FAIL: no ductile-solve at %s" % args.solver)
        return 1
    decks = find_decks(args.suite)
    if args.only:
        want = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in want if n not in decks]
        if unknown:
            print("FAIL: no such deck in %s: %s" % (args.suite, ", ".join(unknown)))
            return 1
        decks = {n: decks[n] for n in want}
    if not decks:
        print("SKIP: no decks (NAME.inp[.gz]) in %s" % args.suite)
        return 77
    elements, keywords, source = importer_lists()
    work = tempfile.mkdtemp(prefix="ccx_suite_")
    t0 = time.time()
    rows = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            futs = {ex.submit(run_deck, n, p, ref, frd, args, elements, keywords, work): n
                    for n, (p, ref, frd) in decks.items()}
            for f in concurrent.futures.as_completed(futs):
                rows.append(f.result())
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    wall = time.time() - t0
    rows.sort(key=lambda r: r["name"])
    scope = [r for r in rows if r["in_scope"]]
    n_ran = lambda rs: sum(r["category"] in RAN for r in rs)  # noqa: E731
    n_pass = lambda rs: sum(r["category"] == "passed" for r in rs)  # noqa: E731
    top = args.top
    print("CalculiX test suite: %s (%d decks); solver %s; limit %g s per deck, %d jobs; %.0f s wall" % (
        args.suite, len(rows), args.solver, args.limit, args.jobs, wall))
    print("scope: element types and keywords of ductile's importer from %s: %s" % (source, " ".join(elements)))
    print()
    print("full suite: %d decks; in scope %d, ran %d, passed %d" % (len(rows), len(scope), n_ran(scope), n_pass(scope)))
    print("  (whole suite, out of scope included: ran %d, passed %d)" % (n_ran(rows), n_pass(rows)))
    for label, rs in (("full suite", rows), ("in scope", scope)):
        c = tally(rs, lambda r: r["category"])
        print("%s by result: %s" % (label, ", ".join("%s %d" % (k, c[k]) for k in CATEGORIES if c[k]) or "-"))
    out = [r for r in rows if not r["in_scope"]]
    print()
    print("out of scope: %d decks; first reason: %s" % (len(out), fmt(tally(out, lambda r: r["reason"]), top)))
    print("  decks blocked by (every criterion): %s" % fmt(tally(out, lambda r: r["blockers"]), top))
    print("  decks blocked by this alone: %s" % fmt(tally(out, lambda r: r["blockers"] if len(r["blockers"]) == 1
                                                            else None), top))
    refused = lambda rs: [r for r in rs if r["category"] in ("unsupported", "input error")]  # noqa: E731
    print()
    print("refusals, whole suite (%d): %s" % (len(refused(rows)), fmt(tally(refused(rows), lambda r: r["why"]), top)))
    print("refusals, in scope (%d): %s" % (len(refused(scope)), fmt(tally(refused(scope), lambda r: r["why"]), top)))
    print("importer needs (keywords/elements ductile does not list), in-scope decks: %s" % fmt(
        tally(scope, lambda r: r["needs"]), top))
    print("  ... where it is the only one: %s" % fmt(tally(scope, lambda r: r["needs"] if len(r["needs"]) == 1
                                                            else None), top))
    print("importer needs, whole suite: %s" % fmt(tally(rows, lambda r: r["needs"]), top))
    fails = [r for r in scope if r["category"] != "passed"]
    print()
    print("in-scope decks that do not pass (%d):" % len(fails))
    for r in fails:
        print("  %-14s %-15s %s" % (r["name"], r["category"], r["why"]))
    crashes = [r for r in rows if r["category"] == "crash"]
    # a split run's own refusal (a mesh of fewer elements than parts, or one METIS leaves a part
    # empty) is about the run, not a line of the deck
    split_refusal = re.compile(r"cannot split (\d+|N) elements|gives (\d+|N) of its (\d+|N) parts no element")
    no_line = [r for r in rows if r["category"] in ("unsupported", "input error") and not r.get("file_line")
               and not (args.gpus and split_refusal.search(r["why"] or ""))]
    if crashes:
        print()
        print("CRASHES (%d): bugs in ductile" % len(crashes))
        for r in crashes:
            print("  %s: %s" % (r["name"], r["why"]))
    if no_line:
        print()
        print("REFUSALS NAMING NO FILE AND LINE (%d):" % len(no_line))
        for r in no_line:
            print("  %s: %s" % (r["name"], r.get("message", "")))
    if args.json:
        report = {"suite": args.suite, "solver": args.solver, "limit_s": args.limit, "jobs": args.jobs,
                  "wall_s": round(wall, 1), "scope_source": source, "elements": elements,
                  "tallies": {"decks": len(rows), "in_scope": len(scope), "ran": n_ran(scope), "passed": n_pass(scope),
                              "full_suite": dict(tally(rows, lambda r: r["category"])),
                              "in_scope_by_result": dict(tally(scope, lambda r: r["category"])),
                              "out_of_scope_first_reason": dict(tally(out, lambda r: r["reason"])),
                              "out_of_scope_blockers": dict(tally(out, lambda r: r["blockers"])),
                              "refusals_whole_suite": dict(tally(refused(rows), lambda r: r["why"])),
                              "refusals_in_scope": dict(tally(refused(scope), lambda r: r["why"])),
                              "needs_in_scope": dict(tally(scope, lambda r: r["needs"])),
                              "needs_whole_suite": dict(tally(rows, lambda r: r["needs"]))},
                  "decks": rows}
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    unmet = []
    for item in (args.expect or "").split(","):
        if not item.strip():
            continue
        name, _, want = item.strip().partition("=")
        cat, _, text = want.partition(":")
        r = next((r for r in rows if r["name"] == name), None)
        if r is None or r["category"] != cat or text not in r["why"]:
            unmet.append("%s: expected %s%s, got %s" % (name, cat, " (%r)" % text if text else "",
                                                       "%s: %s" % (r["category"], r["why"]) if r else "no such deck"))
    if n_pass(scope) < args.min_passed:
        unmet.append("in-scope decks passed: %d, fewer than --min-passed %d" % (n_pass(scope), args.min_passed))
    print()
    if crashes or no_line or unmet:
        for u in unmet:
            print("UNMET: %s" % u)
        print("FAIL: %d crash(es), %d refusal(s) without file:line, %d expectation(s) unmet" % (
            len(crashes), len(no_line), len(unmet)))
        return 1
    print("OK: no crash; every refusal names its file and line; %d of %d in scope passed%s" % (
        n_pass(scope), len(scope), " (at least %d asserted)" % args.min_passed if args.min_passed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
