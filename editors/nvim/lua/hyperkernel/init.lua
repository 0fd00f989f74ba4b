-- Neovim client of hkls (0.7.2 and newer): starts the server with vim.lsp.start_client (0.7
-- has no vim.lsp.start), attaches it to cuda/hip buffers and adds the optimization-episode
-- commands of issue 4 (optimize, cancel, history, apply, report, episodes), progress in the
-- echo area and a statusline function. Diagnostics, hover, symbols and code actions are
-- Neovim's own LSP features; this module only adds what Neovim has no UI for.
local M = {}
local i18n = require('hyperkernel.i18n')
local t = i18n.t

local defaults = {
  cmd = nil, -- { 'hkls', args... }; nil: hkls on PATH, else the checkout's build/hkls (M.server_cmd)
  -- Default target of :HyperKernelOptimize: 'nvidia', 'dcu', or precise ('nvidia:sm_90').
  target = 'nvidia',
  budget = nil, -- episodes.budget (candidates)
  minutes = nil, -- episodes.minutes
  db = nil, -- episodes.db (history database)
  engines = nil, -- { {name=, kind='builtin'|'openai'|'anthropic', endpoint=, model=}, ... }
  filetypes = { 'cuda', 'hip' },
  root_markers = { '.hyperkernel.json', 'compile_commands.json', '.git' },
  init_options = {}, -- merged over the settings above (e.g. {episodes = {simulate = true}} in CI)
  progress = true, -- echo $/progress of episodes
  on_attach = nil, -- function(client, bufnr)
  timeout_ms = 10000, -- for the plugin's own requests
  -- Language of the plugin's messages and of the server (sent as initialize's locale):
  -- 'en', 'zh-CN', or nil/'auto' for init_options.language, then LC_ALL, LC_MESSAGES, LANG,
  -- v:lang (hyperkernel.i18n.choose, as the server chooses: docs/i18n.md).
  language = nil,
}

M.config = vim.deepcopy(defaults)
M.client_id = nil
-- Progress of our episodes: token -> {title, message, percentage, done}
M.progress = {}
-- Running episodes from hyperkernel/episodeChanged: episode id -> params
M.running = {}
-- What the last command did ({ok=bool, message=string, ...}), for scripts and tests.
M.last = nil

local FINAL = { completed = true, stopped = true, failed = true }

local function notify(msg, level)
  vim.notify('[hyperkernel] ' .. msg, level or vim.log.levels.INFO)
end

local function is_precise_target(t)
  return type(t) == 'string' and (t:match('^nvidia:sm_[%w_]+$') or t:match('^dcu:gfx%w+$')
    or t:match('^sm_%w+$') or t:match('^gfx%w+$')) ~= nil
end

local function family(t)
  if type(t) ~= 'string' then
    return nil
  end
  if t:match('^nvidia') or t:match('^sm_') then
    return 'nvidia'
  end
  if t:match('^dcu') or t:match('^amd') or t:match('^gfx') then
    return 'dcu'
  end
  return nil
end

-- The settings sent as init_options and with workspace/didChangeConfiguration.
function M.server_settings()
  local c = M.config
  local s = {}
  if is_precise_target(c.target) then
    s.target = c.target
  end
  local ep = {}
  ep.budget = c.budget
  ep.minutes = c.minutes
  ep.db = c.db
  if next(ep) then
    s.episodes = ep
  end
  if c.engines then
    s.engines = c.engines
  end
  return vim.tbl_deep_extend('force', s, c.init_options or {})
end

-- ---- status line and progress ----

local function pct_text(p)
  if type(p) == 'number' then
    return string.format(' %d%%', math.floor(p + 0.5))
  end
  return ''
end

