/**
 * VS Code client for pallas-lsp: starts `python -m pallas_lsp` (or `pallas.server.path`) over stdio
 * for Python files and Jupyter notebooks, forwards the `pallas.*` settings, shows the server state.
 */
import { ChildProcess, spawn } from "child_process";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  DocumentSelector,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  CloseAction,
  ErrorAction,
  ErrorHandler,
} from "vscode-languageclient/node";
import { onInterpreterChanged, selectedInterpreter } from "./python";
import { checkServerCommand, resolveServerCommand, ServerCommand, serverSettings } from "./serverCommand";

const CLIENT_ID = "pallas"; // also makes the client read `pallas.trace.server`
const CLIENT_NAME = "Pallas";

/** Python files on disk and unsaved, and the Python cells of Jupyter notebooks (synced as notebooks). */
const DOCUMENT_SELECTOR: DocumentSelector = [
  { scheme: "file", language: "python" },
  { scheme: "untitled", language: "python" },
  { notebook: "jupyter-notebook", language: "python" },
];

/** Settings whose change needs a new server process rather than a didChangeConfiguration. */
const RESTART_SETTINGS = ["pallas.interpreter", "pallas.server.path"];

class PallasClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private cmd: ServerCommand | undefined; // the command of `client`
  private process: ChildProcess | undefined;
  private wasRunning = false; // the current client reached Running at least once
  private readonly output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  private readonly status = vscode.languages.createLanguageStatusItem("pallas.server", { language: "python" });
  private queue: Promise<void> = Promise.resolve();

  constructor() {
    this.status.name = "Pallas Kernel Checker";
    this.status.command = { title: "Restart", command: "pallas.restartServer" };
  }

  /** Stops any running server and starts a new one; calls are serialised. */
  restart(): Promise<void> {
    this.queue = this.queue.then(() => this.doRestart()).catch((e) => this.output.error(String(e)));
    return this.queue;
  }

  /** Sends the changed `pallas.*` settings to the running server (with the interpreter it runs with). */
  sendSettings(): void {
    const client = this.client;
    if (!client?.isRunning() || !this.cmd) {
      return; // a server that is starting reads them in its initializationOptions
    }
    const settings = { pallas: currentSettings(this.cmd) };
    this.output.info(`Settings sent to the server: ${JSON.stringify(settings.pallas)}`);
    client
      .sendNotification(DidChangeConfigurationNotification.type, { settings })
      .catch((e) => this.output.warn(`Sending the settings: ${errorText(e)}`));
  }

  showOutput(): void {
    this.output.show(true);
  }

  async stop(): Promise<void> {
    const client = this.client;
    const child = this.process;
    this.client = undefined;
    this.process = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (e) {
        this.output.warn(`Stopping the server: ${errorText(e)}`);
      }
    }
    // the client ends a process it spawned itself, but this one is ours
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          child.kill();
          resolve();
        }, 2000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  dispose(): void {
    void this.stop();
    this.status.dispose();
    this.output.dispose();
  }

  private async doRestart(): Promise<void> {
    await this.stop();
    this.setStatus("starting…", vscode.LanguageStatusSeverity.Information, true);
    const cmd = await this.serverCommand();
    this.cmd = cmd;
    this.output.info(`Server command (${cmd.source}): ${[cmd.command, ...cmd.args].join(" ")}`);

    const problem = await checkServerCommand(cmd);
    if (problem) {
      this.output.error(problem.message);
      this.setStatus("not running", vscode.LanguageStatusSeverity.Error);
      this.status.detail = problem.kind === "not-installed" ? "pallas_lsp is not installed" : "cannot start";
      void this.reportStartFailure(problem.message);
      return;
    }

    // We spawn the server ourselves (no `--stdio` argument is added) so that its last stderr lines
    // can go into the error message when it fails to start.
    const stderrTail: string[] = [];
    const serverOptions: ServerOptions = async () => {
      const child = spawn(cmd.command, cmd.args, {
        cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
        env: process.env,
      });
      child.on("error", (e) => this.output.error(`Server process: ${e.message}`));
      child.stderr.on("data", (data: Buffer) => {
        stderrTail.push(...data.toString("utf8").split(/\r?\n/).filter((l) => l.trim() !== ""));
        stderrTail.splice(0, Math.max(0, stderrTail.length - 5));
      });
      this.process = child;
      return { process: child, detached: false };
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => currentSettings(cmd),
      errorHandler: this.errorHandler(stderrTail),
    };
    this.wasRunning = false;
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Running) {
        this.wasRunning = true;
        this.showRunning(client, cmd);
      } else if (e.newState === State.Stopped) {
        this.setStatus("stopped", vscode.LanguageStatusSeverity.Warning);
      }
    });
    this.client = client;
    try {
      await client.start();
      this.showRunning(client, cmd);
    } catch (e) {
      const detail = stderrTail.length ? stderrTail.slice(-2).join(" ") : errorText(e);
      const message = `The Pallas server (${[cmd.command, ...cmd.args].join(" ")}) failed to start: ${detail}`;
      this.output.error(message);
      this.setStatus("failed to start", vscode.LanguageStatusSeverity.Error);
      void this.reportStartFailure(message);
    }
  }

  /** Restarts a server that crashed while running (at most 4 times in 3 minutes), never one that
   *  failed to start: that failure is reported once, with its reason. */
  private errorHandler(stderrTail: string[]): ErrorHandler {
    const crashes: number[] = [];
    return {
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      closed: () => {
        if (!this.wasRunning) {
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        const now = Date.now();
        crashes.push(now);
        while (crashes.length && now - crashes[0] > 3 * 60 * 1000) {
          crashes.shift();
        }
        if (crashes.length > 4) {
          const last = stderrTail.slice(-2).join(" ");
          return {
            action: CloseAction.DoNotRestart,
            message: `The Pallas server crashed 5 times in 3 minutes and will not be restarted${last ? `: ${last}` : ""}. Use "Pallas: Restart Server" after fixing the cause.`,
          };
        }
        this.output.warn("The server stopped unexpectedly; restarting it.");
        return { action: CloseAction.Restart, handled: true };
      },
    };
  }

  private async serverCommand(): Promise<ServerCommand> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const config = vscode.workspace.getConfiguration("pallas", folder?.uri);
    // In an untrusted workspace VS Code returns only the user-level values of the settings listed in
    // `restrictedConfigurations`; the Python extension's (workspace-chosen) interpreter is skipped too.
    const fromPythonExtension =
      vscode.workspace.isTrusted && !config.get<string | null>("interpreter")
        ? await selectedInterpreter(folder?.uri)
        : undefined;
    return resolveServerCommand(
      {
        serverPath: config.get<string | string[]>("server.path"),
        interpreter: config.get<string | null>("interpreter"),
      },
      fromPythonExtension,
      folder?.uri.fsPath,
    );
  }

  private showRunning(client: LanguageClient, cmd: ServerCommand): void {
    const info = client.initializeResult?.serverInfo;
    const version = info?.version ? ` ${info.version}` : "";
    this.setStatus(`$(check) pallas-lsp${version}`, vscode.LanguageStatusSeverity.Information);
    this.status.detail = `running with ${cmd.interpreter ?? cmd.command}`;
  }

  private setStatus(text: string, severity: vscode.LanguageStatusSeverity, busy = false): void {
    this.status.text = text;
    this.status.severity = severity;
    this.status.busy = busy;
    this.status.detail = undefined;
  }

  private async reportStartFailure(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, "Open Settings", "Show Output");
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "pallas.");
    } else if (choice === "Show Output") {
      this.showOutput();
    }
  }
}

