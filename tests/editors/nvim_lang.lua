-- Headless Neovim (0.7.2+): the plugin's own words in the language it chooses (issue 14,
-- docs/i18n.md), run by nvim_run.sh after the flow, three times:
--   HK_EXPECT=en     LANG=C                       English, byte for byte as before;
--   HK_EXPECT=zh-CN  LANG=zh_CN.UTF-8             Chinese from the environment;
--   HK_EXPECT=zh-CN  LANG=C, HK_LANG_OPTION=zh-CN Chinese from setup{language=}, and the
--                    server, whose environment says English, answers in Chinese too: the
--                    plugin sent the choice as initialize's locale.
-- Exit code: 0 ok, 1 a check failed, 2 could not run (cquit).
local HKLS = os.getenv('HK_HKLS')
local WORK = os.getenv('HK_WORK')
local FILE = os.getenv('HK_FILE')
local PLUGIN = os.getenv('HK_PLUGIN')
local EXPECT = os.getenv('HK_EXPECT')
local OPTION = os.getenv('HK_LANG_OPTION')
local ZH = EXPECT == 'zh-CN'

local failures = 0
local function say(fmt, ...)
  io.stderr:write(string.format(fmt, ...) .. '\n')
end
local function check(cond, fmt, ...)
  say((cond and 'ok   - ' or 'FAIL - ') .. fmt, ...)
  if not cond then
    failures = failures + 1
  end
  return cond
end

local function run()
  vim.opt.runtimepath:prepend(PLUGIN)
  vim.cmd('runtime plugin/hyperkernel.lua')
  local hk = require('hyperkernel')
  local said = {}
  vim.notify = function(msg)
    table.insert(said, msg)
  end
  hk.setup({
    cmd = { HKLS, '--log', WORK .. '/hkls-' .. EXPECT .. '.log' },
    language = OPTION,
    db = WORK .. '/history-lang.db',
    init_options = { compile = { enabled = false } },
  })
  say('LANG=%s LC_ALL=%s v:lang=%s setup{language=%s}', tostring(os.getenv('LANG')), tostring(os.getenv('LC_ALL')),
    vim.v.lang, tostring(OPTION))
  -- the table: both languages of each message, the same string.format conversions in order
  local ok_i18n, i18n = pcall(require, 'hyperkernel.i18n')
  local n, bad = 0, {}
  for key, m in pairs(ok_i18n and i18n.messages or {}) do
    n = n + 1
    local function convs(s)
      local out = {}
      for c in s:gmatch('%%[-+ #0]*[%d.]*[%a%%]') do
        table.insert(out, c)
      end
      return table.concat(out, ' ')
    end
    if type(m[1]) ~= 'string' or type(m[2]) ~= 'string' or convs(m[1]) ~= convs(m[2])
        or not m[2]:find('[\128-\255]') then
      table.insert(bad, key)
    end
  end
  check(n >= 40 and #bad == 0, 'hyperkernel.i18n: %d messages, each with a zh-CN text (not ASCII) and the same conversions (%s)', n,
    table.concat(bad, ', '))
  local lang = hk.language and hk.language() or '(no hk.language)'
  check(lang == EXPECT, 'the plugin speaks %s (%s)', EXPECT, lang)

  -- a message of the plugin's own, no server involved
  vim.cmd('HyperKernelOptimize bogus')
  local want = ZH and '[hyperkernel] 目标必须是 nvidia、dcu、nvidia:sm_XX 或 dcu:gfxNNN，而不是 bogus'
    or '[hyperkernel] target must be nvidia, dcu, nvidia:sm_XX or dcu:gfxNNN, not bogus'
  check(said[#said] == want, 'the bad target is said as %q (%q)', want, tostring(said[#said]))
  local desc = vim.api.nvim_get_commands({}).HyperKernelOptimize.definition
  local want_desc = ZH and '优化光标处的核函数 [目标]' or 'Optimize the kernel at the cursor [target]'
  check(desc == want_desc, ':HyperKernelOptimize is described as %q (%q)', want_desc, tostring(desc))
  local lines = hk.history_lines({ kernel = 'saxpy', versions = {} }, 'saxpy.cu')
  local want_title = ZH and '# `saxpy` 的优化历史' or '# History of `saxpy`'
  check(lines[1] == want_title and #lines == 5, 'the history window starts %q (%q)', want_title, tostring(lines[1]))

  -- the server hears the same language: its code action titles
  vim.cmd('edit ' .. vim.fn.fnameescape(FILE))
  local buf = vim.api.nvim_get_current_buf()
  if not vim.wait(20000, function()
    local c = hk.client()
    return c and c.initialized and vim.lsp.buf_is_attached(buf, c.id)
  end, 20) then
    error('timed out waiting for the client to initialize', 0)
  end
  check(hk.locale_sent == EXPECT, 'initialize said locale %s (%s)', EXPECT, tostring(hk.locale_sent))
  local c = hk.client()
  local row = vim.fn.search('blockIdx')
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  local params = vim.lsp.util.make_range_params(0, c.offset_encoding)
  params.context = { diagnostics = {} }
  local r = c.request_sync('textDocument/codeAction', params, 10000, buf)
  local titles = {}
  for _, a in ipairs((r and r.result) or {}) do
    table.insert(titles, a.title)
  end
  local want_action = ZH and '针对 NVIDIA 优化' or 'Optimize for NVIDIA'
  check(vim.tbl_contains(titles, want_action), 'the server offers %q (%s)', want_action, table.concat(titles, ' | '))

  -- a message of the plugin's own with a server answer in it
  said = {}
  vim.cmd('HyperKernelCancel 424242')
  vim.wait(10000, function()
    return #said > 0
  end, 20)
  local prefix = ZH and '[hyperkernel] 优化任务 424242：' or '[hyperkernel] episode 424242: '
  check(said[1] and said[1]:sub(1, #prefix) == prefix, 'cancelling an unknown episode starts %q (%q)', prefix,
    tostring(said[1]))
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
  if not ok then
    vim.cmd('cquit 2')
  elseif failures > 0 then
    vim.cmd('cquit 1')
  else
    vim.cmd('qall!')
  end
end

vim.api.nvim_create_autocmd('VimEnter', { once = true, nested = true, callback = main })