--- Text for 'statusline': the running episodes, '' when none.
--- Example: set statusline=%f\ %{v:lua.require'hyperkernel'.statusline()}
function M.statusline()
  local items = {}
  for _, e in pairs(M.running) do
    table.insert(items, e)
  end
  if #items == 0 then
    return ''
  end
  if #items == 1 then
    local e = items[1]
    return t('statusline_one', e.kernel or '?', e.stage or e.status or t('running'), pct_text(e.percent))
  end
  return t('statusline_many', #items)
end

local function redraw()
  pcall(vim.cmd, 'redrawstatus!')
end

local function echo_progress(token)
  local p = M.progress[token]
  if not p or not M.config.progress then
    return
  end
  local text = (p.title or 'hyperkernel') .. ': ' .. (p.message or '') .. pct_text(p.percentage)
  if p.done then
    text = text .. t('done')
  end
  -- One line, no hit-enter prompt; history keeps the end message only.
  text = text:gsub('\n', ' ')
  local width = vim.o.columns - 12
  if width > 20 and #text > width then
    text = text:sub(1, width - 3) .. '...'
  end
  vim.api.nvim_echo({ { text } }, p.done or false, {})
end

local function on_progress(err, result, ctx, cfg)
  -- Neovim's own handler keeps client.messages.progress (used by other statusline plugins).
  pcall(vim.lsp.handlers['$/progress'], err, result, ctx, cfg)
  if not result or type(result.value) ~= 'table' then
    return
  end
  local v, token = result.value, result.token
  local p = M.progress[token] or {}
  if v.kind == 'begin' then
    p = { title = v.title, message = v.message, percentage = v.percentage }
  elseif v.kind == 'report' then
    p.message = v.message or p.message
    p.percentage = v.percentage or p.percentage
  elseif v.kind == 'end' then
    p.message = v.message or p.message
    p.done = true
  end
  M.progress[token] = p
  echo_progress(token)
  redraw()
  -- For statusline plugins (and tests): fired after every progress message of hkls, on
  -- any Neovim version (0.10 replaced LspProgressUpdate with LspProgress).
  pcall(vim.cmd, 'doautocmd <nomodeline> User HyperKernelProgress')
end

local function on_episode_changed(_, e)
  if type(e) ~= 'table' or e.episode == nil then
    return vim.NIL
  end
  if FINAL[e.status] then
    M.running[e.episode] = nil
    -- A failure is not notified here: the server says it once with window/showMessage
    -- ("Optimize K (T) failed: why", on_show_message), and e.message already starts with
    -- "failed: ". It is kept for scripts and the statusline.
    if e.status == 'failed' then
      M.last_failure = { episode = e.episode, kernel = e.kernel, message = e.message }
    end
  else
    M.running[e.episode] = vim.tbl_extend('force', M.running[e.episode] or {}, e)
  end
  redraw()
  return vim.NIL
end

-- window/showMessage through vim.notify with the plugin's prefix (0.7's own handler
-- writes errors with nvim_err_writeln, outside vim.notify).
local LEVELS = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }

local function on_show_message(_, result)
  if type(result) == 'table' and type(result.message) == 'string' then
    local level = LEVELS[result.type] or vim.log.levels.INFO
    vim.schedule(function()
      notify(result.message, level)
    end)
  end
  return vim.NIL
end

-- ---- the client ----

-- The plugin's own folder's checkout: editors/nvim/lua/hyperkernel/init.lua -> its root.
local function checkout_root()
  local src = debug.getinfo(1, 'S').source
  if src:sub(1, 1) ~= '@' then
    return nil
  end
  return vim.fn.fnamemodify(src:sub(2), ':p:h:h:h:h:h')
end

--- The command that starts hkls, and the places looked at: setup{cmd=...} when given;
--- else hkls on PATH; else the build/hkls of the checkout this plugin is in. nil when none
--- is found (tried says where it looked).
function M.server_cmd()
  if M.config.cmd then
    return M.config.cmd, {}
  end
  local tried = { t('on_path') }
  local on_path = vim.fn.exepath('hkls')
  if on_path ~= '' then
    return { on_path }, tried
  end
  local root = checkout_root()
  if root then
    local built = root .. '/build/hkls'
    table.insert(tried, built)
    if vim.fn.executable(built) == 1 then
      return { built }, tried
    end
  end
  return nil, tried