/** The settings for a server started with `cmd`, from the current `pallas.*` configuration. */
function currentSettings(cmd: ServerCommand) {
  const config = vscode.workspace.getConfiguration("pallas");
  return serverSettings(
    {
      select: config.get<string[] | null>("select"),
      ignore: config.get<string[] | null>("ignore"),
      logLevel: config.get<string>("logLevel", "info"),
      inlayHints: config.get<boolean>("inlayHints", false),
    },
    cmd,
  );
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  return String(e);
}

let pallas: PallasClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const p = new PallasClient();
  pallas = p;
  context.subscriptions.push(
    p,
    vscode.commands.registerCommand("pallas.restartServer", () => p.restart()),
    vscode.commands.registerCommand("pallas.showOutput", () => p.showOutput()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(s))) {
        void p.restart();
      } else if (e.affectsConfiguration("pallas")) {
        p.sendSettings();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void p.restart()),
  );
  const pythonListener = await onInterpreterChanged(() => {
    const c = vscode.workspace.getConfiguration("pallas");
    if (!c.get("interpreter") && !(c.get<string[] | string>("server.path") ?? []).length) {
      void p.restart();
    }
  });
  if (pythonListener) {
    context.subscriptions.push(pythonListener);
  }
  await p.restart();
}

export async function deactivate(): Promise<void> {
  await pallas?.stop();
  pallas = undefined;
}
