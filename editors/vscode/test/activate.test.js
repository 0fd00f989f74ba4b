// Runs the extension itself (src/extension.ts, bundled as for the .vsix) outside VS Code,
// which cannot run here: a small stand-in for the `vscode` module records what the
// extension does with the editor API, while vscode-languageclient starts the REAL hkls.
// Checks activation, the settings reaching the server (initializationOptions and
// didChangeConfiguration, read back from hkls's own log), command registration without
// id collisions, the UI commands' requests and the server's stop on deactivate.
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');
const esbuild = require('esbuild');
const h = require('./harness');

function makeVscode(state) {
  class EventEmitter {
    constructor() {
      this.listeners = [];
      this.event = (f) => {
        this.listeners.push(f);
        return { dispose: () => { this.listeners = this.listeners.filter((x) => x !== f); } };
      };
    }
    fire(e) { for (const f of this.listeners.slice()) f(e); }
    dispose() { this.listeners = []; }
  }
  class Disposable {
    constructor(f) { this.f = f; }
    dispose() { if (this.f) this.f(); this.f = null; }
    static from(...d) { return new Disposable(() => d.forEach((x) => x && x.dispose && x.dispose())); }
  }
  class Uri {
    constructor(scheme, p) { this.scheme = scheme; this.path = p; this.fsPath = p; this.authority = ''; this.query = ''; this.fragment = ''; }
    static file(p) { return new Uri('file', path.resolve(p)); }
    static parse(s) {
      const m = /^([a-z]+):\/\/([^/]*)(.*)$/.exec(s);
      return m ? new Uri(m[1], decodeURIComponent(m[3])) : new Uri('file', s);
    }
    with(c) { return Object.assign(new Uri(this.scheme, this.path), c); }
    toString() { return this.scheme === 'file' ? h.pathToUri(this.path) : `${this.scheme}://${this.path}`; }
    toJSON() { return this.toString(); }
  }
  class Position { constructor(l, c) { this.line = l; this.character = c; } }
  class Range {
    constructor(a, b, c, d) {
      if (typeof a === 'number') { this.start = new Position(a, b); this.end = new Position(c, d); } else { this.start = a; this.end = b; }
    }
  }
  class CodeActionKind {
    constructor(v) { this.value = v; }
    append(p) { return new CodeActionKind(this.value ? `${this.value}.${p}` : p); }
    contains(o) { return this.value === o.value || o.value.startsWith(this.value + '.'); }
    intersects(o) { return this.contains(o) || o.contains(this); }
  }
  CodeActionKind.Empty = new CodeActionKind('');
  for (const [k, v] of [['QuickFix', 'quickfix'], ['Refactor', 'refactor'], ['RefactorExtract', 'refactor.extract'], ['RefactorInline', 'refactor.inline'], ['RefactorRewrite', 'refactor.rewrite'], ['Source', 'source'], ['SourceOrganizeImports', 'source.organizeImports'], ['SourceFixAll', 'source.fixAll']])
    CodeActionKind[k] = new CodeActionKind(v);
  class CancellationTokenSource {
    constructor() { this.token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) }; }
    cancel() { this.token.isCancellationRequested = true; }
    dispose() {}
  }
  const ev = () => () => ({ dispose() {} });
  const configChanged = new EventEmitter();
  const trustGranted = new EventEmitter();
  state.grantTrust = () => { state.trusted = true; trustGranted.fire(); };
  state.fireConfigChange = (keys) => configChanged.fire({ affectsConfiguration: (s) => keys.some((k) => k === s || k.startsWith(s + '.')) });
  const generic = class { constructor(...a) { this.args = a; } };
  // vscode.l10n as VS Code gives it to an extension whose package.json has "l10n": its
  // t(sentence, ...args) looks the English sentence up in l10n/bundle.l10n.<language>.json
  // (the display language, here state.language) and fills in {0}, {1}...; English, or a
  // sentence the bundle lacks, comes back as written.
  const l10n = {
    t: (message, ...args) => {
      const lang = state.language || 'en';
      const file = path.join(__dirname, '..', 'l10n', `bundle.l10n.${lang}.json`);
      const bundle = lang !== 'en' && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
      const text = typeof bundle[message] === 'string' ? bundle[message] : message;
      return text.replace(/\{(\d+)\}/g, (m, i) => (Number(i) < args.length ? String(args[Number(i)]) : m));
    },
  };
  const base = {
    version: '1.82.0',
    EventEmitter, Disposable, Uri, Position, Range, CancellationTokenSource, CodeActionKind, l10n,
    CancellationError: class extends Error {},
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ViewColumn: { Active: -1, Beside: -2 },
    SymbolKind: { Function: 11, Event: 23 },
    window: {
      createOutputChannel: (name) => (state.output = { name, lines: [], append(s) { this.lines.push(s); }, appendLine(s) { this.lines.push(s); }, replace() {}, clear() {}, show() {}, hide() {}, dispose() {} }),
      createStatusBarItem: () => (state.status = { text: '', tooltip: '', visible: false, shown: [], show() { this.visible = true; this.shown.push(this.text); }, hide() { this.visible = false; }, dispose() {} }),
      showErrorMessage: async (m) => { state.errors.push(m); },
      showWarningMessage: async (m) => { state.warnings.push(m); },
      showInformationMessage: async (m) => { state.infos.push(m); },
      showQuickPick: async (items) => (state.pick ? state.pick(await items) : undefined),
      showTextDocument: async () => ({}),
      get activeTextEditor() { return state.editor; },
      onDidChangeActiveTextEditor: ev(),
      withProgress: async (_o, task) => task({ report() {} }, new CancellationTokenSource().token),
      tabGroups: { all: [], onDidChangeTabs: ev() },
    },
    workspace: {
      workspaceFolders: [{ uri: Uri.file(state.ws), name: 'ws', index: 0 }],
      textDocuments: state.documents,
      getConfiguration: () => ({ get: (k, d) => (k in state.config ? state.config[k] : d), has: (k) => k in state.config, inspect: () => undefined, update: async () => {} }),
      onDidChangeConfiguration: configChanged.event,
      get isTrusted() { return !!state.trusted; },
      onDidGrantWorkspaceTrust: trustGranted.event,
      onDidOpenTextDocument: ev(), onDidCloseTextDocument: ev(), onDidChangeTextDocument: ev(),
      onDidSaveTextDocument: ev(), onWillSaveTextDocument: ev(), onDidChangeWorkspaceFolders: ev(),
      createFileSystemWatcher: () => ({ onDidCreate: ev(), onDidChange: ev(), onDidDelete: ev(), dispose() {} }),
      applyEdit: async () => true,
      openTextDocument: async (o) => o,
    },
    languages: new Proxy({
      createDiagnosticCollection: () => ({ set() {}, delete() {}, clear() {}, dispose() {}, forEach() {}, get() { return []; }, has() { return false; } }),
      // Enough of document selectors for this extension's: files ending .cu/.cuh/.hip.
      match: (_sel, doc) => (/\.(cu|cuh|hip)$/.test(doc.fileName) ? 10 : 0),
    }, { get: (t, p) => (p in t ? t[p] : () => ({ dispose() {} })) }),
    commands: {
      registerCommand: (id, f) => {
        if (state.commands.has(id)) throw new Error(`command '${id}' already exists`);
        state.commands.set(id, f);
        return { dispose() { state.commands.delete(id); } };
      },
      executeCommand: async (id, ...a) => (state.commands.get(id) ? state.commands.get(id)(...a) : undefined),
    },
    env: { appName: 'Visual Studio Code (test stand-in)', get language() { return state.language || 'en'; }, machineId: 'test', sessionId: 'test', uiKind: 1, openExternal: async () => true },
    extensions: { getExtension: () => undefined, all: [] },
  };
  return new Proxy(base, { get: (t, p) => (p in t ? t[p] : generic) });
}