end

local function root_dir(fname)
  local dir = vim.fn.fnamemodify(fname, ':p:h')
  local found = nil
  for _, marker in ipairs(M.config.root_markers) do
    local hit = vim.fn.findfile(marker, dir .. ';')
    if hit == '' then
      hit = vim.fn.finddir(marker, dir .. ';')
    end
    if hit ~= '' then
      found = vim.fn.fnamemodify(hit, ':p:h')
      if marker == '.git' then
        found = vim.fn.fnamemodify(hit, ':p:h:h')
      end
      break
    end
  end
  return found or dir
end

function M.client()
  if not M.client_id then
    return nil
  end
  local c = vim.lsp.get_client_by_id(M.client_id)
  if not c or c.is_stopped() then
    return nil
  end
  return c
end

-- window/showDocument for a Neovim without it (0.7): hkls opens a draft bench spec this
-- way when an Optimize was refused for it. Opened after the reply, off the RPC callback.
local function on_show_document(_, result)
  local uri = type(result) == 'table' and result.uri
  if type(uri) ~= 'string' then
    return { success = false }
  end
  if result.external or not uri:match('^file://') then
    -- a report for a browser: say where it is, as the server would without showDocument
    vim.schedule(function()
      notify(t('open_external', uri:match('^file://') and vim.uri_to_fname(uri) or uri))
    end)
    return { success = false }
  end
  local fname = vim.uri_to_fname(uri)
  vim.schedule(function()
    if result.takeFocus then
      vim.cmd('edit ' .. vim.fn.fnameescape(fname))
    else
      vim.fn.bufload(vim.fn.bufadd(fname))
    end
    notify(t('opened', fname))
  end)
  return { success = true }
end

local function start(bufnr)
  local fname = vim.api.nvim_buf_get_name(bufnr)
  local server, tried = M.server_cmd()
  if not server then
    if not M.warned_missing then
      M.warned_missing = true
      notify(t('not_found', table.concat(tried, ', ')), vim.log.levels.ERROR)
    end
    return nil
  end
  local handlers = {
    ['$/progress'] = on_progress,
    ['hyperkernel/episodeChanged'] = on_episode_changed,
    ['window/showMessage'] = on_show_message,
  }
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  if not vim.lsp.handlers['window/showDocument'] then
    handlers['window/showDocument'] = on_show_document
    capabilities.window = capabilities.window or {}
    capabilities.window.showDocument = { support = true }
  end
  local id = vim.lsp.start_client({
    name = 'hyperkernel',
    cmd = server,
    root_dir = root_dir(fname),
    init_options = M.server_settings(),
    -- the language the plugin speaks, for the server's messages too (0.7 sends no locale)
    before_init = function(params)
      params.locale = i18n.lang
      M.locale_sent = params.locale
    end,
    -- The server checks the document after workspace/applyEdit: send each change at once
    -- (0.7 debounces by 150 ms by default, which would let that check see the old text).
    flags = { debounce_text_changes = 0 },
    handlers = handlers,
    capabilities = capabilities,
    on_attach = M.config.on_attach,
    on_exit = function(code, signal)
      M.running = {}
      if code ~= 0 then
        vim.schedule(function()
          notify(t('exited', tostring(code), tostring(signal)), vim.log.levels.WARN)
        end)
      end
    end,
  })
  if not id then
    notify(t('could_not_start', table.concat(server, ' ')), vim.log.levels.ERROR)
    return nil
  end
  M.client_id = id
  return id
end

--- Attaches hkls to bufnr (default: current buffer), starting it when needed.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.api.nvim_buf_get_option(bufnr, 'buftype') ~= '' then
    return
  end
  local id = (M.client() and M.client_id) or start(bufnr)
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

-- ---- requests ----

