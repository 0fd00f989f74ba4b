-- Real-editor test: headless Neovim 0.7 attaches its own LSP client to the built hkls
-- and checks what a user sees (symbols, hover, compile diagnostics, edits), with every
-- column converted by Neovim itself (utf-16), so the server and a real client must agree.
-- Run by run.sh (HK_HKLS, HK_WORK, HK_FILE, HK_CASE in the environment); the exit code
-- carries the verdict: 0 all checks passed, 1 a check failed, 2 the test could not run.

local HKLS = os.getenv('HK_HKLS')
local WORK = os.getenv('HK_WORK')
local FILE = os.getenv('HK_FILE')
local CASE = os.getenv('HK_CASE')
-- Compiles with nvcc take 5-30 s on the 2-core CI machine; wait generously.
local COMPILE_WAIT_MS = tonumber(os.getenv('HK_COMPILE_WAIT_MS') or '') or 90000

local failures, checks = 0, 0
local client_id, client, buf
local server_exit = nil

local function say(fmt, ...)
  io.stderr:write(string.format(fmt, ...) .. '\n')
end

local function check(cond, fmt, ...)
  checks = checks + 1
  if cond then
    say('ok   - ' .. fmt, ...)
  else
    failures = failures + 1
    say('FAIL - ' .. fmt, ...)
  end
  return cond
end

local function fatal(fmt, ...)
  error(string.format(fmt, ...), 0)
end

-- ---- text helpers: positions computed by Neovim, independent of the server ----

local function line_text(lnum)
  return vim.api.nvim_buf_get_lines(buf, lnum, lnum + 1, true)[1]
end

-- First line (0-based) whose text contains needle (plain), from `from` on.
local function find_line(needle, from)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  for i = (from or 0) + 1, #lines do
    if lines[i]:find(needle, 1, true) then
      return i - 1
    end
  end
  fatal('fixture has no line containing %q', needle)
end

-- Byte column (0-based) of needle on line lnum.
local function byte_col(lnum, needle)
  local s = line_text(lnum):find(needle, 1, true)
  if not s then
    fatal('line %d has no %q', lnum, needle)
  end
  return s - 1
end

-- utf-16 column of a byte column, by Neovim's own conversion.
local function u16(lnum, bcol)
  local _, n16 = vim.str_utfindex(line_text(lnum), bcol)
  return n16
end

-- The LSP Position of needle's first character on line lnum (utf-16 columns).
local function pos_of(lnum, needle)
  return { line = lnum, character = u16(lnum, byte_col(lnum, needle)) }
end