function logHas(file, re) {
  try { return re.test(fs.readFileSync(file, 'utf8')); } catch (_) { return false; }
}

async function until(what, pred, ms) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await h.sleep(50);
  }
}

describe('the extension, activated against the real hkls', () => {
  let tmp;
  let ext;
  let state;
  let log;
  const origLoad = Module._load;

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hk-vscode-ext-'));
    fs.mkdirSync(path.join(tmp, 'ws'));
    log = path.join(tmp, 'hkls.log');
    state = {
      ws: path.join(tmp, 'ws'), errors: [], warnings: [], infos: [], commands: new Map(), documents: [], editor: undefined,
      config: {
        serverPath: h.hklsPath(),
        serverArgs: ['--log', log, '--log-level', 'debug'],
        defaultTarget: 'nvidia:sm_90',
        budget: 3,
        minutes: 1.5,
        database: path.join(tmp, 'history.db'),
        engines: [{ name: 'local', kind: 'builtin' }],
      },
    };
    const vscode = makeVscode(state);
    Module._load = function (req, ...rest) {
      if (req === 'vscode') return vscode;
      return origLoad.call(this, req, ...rest);
    };
    const out = path.join(tmp, 'extension.js');
    esbuild.buildSync({ entryPoints: [path.join(__dirname, '..', 'src', 'extension.ts')], bundle: true, external: ['vscode'], platform: 'node', format: 'cjs', outfile: out, logLevel: 'silent' });
    ext = require(out);
  });

  after(async () => {
    Module._load = origLoad;
    if (!process.env.HK_KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('activates: output channel, status bar, commands, server started with the settings', async () => {
    const context = { subscriptions: [] };
    state.context = context;
    await ext.activate(context);
    assert.equal(state.output.name, 'Hyper Kernel');
    assert.deepEqual(state.errors, [], `no error shown; output channel:\n${state.output.lines.join('\n')}`);
    for (const c of ['hyperkernel.ui.optimize', 'hyperkernel.ui.cancel', 'hyperkernel.ui.history', 'hyperkernel.ui.report', 'hyperkernel.ui.episodes'])
      assert.ok(state.commands.has(c), `${c} registered`);
    // vscode-languageclient registers the server's own command ids next to ours.
    await until('the server commands to be registered', () => state.commands.has('hyperkernel.optimize'), 10000);
    await until('hkls to log its settings', () => logHas(log, /config: target nvidia:sm_90/), 10000);
    // Restricted Mode: isTrusted false reaches hkls, the folder is not trusted
    assert.ok(logHas(log, /config: target nvidia:sm_90.*folder not trusted/), 'hkls knows the workspace is not trusted:\n' + fs.readFileSync(log, 'utf8'));
    assert.ok(!logHas(log, /unknown setting/), 'every setting the extension sends is known to hkls:\n' + fs.readFileSync(log, 'utf8'));
    assert.equal(state.status.visible, false, 'no status bar item while nothing runs');
  });

  it('sends a settings change to the server', async () => {
    state.config.defaultTarget = 'nvidia:sm_80';
    state.fireConfigChange(['hyperkernel.defaultTarget']);
    await until('hkls to log the new target', () => logHas(log, /workspace\/didChangeConfiguration/) && logHas(log, /config: target nvidia:sm_80/), 10000);
    state.config.engines = [{ name: 'broken' }];
    state.fireConfigChange(['hyperkernel.engines']);
    await until('the output channel to name the bad engine', () => state.output.lines.some((l) => /engines\[0\] needs a name and a kind/.test(l)), 5000);
  });

  it('tells the server when the user trusts the workspace', async () => {
    state.grantTrust();
    await until('hkls to rebuild its settings as trusted', () => logHas(log, /config: target .*folder trusted/), 10000);
    assert.ok(state.output.lines.some((l) => /workspace trusted/.test(l)), 'the output channel says so');
  });

  it('runs the UI commands through the hyperkernel/ requests', async () => {
    await state.commands.get('hyperkernel.ui.episodes')();
    assert.ok(state.infos.some((m) => /no matching episodes/.test(m)), `episodes on an empty history: ${JSON.stringify({ infos: state.infos, errors: state.errors, output: state.output.lines })}`);
    const before = state.errors.length + state.warnings.length;
    await state.commands.get('hyperkernel.ui.cancel')(424242);
    assert.ok(state.errors.length + state.warnings.length > before, 'cancelling an unknown episode says so');
    await state.commands.get('hyperkernel.ui.optimize')();
    assert.ok(state.errors.some((m) => /open a CUDA or HIP file/.test(m)), 'optimize without an editor says what to do');
    // English as it always was, byte for byte
    assert.ok(state.infos.includes('Hyper Kernel: no matching episodes'), JSON.stringify(state.infos));
    assert.ok(state.errors.includes('Hyper Kernel: open a CUDA or HIP file and put the cursor in a kernel'), JSON.stringify(state.errors));
  });

  it('says its own words in the display language (zh-cn: l10n/bundle.l10n.zh-cn.json)', async () => {
    state.language = 'zh-cn';
    try {
      await state.commands.get('hyperkernel.ui.episodes')();
      assert.equal(state.infos[state.infos.length - 1], 'Hyper Kernel：没有匹配的优化任务');
      await state.commands.get('hyperkernel.ui.optimize')();
      assert.equal(state.errors[state.errors.length - 1], 'Hyper Kernel：请打开一个 CUDA 或 HIP 文件，并把光标放在核函数中');
      state.config.budget = 0;
      state.fireConfigChange(['hyperkernel.budget']);
      await until('the output channel to name the bad budget in Chinese',
        () => state.output.lines.includes('设置：hyperkernel.budget 必须是 >= 1 的整数；已忽略'), 5000);
    } finally {
      state.language = 'en';
      state.config.budget = 3;
    }
  });

  it('optimizes the kernel at the cursor: quick pick, status bar, the failure shown (no GPU here)',
    { skip: h.hasNvidiaGpu() ? 'a GPU is present: this case checks the no-GPU message' : false }, async () => {
      const file = path.join(state.ws, 'saxpy.cu');
      fs.copyFileSync(path.join(h.REPO, 'bench', 'kernels', 'saxpy.cu'), file);
      fs.copyFileSync(path.join(h.REPO, 'bench', 'kernels', 'saxpy.bench.json'), path.join(state.ws, 'saxpy.saxpy.bench.json'));
      const text = fs.readFileSync(file, 'utf8');
      const vscode = require('vscode');
      // A document opened before activation: the client sends it with didOpen at start.
      // (Activation already ran: restart the client so it picks the document up.)
      state.documents.push({
        uri: vscode.Uri.file(file), fileName: file, languageId: 'cuda-cpp', version: 1, isClosed: false,
        isUntitled: false, eol: 1, lineCount: text.split('\n').length, getText: () => text,
      });
      await state.commands.get('hyperkernel.ui.restart')();
      await until('the restarted client', () => state.commands.has('hyperkernel.optimize'), 10000);
      const p = h.find(text, 'blockIdx');
      const pos = new vscode.Position(p.line, p.character);
      state.editor = { document: state.documents[0], selection: { start: pos, end: pos, active: pos, anchor: pos } };
      let offered = null;
      state.pick = (items) => { offered = items.map((i) => i.label); return items[0]; };
      const errors = state.errors.length;
      await state.commands.get('hyperkernel.ui.optimize')();
      assert.ok(offered && offered[0] === 'Optimize for NVIDIA', `default target first in the quick pick: ${offered}`);
      assert.ok(offered.includes('Optimize for DCU'), `${offered}`);
      await until('the failure message', () => state.errors.slice(errors).some((m) => /no GPU/i.test(m)), 60000);
      assert.ok(state.status.shown.some((t) => /saxpy/.test(t)), `the status bar showed the episode: ${state.status.shown}`);
      await until('the status bar to clear', () => !state.status.visible, 10000);
      assert.ok(state.output.lines.some((l) => /episode \d+ saxpy failed/.test(l)), 'the output channel has the episode\'s end');
    });

  it('stops the server on deactivate', async () => {
    const procs = () => h.processesWith(h.hklsPath(), log);
    assert.ok(procs().length >= 1, 'hkls runs');
    await ext.deactivate();
    await until('hkls to exit', () => procs().length === 0, 10000);
    assert.ok(logHas(log, /exiting with code 0/), 'hkls exited cleanly (shutdown, exit)');
    for (const d of state.context.subscriptions) if (d && d.dispose) d.dispose();
  });
});