-- Calls cb(result) on success; reports errors itself (and to cb_err if given).
local function request(method, params, cb, bufnr, cb_err)
  local c = M.client()
  if not c then
    local msg = t('not_running')
    notify(msg, vim.log.levels.ERROR)
    if cb_err then
      cb_err(msg)
    end
    return
  end
  c.request(method, params, function(err, result)
    if err then
      local msg = string.format('%s: %s', method, err.message or vim.inspect(err))
      notify(msg, vim.log.levels.ERROR)
      if cb_err then
        cb_err(msg)
      end
      return
    end
    cb(result)
  end, bufnr or 0)
end

local function exec(command, args, cb, cb_err)
  request('workspace/executeCommand', { command = command, arguments = args }, cb, nil, cb_err)
end

local function finish(cb, res)
  M.last = res
  if cb then
    cb(res)
  end
end

-- The code actions the server offers at the cursor (it knows the kernel around the cursor
-- or at a launch site). cb(actions)
local function actions_at_cursor(cb, cb_err)
  local c = M.client()
  if not c then
    return request('textDocument/codeAction', {}, cb, nil, cb_err)
  end
  local params = vim.lsp.util.make_range_params(0, c.offset_encoding)
  params.context = { diagnostics = {} }
  request('textDocument/codeAction', params, function(r)
    cb(r or {})
  end, 0, cb_err)
end

local function command_of(a)
  if type(a.command) == 'string' then
    return { command = a.command, arguments = a.arguments, title = a.title }
  end
  return a.command
end

--- :HyperKernelOptimize [target] -- starts an episode for the kernel at the cursor.
--- target: 'nvidia', 'dcu' or precise ('nvidia:sm_90'); default setup{target}.
--- cb({ok, episode, token, message}) when the server answered (the episode runs on).
function M.optimize(target, cb)
  target = (target and target ~= '') and target or M.config.target
  local fam = family(target)
  if not fam then
    notify(t('bad_target', tostring(target)), vim.log.levels.ERROR)
    return finish(cb, { ok = false, message = 'bad target' })
  end
  local fail = function(msg)
    finish(cb, { ok = false, message = msg })
  end
  actions_at_cursor(function(actions)
    local chosen = nil
    for _, a in ipairs(actions) do
      local cmd = command_of(a)
      local arg = cmd and cmd.arguments and cmd.arguments[1]
      if cmd and cmd.command == 'hyperkernel.optimize' and type(arg) == 'table' and not a.disabled
          and family(arg.target) == fam and not arg.engine then
        chosen = vim.deepcopy(cmd)
        chosen.title = a.title
        break
      end
    end
    if not chosen then
      local msg = t('no_kernel_for', fam)
      notify(msg, vim.log.levels.WARN)
      return fail(msg)
    end
    if target:find(':') then
      chosen.arguments[1].target = target
    end
    exec('hyperkernel.optimize', chosen.arguments, function(r)
      r = r or {}
      notify(t('started', tostring(r.episode), chosen.title or chosen.arguments[1].kernel))
      finish(cb, { ok = r.episode ~= nil, episode = r.episode, token = r.token, kernel = chosen.arguments[1].kernel })
    end, fail)
  end, fail)
end

local function pick_episode(status, prompt, cb)
  request('hyperkernel/episodes', { status = status }, function(rows)
    rows = rows or {}
    if #rows == 0 then
      notify(t('no_episodes', table.concat(status or { '' }, '/')))
      return cb(nil)
    end
    if #rows == 1 then
      return cb(rows[1].id)
    end
    vim.ui.select(rows, {
      prompt = prompt,
      format_item = function(e)
        return string.format('#%s %s %s %s', e.id, e.kernel or '?', e.status or '', e.stage or '')
      end,
    }, function(e)
      cb(e and e.id)
    end)
  end)
end

