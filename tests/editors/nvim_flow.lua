-- Headless Neovim (0.7.2+) test of editors/nvim against the real hkls with the simulated GPU:
-- setup{} -> open a kernel -> :HyperKernelOptimize -> server-created progress with rising
-- percentages (echo area, statusline) -> Information diagnostic -> :HyperKernelApply ->
-- the buffer holds the new version -> :HyperKernelHistory -> a second episode cancelled with
-- :HyperKernelCancel. Run by nvim_run.sh; the exit code is the verdict (0 ok, 1 a check
-- failed, 2 could not run), through cquit.
local HKLS = os.getenv('HK_HKLS')
local WORK = os.getenv('HK_WORK')
local FILE = os.getenv('HK_FILE')
local PLUGIN = os.getenv('HK_PLUGIN')
local WAIT = tonumber(os.getenv('HK_EPISODE_WAIT_MS') or '') or 600000
local REAL_GPU = os.getenv('HK_EDITOR_REAL_GPU') == '1'

local failures, checks = 0, 0
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
local function wait(ms, what, cond)
  if not vim.wait(ms, cond, 20) then
    fatal('timed out after %d ms waiting for %s', ms, what)
  end
end

local function buf_text(b)
  return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, true), '\n')
end

local function cursor_on(needle)
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, true)
  for i, l in ipairs(lines) do
    local s = l:find(needle, 1, true)
    if s then
      vim.api.nvim_win_set_cursor(0, { i, s - 1 })
      return
    end
  end
  fatal('no %q in the buffer', needle)
end

-- Optimize on kernels with no spec (issue 14): saxpy's spec is inferred, saved and run, and
-- its hover says what was guessed; const_offsets's has doubts: refused, the draft opens, and
-- writing it runs Optimize again.
local function nospec(hk)
  local dir = os.getenv('HK_NOSPEC_DIR')
  local said = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = 'HyperKernelProgress',
    callback = function()
      for tok, p in pairs(hk.progress) do
        if p.message and p.message:find('spec inferred and saved', 1, true) then
          said[tok] = p.message
        end
      end
    end,
  })
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/saxpy.cu'))
  local buf = vim.api.nvim_get_current_buf()
  wait(20000, 'hkls on the no-spec buffer', function()
    return vim.lsp.buf_is_attached(buf, hk.client_id)
  end)
  cursor_on('blockIdx')
  hk.last = nil
  vim.cmd('HyperKernelOptimize')
  wait(120000, 'the optimize answer (no spec)', function()
    return hk.last ~= nil
  end)
  local ns = hk.last
  if not check(ns.ok and ns.episode, 'no spec: episode started: %s', vim.inspect(ns)) then
    return
  end
  wait(WAIT, 'the end of the episode on the inferred spec', function()
    return hk.progress[ns.token] and hk.progress[ns.token].done
  end)
  local spec = dir .. '/saxpy.saxpy.bench.json'
  check(vim.loop.fs_stat(spec) ~= nil, 'the inferred spec is saved next to the kernel')
  check(said[ns.token] and said[ns.token]:find(spec, 1, true), 'the progress said what was inferred: %s', tostring(said[ns.token]))
  cursor_on('saxpy(int')
  local hv = ''
  wait(30000, 'the hover to list the guesses', function()
    local r = vim.lsp.buf_request_sync(buf, 'textDocument/hover', vim.lsp.util.make_position_params(), 5000)
    for _, x in pairs(r or {}) do
      local c = x.result and x.result.contents
      hv = type(c) == 'table' and (c.value or '') or tostring(c or '')
    end
    return hv:find('Spec inferred', 1, true) ~= nil
  end)
  check(hv:find('grid from the launch site at saxpy.cu:', 1, true), 'the hover says where the grid came from')

  -- doubts: refused with the reasons, the draft opens, :write runs Optimize again
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/const_offsets.cu'))
  cursor_on('blockIdx')
  hk.last = nil
  vim.cmd('HyperKernelOptimize')
  wait(120000, 'the refusal', function()
    return hk.last ~= nil
  end)
  local draft = dir .. '/const_offsets.gather_taps.bench.json'
  check(hk.last.ok == false and tostring(hk.last.message):find('integer __constant__ taps', 1, true),
    'refused with the reasons: %s', tostring(hk.last.message))
  wait(10000, 'the draft to open', function()
    return vim.api.nvim_buf_get_name(0) == draft
  end)
  local db = vim.api.nvim_get_current_buf()
  wait(10000, 'hkls on the draft', function()
    return vim.lsp.buf_is_attached(db, hk.client_id)
  end)
  check(true, 'the draft spec opened and hkls follows it')
  local before = {}
  for tok in pairs(hk.progress) do
    before[tok] = true
  end
  vim.cmd('write')
  local again
  wait(120000, 'Optimize to run again', function()
    for tok, p in pairs(hk.progress) do
      if not before[tok] and p.title and p.title:match('^Optimize gather_taps') then
        again = tok
        return true
      end
    end
  end)
  wait(WAIT, 'the end of the optimization on the draft', function()
    return hk.progress[again].done
  end)
  check(true, 'writing the draft ran Optimize again: %s', tostring(hk.progress[again].message))
