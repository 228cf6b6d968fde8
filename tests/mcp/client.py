#!/usr/bin/env python3
"""A real MCP client against `planseal mcp` (tests/cli/mcp_cli.rs runs it).

Builds a fixture workspace in a temp folder (the vector repositories of fixtures/vectors/dwp,
made by their own build-repo.sh with pinned dates), copies it twice, starts `planseal mcp` in one
copy through the Python `mcp` package's stdio client, and in the other runs `planseal <cmd>
--json` with the same arguments. For every tool call the structured content (and the text
content, parsed) must equal the CLI's document, the two folders' paths aside.

usage: client.py PLANSEAL_BINARY REPOSITORY_ROOT
Prints one line per check and ends with "N passed, N failed"; exit 0 only when none failed.
"""

import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jsonschema import Draft202012Validator
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BIN = Path(sys.argv[1]).resolve()
ROOT = Path(sys.argv[2]).resolve()
VECTORS = ROOT / "fixtures/vectors/dwp"
PLAN_A = "PLAN_http_rate_limit"
PLAN_B = "PLAN_webhook_retry_backoff"
# Words of B's state.json (its checkpoint note), given as a .env value: they must never come
# out of the server.
SECRET = "Plan completed"

READ_ONLY = {"verify", "status", "diff", "log"}
WRITERS = {"update", "finalize", "recover", "rebuild"}

passed = 0
failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok: {what}")
    else:
        failed += 1
        print(f"FAILED: {what}\n{detail}")


def env_for(tmp):
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LC_ALL": "C",
        "TZ": "UTC",
        "NO_COLOR": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        # Both sides stamp the same times: each command starts its clock here.
        "PLANSEAL_FAKE_NOW": "2026-10-05T09:00:00+00:00",
    }