--- :HyperKernelCancel [episode] -- stops an episode (asks which when several run).
function M.cancel(episode, cb)
  local function go(id)
    if not id then
      return finish(cb, { ok = false, message = 'nothing to cancel' })
    end
    request('hyperkernel/cancel', { episode = tonumber(id) }, function(r)
      local ok = r and r.ok ~= false
      notify(ok and t('cancelled', id) or t('episode_said', id, tostring(r and r.message)),
        ok and vim.log.levels.INFO or vim.log.levels.WARN)
      finish(cb, { ok = ok, episode = tonumber(id), message = r and r.message })
    end, nil, function(msg)
      finish(cb, { ok = false, message = msg })
    end)
  end
  if episode and episode ~= '' then
    if not tonumber(episode) then
      notify(t('episode_number', tostring(episode)), vim.log.levels.ERROR)
      return finish(cb, { ok = false, message = 'bad episode' })
    end
    return go(episode)
  end
  pick_episode({ 'running' }, t('cancel_which'), go)
end

local function fmt_num(v, fmt)
  return type(v) == 'number' and string.format(fmt, v) or '-'
end

-- Lines of a Markdown table of hyperkernel/history's answer.
function M.history_lines(h, file)
  local lines = { t('history_title', tostring(h.kernel)), '', t('file', file), '' }
  local vs = h.versions or {}
  if #vs == 0 then
    table.insert(lines, t('no_versions'))
    return lines
  end
  for _, v in ipairs(vs) do
    if v.simulated == true then
      table.insert(lines, t('simulated_note'))
      table.insert(lines, '')
      break
    end
  end
  table.insert(lines, t('history_header'))
  table.insert(lines, '|---:|---|---|---:|---:|---:|---:|---|---|')
  for _, v in ipairs(vs) do
    -- a simulated GPU's numbers say so
    local function sim(s)
      return (v.simulated == true and s ~= '-') and t('simulated_mark', s) or s
    end
    table.insert(lines, string.format('| %s | v%s | %s | %s | %s | %s | %s | %s | %s |', tostring(v.episode or '-'),
      tostring(v.version or '?'), tostring(v.status or '-'), sim(fmt_num(v.ms, '%.3f')), sim(fmt_num(v.speedup, '%.2fx')),
      sim(fmt_num(v.bandwidthGBs, '%.0f')), fmt_num(v.maxRelErr, '%.1e'), tostring(v.engine or '-'), tostring(v.created or '-')))
  end
  return lines
end