end

local function run()
  vim.opt.runtimepath:prepend(PLUGIN)
  vim.cmd('runtime plugin/hyperkernel.lua')
  local hk = require('hyperkernel')
  local episodes = { simulate = true }
  if REAL_GPU then
    episodes = nil
  end
  hk.setup({
    cmd = { HKLS, '--log', WORK .. '/hkls.log', '--log-level', 'debug' },
    target = 'nvidia',
    budget = 4,
    minutes = 3,
    db = WORK .. '/history.db',
    init_options = { episodes = episodes, compile = { enabled = false } },
  })
  check(vim.fn.exists(':HyperKernelOptimize') == 2 and vim.fn.exists(':HyperKernelApply') == 2
    and vim.fn.exists(':HyperKernelCancel') == 2 and vim.fn.exists(':HyperKernelHistory') == 2
    and vim.fn.exists(':HyperKernelReport') == 2, 'setup{} defines the commands')

  vim.cmd('edit ' .. vim.fn.fnameescape(FILE))
  local buf = vim.api.nvim_get_current_buf()
  check(vim.bo.filetype == 'cuda', 'filetype cuda (%s)', vim.bo.filetype)
  wait(20000, 'the client to initialize', function()
    local c = hk.client()
    return c and c.initialized and vim.lsp.buf_is_attached(buf, c.id)
  end)
  check(true, 'hkls attached to the buffer')
  local original = buf_text(buf)

  -- Record what the user sees while the episode runs.
  local pcts, statuslines = {}, {}
  local token
  vim.api.nvim_create_autocmd('User', {
    pattern = 'HyperKernelProgress',
    callback = function()
      local p = token and hk.progress[token]
      if p and type(p.percentage) == 'number' then
        table.insert(pcts, p.percentage)
      end
      local s = hk.statusline()
      if s ~= '' then
        statuslines[s] = true
      end
    end,
  })

  cursor_on('blockIdx')
  hk.last = nil
  vim.cmd('HyperKernelOptimize')
  wait(10000, 'the optimize answer', function()
    return hk.last ~= nil
  end)
  local started = hk.last
  if not check(started.ok and started.episode, 'episode started: %s', vim.inspect(started)) then
    return
  end
  token = started.token
  wait(WAIT, 'the end of the episode', function()
    return hk.progress[token] and hk.progress[token].done
  end)
  local p = hk.progress[token]
  check(p.title and p.title:match('^Optimize saxpy %(nvidia'), 'progress title %q', tostring(p.title))
  local rising = #pcts >= 2
  for i = 2, #pcts do
    rising = rising and pcts[i] >= pcts[i - 1]
  end
  check(rising and pcts[#pcts] > pcts[1], 'percentages rise: %s', table.concat(pcts, ' '))
  local any = next(statuslines)
  check(any and any:match('^HK saxpy: '), 'the statusline showed the episode (%s)', tostring(any))
  wait(10000, 'the statusline to clear', function()
    return hk.statusline() == ''
  end)
  check(vim.fn.execute('messages'):find('Optimize saxpy', 1, true) ~= nil, 'the echo area showed the progress')

  local info
  wait(30000, 'the Information diagnostic', function()
    for _, d in ipairs(vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.INFO })) do
      if d.message:find('faster version available', 1, true) then
        info = d
        return true
      end
    end
  end)
  local line = vim.api.nvim_buf_get_lines(buf, info.lnum, info.lnum + 1, true)[1]
  check(line:sub(info.col + 1, info.end_col) == 'saxpy', 'diagnostic on the kernel name: %q', info.message)
  check(REAL_GPU == (info.message:find('simulated', 1, true) == nil), 'the diagnostic says simulated on the simulated GPU only: %q', info.message)

  -- Apply the best version through the plugin (hyperkernel.applyVersion + its own check).
  cursor_on('blockIdx')
  hk.last = nil
  vim.cmd('HyperKernelApply')
  wait(30000, 'the apply answer', function()
    return hk.last ~= nil
  end)
  local ap = hk.last
  check(ap.ok, 'apply: %s', vim.inspect(ap))
  local now = buf_text(buf)
  check(now ~= original, 'the buffer holds a new version')
  check(now:find('__global__', 1, true) and now:find('saxpy', 1, true) and now:find('void launch_saxpy', 1, true),
    'still the saxpy kernel and its launcher')
  check(ap.server_ok == true, 'the server confirmed the text changed')

  -- Applying the same version again: the kernel text differs from the episode's start now.
  hk.last = nil
  cursor_on('__global__')
  vim.cmd('HyperKernelApply')
  wait(30000, 'the second apply answer', function()
    return hk.last ~= nil
  end)
  check(hk.last.ok == false and buf_text(buf) == now, 'a second apply is refused, buffer unchanged: %s', tostring(hk.last.message))

  -- History, in a scratch window.
  cursor_on('__global__')
  hk.last = nil
  vim.cmd('HyperKernelHistory')
  wait(10000, 'the history', function()
    return hk.last ~= nil
  end)
  check(hk.last.ok and #hk.last.versions >= 1, 'history has versions')
  local hb = hk.last.bufnr
  check(hb and buf_text(hb):find('| ' .. tostring(started.episode) .. ' | v', 1, true), 'history table lists episode %s', tostring(started.episode))
  check(REAL_GPU == (buf_text(hb):find('*simulated*', 1, true) == nil), 'the history marks simulated numbers (only those)')
  vim.cmd('close')

  -- Workspace trust: :HyperKernelTrust stores the root in the user's list, ! removes it.
  local list = os.getenv('XDG_CONFIG_HOME') .. '/hyperkernel/trusted.json'
  local root = vim.loop.fs_realpath(vim.fn.fnamemodify(FILE, ':p:h'))
  check(vim.fn.exists(':HyperKernelTrust') == 2, ':HyperKernelTrust is defined')
  hk.last = nil
  vim.cmd('HyperKernelTrust')
  wait(10000, 'the trust answer', function()
    return hk.last ~= nil
  end)
  check(hk.last.ok and hk.last.folder == root and hk.last.trusted == true, 'trusted %s: %s', root, vim.inspect(hk.last))
  local f = io.open(list, 'r')
  local text = f and f:read('*a') or ''
  if f then
    f:close()
  end
  check(text:find(root, 1, true) ~= nil, '%s lists the folder: %s', list, text)
  hk.last = nil
  vim.cmd('HyperKernelTrust!')
  wait(10000, 'the untrust answer', function()
    return hk.last ~= nil
  end)
  f = io.open(list, 'r')
  text = f and f:read('*a') or ''
  if f then
    f:close()
  end
  check(hk.last.ok and hk.last.trusted == false and text:find(root, 1, true) == nil, 'no longer trusted: %s', vim.inspect(hk.last))

  -- A second episode, cancelled by id.
  cursor_on('blockIdx')
  hk.last = nil
  vim.cmd('HyperKernelOptimize nvidia')
  wait(10000, 'the second optimize answer', function()
    return hk.last ~= nil
  end)
  local second = hk.last
  check(second.ok and second.episode ~= started.episode, 'second episode %s started', tostring(second.episode))
  wait(120000, 'progress of the second episode', function()
    return hk.progress[second.token] and hk.progress[second.token].percentage
  end)
  hk.last = nil
  vim.cmd('HyperKernelCancel ' .. tostring(second.episode))
  wait(10000, 'the cancel answer', function()
    return hk.last ~= nil
  end)
  check(hk.last.ok, 'cancel answered ok')
  wait(60000, 'the cancelled episode to end', function()
    return hk.progress[second.token].done and hk.running[second.episode] == nil
  end)
  hk.last = nil
  hk.episodes('stopped')
  wait(10000, 'the episode list', function()
    return hk.last ~= nil
  end)
  local stopped = false
  for _, e in ipairs(hk.last.episodes or {}) do
    stopped = stopped or e.id == second.episode
  end
  check(stopped, 'episode %s listed as stopped', tostring(second.episode))
  vim.cmd('close')
  nospec(hk)
end

local function main()
  local ok, err = pcall(run)
  if not ok then
    say('ERROR - %s', tostring(err))
  end
  local c = require('hyperkernel').client()
  if c then
    c.stop()
    vim.wait(3000, function()
      return c.is_stopped()
    end, 50)
  end
  say('%d checks, %d failed', checks, failures)
  if not ok then
    vim.cmd('cquit 2')
  elseif failures > 0 then
    vim.cmd('cquit 1')
  else
    vim.cmd('qall!')
  end
end

-- After startup, as a user's session would be: filetype detection is on by then.
vim.api.nvim_create_autocmd('VimEnter', { once = true, nested = true, callback = main })
