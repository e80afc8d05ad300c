-- pallas-lsp for Neovim 0.7 to 0.10 (vim.lsp.start_client; no plugin needed).
-- Put this in init.lua (or ~/.config/nvim/lua/pallas_legacy.lua and require it).
-- `python3` must have pallas-lsp installed; set vim.g.pallas_lsp_cmd to use another one, e.g.
--   vim.g.pallas_lsp_cmd = { "/path/to/venv/bin/python", "-m", "pallas_lsp" }
local function root_dir(fname)
  local markers = { "pyproject.toml", "setup.py", "setup.cfg", ".git" }
  local dir = vim.fn.fnamemodify(fname, ":p:h")
  while dir ~= "/" and dir ~= "" do
    for _, m in ipairs(markers) do
      if vim.loop.fs_stat(dir .. "/" .. m) then return dir end
    end
    dir = vim.fn.fnamemodify(dir, ":h")
  end
  return vim.fn.getcwd()
end

local clients = {} -- root dir -> client id: one server per project

vim.api.nvim_create_autocmd("FileType", {
  pattern = "python",
  callback = function(args)
    local fname = vim.api.nvim_buf_get_name(args.buf)
    if fname == "" then return end
    local root = root_dir(fname)
    local id = clients[root]
    if not id or not vim.lsp.get_client_by_id(id) then
      id = vim.lsp.start_client({
        name = "pallas",
        cmd = vim.g.pallas_lsp_cmd or { "python3", "-m", "pallas_lsp" },
        root_dir = root,
        -- the keys of the VS Code settings; leave select/ignore out to use [tool.pallas-lsp]
        init_options = { logLevel = "info" }, -- e.g. { ignore = { "PAL003" }, logLevel = "info" }
      })
      clients[root] = id
    end
    if id then vim.lsp.buf_attach_client(args.buf, id) end
  end,
})
