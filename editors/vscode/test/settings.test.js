// The extension's pure parts (src/settings.ts): the mapping of hyperkernel.* settings onto
// the server's keys, the status bar text and the history table. Bundled on the fly with
// esbuild (a devDependency), the same way the extension itself is built.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const os = require('os');
const fs = require('fs');
const esbuild = require('esbuild');

const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hk-settings-')), 'settings.js');
esbuild.buildSync({ entryPoints: [path.join(__dirname, '..', 'src', 'settings.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'silent' });
const s = require(out);

test('settings map onto the server keys', () => {
  const { settings, problems } = s.toServerSettings({
    defaultTarget: 'nvidia:sm_90', budget: 8, minutes: 2.5, database: ' /tmp/x.db ',
    engines: [{ name: 'gpt', kind: 'openai', endpoint: 'https://e', model: 'm', extra: 1 }, { name: 'b', kind: 'builtin' }],
  });
  assert.deepEqual(settings, {
    target: 'nvidia:sm_90',
    engines: [{ name: 'gpt', kind: 'openai', endpoint: 'https://e', model: 'm' }, { name: 'b', kind: 'builtin' }],
    episodes: { budget: 8, minutes: 2.5, db: '/tmp/x.db' },
  });
  assert.deepEqual(problems, []);
});

test('a bare target family is not sent; bad values are reported, not sent', () => {
  assert.equal(s.toServerSettings({ defaultTarget: 'nvidia' }).settings.target, undefined);
  assert.equal(s.toServerSettings({ defaultTarget: 'dcu:gfx906' }).settings.target, 'dcu:gfx906');
  const r = s.toServerSettings({ defaultTarget: 'tpu', budget: 0, minutes: -1, engines: [{ name: 'x', kind: 'gemini' }, 7] });
  assert.deepEqual(r.settings, { engines: [] });
  assert.equal(r.problems.length, 5, r.problems.join('\n'));
  assert.match(r.problems.join('\n'), /defaultTarget "tpu"/);
  assert.deepEqual(s.toServerSettings({ engines: 'x' }).problems, ['hyperkernel.engines must be an array; ignored']);
});

test('target families', () => {
  assert.equal(s.targetFamily('nvidia:sm_80'), 'nvidia');
  assert.equal(s.targetFamily('sm_90'), 'nvidia');
  assert.equal(s.targetFamily('dcu'), 'dcu');
  assert.equal(s.targetFamily('gfx906'), 'dcu');
  assert.equal(s.targetFamily('tpu'), undefined);
  assert.equal(s.isPreciseTarget('nvidia:sm_90'), true);
  assert.equal(s.isPreciseTarget('nvidia:sm_90; rm -rf'), false);
});

test('the status bar follows hyperkernel/episodeChanged', () => {
  const r = new s.RunningEpisodes();
  assert.equal(r.render().text, '');
  r.update({ episode: 1, kernel: 'saxpy', status: 'running', stage: 'baseline', percent: 12.4 });
  assert.equal(r.render().text, '$(sync~spin) saxpy: baseline 12%');
  r.update({ episode: 2, kernel: 'rope', status: 'running', stage: 'init', percent: 0 });
  assert.equal(r.render().text, '$(sync~spin) 2 episodes');
  assert.match(r.render().tooltip, /#1 saxpy - baseline 12%\n#2 rope - init 0%/);
  r.update({ episode: 1, status: 'running', stage: 'verify', percent: 80 });
  assert.match(r.render().tooltip, /#1 saxpy - verify 80%/);
  r.update({ episode: 1, status: 'completed', percent: 100 });
  r.update({ episode: 2, status: 'stopped' });
  assert.equal(r.size, 0);
  assert.equal(r.render().text, '');
});

test('history renders as a Markdown table', () => {
  const md = s.historyMarkdown({ kernel: 'saxpy', versions: [{ episode: 3, version: 1, status: 'verified', ms: 1.8234, speedup: 2.414, bandwidthGBs: 3810.2, maxRelErr: 1.5e-7, engine: 'builtin', created: '2026-11-29' }] }, '/w/saxpy.cu');
  assert.match(md, /\| 3 \| v1 \| verified \| 1\.823 \| 2\.41x \| 3810 \| 1\.5e-7 \| builtin \| 2026-11-29 \|/);
  assert.match(s.historyMarkdown({ kernel: 'k', versions: [] }, 'f'), /No versions yet/);
});

test('workspace trust is passed on as isTrusted', () => {
  assert.deepEqual(s.toServerSettings({ isTrusted: true }).settings, { isTrusted: true });
  assert.deepEqual(s.toServerSettings({ isTrusted: false }).settings, { isTrusted: false });
  assert.equal('isTrusted' in s.toServerSettings({}).settings, false);
});

test('simulated numbers say so in the history table and only there', () => {
  const md = s.historyMarkdown({ kernel: 'saxpy', versions: [
    { episode: 3, version: 1, status: 'verified', ms: 1.6, speedup: 1.25, bandwidthGBs: 1000, engine: 'builtin', simulated: true },
    { episode: 4, version: 2, status: 'verified', ms: 1.5, speedup: 1.3, engine: 'builtin' },
  ] }, '/w/saxpy.cu');
  assert.match(md, /\*\*Simulated GPU\*\*/);
  assert.match(md, /\| 3 \| v1 \| verified \| 1\.600 \*simulated\* \| 1\.25x \*simulated\* \| 1000 \*simulated\* \|/);
  assert.match(md, /\| 4 \| v2 \| verified \| 1\.500 \| 1\.30x \| - \|/);
  assert.doesNotMatch(s.historyMarkdown({ kernel: 'k', versions: [{ version: 1, speedup: 2 }] }, 'f'), /imulated/);
});

test('the server is found: the setting, then PATH, then the checkout\'s build/hkls', () => {
  const ext = '/src/hk/editors/vscode';
  const on = (files) => (f) => files.includes(f);
  // a setting that names a binary is used as it is, whatever PATH holds
  assert.deepEqual(s.findServer({ configured: '/opt/hk/bin/hkls', pathEnv: '/usr/bin', extensionPath: ext, isExecutable: on(['/usr/bin/hkls']) }).command, '/opt/hk/bin/hkls');
  // the default ('' or 'hkls'): PATH first, in order
  for (const configured of ['', 'hkls', undefined]) {
    const r = s.findServer({ configured, pathEnv: '/a:/b:/c', extensionPath: ext, isExecutable: on(['/b/hkls', '/c/hkls', '/src/hk/build/hkls']) });
    assert.equal(r.command, '/b/hkls');
  }
  // not on PATH: the build of the checkout the extension is in
  const built = s.findServer({ configured: '', pathEnv: '/a::/b', extensionPath: ext, isExecutable: on(['/src/hk/build/hkls']) });
  assert.equal(built.command, '/src/hk/build/hkls');
  // none: no command, every place looked at, and a message naming the ways out
  const none = s.findServer({ configured: 'hkls', pathEnv: '/a:/b', extensionPath: ext, isExecutable: on([]) });
  assert.equal(none.command, undefined);
  assert.deepEqual(none.tried, ['/a/hkls', '/b/hkls', '/src/hk/build/hkls']);
  const msg = s.serverMissingMessage(none.tried);
  assert.match(msg, /hkls was not found \(looked at \/a\/hkls, \/b\/hkls, \/src\/hk\/build\/hkls\)/);
  assert.match(msg, /\.\/hk install/);
  assert.match(msg, /hyperkernel\.serverPath/);
});

test('the pure parts speak through the translator they are given (zh-cn bundle), English by default', () => {
  const bundle = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8'));
  const zh = { t: (m, ...a) => s.formatMessage(typeof bundle[m] === 'string' ? bundle[m] : m, a) };
  assert.deepEqual(s.toServerSettings({ budget: 0 }, zh).problems, ['hyperkernel.budget 必须是 >= 1 的整数；已忽略']);
  assert.deepEqual(s.toServerSettings({ budget: 0 }).problems, ['hyperkernel.budget must be an integer >= 1; ignored']);
  const r = new s.RunningEpisodes();
  r.update({ episode: 1 });
  r.update({ episode: 2, kernel: 'k' });
  assert.equal(r.render(zh).text, '$(sync~spin) 2 个优化任务');
  assert.equal(r.render().text, '$(sync~spin) 2 episodes');
  const md = s.historyMarkdown({ kernel: 'saxpy', versions: [{ episode: 3, version: 1, status: 'verified', ms: 1, simulated: true }] }, '/w/a.cu', zh);
  assert.match(md, /^# `saxpy` 的优化历史\n\n文件：\/w\/a\.cu\n/);
  assert.match(md, /\| 优化任务 \| 版本 \| 状态 \| 时间 \(ms\) \| 加速比 \|/);
  assert.match(md, /\| 1\.000 \*模拟\* \|/);
  assert.equal(s.serverMissingMessage(['/a/hkls'], zh),
    'Hyper Kernel：找不到 hkls（查找过 /a/hkls）。请在 Hyper Kernel 检出目录中用 `./hk build` 构建它，用 `./hk install` 把它放到 PATH 中，或把 hyperkernel.serverPath 设为 hkls 可执行文件。');
  assert.equal(s.serverMissingMessage(['/a/hkls']),
    'Hyper Kernel: hkls was not found (looked at /a/hkls). Build it with `./hk build` in the Hyper Kernel checkout, put it on PATH with `./hk install`, or set hyperkernel.serverPath to the hkls binary.');
});