local function show_scratch(name, lines, ft)
  vim.cmd('botright new')
  local b = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_option(b, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(b, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_option(b, 'swapfile', false)
  pcall(vim.api.nvim_buf_set_name, b, name)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(b, 'modifiable', false)
  vim.api.nvim_buf_set_option(b, 'filetype', ft or 'markdown')
  return b
end

-- The kernel at the cursor (from the server's optimize action there). cb(kernel, uri)
local function kernel_at_cursor(cb, cb_err)
  actions_at_cursor(function(actions)
    for _, a in ipairs(actions) do
      local cmd = command_of(a)
      local arg = cmd and cmd.arguments and cmd.arguments[1]
      if cmd and type(arg) == 'table' and arg.kernel and arg.uri then
        return cb(arg.kernel, arg.uri)
      end
    end
    local msg = t('no_kernel')
    notify(msg, vim.log.levels.WARN)
    if cb_err then
      cb_err(msg)
    end
  end, cb_err)
end

-- In the :HyperKernelEpisodes window: the episode on the cursor's row (the first one when
-- the cursor is on the header), as {kernel, uri}; nil elsewhere.
local function episode_at_cursor()
  local ok, rows = pcall(vim.api.nvim_buf_get_var, 0, 'hyperkernel_episodes')
  if not ok or type(rows) ~= 'table' or #rows == 0 then
    return nil
  end
  local row = vim.api.nvim_win_get_cursor(0)[1] - 2 -- a header line and a rule line
  local e = rows[row] or rows[1]
  if type(e.kernel) ~= 'string' or type(e.uri) ~= 'string' then
    return nil
  end
  return e
end

--- :HyperKernelHistory -- the versions of the kernel at the cursor, in a scratch window;
--- in the episodes window, of the episode's kernel on the cursor's row (from its file).
function M.history(cb)
  local file = vim.api.nvim_buf_get_name(0)
  local fail = function(msg)
    finish(cb, { ok = false, message = msg })
  end
  local listed = episode_at_cursor()
  local at = kernel_at_cursor
  if listed then
    file = vim.uri_to_fname(listed.uri)
    at = function(go)
      go(listed.kernel, listed.uri)
    end
  end
  at(function(kernel, uri)
    request('hyperkernel/history', { uri = uri, kernel = kernel }, function(h)
      h = h or { kernel = kernel }
      local b = show_scratch('hyperkernel://history/' .. kernel, M.history_lines(h, file))
      finish(cb, { ok = true, kernel = kernel, versions = h.versions or {}, bufnr = b })
    end, nil, fail)
  end, fail)
end

--- :HyperKernelEpisodes [status] -- the episode list in a scratch window.
function M.episodes(status, cb)
  local params = { limit = 200 }
  if status and status ~= '' then
    params.status = vim.split(status, ',', { plain = true })
  end
  request('hyperkernel/episodes', params, function(rows)
    rows = rows or {}
    local lines = { t('episodes_header'), '|---:|---|---|---|---|---|---:|---|---|' }
    for _, e in ipairs(rows) do
      table.insert(lines, string.format('| %s | %s | %s | %s | %s | %s | %s | %s | %s |', tostring(e.id), tostring(e.kernel or '-'),
        tostring(e.status or '-'), tostring(e.stage or '-'), tostring(e.target or '-'), tostring(e.engine or '-'),
        fmt_num(e.speedup, e.simulated == true and t('speedup_simulated') or '%.2fx'), tostring(e.started or '-'),
        e.uri and vim.uri_to_fname(e.uri) or '-'))
    end
    if #rows == 0 then
      lines = { t('no_episodes_list') }
    end
    local b = show_scratch('hyperkernel://episodes', lines)
    -- what :HyperKernelHistory reads there: row i of the table is rows[i]
    local keep = {}
    for i, e in ipairs(rows) do
      keep[i] = { id = e.id, kernel = e.kernel, uri = e.uri }
    end
    vim.api.nvim_buf_set_var(b, 'hyperkernel_episodes', keep)
    finish(cb, { ok = true, episodes = rows, bufnr = b })
  end, nil, function(msg)
    finish(cb, { ok = false, message = msg })
  end)
end

--- :HyperKernelReport [episode] -- paths of an episode's report; opens the Markdown one.
--- Without an episode: the latest finished episode of the kernel at the cursor.
function M.report(episode, cb)
  local fail = function(msg)
    finish(cb, { ok = false, message = msg })
  end
  local function go(id)
    request('hyperkernel/report', { episode = tonumber(id) }, function(r)
      if not r or not (r.md or r.html) then
        return fail('episode ' .. id .. ' has no report')
      end
      notify(t('report_of', id, r.html or r.md))
      if r.md and vim.fn.filereadable(r.md) == 1 then
        vim.cmd('botright split ' .. vim.fn.fnameescape(r.md))
      end
      finish(cb, { ok = true, episode = tonumber(id), html = r.html, md = r.md, json = r.json })
    end, nil, fail)
  end
  if episode and episode ~= '' then
    if not tonumber(episode) then
      return fail('episode must be a number')
    end
    return go(episode)
  end
  kernel_at_cursor(function(kernel, uri)
    request('hyperkernel/episodes', { uri = uri, kernel = kernel, status = { 'completed', 'stopped', 'failed' }, limit = 1 }, function(rows)
      if not rows or not rows[1] then
        notify(t('no_finished', kernel), vim.log.levels.WARN)
        return fail('no finished episode')
      end
      go(rows[1].id)
    end, nil, fail)
  end, fail)
end

local function buf_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, true), '\n')
end

