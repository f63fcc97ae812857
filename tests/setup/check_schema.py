#!/usr/bin/env python3
"""Checks docs/scenario.schema.json against the loader and the files Railyard writes.

    check_schema.py --source TOP --cli BUILD/bin/railyard-cli

1. No drift: every object of the schema lists exactly the keys of one of the loader's field
   tables (the `JsonFields f(value, path, { known keys })` calls that read a scenario, in
   model/scenario/*.cpp and model/workload/inferencespec.cpp), and every such table is one
   object of the schema. A key added to the loader without the schema (or the other way
   round) fails here, naming it.
2. It validates every sample, the scenario fuzz corpus and regressions (the bad-* inputs
   aside), and the scenario files railyard-cli writes (generate, import-topology, remap,
   optimise, import-mapping, calibrate), with Debian's python3-jsonschema (Draft 2020-12).
3. It rejects structural errors: the corpus' bad-* inputs and mutations of the seed (an unknown
   key, a section of the wrong type, a missing required field, slots that are not integers).
Exit 0 when all hold; 1 with one line per problem.
"""
import argparse
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("check_schema: python3-jsonschema is missing (railyard.sh installs it)")
    sys.exit(1)

# The files whose JsonFields calls read a scenario file (eprouting.cpp's reads a hotness file,
# runrecord.cpp a mapping export: other formats).
LOADER_FILES = ["model/scenario/*.cpp", "model/workload/inferencespec.cpp"]
CALL = re.compile(r"JsonFields\s+\w+\((?:[^;{]*?),\s*\{([^}]*)\}\s*\)", re.S)


def loader_tables(top):
    tables = []
    for pattern in LOADER_FILES:
        for path in sorted(glob.glob(os.path.join(top, pattern))):
            text = open(path, encoding="utf-8").read()
            for m in CALL.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                keys = frozenset(re.findall(r'"([^"]*)"', m.group(1)))
                tables.append((os.path.relpath(path, top) + ":" + str(line), keys))
    return tables


def schema_objects(node, where, out):
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            out.append((where, frozenset(node["properties"])))
            if node.get("additionalProperties") is not False:
                out.append((where, None))  # an open object: reported below
        for key, value in node.items():
            schema_objects(value, where + "/" + key, out)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            schema_objects(value, where + "/" + str(i), out)
    return out


def nearest(keys, candidates):
    return min(candidates, key=lambda c: len(keys ^ c[1]))


def check_drift(top, schema, problems):
    tables = loader_tables(top)
    if len(tables) < 15:
        problems.append("found only %d JsonFields tables in %s: the pattern no longer matches"
                        % (len(tables), ", ".join(LOADER_FILES)))
        return
    objects = schema_objects(schema, "#", [])
    for where, keys in objects:
        if keys is None:
            problems.append("%s: object allows additional properties (the loader refuses "
                            "unknown keys)" % where)
    objects = [(w, k) for w, k in objects if k is not None]
    for where, keys in tables:
        if not any(keys == k for _, k in objects):
            w, k = nearest(keys, objects)
            problems.append("%s: the loader's keys are no object of the schema (nearest %s: "
                            "missing %s, extra %s)" % (where, w, sorted(keys - k), sorted(k - keys)))
    for where, keys in objects:
        if not any(keys == k for _, k in tables):
            w, k = nearest(keys, tables)
            problems.append("schema %s: its properties are no field table of the loader "
                            "(nearest %s: the loader lacks %s, has besides %s)"
                            % (where, w, sorted(keys - k), sorted(k - keys)))


