-- The plugin's own words (notify messages, command descriptions, prompts, the statusline
-- and the scratch windows' text) in English and Simplified Chinese (issue 14). The server
-- says its own (diagnostics, hovers, code action titles, progress, reports) in the language
-- it is given: the plugin chooses one language as the server would (docs/i18n.md) and sends
-- it as initialize's locale, so both speak the same one.
local M = {}

-- key -> { en, zh-CN }, string.format patterns with the same %s/%d in the same order.
-- Terms as in the server's table (server/core/i18n.c): episode 优化任务, kernel 核函数,
-- version 版本, speedup 加速比, bench spec, NVIDIA and DCU as they are.
local T = {
  open_external = { 'Open %s', '打开 %s' },
  opened = { 'opened %s', '已打开 %s' },
  on_path = { 'hkls on PATH', 'PATH 中的 hkls' },
  not_found = {
    'hkls was not found (looked at %s): build it with ./hk build in the Hyper Kernel checkout, put it on PATH '
      .. 'with ./hk install, or pass setup{cmd={"/path/to/hkls"}}',
    '找不到 hkls（查找过 %s）：请在 Hyper Kernel 检出目录中用 ./hk build 构建它，用 ./hk install 把它放到 PATH 中，'
      .. '或传入 setup{cmd={"/path/to/hkls"}}',
  },
  exited = { 'hkls exited (code %s, signal %s)', 'hkls 已退出（退出码 %s，信号 %s）' },
  could_not_start = { 'could not start %s (setup{cmd=...} names another)', '无法启动 %s（可用 setup{cmd=...} 指定其他程序）' },
  not_running = {
    'hkls is not running for this buffer (open a .cu/.cuh/.hip file, or check setup{cmd=...})',
    'hkls 没有为此缓冲区运行（请打开 .cu/.cuh/.hip 文件，或检查 setup{cmd=...}）',
  },
  bad_target = {
    'target must be nvidia, dcu, nvidia:sm_XX or dcu:gfxNNN, not %s',
    '目标必须是 nvidia、dcu、nvidia:sm_XX 或 dcu:gfxNNN，而不是 %s',
  },
  no_kernel_for = {
    'no kernel at the cursor to optimize for %s (put the cursor in a __global__ function or on its launch)',
    '光标处没有可针对 %s 优化的核函数（请把光标放在 __global__ 函数内或其启动处）',
  },
  started = { 'episode %s started: %s', '优化任务 %s 已开始：%s' },
  no_episodes = { 'no %s episodes', '没有 %s 状态的优化任务' },
  cancel_which = { 'Cancel which episode?', '取消哪个优化任务？' },
  cancelled = { 'episode %s cancelled', '优化任务 %s 已取消' },
  episode_said = { 'episode %s: %s', '优化任务 %s：%s' },
  episode_number = { 'episode must be a number: %s', '优化任务编号必须是数字：%s' },
  history_title = { '# History of `%s`', '# `%s` 的优化历史' },
  file = { 'File: %s', '文件：%s' },
  no_versions = { 'No versions yet: :HyperKernelOptimize', '还没有版本：:HyperKernelOptimize' },
  simulated_note = {
    '**Simulated GPU**: the rows marked *simulated* ran on the test double, not on hardware; their numbers are not measurements.',
    '**模拟 GPU**：标为 *模拟* 的行运行在测试替身上，而不是硬件上；其中的数字不是实测值。',
  },
  history_header = {
    '| episode | version | status | time (ms) | speedup | bandwidth (GB/s) | max rel err | engine | created |',
    '| 优化任务 | 版本 | 状态 | 时间 (ms) | 加速比 | 带宽 (GB/s) | 最大相对误差 | 引擎 | 创建时间 |',
  },
  simulated_mark = { '%s *simulated*', '%s *模拟*' },
  episodes_header = {
    '| id | kernel | status | stage | target | engine | speedup | started | file |',
    '| 编号 | 核函数 | 状态 | 阶段 | 目标 | 引擎 | 加速比 | 开始时间 | 文件 |',
  },
  speedup_simulated = { '%.2fx simulated', '%.2fx 模拟' },
  no_episodes_list = { 'No episodes.', '没有优化任务。' },
  report_of = { 'report of episode %s: %s', '优化任务 %s 的报告：%s' },
  no_finished = { 'no finished episode for %s', '%s 没有已结束的优化任务' },
  no_kernel = { 'no kernel at the cursor', '光标处没有核函数' },
  version_number = { 'version must be a number (or vN): %s', '版本必须是数字（或 vN）：%s' },
  no_offer = {
    'the server offers no version to apply here (none verified yet, or the kernel already holds one)',
    '服务器在此处没有可应用的版本（还没有通过验证的版本，或核函数已是其中一个版本）',
  },
  no_such_version = { 'no v%d here; the server offers %s', '此处没有 v%d；服务器提供的是 %s' },
  unchanged = { 'the buffer did not change', '缓冲区没有改变' },
  not_that_version = {
    'the buffer changed, but not into version v%s (check it, or :undo)',
    '缓冲区已改变，但不是版本 v%s（请检查，或 :undo）',
  },
  refused = { 'the server refused', '服务器拒绝了' },
  applied = { 'applied v%s of %s (episode %s)', '已应用 v%s（%s，优化任务 %s）' },
  trusted = { 'trusted: %s (in %s)', '已信任：%s（记录在 %s）' },
  untrusted = { 'no longer trusted: %s (in %s)', '不再信任：%s（记录在 %s）' },
  statusline_one = { 'HK %s: %s%s', 'HK %s：%s%s' },
  statusline_many = { 'HK %d episodes', 'HK %d 个优化任务' },
  running = { 'running', '运行中' },
  done = { ' (done)', '（完成）' },
  desc_optimize = { 'Optimize the kernel at the cursor [target]', '优化光标处的核函数 [目标]' },
  desc_cancel = { 'Cancel an episode [id]', '取消一个优化任务 [编号]' },
  desc_history = { 'Versions of the kernel at the cursor', '光标处核函数的各个版本' },
  desc_apply = { 'Apply a version of the kernel at the cursor [vN]', '应用光标处核函数的一个版本 [vN]' },
  desc_report = { 'Open the report of an episode [id]', '打开一个优化任务的报告 [编号]' },
  desc_episodes = { 'List episodes [status,status]', '列出优化任务 [状态,状态]' },
  desc_trust = { "Trust a folder's .hyperkernel.json [folder] (! to stop)", '信任一个文件夹的 .hyperkernel.json [文件夹]（加 ! 取消信任）' },
}
M.messages = T

