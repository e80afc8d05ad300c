-- pallas-lsp for Neovim 0.11 and newer (vim.lsp.config / vim.lsp.enable).
-- Put this file in ~/.config/nvim/lua/ and `require("pallas")` from init.lua, or paste it there.
-- `python3` must have pallas-lsp installed (python3 -m pip install /path/to/pallas-lsp, a checkout of its
-- repository; it is not on PyPI); use the full path of a
-- venv's python (or { "/path/to/venv/bin/pallas-lsp" }) to pick another environment.
vim.lsp.config("pallas", {
  cmd = { "python3", "-m", "pallas_lsp" },
  filetypes = { "python" },
  root_markers = { "pyproject.toml", "setup.py", "setup.cfg", ".git" },
  -- the keys of the VS Code settings; leave select/ignore out to use [tool.pallas-lsp] in pyproject.toml
  init_options = { logLevel = "info" }, -- e.g. { ignore = { "PAL003" }, logLevel = "info" }
})
vim.lsp.enable("pallas")
