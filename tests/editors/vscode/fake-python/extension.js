// A stand-in for the Python extension (ms-python.python) in the VS Code end-to-end test: its
// `environments` API reports `python.defaultInterpreterPath` as the selected interpreter.
const vscode = require("vscode");

function activate() {
  const selected = () => vscode.workspace.getConfiguration("python").get("defaultInterpreterPath") || "python3";
  const changed = new vscode.EventEmitter();
  vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration("python.defaultInterpreterPath")) changed.fire({ path: selected() });
  });
  return {
    environments: {
      getActiveEnvironmentPath: () => ({ id: selected(), path: selected() }),
      resolveEnvironment: async (env) => ({
        executable: { uri: vscode.Uri.file(typeof env === "string" ? env : env.path) },
      }),
      onDidChangeActiveEnvironmentPath: changed.event,
    },
  };
}

module.exports = { activate };