-- Buffer text covered by an LSP range, converting utf-16 columns back with Neovim.
local function range_text(r)
  local lines = vim.api.nvim_buf_get_lines(buf, r.start.line, r['end'].line + 1, false)
  if #lines == 0 then
    return nil
  end
  local ok1, s = pcall(vim.str_byteindex, lines[1], r.start.character, true)
  local ok2, e = pcall(vim.str_byteindex, lines[#lines], r['end'].character, true)
  if not ok1 or not ok2 then
    return nil
  end
  if #lines == 1 then
    return lines[1]:sub(s + 1, e)
  end
  lines[1] = lines[1]:sub(s + 1)
  lines[#lines] = lines[#lines]:sub(1, e)
  return table.concat(lines, '\n')
end

local function fmt_range(r)
  if not r then
    return 'nil'
  end
  return string.format('%d:%d-%d:%d', r.start.line, r.start.character, r['end'].line,
    r['end'].character)
end

local function same_pos(a, b)
  return a and b and a.line == b.line and a.character == b.character
end

-- ---- LSP helpers ----

local function request(method, params, timeout)
  local res, err = vim.lsp.buf_request_sync(buf, method, params, timeout or 10000)
  if not res then
    fatal('%s: no answer (%s)', method, tostring(err))
  end
  local r = res[client_id]
  if not r then
    fatal('%s: hkls did not answer', method)
  end
  if r.err then
    fatal('%s: error %s', method, vim.inspect(r.err))
  end
  return r.result
end

local function symbols()
  return request('textDocument/documentSymbol',
    { textDocument = vim.lsp.util.make_text_document_params(buf) })
end

local function by_name(list, name)
  for _, s in ipairs(list or {}) do
    if s.name == name then
      return s
    end
  end
  return nil
end

-- Hover at byte column bcol of line lnum, the position made by Neovim from the cursor.
local function hover_at(lnum, bcol)
  vim.api.nvim_win_set_cursor(0, { lnum + 1, bcol })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  check(params.position.line == lnum and params.position.character == u16(lnum, bcol),
    'cursor %d:%d (bytes) is sent as %d:%d (utf-16)', lnum, bcol, params.position.line,
    params.position.character)
  local h = request('textDocument/hover', params)
  local value = h and h.contents and (h.contents.value or h.contents) or ''
  if type(value) ~= 'string' then
    value = vim.inspect(value)
  end
  return h, value
end

local function contains(hay, needle)
  return type(hay) == 'string' and hay:find(needle, 1, true) ~= nil
end

-- A kernel or launcher symbol: name, kind, selectionRange on the name (checked through
-- the buffer text), range from `start_needle` to the closing brace on `end_lnum`.
local function check_function_symbol(syms, name, start_lnum, start_needle, end_lnum, detail)
  local s = by_name(syms, name)
  if not check(s ~= nil, 'documentSymbol has %s', name) then
    return nil
  end
  check(s.kind == 12, '%s has kind Function (12), got %s', name, tostring(s.kind))
  local sel_text = range_text(s.selectionRange)
  check(sel_text == name, '%s: selectionRange %s covers %q', name, fmt_range(s.selectionRange),
    tostring(sel_text))
  local want_start = pos_of(start_lnum, start_needle)
  check(same_pos(s.range.start, want_start), '%s: range starts at %d:%d (got %s)', name,
    want_start.line, want_start.character, fmt_range(s.range))
  -- just after the last '}' of end_lnum
  local last_brace = line_text(end_lnum):match('.*()}')
  local want_end = { line = end_lnum, character = u16(end_lnum, last_brace or 0) }
  check(same_pos(s.range['end'], want_end), '%s: range ends after the brace at %d:%d (got %s)',
    name, want_end.line, want_end.character, fmt_range(s.range))
  if detail then
    check(contains(s.detail, detail), '%s: detail %q contains %q', name, tostring(s.detail),
      detail)
  end
  return s
end

-- Closing brace of the function starting at lnum.
local function closing_brace(lnum)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  for i = lnum + 1, #lines do
    if lines[i] == '}' then
      return i - 1
    end
  end
  -- One-line function: the brace ends its own line.
  return lnum
end

local function wait_for(ms, what, pred)
  local t0 = vim.loop.hrtime()
  local ok = vim.wait(ms, pred, 100)
  local took = (vim.loop.hrtime() - t0) / 1e6
  check(ok, '%s (waited %.0f ms)', what, took)
  return ok
end

local function diags(severity)
  return vim.diagnostic.get(buf, severity and { severity = severity } or nil)
end

-- ---- start and stop ----

local function start(compile_enabled)
  vim.cmd('edit ' .. vim.fn.fnameescape(FILE))
  buf = vim.api.nvim_get_current_buf()
  -- Neovim 0.7 has no vim.lsp.start: start the client and attach it by hand.
  client_id = vim.lsp.start_client({
    name = 'hkls',
    cmd = { HKLS, '--log', WORK .. '/hkls.log', '--log-level', 'info' },
    root_dir = WORK .. '/ws',
    init_options = { compile = { enabled = compile_enabled, debounceMs = 200 } },
    on_exit = function(code, signal)
      server_exit = { code = code, signal = signal }
    end,
  })
  if not client_id then
    fatal('vim.lsp.start_client failed for %s', HKLS)
  end
  client = vim.lsp.get_client_by_id(client_id)
  if not vim.lsp.buf_attach_client(buf, client_id) then
    fatal('could not attach the client to the buffer')
  end
  if not vim.wait(15000, function() return client.initialized or server_exit ~= nil end, 20)
      or not client.initialized then
    fatal('hkls did not initialize (exit: %s)', vim.inspect(server_exit))
  end
  check(client.offset_encoding == 'utf-16', 'Neovim 0.7 talks utf-16 (got %s)',
    tostring(client.offset_encoding))
  local caps = client.server_capabilities or {}
  check(caps.documentSymbolProvider and caps.hoverProvider,
    'hkls announces documentSymbol and hover')
  local sync = caps.textDocumentSync
  check(type(sync) == 'table' and sync.change == 2, 'hkls asks for incremental sync')
end

local function stop()
  vim.lsp.stop_client(client_id)
  wait_for(10000, 'hkls exits after shutdown + exit', function() return server_exit ~= nil end)
  check(server_exit and server_exit.code == 0 and (server_exit.signal or 0) == 0,
    'hkls exit code 0 after shutdown (got %s)',
    vim.inspect(server_exit, { newline = ' ', indent = '' }))
end

-- ---- case: symbols, hover, resources from a compile, edits ----

local function case_features()
  start(true)
  local l_scale = find_line('__global__ void scale_kernel')
  local l_sum = find_line('__global__ void block_sum')
  local l_launch = find_line('void launch_all')
  -- The fixture must exercise utf-16: Chinese text before the kernel on its line.
  local b_sum = byte_col(l_sum, 'block_sum')
  check(u16(l_sum, b_sum) < b_sum, 'fixture: block_sum is at byte %d, utf-16 %d', b_sum,
    u16(l_sum, b_sum))

  -- documentSymbol
  local syms = symbols()
  check(type(syms) == 'table' and #syms == 3, 'documentSymbol: 3 top-level symbols (got %d)',
    type(syms) == 'table' and #syms or -1)
  check_function_symbol(syms, 'scale_kernel', l_scale, '__global__', closing_brace(l_scale),
    '__global__ void scale_kernel(float *p, float s, int n)')
  local s_sum = check_function_symbol(syms, 'block_sum', l_sum, '__global__',
    closing_brace(l_sum), '__global__ void block_sum(const float *__restrict__ in')
  if s_sum then
    local sh = by_name(s_sum.children, 'buf')
    check(sh and sh.kind == 13 and contains(sh.detail, '__shared__'),
      'block_sum has its extern __shared__ buf as a child (%s)', sh and sh.detail or 'none')
  end
  local s_launch = check_function_symbol(syms, 'launch_all', l_launch, 'void launch_all',
    closing_brace(l_launch), 'launcher: 2 launches')
  if s_launch then
    local kids = s_launch.children or {}
    check(#kids == 2, 'launch_all has 2 launch children (got %d)', #kids)
    for i, k in ipairs(kids) do
      local kname = i == 1 and 'scale_kernel' or 'block_sum'
      local l = find_line(kname .. '<<<', l_launch)
      local text = range_text(k.range) or ''
      check(k.kind == 24 and k.range.start.line == l and
        text:sub(1, #kname + 3) == kname .. '<<<',
        'launch child %d is %s<<<...>>> on line %d (%s: %q)', i, kname, l, fmt_range(k.range),
        text)
    end
  end

  -- hover on a kernel name after Chinese text: signature and launch configuration
  local h, v = hover_at(l_sum, b_sum + 4)
  check(contains(v, '__global__ void block_sum(const float *__restrict__ in, float *out, int n)'),
    'hover on block_sum shows its signature')
  check(contains(v, 'Launch configurations** (1)'), 'hover on block_sum counts 1 launch')
  check(contains(v, 'grid `(n + 255) / 256`, block `256`, shared memory `256 * sizeof(float)` B, stream `st`'),
    'hover on block_sum shows grid, block, shared memory and stream of its launch')
  check(contains(v, string.format('line %d in `launch_all`', find_line('block_sum<<<') + 1)),
    'hover on block_sum names the launch line and launcher')
  check(h and h.range and range_text(h.range) == 'block_sum', 'hover range %s is the name',
    fmt_range(h and h.range))

  -- hover on the launch site
  local l_site = find_line('scale_kernel<<<')
  local _, v2 = hover_at(l_site, byte_col(l_site, 'scale_kernel') + 2)
  check(contains(v2, 'Launch of scale_kernel') and contains(v2, 'block `BLOCK`'),
    'hover on a launch site shows that launch')

  -- the same hover through Neovim's own UI: a floating window with the signature
  vim.api.nvim_win_set_cursor(0, { l_sum + 1, b_sum + 1 })
  vim.lsp.buf.hover()
  local float_text = nil
  wait_for(5000, 'vim.lsp.buf.hover() opens a floating window', function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= '' then
        float_text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0,
          -1, false), '\n')
        return true
      end
    end
    return false
  end)
  check(contains(float_text, 'void block_sum('), 'the floating window shows the signature')
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      vim.api.nvim_win_close(w, true)
    end
  end

  -- resources: after the background nvcc compile, hints on kernel names and in hover
  local hint = vim.diagnostic.severity.HINT
  wait_for(COMPILE_WAIT_MS, 'resource hints arrive after the background compile', function()
    local n = 0
    for _, d in ipairs(diags(hint)) do
      if d.lnum == l_scale or d.lnum == l_sum then
        n = n + 1
      end
    end
    return n >= 2
  end)
  for _, d in ipairs(diags(hint)) do
    if d.lnum == l_sum then
      check(d.col == b_sum and d.end_col == b_sum + #'block_sum' and
        d.message:match('%d+ registers'),
        'block_sum hint sits on the name (bytes %d-%d) and gives registers: %s', d.col,
        d.end_col, d.message)
    end
  end
  check(#diags(vim.diagnostic.severity.ERROR) == 0, 'no errors on a valid file')
  local _, v3 = hover_at(l_scale, byte_col(l_scale, 'scale_kernel'))
  check(contains(v3, 'Resources') and v3:match('%d+ registers'),
    'hover on scale_kernel shows resources of the last compile')

  -- edits: Neovim sends incremental changes; the symbols follow
  local b_name = byte_col(l_scale, 'scale_kernel')
  vim.api.nvim_buf_set_text(buf, l_scale, b_name, l_scale, b_name + #'scale_kernel',
    { 'scale2_kernel' })
  local l_end = closing_brace(l_scale)
  vim.api.nvim_buf_set_lines(buf, l_end + 1, l_end + 1, true,
    { '', '// 新增的内核', '__global__ void added_kernel(int *q) { q[threadIdx.x] = 0; }' })
  -- one more Chinese character before block_sum: 3 bytes, 1 utf-16 unit
  local l_sum2 = find_line('__global__ void block_sum')
  check(l_sum2 == l_sum + 3, 'block_sum moved down 3 lines')
  local b_cm = byte_col(l_sum2, '归约')
  vim.api.nvim_buf_set_text(buf, l_sum2, b_cm, l_sum2, b_cm, { '新' })
  local old_sel = s_sum and s_sum.selectionRange
  syms = symbols()
  check(by_name(syms, 'scale_kernel') == nil, 'after the edit: scale_kernel is gone')
  check_function_symbol(syms, 'scale2_kernel', l_scale, '__global__', closing_brace(l_scale),
    'scale2_kernel(')
  local l_added = find_line('added_kernel')
  check_function_symbol(syms, 'added_kernel', l_added, '__global__', l_added, 'added_kernel(int *q)')
  local s_sum2 = check_function_symbol(syms, 'block_sum', l_sum2, '__global__',
    closing_brace(l_sum2))
  if s_sum2 and old_sel then
    check(s_sum2.selectionRange.start.line == old_sel.start.line + 3 and
      s_sum2.selectionRange.start.character == old_sel.start.character + 1,
      'block_sum name moved from %s to %s (3 lines down, 1 utf-16 unit right)',
      fmt_range(old_sel), fmt_range(s_sum2.selectionRange))
  end
  local _, v4 = hover_at(l_added, byte_col(l_added, 'added_kernel') + 1)
  check(contains(v4, '__global__ void added_kernel(int *q)') and
    contains(v4, 'Launch configurations** (0)'), 'hover on the added kernel: signature, no launches')
  -- an edit inside a launch updates the launch configuration in hover
  local l_site2 = find_line('block_sum<<<')
  local b_256 = byte_col(l_site2, ', 256,')
  vim.api.nvim_buf_set_text(buf, l_site2, b_256 + 2, l_site2, b_256 + 5, { '512' })
  local _, v5 = hover_at(l_sum2, byte_col(l_sum2, 'block_sum'))
  check(contains(v5, 'block `512`'), 'hover follows an edit of the launch (block `512`)')
  stop()
end

-- ---- case: compile diagnostics at the right line and column, fixed by an edit ----

local function case_diagnostics()
  start(true)
  local l_err = find_line('undefined_name')
  local b_err = byte_col(l_err, 'undefined_name')
  check(u16(l_err, b_err) < b_err, 'fixture: the error is after Chinese text (byte %d, utf-16 %d)',
    b_err, u16(l_err, b_err))
  local syms = symbols()
  check(by_name(syms, 'scale') and by_name(syms, 'go'),
    'documentSymbol works on a file that does not compile')
  local err = vim.diagnostic.severity.ERROR
  wait_for(COMPILE_WAIT_MS, 'nvcc error diagnostics arrive', function()
    return #diags(err) > 0
  end)
  local ds = diags(err)
  check(#ds == 1, 'one error (got %d)', #ds)
  local d = ds[1]
  if d then
    check(d.lnum == l_err, 'error on line %d (got %d)', l_err + 1, d.lnum + 1)
    check(d.col == b_err and d.end_col == b_err + #'undefined_name',
      'error columns cover undefined_name: bytes %d-%d (got %d-%d)', b_err,
      b_err + #'undefined_name', d.col, d.end_col or -1)
    check(contains(d.message, 'undefined_name'), 'message names the identifier: %s', d.message)
    check(d.source == 'nvcc', 'source is nvcc (got %s)', tostring(d.source))
  end
  -- fix it, save (a save compiles at once), and the error goes away
  vim.api.nvim_buf_set_text(buf, l_err, b_err, l_err, b_err + #'undefined_name', { '1.0f' })
  vim.cmd('silent write')
  wait_for(COMPILE_WAIT_MS, 'the error clears after the fix is saved', function()
    return #diags(err) == 0
  end)
  local l_k = find_line('__global__ void scale')
  wait_for(COMPILE_WAIT_MS, 'a resource hint appears on the fixed kernel', function()
    for _, h in ipairs(diags(vim.diagnostic.severity.HINT)) do
      if h.lnum == l_k and h.message:match('%d+ registers') then
        return true
      end
    end
    return false
  end)
  stop()
end

-- ---- case: the plugin (editors/nvim) finding hkls, and an episode without a GPU ----

-- The repository this test file is in (tests/nvim/test_init.lua -> its root).
local REPO = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')

local function case_plugin_nogpu()
  vim.opt.runtimepath:prepend(REPO .. '/editors/nvim')
  local hk = require('hyperkernel')

  -- Which hkls: setup{cmd=} as given; else PATH; else the checkout's build/hkls.
  hk.config.cmd = { '/opt/x/hkls', '--log', 'l' }
  check(hk.server_cmd()[1] == '/opt/x/hkls', 'setup{cmd=} is used as given')
  hk.config.cmd = nil
  local bin = WORK .. '/bin'
  vim.fn.mkdir(bin, 'p')
  vim.loop.fs_symlink(HKLS, bin .. '/hkls')
  local saved_path = vim.env.PATH
  vim.env.PATH = bin .. ':' .. saved_path
  local cmd = hk.server_cmd()
  check(cmd and cmd[1] == bin .. '/hkls', 'hkls on PATH is found: %s', vim.inspect(cmd))
  vim.env.PATH = WORK .. '/nothing'
  local tried
  cmd, tried = hk.server_cmd()
  local built = REPO .. '/build/hkls'
  check(tried[#tried] == built and ((cmd ~= nil and cmd[1] == built) == (vim.fn.executable(built) == 1)),
    'not on PATH: the checkout\'s build/hkls (%s), when built: %s', built, vim.inspect(cmd))
  vim.env.PATH = saved_path

  -- An episode where no GPU is: its failure is told once, without "failed: failed:".
  local ws = vim.fn.fnamemodify(FILE, ':h')
  vim.fn.writefile(vim.fn.readfile(REPO .. '/bench/kernels/saxpy.bench.json'), ws .. '/saxpy.bench.json')
  vim.env.HK_NO_GPU = '1'
  local told = {}
  local real_notify = vim.notify
  vim.notify = function(msg, level, opts)
    table.insert(told, { msg = msg, level = level })
    return real_notify(msg, level, opts)
  end
  hk.setup({
    cmd = { HKLS, '--log', WORK .. '/hkls.log', '--log-level', 'info' },
    budget = 1,
    minutes = 2,
    db = WORK .. '/history.db',
    init_options = { compile = { enabled = false } },
  })
  vim.cmd('edit ' .. vim.fn.fnameescape(FILE))
  buf = vim.api.nvim_get_current_buf()
  wait_for(20000, 'the plugin\'s client to attach', function()
    local c = hk.client()
    return c and c.initialized and vim.lsp.buf_is_attached(buf, c.id)
  end)
  client_id = hk.client_id
  local lnum = find_line('blockIdx')
  vim.api.nvim_win_set_cursor(0, { lnum + 1, byte_col(lnum, 'blockIdx') })
  hk.last = nil
  vim.cmd('HyperKernelOptimize')
  wait_for(10000, 'the optimize answer', function() return hk.last ~= nil end)
  local started = hk.last
  if not check(started.ok and started.episode, 'episode started: %s', vim.inspect(started)) then
    return
  end
  local failed = {}
  wait_for(240000, 'the failure to be told', function()
    failed = {}
    for _, t in ipairs(told) do
      if t.msg:find('failed', 1, true) then
        table.insert(failed, t)
      end
    end
    return #failed > 0
  end)
  vim.wait(1500, function() return false end, 50) -- a second one would come now
  failed = {}
  for _, t in ipairs(told) do
    if t.msg:find('failed', 1, true) then
      table.insert(failed, t)
    end
  end
  check(#failed == 1, 'the failure is told once: %s', vim.inspect(failed))
  check(failed[1].level == vim.log.levels.ERROR and failed[1].msg:find('no GPU', 1, true) ~= nil,
    'as an error that says why: %q', failed[1].msg)
  check(failed[1].msg:find('failed: failed:', 1, true) == nil, 'not "failed: failed:": %q', failed[1].msg)
  vim.notify = real_notify

  -- :HyperKernelHistory from the episodes window: the history of the row's kernel.
  hk.last = nil
  hk.episodes()
  wait_for(10000, 'the episodes window', function() return hk.last ~= nil end)
  check(hk.last.ok and #hk.last.episodes >= 1, 'the episodes window lists the episode')
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  hk.last = nil
  vim.cmd('HyperKernelHistory')
  wait_for(10000, 'the history', function() return hk.last ~= nil end)
  check(hk.last.ok and hk.last.kernel == 'saxpy' and #hk.last.versions >= 1,
    'history from the episodes window: %s', vim.inspect(hk.last, { depth = 1 }))
  local text = table.concat(vim.api.nvim_buf_get_lines(hk.last.bufnr, 0, -1, true), '\n')
  check(text:find('| ' .. tostring(started.episode) .. ' | v', 1, true) ~= nil,
    'the history lists episode %s:\n%s', tostring(started.episode), text)
end

local cases = { features = case_features, diagnostics = case_diagnostics,
                plugin_nogpu = case_plugin_nogpu }

local function main()
  local code = 0
  local ok, e = xpcall(function()
    if not (HKLS and WORK and FILE and CASE) then
      fatal('HK_HKLS, HK_WORK, HK_FILE and HK_CASE must be set (run this through run.sh)')
    end
    if vim.fn.executable(HKLS) ~= 1 then
      fatal('hkls is not executable: %s', HKLS)
    end
    local f = cases[CASE]
    if not f then
      fatal('unknown case %q', CASE)
    end
    f()
  end, debug.traceback)
  if not ok then
    say('ERROR - %s', tostring(e))
    code = 2
  elseif failures > 0 or checks == 0 then
    code = 1
  end
  say('%s: %d checks, %d failed', CASE or '?', checks, failures)
  if client_id and not server_exit then
    vim.lsp.stop_client(client_id, true)
  end
  vim.cmd('cquit ' .. code)
end

vim.api.nvim_create_autocmd('VimEnter', {
  once = true,
  callback = function()
    vim.schedule(main)
  end,
})
