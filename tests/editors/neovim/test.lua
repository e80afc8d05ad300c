-- Headless Neovim (0.7 API, works on newer) end-to-end test of pallas-lsp.
--   cd <workspace copy> && SERVER_CMD="python -m pallas_lsp" PALLAS_NVIM_CONFIG=editors/neovim/pallas-0.7.lua \
--     RESULT=out.txt nvim --headless -u test.lua
-- The server is started by the documented configuration ($PALLAS_NVIM_CONFIG) when a Python file opens.
-- Scenario: kernel_index.py shows PAL001 on `sems`; the quick fix that indexes it gives
-- `sems.at[slot]` and the diagnostic clears; kernel_guard.py shows PAL002 on `flags`, which
-- `ignore = ["PAL002"]` (didChangeConfiguration) hides and unsetting it brings back; the
-- assertion-guard fix puts `assert flags.shape == ...` on its own line above the call.
-- Exit status 0 = pass. Every step is written to $RESULT.
local result_path = os.getenv("RESULT") or "nvim-result.txt"
local lines = {}
local t0 = vim.loop.hrtime()
local function log(fmt, ...)
  local s = string.format("[%5.1fs] " .. fmt, (vim.loop.hrtime() - t0) / 1e9, ...)
  table.insert(lines, s)
end

local function finish(ok)
  log(ok and "RESULT: PASS" or "RESULT: FAIL")
  local f = io.open(result_path, "w")
  f:write(table.concat(lines, "\n") .. "\n")
  f:close()
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, c in ipairs(all) do vim.lsp.stop_client(c.id) end
  vim.wait(3000, function()
    return #(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) == 0
  end, 50)
  vim.cmd(ok and "qall!" or "cquit 1")
end

local function check(cond, fmt, ...)
  if not cond then error(string.format(fmt, ...), 0) end
end

local client_id

-- The same calls on Neovim 0.7 (functions) and 0.11+ (methods, renamed helpers).
local NEW_API = vim.fn.has("nvim-0.11") == 1
local function clients(filter)
  return NEW_API and vim.lsp.get_clients(filter) or
    (filter and vim.lsp.buf_get_clients(filter.bufnr) or vim.lsp.get_active_clients())
end
local function request_sync(client, ...)
  if NEW_API then return client:request_sync(...) end
  return client.request_sync(...)
end
local function notify(client, ...)
  if NEW_API then return client:notify(...) end
  return client.notify(...)
end
local function lsp_diagnostics(bufnr, lnum)
  -- 0.7: vim.diagnostic items do not hold the full LSP diagnostic; these return LSP-shaped ones
  if vim.lsp.diagnostic.from then return vim.lsp.diagnostic.from(vim.diagnostic.get(bufnr, { lnum = lnum })) end
  return vim.lsp.diagnostic.get_line_diagnostics(bufnr, lnum)
end

-- The documented configuration ($PALLAS_NVIM_CONFIG: editors/neovim/pallas.lua on 0.11+,
-- pallas-0.7.lua before) starts and attaches the server; only the command is replaced.
local function load_config()
  require("vim.lsp.log").set_level("DEBUG") -- every LSP message in lsp.log, printed on failure
  local cmd = vim.split(os.getenv("SERVER_CMD") or "python3 -m pallas_lsp", " ", { trimempty = true })
  vim.g.pallas_lsp_cmd = cmd
  dofile(os.getenv("PALLAS_NVIM_CONFIG"))
  if vim.lsp.config then vim.lsp.config("pallas", { cmd = cmd }) end
  local v = vim.version()
  log("nvim %d.%d.%d, config %s", v.major, v.minor, v.patch, os.getenv("PALLAS_NVIM_CONFIG"))
end

