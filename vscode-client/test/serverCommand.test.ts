// Unit tests of the server-command rules (no VS Code needed): npm test
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { checkServerCommand, expandPath, resolveServerCommand, serverSettings } from "../src/serverCommand";

test("pallas.server.path wins, as an array or a single executable", () => {
  const fromArray = resolveServerCommand(
    { serverPath: ["/opt/venv/bin/python", "-m", "pallas_lsp"], interpreter: "/usr/bin/python3" },
    "/ext/python",
  );
  assert.deepEqual(fromArray, {
    command: "/opt/venv/bin/python",
    args: ["-m", "pallas_lsp"],
    interpreter: "/opt/venv/bin/python",
    source: "pallas.server.path",
  });
  const fromString = resolveServerCommand({ serverPath: "/opt/venv/bin/pallas-lsp" }, undefined);
  assert.equal(fromString.command, "/opt/venv/bin/pallas-lsp");
  assert.deepEqual(fromString.args, []);
  assert.equal(fromString.interpreter, undefined); // not a `python -m pallas_lsp` line
});

test("then pallas.interpreter, then the Python extension, then python3", () => {
  assert.equal(resolveServerCommand({ interpreter: "/a/python" }, "/ext/python").command, "/a/python");
  const ext = resolveServerCommand({ serverPath: [], interpreter: "" }, "/ext/python");
  assert.deepEqual([ext.command, ...ext.args, ext.source], ["/ext/python", "-m", "pallas_lsp", "Python extension"]);
  const dflt = resolveServerCommand({ serverPath: [" "], interpreter: null }, undefined);
  assert.deepEqual([dflt.command, ...dflt.args, dflt.source], ["python3", "-m", "pallas_lsp", "default"]);
});

test("paths expand ${workspaceFolder}, ${userHome} and a leading ~", () => {
  assert.equal(expandPath("${workspaceFolder}/.venv/bin/python", "/w"), "/w/.venv/bin/python");
  assert.equal(expandPath("~/venv/bin/python"), path.join(os.homedir(), "venv/bin/python"));
  assert.equal(expandPath("${userHome}/x"), `${os.homedir()}/x`);
  assert.equal(expandPath("/a/~b"), "/a/~b");
  const cmd = resolveServerCommand({ interpreter: "${workspaceFolder}/.venv/bin/python" }, undefined, "/proj");
  assert.equal(cmd.command, "/proj/.venv/bin/python");
});

test("the settings sent to the server always name the interpreter it runs with", () => {
  // the Python extension chose it: the pallas.interpreter setting is empty
  const ext = resolveServerCommand({ serverPath: [], interpreter: "" }, "/ext/python");
  assert.deepEqual(serverSettings({ select: null, ignore: ["PAL003"], logLevel: "debug" }, ext), {
    select: undefined,
    ignore: ["PAL003"],
    interpreter: "/ext/python",
    logLevel: "debug",
    inlayHints: false,
  });
  assert.equal(serverSettings({ inlayHints: true }, ext).inlayHints, true);
  const expanded = resolveServerCommand({ interpreter: "${workspaceFolder}/.venv/bin/python" }, undefined, "/proj");
  assert.equal(serverSettings({}, expanded).interpreter, "/proj/.venv/bin/python");
  const exe = resolveServerCommand({ serverPath: "/opt/venv/bin/pallas-lsp" }, undefined);
  assert.equal(serverSettings({}, exe).interpreter, null); // unknown: the server keeps its own
});

test("a missing interpreter or server executable is reported as not found", async () => {
  const missing = await checkServerCommand(resolveServerCommand({ interpreter: "/nonexistent/python" }, undefined));
  assert.equal(missing?.kind, "not-found");
  assert.match(missing!.message, /Python interpreter not found: \/nonexistent\/python \(from pallas.interpreter\)/);
  const exe = await checkServerCommand(resolveServerCommand({ serverPath: "/nonexistent/pallas-lsp" }, undefined));
  assert.equal(exe?.kind, "not-found");
  assert.match(exe!.message, /Server command not found/);
});

test("an interpreter without pallas_lsp gets the pip install advice; one with it passes", async () => {
  // a bare venv has no pallas_lsp whatever the machine has installed
  const venv = fs.mkdtempSync(path.join(os.tmpdir(), "pallas-bare-"));
  execFileSync(process.env.PYTHON ?? "python3", ["-m", "venv", "--without-pip", venv]);
  const python = path.join(venv, "bin", "python");
  const cmd = resolveServerCommand({ interpreter: python }, undefined);
  const problem = await checkServerCommand(cmd);
  assert.equal(problem?.kind, "not-installed");
  assert.match(problem!.message, /No module named pallas_lsp in .*\(Python 3\.\d+\.\d+\), chosen by pallas.interpreter/);
  assert.ok(problem!.message.includes(`${python} -m pip install /path/to/pallas-lsp`), problem!.message);

  // the same interpreter once a pallas_lsp package is importable
  const pkgDir = fs.mkdtempSync(path.join(os.tmpdir(), "pallas-pkg-"));
  fs.mkdirSync(path.join(pkgDir, "pallas_lsp"));
  fs.writeFileSync(path.join(pkgDir, "pallas_lsp", "__init__.py"), "");
  const saved = process.env.PYTHONPATH;
  process.env.PYTHONPATH = pkgDir;
  try {
    assert.equal(await checkServerCommand(cmd), undefined);
  } finally {
    if (saved === undefined) delete process.env.PYTHONPATH;
    else process.env.PYTHONPATH = saved;
    fs.rmSync(venv, { recursive: true, force: true });
    fs.rmSync(pkgDir, { recursive: true, force: true });
  }
});
