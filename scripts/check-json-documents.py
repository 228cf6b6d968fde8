#!/usr/bin/env python3
"""Validate every `--json` document the test suite produced against `planseal schema`.

Usage: scripts/check-json-documents.py [--every-command] PLANSEAL DIR

DIR holds one file per `--json` run of the suite (tests/support/run.rs keeps them):
{"args": [...], "code": N, "stdout": "..."}. Each document is checked against the schema of its
command (the longest run of leading non-flag words that names a command: `gsd sync`,
`checkpoint session add`). Runs that ended outside the documented exit codes 0-4 (killed by a
test, a crash point) have no document to check. Exit 1 when a document does not match, when one
is not JSON, or when there are no documents at all; the commands no kept run covered are listed,
and with --every-command (what scripts/test passes) each of them is a failure too: every
command's --json output is then checked by the suite.
"""

import json
import os
import subprocess
import sys

from jsonschema import Draft202012Validator


def main():
    args = sys.argv[1:]
    every = "--every-command" in args
    args = [a for a in args if a != "--every-command"]
    if len(args) != 2:
        sys.exit(__doc__)
    planseal, folder = args
    schemas = json.loads(subprocess.run([planseal, "schema"], check=True, capture_output=True).stdout)
    for name, schema in schemas.items():
        Draft202012Validator.check_schema(schema)  # each is a valid draft 2020-12 schema
    validators = {name: Draft202012Validator(schema) for name, schema in schemas.items()}
    names = sorted(schemas, key=len, reverse=True)

    files = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    checked, failures, covered = 0, [], set()
    for name in files:
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            record = json.load(f)
        code = record["code"]
        if not 0 <= code <= 4:
            continue
        # The words of the run without its flags; a global flag's value (`-C DIR`,
        # `--color WHEN`) is no word either.
        words, skip = [], False
        for arg in record["args"]:
            if skip:
                skip = False
            elif arg in ("-C", "--color"):
                skip = True
            elif not arg.startswith("-"):
                words.append(arg)
        line = " ".join(words)
        command = next((n for n in names if line == n or line.startswith(n + " ")), None)
        args = " ".join(record["args"])
        if command is None:
            # A usage error before any command (`planseal --json nosuch`) is still an error
            # document of the envelope: check it against any schema's error branch.
            command = "verify"
        try:
            document = json.loads(record["stdout"])
        except json.JSONDecodeError as e:
            failures.append(f"planseal {args} (exit {code}): not one JSON document: {e}")
            continue
        checked += 1
        covered.add(command)
        errors = list(validators[command].iter_errors(document))
        if errors:
            # oneOf hides the reason: show the errors of the branch the document meant.
            result = document.get("result") if isinstance(document, dict) else None
            branch = {"refused": 1, "error": 2}.get(result, 0)
            detail = errors[0]
            for error in errors:
                for sub in error.context or []:
                    if sub.relative_schema_path and sub.relative_schema_path[0] == branch:
                        detail = sub
                        break
            where = "/".join(str(p) for p in detail.absolute_path) or "(top)"
            failures.append(f"planseal {args} (exit {code}): {where}: {detail.message[:300]}")

    for failure in failures:
        print(f"json-documents: {failure}", file=sys.stderr)
    uncovered = [n for n in schemas if n not in covered]
    print(f"json-documents: {checked} documents checked against `planseal schema`, "
          f"{len(failures)} failed; commands no --json test covered: {', '.join(uncovered) or 'none'}")
    if every and uncovered:
        print(f"json-documents: no test ran these commands with --json: {', '.join(uncovered)}; "
              "add one, so their documents are checked too", file=sys.stderr)
        sys.exit(1)
    if checked == 0:
        print("json-documents: no documents were kept: did the tests run?", file=sys.stderr)
        sys.exit(1)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