local function wait_for_client(bufnr)
  local ok = vim.wait(20000, function()
    for _, c in pairs(clients({ bufnr = bufnr })) do
      if c.name == "pallas" and c.initialized then
        if client_id ~= c.id then log("server attached: %s", table.concat(c.config.cmd, " ")) end
        client_id = c.id
        return true
      end
    end
    return false
  end, 50)
  check(ok, "no initialized pallas client on the buffer within 20s (cmd: %s)", table.concat(vim.g.pallas_lsp_cmd, " "))
end

-- Neovim 0.10/0.11 pull diagnostics but cannot be asked to re-pull after a settings change (0.12
-- can, and 0.7-0.9 are pushed to): reloading the buffer re-pulls, as docs/editors.md tells users.
local function repull(client, bufnr)
  if client.server_capabilities.diagnosticProvider and not vim.lsp.diagnostic.on_refresh then
    vim.api.nvim_buf_call(bufnr, function() vim.cmd("edit") end)
    log("pull without refresh: reloaded the buffer (:edit) to re-pull")
  end
end

-- Opens `file`, attaches the server, waits until it reports a diagnostic with `code`.
local function open_and_wait(file, code)
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  check(vim.bo[bufnr].filetype == "python", "filetype of %s is %q", file, vim.bo[bufnr].filetype)
  wait_for_client(bufnr)
  local found
  vim.wait(20000, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.code == code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code == code) then
        found = d
        return true
      end
    end
    return false
  end, 50)
  local all = vim.diagnostic.get(bufnr)
  log("%s: %d diagnostic(s)", file, #all)
  for _, d in ipairs(all) do
    log("  %d:%d-%d:%d [%s] %s: %s", d.lnum + 1, d.col + 1, d.end_lnum + 1, d.end_col + 1, tostring(d.code),
      tostring(d.source), d.message)
  end
  check(found ~= nil, "no %s diagnostic in %s within 20s", code, file)
  check(#all == 1, "expected exactly one diagnostic in %s (the fixture has one bug), got %d", file, #all)
  return bufnr, found
end

-- The position of `needle` in the buffer (0-based line, 0-based byte column), searching lines matching `context`.
local function find(bufnr, context, needle)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if l:find(context, 1, true) then
      local s = l:find(needle, l:find(context, 1, true), true)
      return i - 1, s - 1
    end
  end
  error("fixture line not found: " .. context, 0)
end

-- The text of every TextEdit in a WorkspaceEdit, joined (to pick an action by what it does).
local function edit_text(edit)
  local parts = {}
  for _, edits in pairs(edit.changes or {}) do
    for _, e in ipairs(edits) do table.insert(parts, e.newText) end
  end
  for _, dc in ipairs(edit.documentChanges or {}) do
    for _, e in ipairs(dc.edits or {}) do table.insert(parts, e.newText) end
  end
  return table.concat(parts, "\n")
end

-- Requests the quick fixes for diagnostic `d`; returns the first whose edit contains `want`.
local function quick_fix(bufnr, d, want)
  local client = vim.lsp.get_client_by_id(client_id)
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(bufnr),
    range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
    context = { diagnostics = lsp_diagnostics(bufnr, d.lnum) },
  }
  local resp, err = request_sync(client, "textDocument/codeAction", params, 10000, bufnr)
  check(resp and not resp.err, "codeAction failed: %s", vim.inspect(err or (resp and resp.err)))
  local chosen
  for _, a in ipairs(resp.result or {}) do
    if a.edit == nil and a.data ~= nil and a.command == nil then
      local r = request_sync(client, "codeAction/resolve", a, 10000, bufnr)
      if r and r.result then a = r.result end
    end
    local text = a.edit and edit_text(a.edit) or ""
    log("  action: %q kind=%s", a.title, tostring(a.kind))
    if not chosen and text:find(want, 1, true) then chosen = a end
  end
  check(chosen ~= nil, "no code action whose edit contains %q", want)
  log("applying %q", chosen.title)
  if NEW_API then
    -- 0.11+: through Neovim's own code-action path (what `gra` runs), picking the action by title
    local tick = vim.api.nvim_buf_get_changedtick(bufnr)
    vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
    vim.lsp.buf.code_action({ apply = true, filter = function(a) return a.title == chosen.title end })
    check(vim.wait(10000, function() return vim.api.nvim_buf_get_changedtick(bufnr) ~= tick end, 20),
      "vim.lsp.buf.code_action did not change the buffer")
  else
    -- 0.7: vim.lsp.buf.code_action always asks through vim.ui.select; apply the chosen edit directly
    vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  end
  return chosen
end

local function main()
  load_config()

  -- 1. index fix on kernel_index.py
  local bufnr, d = open_and_wait("kernel_index.py", "PAL001")
  local line, col = find(bufnr, "buf.at[slot], sems)", "sems")
  check(d.lnum == line and d.col == col and d.end_col == col + 4,
    "PAL001 at %d:%d-%d, expected on `sems` at %d:%d", d.lnum, d.col, d.end_col, line, col)
  check(d.severity == vim.diagnostic.severity.ERROR, "PAL001 severity %s, expected error", tostring(d.severity))
  check(d.message:find("non-()-shaped semaphore", 1, true), "unexpected message: %s", d.message)
  quick_fix(bufnr, d, ".at[")
  local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
  log("line %d after the fix: %s", line + 1, text)
  check(text:find("buf.at[slot], sems.at[slot]).start()", 1, true), "index fix did not give sems.at[slot]")
  local cleared = vim.wait(20000, function() return #vim.diagnostic.get(bufnr) == 0 end, 50)
  log("diagnostics after the fix: %d", #vim.diagnostic.get(bufnr))
  check(cleared, "diagnostic not cleared after the index fix")

  -- 2. settings reach the server: ignoring PAL002 clears the diagnostic, un-ignoring brings it back
  bufnr = open_and_wait("kernel_guard.py", "PAL002")
  local client = vim.lsp.get_client_by_id(client_id)
  notify(client, "workspace/didChangeConfiguration", { settings = { pallas = { ignore = { "PAL002" } } } })
  repull(client, bufnr)
  check(vim.wait(20000, function() return #vim.diagnostic.get(bufnr) == 0 end, 50),
    "ignore = [PAL002] (didChangeConfiguration) did not clear the diagnostic")
  -- and it stays cleared (not just the moment between a reload and its pull)
  check(not vim.wait(1000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50),
    "the diagnostic came back although PAL002 is ignored")
  log("settings: ignore = [PAL002] cleared the diagnostic")
  notify(client, "workspace/didChangeConfiguration", { settings = { pallas = { logLevel = "info" } } })
  repull(client, bufnr)
  check(vim.wait(20000, function() return #vim.diagnostic.get(bufnr) == 1 end, 50),
    "the diagnostic did not come back after ignore was unset")
  log("settings: ignore unset, the diagnostic is back")

  -- 3. assertion-guard fix on kernel_guard.py
  bufnr, d = open_and_wait("kernel_guard.py", "PAL002")
  line, col = find(bufnr, "semaphore_signal(flags", "flags")
  check(d.lnum == line and d.col == col, "PAL002 at %d:%d, expected on `flags` at %d:%d", d.lnum, d.col, line, col)
  local call = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
  quick_fix(bufnr, d, "assert ")
  local guard = vim.api.nvim_buf_get_lines(bufnr, line, line + 2, false)
  log("after the fix:\n    %s\n    %s", guard[1], guard[2])
  local indent = call:match("^(%s*)")
  check(guard[1]:find("^" .. indent .. "assert flags%.shape == %(%)"),
    "no `assert flags.shape == ()` guard, indented like the call, above it")
  check(guard[2] == call, "the call line changed: %q", guard[2])
  finish(true)
end

-- run after startup has loaded everything; hard timeout so a hung server never hangs CI
vim.defer_fn(function()
  local ok, e = pcall(main)
  if not ok then
    log("FAIL: %s", tostring(e))
    finish(false)
  end
end, 0)
vim.defer_fn(function() log("global timeout (90s)"); finish(false) end, 90000)