def build(fixture, target, plan_dir, env):
    script = VECTORS / fixture / "fixture/build-repo.sh"
    subprocess.run(
        ["bash", str(script), str(target), "99", str(plan_dir)],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def workspace(tmp, env):
    """Three repositories side by side: B published and clean (read-only tools, finalize,
    rebuild), A after task 1 (update), R with an interrupted publication (recover)."""
    ws = tmp / "mcp"
    ws.mkdir()
    build("B_full_v5", ws / "B", VECTORS / "B_full_v5/lifecycle/snapshots/final" / PLAN_B, env)
    build(
        "A_lite_v2",
        ws / "A",
        VECTORS / "A_lite_v2/lifecycle/snapshots/after-task1" / PLAN_A,
        env,
    )
    build(
        "A_lite_v2",
        ws / "R",
        VECTORS / "A_lite_v2/interrupted/before_publish/plan-after-interruption" / PLAN_A,
        env,
    )
    shutil.copy(VECTORS / "A_lite_v2/interrupted/candidate.json", ws / "R/candidate.json")
    (ws / "R/.git/info").mkdir(exist_ok=True)
    with open(ws / "R/.git/info/exclude", "a") as f:
        f.write("candidate.json\n")
    # A secret in B's .env (kept out of git status like any .env).
    (ws / "B/.env").write_text(f'DEPLOY_NOTE="{SECRET}"\n')
    (ws / "B/.git/info").mkdir(exist_ok=True)
    with open(ws / "B/.git/info/exclude", "a") as f:
        f.write(".env\n")
    cli = tmp / "cli"
    shutil.copytree(ws, cli, symlinks=True)
    return ws, cli


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def normalized(doc, folder):
    """The document with the workspace's own folder written as <ws>."""
    text = json.dumps(doc, sort_keys=False)
    text = text.replace(str(folder), "<ws>")
    return json.loads(text)


def run_cli(cli_ws, argv, env):
    out = subprocess.run(
        [str(BIN), *argv, "--json"],
        cwd=cli_ws / "B",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        return {"unparseable-stdout": out.stdout, "stderr": out.stderr}


SCHEMAS = {}


def schema_errors(tool, doc):
    """The errors of `doc` against `planseal schema TOOL` (the CLI's schema of that command)."""
    if tool not in SCHEMAS:
        out = subprocess.run([str(BIN), "schema", tool], capture_output=True, check=True)
        SCHEMAS[tool] = Draft202012Validator(json.loads(out.stdout))
    return [e.message for e in SCHEMAS[tool].iter_errors(doc)]


async def call(session, tool, arguments):
    result = await session.call_tool(tool, arguments)
    doc = result.structured_content
    errors = schema_errors(tool, doc)
    check(not errors, f"{tool}: the document matches `planseal schema {tool}`", errors)
    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    same_text = len(texts) == 1 and json.loads(texts[0]) == doc
    check(same_text, f"{tool}: the text content is the structured document", texts)
    failed_result = doc is not None and doc.get("result") in ("refused", "error")
    check(
        bool(result.is_error) == failed_result,
        f"{tool}: isError is {failed_result} for result {doc and doc.get('result')}",
    )
    return doc


async def main():
    tmp = Path(tempfile.mkdtemp(prefix="planseal-mcp-"))
    try:
        env = env_for(tmp)
        ws, cli = workspace(tmp, env)
        b_plan = f".dwp/plans/{PLAN_B}"
        a_plan = f"../A/.dwp/plans/{PLAN_A}"
        r_plan = f"../R/.dwp/plans/{PLAN_A}"
        params = StdioServerParameters(command=str(BIN), args=["mcp"], cwd=ws / "B", env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check(init.server_info.name == "planseal", "the server says it is planseal")

                tools = {t.name: t for t in (await session.list_tools()).tools}
                check(
                    set(tools) == READ_ONLY | WRITERS,
                    "the tools are verify, status, diff, log, update, finalize, recover, rebuild",
                    sorted(tools),
                )
                for absent in ("approve", "unlock"):
                    check(absent not in tools, f"{absent} is not offered")
                for name, tool in tools.items():
                    ro = bool(tool.annotations and tool.annotations.read_only_hint)
                    check(ro == (name in READ_ONLY), f"{name}: read-only annotation {ro}")
                    props = tool.input_schema.get("properties", {})
                    check("path" in props, f"{name}: takes path")
                    if name in WRITERS:
                        check("expected_sha256" in props, f"{name}: takes expected_sha256")

                # (tool, arguments, the CLI's argv, the result expected)
                wrong = "0" * 64
                a_state_before = sha256(ws / "A/.dwp/plans" / PLAN_A / "state.json")
                cases = [
                    ("verify", {}, ["verify"], "ok"),
                    ("verify", {"path": b_plan}, ["verify", b_plan], "ok"),
                    ("status", {}, ["status"], "ok"),
                    ("diff", {"path": b_plan}, ["diff", b_plan], "ok"),
                    (
                        "diff",
                        {"path": b_plan, "since_publication": True},
                        ["diff", b_plan, "--since-publication"],
                        "ok",
                    ),
                    ("log", {"path": b_plan}, ["log", b_plan], "ok"),
                    (
                        "update",
                        {"path": a_plan, "task": 2, "status": "in_progress", "expected_sha256": wrong},
                        [
                            "update", f"{a_plan}/state.json", "--task", "2", "--status",
                            "in_progress", "--expected-sha256", wrong,
                        ],
                        "refused",
                    ),
                    (
                        "update",
                        {
                            "path": a_plan,
                            "task": 2,
                            "status": "in_progress",
                            "expected_sha256": a_state_before,
                        },
                        [
                            "update", f"{a_plan}/state.json", "--task", "2", "--status",
                            "in_progress", "--expected-sha256", a_state_before,
                        ],
                        "applied",
                    ),
                    ("finalize", {"path": b_plan, "dry_run": True}, ["finalize", b_plan, "--dry-run"], "ok"),
                    (
                        "finalize",
                        {"path": b_plan, "expected_sha256": wrong},
                        ["finalize", b_plan, "--expected-sha256", wrong],
                        "refused",
                    ),
                    ("finalize", {"path": b_plan}, ["finalize", b_plan], "applied"),
                    ("rebuild", {"path": b_plan}, ["rebuild", b_plan], "ok"),
                    (
                        "rebuild",
                        {"path": b_plan, "write": True, "expected_sha256": wrong},
                        ["rebuild", b_plan, "--write", "--expected-sha256", wrong],
                        "refused",
                    ),
                    (
                        "recover",
                        {"path": r_plan, "candidate": "../R/candidate.json", "dry_run": True},
                        ["recover", r_plan, "--candidate", "../R/candidate.json", "--dry-run"],
                        "ok",
                    ),
                    (
                        "recover",
                        {"path": r_plan, "candidate": "../R/candidate.json", "expected_sha256": wrong},
                        ["recover", r_plan, "--candidate", "../R/candidate.json", "--expected-sha256", wrong],
                        "refused",
                    ),
                    (
                        "recover",
                        {"path": r_plan, "candidate": "../R/candidate.json"},
                        ["recover", r_plan, "--candidate", "../R/candidate.json"],
                        "applied",
                    ),
                    ("verify", {"path": "../R"}, ["verify", "../R"], "ok"),
                    # A parameter the tool does not take: a usage error in the envelope.
                    ("status", {"path": ".", "force": True}, None, "error"),
                ]
                for tool, arguments, argv, expected in cases:
                    doc = await call(session, tool, arguments)
                    label = f"{tool} {json.dumps(arguments)}"
                    check(
                        doc is not None and doc.get("result") == expected,
                        f"{label}: result {expected}",
                        json.dumps(doc, indent=2)[:3000],
                    )
                    check(
                        SECRET not in json.dumps(doc),
                        f"{label}: no .env value in the document",
                    )
                    if argv is None:
                        continue
                    cli_doc = run_cli(cli, argv, env)
                    mine, theirs = normalized(doc, ws), normalized(cli_doc, cli)
                    check(
                        mine == theirs,
                        f"{label}: the document `planseal {' '.join(argv)} --json` prints",
                        f"mcp: {json.dumps(mine, indent=2)[:4000]}\ncli: {json.dumps(theirs, indent=2)[:4000]}",
                    )
                    if tool == "status":
                        check(
                            "[redacted .env value]" in json.dumps(doc),
                            "status: the .env value is redacted, as the CLI does",
                        )

                resources = (await session.list_resources()).resources
                uris = sorted(r.uri for r in resources)
                uri = f"planseal://plan/{PLAN_B}/state"
                check(uris == [uri], "the resources are the state of each plan here", uris)
                read_back = await session.read_resource(uri)
                text = read_back.contents[0].text
                on_disk = (ws / "B" / b_plan / "state.json").read_text()
                check(
                    text == on_disk.replace(SECRET, "[redacted .env value]"),
                    "reading the resource gives state.json (its .env values hidden)",
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