-- The text bufnr would have after edits (a scratch copy, edited by Neovim's own code).
local function expected_text(bufnr, edits, encoding)
  local scratch = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, vim.api.nvim_buf_get_lines(bufnr, 0, -1, true))
  local ok, err = pcall(vim.lsp.util.apply_text_edits, edits, scratch, encoding)
  local text = ok and buf_text(scratch) or nil
  vim.api.nvim_buf_delete(scratch, { force = true })
  return text, err
end

--- :HyperKernelApply [version] -- applies a version of the kernel at the cursor (default:
--- the best one the server offers) through hyperkernel.applyVersion, then checks the buffer
--- text itself: Neovim 0.7 answers applied=true while refusing stale edits.
--- cb({ok, message, episode, version})
function M.apply(version, cb)
  local bufnr = vim.api.nvim_get_current_buf()
  local fail = function(msg, level)
    notify(msg, level or vim.log.levels.WARN)
    finish(cb, { ok = false, message = msg })
  end
  if version and version ~= '' and not tonumber((tostring(version):gsub('^v', ''))) then
    return fail(t('version_number', tostring(version)), vim.log.levels.ERROR)
  end
  local want = version and version ~= '' and tonumber((tostring(version):gsub('^v', ''))) or nil
  actions_at_cursor(function(actions)
    local offers, disabled = {}, nil
    for _, a in ipairs(actions) do
      local cmd = command_of(a)
      local arg = cmd and cmd.arguments and cmd.arguments[1]
      -- by kind, not title: titles follow the server's language (docs/i18n.md)
      if a.kind == 'refactor.rewrite.hyperkernel' then
        if a.disabled then
          disabled = a.disabled.reason
        elseif cmd and type(arg) == 'table' then
          table.insert(offers, { action = a, arg = arg })
        end
      end
    end
    if #offers == 0 then
      return fail(disabled or t('no_offer'))
    end
    local pick = offers[#offers] -- the server lists the chain in order: the last is the best
    if want then
      pick = nil
      local have = {}
      for _, o in ipairs(offers) do
        table.insert(have, 'v' .. tostring(o.arg.version))
        if tonumber(o.arg.version) == want then
          pick = o
        end
      end
      if not pick then
        return fail(t('no_such_version', want, table.concat(have, ', ')))
      end
    end
    local c = M.client()
    local uri = vim.uri_from_bufnr(bufnr)
    local before = buf_text(bufnr)
    -- The edit the action carries is what applyVersion will send: what the buffer must become.
    local expect = nil
    if pick.action.edit then
      local edits = {}
      for _, dc in ipairs(pick.action.edit.documentChanges or {}) do
        if dc.textDocument and dc.textDocument.uri == uri then
          vim.list_extend(edits, dc.edits)
        end
      end
      if pick.action.edit.changes and pick.action.edit.changes[uri] then
        vim.list_extend(edits, pick.action.edit.changes[uri])
      end
      if #edits > 0 then
        expect = expected_text(bufnr, edits, c.offset_encoding)
      end
    end
    local arg = { uri = pick.arg.uri, kernel = pick.arg.kernel, episode = pick.arg.episode, version = pick.arg.version }
    exec('hyperkernel.applyVersion', { arg }, function(r)
      r = r or {}
      local after = buf_text(bufnr)
      local res = { episode = arg.episode, version = arg.version, server_ok = r.ok, server_message = r.message }
      if after == before then
        res.ok = false
        res.message = t('unchanged') .. (r.message and (': ' .. r.message) or '')
      elseif expect and after ~= expect then
        res.ok = false
        res.message = t('not_that_version', tostring(arg.version))
      elseif r.ok == false then
        res.ok = false
        res.message = r.message or t('refused')
      else
        res.ok = true
        res.message = r.message or t('applied', arg.version, arg.kernel, arg.episode)
      end
      notify(res.message, res.ok and vim.log.levels.INFO or vim.log.levels.WARN)
      finish(cb, res)
    end, function(msg)
      finish(cb, { ok = false, message = msg })
    end)
  end, function(msg)
    finish(cb, { ok = false, message = msg })
  end)
end

--- :HyperKernelTrust [folder] -- trusts a folder (default: the workspace root of the
--- server), so that its .hyperkernel.json may choose the compilers, compiler flags, engines
--- and the simulated GPU; :HyperKernelTrust! [folder] stops trusting it. The server stores
--- it in the user's trust list ($XDG_CONFIG_HOME/hyperkernel/trusted.json, the one `hkls
--- trust` edits) and re-reads the folder's settings at once.
function M.trust(folder, untrust, cb)
  local args = {}
  if folder and folder ~= '' then
    args = { { folder = vim.fn.fnamemodify(vim.fn.expand(folder), ':p') } }
  end
  exec(untrust and 'hyperkernel.untrustFolder' or 'hyperkernel.trustFolder', args, function(r)
    r = r or {}
    notify(t(untrust and 'untrusted' or 'trusted', tostring(r.folder), tostring(r.file)))
    finish(cb, { ok = true, folder = r.folder, file = r.file, changed = r.changed, trusted = r.workspaceTrusted })
  end, function(msg)
    finish(cb, { ok = false, message = msg })
  end)
end

--- Sends the current settings again (after changing M.config).
function M.reconfigure()
  local c = M.client()
  if c then
    c.notify('workspace/didChangeConfiguration', { settings = { hyperkernel = M.server_settings() } })
  end
end

-- ---- setup ----

local function complete_targets()
  return { 'nvidia', 'dcu', 'nvidia:sm_80', 'nvidia:sm_90', 'dcu:gfx906', 'dcu:gfx90a' }
end

--- require('hyperkernel').setup{cmd=, target=, budget=, minutes=, db=, engines=, init_options=}
function M.setup(opts)
  opts = opts or {}
  if type(opts.cmd) == 'string' then
    opts.cmd = { opts.cmd }
  end
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts)
  i18n.set(i18n.choose(M.config))
  if M.client() then
    M.reconfigure()
  end

  local group = vim.api.nvim_create_augroup('hyperkernel', { clear = true })
  -- 0.7 does not know .hip files.
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
    group = group,
    pattern = '*.hip',
    command = 'setfiletype hip',
  })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })

  -- A draft bench spec that an Optimize was refused for opens through window/showDocument;
  -- hkls hears of it (didSave) when it is written, which runs that Optimize again.
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    pattern = '*.bench.json',
    callback = function(args)
      M.attach(args.buf)
    end,
  })

  local cmd = vim.api.nvim_create_user_command
  cmd('HyperKernelOptimize', function(a)
    M.optimize(a.args)
  end, { nargs = '?', complete = complete_targets, desc = t('desc_optimize') })
  cmd('HyperKernelCancel', function(a)
    M.cancel(a.args)
  end, { nargs = '?', desc = t('desc_cancel') })
  cmd('HyperKernelHistory', function()
    M.history()
  end, { nargs = 0, desc = t('desc_history') })
  cmd('HyperKernelApply', function(a)
    M.apply(a.args)
  end, { nargs = '?', desc = t('desc_apply') })
  cmd('HyperKernelReport', function(a)
    M.report(a.args)
  end, { nargs = '?', desc = t('desc_report') })
  cmd('HyperKernelEpisodes', function(a)
    M.episodes(a.args)
  end, { nargs = '?', desc = t('desc_episodes') })
  cmd('HyperKernelTrust', function(a)
    M.trust(a.args, a.bang)
  end, { nargs = '?', bang = true, complete = 'dir', desc = t('desc_trust') })

  -- Buffers already open when setup runs.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(M.config.filetypes, vim.api.nvim_buf_get_option(b, 'filetype')) then
      M.attach(b)
    end
  end
end

M._family = family

--- The language of the plugin's messages and of the server: 'en' or 'zh-CN'.
function M.language()
  return i18n.lang
end
M._is_precise_target = is_precise_target

return M