def run(cli, args, cwd):
    r = subprocess.run([cli] + args, cwd=cwd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("railyard-cli %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))


def written_files(top, cli, work):
    """Scenario files railyard-cli writes, one per command that writes one."""
    s = os.path.join(top, "samples")
    nccl = os.path.join(top, "tests/data/published/nccl-tests/nvidia-dgxc-dgx-h100-1node-all_reduce.txt")
    cmds = [
        ["generate", "--fabric", "rail-optimised", "--servers", "16", "--gpus-per-server", "8", "--tp", "8",
         "--pp", "4", "--dp", "4", "--model", "llama2-70b", "--global-batch", "64", "-o", "gen-rail.json"],
        ["generate", "--fabric", "tor", "--servers", "4", "--gpus-per-server", "8", "--tp", "8", "--pp", "2",
         "--model", "mixtral-8x7b", "--ep", "2", "--global-batch", "64", "-o", "gen-tor-moe.json"],
        ["generate", "--nvl72", "--fabric", "rail-optimised", "--servers", "144", "--gpus-per-server", "4",
         "--tp", "2", "--pp", "4", "--ep", "4", "--model", "mixtral-8x7b", "--seq", "4096",
         "--global-batch", "1152", "-o", "gen-nvl72.json"],
        ["generate", "--fabric", "rail-optimised", "--servers", "16", "--gpus-per-server", "8", "--tp", "8",
         "--pp", "4", "--planes", "2", "-o", "gen-planes.json"],
        ["generate", "--fabric", "rail-optimised", "--servers", "1", "--gpus-per-server", "8", "--tp", "8",
         "--pp", "1", "--model", "llama3-8b", "--device", "h100-sxm", "--global-batch", "8", "-o", "dgx1.json"],
        ["import-topology", os.path.join(s, "seed-128.json"), "--topology",
         os.path.join(s, "dgx-h100-topology.xml"), "-o", "topology.json"],
        ["remap", os.path.join(s, "seed-128.json"), "--fail", "server:3", "-o", "remap.json"],
        ["optimise", os.path.join(s, "seed-128.json"), "--from", "scattered", "--moves", "200", "-o", "opt.json"],
        ["export", os.path.join(s, "seed-128.json"), "--swap", "0:9", "--format", "mapping-json", "-o",
         "swapped.mapping.json"],
        ["import-mapping", os.path.join(s, "seed-128.json"), "--mapping", "swapped.mapping.json", "-o",
         "imported.json"],
        ["calibrate", "dgx1.json", "--measured", nccl, "--run", "all=" + nccl, "-o", "calibrated.json"],
    ]
    for c in cmds:
        run(cli, c, work)
    return sorted(os.path.join(work, f) for f in os.listdir(work) if f.endswith(".json")
                  and not f.endswith(".mapping.json"))


def structural_errors(seed):
    def mutate(f):
        s = copy.deepcopy(seed)
        f(s)
        return s
    return {
        "unknown top-level key": mutate(lambda s: s.update({"fabrik": {}})),
        "unknown fabric key": mutate(lambda s: s["fabric"].update({"nic_gbsp": 400})),
        "fabric an array": mutate(lambda s: s.update({"fabric": [1, 2]})),
        "servers a string": mutate(lambda s: s["fabric"].update({"servers": "16"})),
        "parallel without tp": mutate(lambda s: s["parallel"].pop("tp")),
        "no format_version": mutate(lambda s: s.pop("format_version")),
        "slots of strings": mutate(lambda s: s.update({"mapping": {"slots": ["0", "1"]}})),
        "annotations an object": mutate(lambda s: s.update({"annotations": {"kind": "note"}})),
        "schedule unknown": mutate(lambda s: s.setdefault("training", {}).update({"schedule": "2f2b"})),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--cli", required=True)
    a = ap.parse_args()
    a.cli = os.path.abspath(a.cli)
    top = os.path.abspath(a.source)
    schema = json.load(open(os.path.join(top, "docs/scenario.schema.json"), encoding="utf-8"))
    problems = []
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        print("docs/scenario.schema.json: not a valid 2020-12 schema: %s" % e.message)
        return 1
    validator = jsonschema.Draft202012Validator(schema)
    check_drift(top, schema, problems)

    good = sorted(glob.glob(os.path.join(top, "samples/*.json")))
    good += [f for f in sorted(glob.glob(os.path.join(top, "tests/fuzz/corpus/scenario/*.json")))
             + sorted(glob.glob(os.path.join(top, "tests/fuzz/regressions/scenario-*.json")))
             if not os.path.basename(f).startswith("bad-")]
    with tempfile.TemporaryDirectory() as work:
        try:
            good += written_files(top, a.cli, work)
        except RuntimeError as e:
            problems.append(str(e))
        for path in good:
            doc = json.load(open(path, encoding="utf-8"))
            for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.path)):
                where = "/".join(str(p) for p in err.path) or "(top)"
                problems.append("%s: %s: %s" % (os.path.relpath(path, top) if path.startswith(top)
                                                 else os.path.basename(path), where, err.message))
        samples = [p for p in good if p.startswith(os.path.join(top, "samples"))]
        for path in samples:
            if json.load(open(path, encoding="utf-8")).get("$schema") != "../docs/scenario.schema.json":
                problems.append("%s: no \"$schema\": \"../docs/scenario.schema.json\"" % os.path.relpath(path, top))
        checked = len(good)

    seed = json.load(open(os.path.join(top, "samples/seed-128.json"), encoding="utf-8"))
    bad = {os.path.basename(f): json.load(open(f, encoding="utf-8"))
           for f in glob.glob(os.path.join(top, "tests/fuzz/corpus/scenario/bad-*.json"))}
    bad.update(structural_errors(seed))
    for name, doc in sorted(bad.items()):
        if validator.is_valid(doc):
            problems.append("accepted a structural error: %s" % name)

    for p in problems:
        print(p)
    if not problems:
        print("check_schema: %d files valid, %d structural errors rejected, schema equal to the "
              "loader's %d field tables" % (checked, len(bad), len(loader_tables(top))))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
