/**
 * Which command starts the Pallas language server, and why a start failed.
 *
 * Nothing here touches the VS Code API, so the rules can be read (and tested) on their own.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** The user's settings that choose the server command. */
export interface CommandSettings {
  /** `pallas.server.path`: an executable path or a full command line. */
  serverPath?: string | string[] | null;
  /** `pallas.interpreter`: the Python to run `-m pallas_lsp` with. */
  interpreter?: string | null;
}

export type CommandSource = "pallas.server.path" | "pallas.interpreter" | "Python extension" | "default";

export interface ServerCommand {
  command: string;
  args: string[];
  /** The Python that runs the server, when we know it (not for an arbitrary server.path). */
  interpreter?: string;
  /** Which setting chose the command (shown in messages and the status item). */
  source: CommandSource;
}

/** Expands `${workspaceFolder}`, `${userHome}` and a leading `~` in a path setting. */
export function expandPath(value: string, workspaceFolder?: string): string {
  let v = value.trim();
  if (v === "~" || v.startsWith("~/")) {
    v = path.join(os.homedir(), v.slice(1));
  }
  v = v.replace(/\$\{userHome\}/g, os.homedir());
  if (workspaceFolder) {
    v = v.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  return v;
}

/**
 * The server command, in this order: `pallas.server.path`, `pallas.interpreter`,
 * the Python extension's selected interpreter, `python3`.
 */
export function resolveServerCommand(
  settings: CommandSettings,
  pythonExtensionInterpreter: string | undefined,
  workspaceFolder?: string,
): ServerCommand {
  const sp = settings.serverPath;
  const parts = (Array.isArray(sp) ? sp : typeof sp === "string" ? [sp] : [])
    .filter((p) => typeof p === "string" && p.trim() !== "");
  if (parts.length > 0) {
    const [command, ...args] = parts.map((p) => expandPath(p, workspaceFolder));
    // `python -m pallas_lsp` style command lines still tell us the interpreter
    const interpreter = args[0] === "-m" && args[1] === "pallas_lsp" ? command : undefined;
    return { command, args, interpreter, source: "pallas.server.path" };
  }
  if (settings.interpreter && settings.interpreter.trim() !== "") {
    const interpreter = expandPath(settings.interpreter, workspaceFolder);
    return { command: interpreter, args: ["-m", "pallas_lsp"], interpreter, source: "pallas.interpreter" };
  }
  if (pythonExtensionInterpreter) {
    return {
      command: pythonExtensionInterpreter,
      args: ["-m", "pallas_lsp"],
      interpreter: pythonExtensionInterpreter,
      source: "Python extension",
    };
  }
  return { command: "python3", args: ["-m", "pallas_lsp"], interpreter: "python3", source: "default" };
}

/** The `pallas.*` settings the server reads (the rest choose the command or the trace). */
export interface PallasSettings {
  select?: string[] | null;
  ignore?: string[] | null;
  logLevel?: string;
  inlayHints?: boolean;
}

/**
 * The server's settings: sent as `initializationOptions` and, on every change, as the `pallas` section
 * of `workspace/didChangeConfiguration`. `interpreter` is always the Python the server runs with (the
 * `pallas.interpreter` setting is empty when the Python extension or `python3` chose it, and it may hold
 * `~` or `${workspaceFolder}`). `select` / `ignore` are left out unless set, so `[tool.pallas-lsp]` applies.
 */
export function serverSettings(settings: PallasSettings, cmd: ServerCommand) {
  return {
    select: settings.select ?? undefined,
    ignore: settings.ignore ?? undefined,
    interpreter: cmd.interpreter ?? null,
    logLevel: settings.logLevel ?? "info",
    inlayHints: settings.inlayHints ?? false,
  };
}

/** A start problem found before the server is spawned, with the message for the user. */
export interface StartProblem {
  kind: "not-found" | "not-installed" | "broken";
  message: string;
}

/** The probe run with the interpreter: prints the Python version, exits 3 if pallas_lsp is missing. */
const PROBE =
  "import importlib.util, sys; print(sys.version.split()[0]); " +
  "sys.exit(0 if importlib.util.find_spec('pallas_lsp') else 3)";

/**
 * Checks that the command can be run and, for an interpreter, that `pallas_lsp` is importable,
 * without importing it. Resolves to undefined when all is well.
 */
export function checkServerCommand(cmd: ServerCommand, timeoutMs = 20000): Promise<StartProblem | undefined> {
  const interpreter = cmd.interpreter;
  if (!interpreter) {
    // an arbitrary server executable is not probed (it would start serving); only check a path exists
    const looksLikePath = cmd.command.includes("/") || cmd.command.includes("\\");
    if (looksLikePath && !fs.existsSync(cmd.command)) {
      return Promise.resolve({ kind: "not-found", message: notFound("Server command", cmd.command, cmd.source) });
    }
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    execFile(interpreter, ["-c", PROBE], { timeout: timeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) {
        resolve(undefined);
        return;
      }
      const code = (error as { code?: unknown }).code;
      if (code === "ENOENT" || code === "EACCES") {
        resolve({ kind: "not-found", message: notFound("Python interpreter", interpreter, cmd.source) });
        return;
      }
      if (code === 3) {
        const version = String(stdout).trim();
        resolve({
          kind: "not-installed",
          message:
            `No module named pallas_lsp in ${interpreter}${version ? ` (Python ${version})` : ""}, chosen by ${cmd.source}. ` +
            `Install it from a checkout of the pallas-lsp repository: \`${interpreter} -m pip install /path/to/pallas-lsp\` ` +
            "(or a wheel built from it), or point `pallas.interpreter` at a Python that has it.",
        });
        return;
      }
      const detail = String(stderr).trim().split("\n").slice(-3).join(" ");
      resolve({
        kind: "broken",
        message: `Could not run ${interpreter} (from ${cmd.source}): ${detail || error.message}`,
      });
    });
  });
}

function notFound(what: string, program: string, source: CommandSource): string {
  return (
    `${what} not found: ${program} (from ${source}). ` +
    "Set `pallas.interpreter` to a Python with pallas-lsp installed, or `pallas.server.path` to the pallas-lsp executable."
  );
}