-- 'zh-CN' when a locale names Simplified Chinese, else 'en': language subtag zh, and no
-- Traditional subtag (Hant, TW, HK, MO) before the codeset or modifier (hk_i18n_parse).
function M.parse(locale)
  if type(locale) ~= 'string' then
    return 'en'
  end
  local head = locale:match('^[^.@]*')
  local parts = vim.split(head, '[-_]')
  if #parts == 0 or parts[1]:lower() ~= 'zh' then
    return 'en'
  end
  for i = 2, #parts do
    local p = parts[i]:lower()
    if p == 'hant' or p == 'tw' or p == 'hk' or p == 'mo' then
      return 'en'
    end
  end
  return 'zh-CN'
end

-- The language of a setting: 'en', 'zh-CN', or nil for auto / unset / anything else.
local function setting(v)
  if type(v) ~= 'string' then
    return nil
  end
  if v:lower() == 'en' then
    return 'en'
  end
  if v:lower() == 'zh-cn' then
    return 'zh-CN'
  end
  return nil
end

--- The language, first match wins: setup{language=} ('en' or 'zh-CN'; 'auto' goes on),
--- setup{init_options={language=}} (the server's own setting), then the environment in
--- POSIX order (LC_ALL, LC_MESSAGES, LANG), then v:lang (:language messages), else 'en'.
function M.choose(config)
  config = config or {}
  local picked = setting(config.language) or setting(type(config.init_options) == 'table' and config.init_options.language)
  if picked then
    return picked
  end
  for _, var in ipairs({ 'LC_ALL', 'LC_MESSAGES', 'LANG' }) do
    local v = os.getenv(var)
    if v and v ~= '' then
      return M.parse(v)
    end
  end
  return M.parse(vim.v.lang)
end

M.lang = 'en'

--- Sets the language of the plugin's messages ('en' or 'zh-CN').
function M.set(lang)
  M.lang = lang == 'zh-CN' and 'zh-CN' or 'en'
end

--- The message key in the current language, formatted with the arguments.
function M.t(key, ...)
  local m = T[key]
  if not m then
    error('hyperkernel.i18n: no message ' .. tostring(key))
  end
  local pat = (M.lang == 'zh-CN' and m[2]) or m[1]
  if select('#', ...) == 0 then
    return pat
  end
  return string.format(pat, ...)
end

return M
