// Test client for hkls built on vscode-languageserver-protocol/node, the protocol stack VS
// Code's own client uses: it spawns the real server over stdio, answers the requests a
// client must answer (progress tokens, applyEdit, showDocument, codeLens refresh) and
// records every notification so the tests can wait for what a user would see.
'use strict';
const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} = require('vscode-languageserver-protocol/node');

const REPO = path.resolve(__dirname, '..', '..', '..');

function hklsPath() {
  const p = process.env.HKLS;
  if (!p) throw new Error('set HKLS to the built hkls binary (ctest does: tests/editors)');
  if (!fs.existsSync(p)) throw new Error(`HKLS=${p}: no such file`);
  return p;
}

// A throw-away workspace with copies of bench/kernels files. files: [{file: 'saxpy.cu',
// kernel: 'saxpy', spec: true}]. A spec is copied under the bench name <stem>.bench.json
// and under the name the server's createSpec uses, <stem>.<kernel>.bench.json.
function makeWorkspace(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hk-vscode-'));
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  const paths = {};
  for (const f of files) {
    const stem = f.file.replace(/\.[^.]+$/, '');
    const from = path.join(REPO, ...(f.from || 'bench/kernels').split('/'));
    fs.copyFileSync(path.join(from, f.file), path.join(ws, f.file));
    const spec = path.join(from, `${stem}.bench.json`);
    if (f.spec !== false && fs.existsSync(spec)) {
      fs.copyFileSync(spec, path.join(ws, `${stem}.bench.json`));
      fs.copyFileSync(spec, path.join(ws, `${stem}.${f.kernel}.bench.json`));
    }
    paths[f.file] = path.join(ws, f.file);
  }
  return {
    dir,
    ws,
    paths,
    db: path.join(dir, 'history.db'),
    cleanup() {
      if (!process.env.HK_KEEP_TMP) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

class Client {
  // opts: {initOptions, capabilities (override), rootDir, env, log}
  constructor(opts) {
    this.opts = opts;
    this.progress = new Map(); // token -> [{kind, title, message, percentage, cancellable, at}]
    this.created = []; // tokens from window/workDoneProgress/create, in order, with time
    this.diagnostics = new Map(); // uri -> [{version, diagnostics}]
    this.messages = []; // window/showMessage and window/logMessage
    this.episodes = []; // hyperkernel/episodeChanged params
    this.showDocuments = [];
    this.applyEdits = [];
    this.codeLensRefreshes = 0;
    this.order = []; // 'create:<token>' and 'progress:<token>:<kind>' in arrival order
    this.waiters = [];
    this.stderr = '';
    this.applyEditHandler = null; // (params) => ApplyWorkspaceEditResult
    this.exited = null;
  }

  async start() {
    const args = ['--log', path.join(this.opts.rootDir, 'hkls.log'), '--log-level', 'debug'];
    this.proc = cp.spawn(hklsPath(), args, {
      cwd: this.opts.rootDir,
      // Caches and data of the server stay in the test's folder, never the user's.
      env: { ...process.env, XDG_CACHE_HOME: path.join(this.opts.rootDir, 'cache'), XDG_DATA_HOME: path.join(this.opts.rootDir, 'data'), ...(this.opts.env || {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.proc.stderr.on('data', (d) => {
      this.stderr += d.toString();
      if (this.stderr.length > 200000) this.stderr = this.stderr.slice(-100000);
    });
    this.proc.on('exit', (code, sig) => {
      this.exited = { code, sig };
      this.poke();
    });
    const c = createProtocolConnection(
      new StreamMessageReader(this.proc.stdout),
      new StreamMessageWriter(this.proc.stdin));
    this.conn = c;
    c.onRequest('window/workDoneProgress/create', (p) => {
      this.created.push({ token: p.token, at: Date.now() });
      this.order.push(`create:${p.token}`);
      this.poke();
      return null;
    });
    c.onNotification('$/progress', (p) => {
      const list = this.progress.get(p.token) || [];
      list.push({ ...p.value, at: Date.now() });
      this.progress.set(p.token, list);
      this.order.push(`progress:${p.token}:${p.value && p.value.kind}`);
      this.poke();
    });
    c.onNotification('textDocument/publishDiagnostics', (p) => {
      const list = this.diagnostics.get(p.uri) || [];
      list.push({ version: p.version, diagnostics: p.diagnostics });
      this.diagnostics.set(p.uri, list);
      this.poke();
    });
    c.onNotification('window/showMessage', (p) => {
      this.messages.push({ kind: 'show', ...p });
      this.poke();
    });
    c.onNotification('window/logMessage', (p) => {
      this.messages.push({ kind: 'log', ...p });
      if (this.opts.log) process.stderr.write(`[hkls log ${p.type}] ${p.message}\n`);
      this.poke();
    });
    c.onNotification('hyperkernel/episodeChanged', (p) => {
      this.episodes.push({ ...p, at: Date.now() });
      this.poke();
    });
    c.onRequest('window/showDocument', (p) => {
      this.showDocuments.push(p);
      this.poke();
      return { success: true };
    });
    c.onRequest('workspace/applyEdit', (p) => {
      this.applyEdits.push(p);
      this.poke();
      return this.applyEditHandler ? this.applyEditHandler(p) : { applied: false, failureReason: 'test client: not expected' };
    });
    c.onRequest('workspace/codeLens/refresh', () => {
      this.codeLensRefreshes++;
      this.poke();
      return null;
    });
    c.onRequest('client/registerCapability', () => null);
    c.onRequest('workspace/configuration', (p) => (p.items || []).map(() => null));
    c.onNotification('$/logTrace', () => {});
    c.onNotification('telemetry/event', () => {});
    c.onClose(() => this.poke());
    c.onError(() => this.poke());
    c.listen();

    const root = this.opts.workspace;
    const caps = this.opts.capabilities || Client.vscodeCapabilities();
    this.init = await this.request('initialize', {
      processId: process.pid,
      clientInfo: { name: 'hk-vscode-flow-test', version: '1' },
      rootUri: root ? pathToUri(root) : null,
      workspaceFolders: root ? [{ uri: pathToUri(root), name: 'ws' }] : null,
      capabilities: caps,
      initializationOptions: this.opts.initOptions,
    });
    this.conn.sendNotification('initialized', {});
    return this.init;
  }

  // The capabilities VS Code 1.82 announces that matter to this server.
  static vscodeCapabilities() {
    return {
      general: { positionEncodings: ['utf-16'] },
      window: { workDoneProgress: true, showDocument: { support: true }, showMessage: {} },
      workspace: {
        applyEdit: true,
        workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] },
        didChangeConfiguration: { dynamicRegistration: true },
        executeCommand: { dynamicRegistration: true },
        codeLens: { refreshSupport: true },
        diagnostics: { refreshSupport: true },
        configuration: true,
        workspaceFolders: true,
      },
      textDocument: {
        synchronization: { dynamicRegistration: true, didSave: true },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        codeAction: {
          codeActionLiteralSupport: {
            codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'refactor.rewrite', 'source'] },
          },
          isPreferredSupport: true,
          disabledSupport: true,
          dataSupport: true,
          resolveSupport: { properties: ['edit'] },
        },
        codeLens: {},
        publishDiagnostics: {
          relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true,
          tagSupport: { valueSet: [1, 2] },
        },
      },
    };
  }

  poke() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  // Waits until pred() returns a truthy value (returned), or fails after ms with what.
  async waitFor(what, pred, ms) {
    const end = Date.now() + ms;
    for (;;) {
      const v = pred();
      if (v) return v;
      if (this.exited) throw new Error(`server exited (${JSON.stringify(this.exited)}) while waiting for ${what}\n${this.tail()}`);
      const left = end - Date.now();
      if (left <= 0) throw new Error(`timed out after ${ms} ms waiting for ${what}\n${this.tail()}`);
      await new Promise((res) => {
        const t = setTimeout(res, Math.min(left, 1000));
        this.waiters.push(() => { clearTimeout(t); res(); });
      });
    }
  }

  tail() {
    let s = '';
    const log = path.join(this.opts.rootDir, 'hkls.log');
    try {
      s += '---- hkls.log (tail)\n' + fs.readFileSync(log, 'utf8').split('\n').slice(-40).join('\n') + '\n';
    } catch (_) { /* no log */ }
    if (this.stderr) s += '---- stderr (tail)\n' + this.stderr.slice(-3000) + '\n';
    const shown = this.messages.filter((m) => m.kind === 'show').map((m) => `  showMessage ${m.type}: ${m.message}`);
    if (shown.length) s += '---- showMessage\n' + shown.join('\n') + '\n';
    return s;
  }

  request(method, params, ms = 30000) {
    let timer;
    const timeout = new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`${method}: no answer in ${ms} ms\n${this.tail()}`)), ms);
    });
    return Promise.race([this.conn.sendRequest(method, params), timeout]).finally(() => clearTimeout(timer));
  }

  notify(method, params) {
    this.conn.sendNotification(method, params);
  }

  // The latest diagnostics published for uri (an array, maybe empty).
  latestDiagnostics(uri) {
    const l = this.diagnostics.get(uri);
    return l && l.length ? l[l.length - 1].diagnostics : [];
  }

  async stop() {
    if (!this.proc || this.exited) return;
    try {
      await this.request('shutdown', null, 10000);
      this.notify('exit', null);
    } catch (_) { /* killed below */ }
    const end = Date.now() + 5000;
    while (!this.exited && Date.now() < end) await sleep(50);
    if (!this.exited) this.proc.kill('SIGKILL');
    try { this.conn.dispose(); } catch (_) { /* already closed */ }
  }
}

function pathToUri(p) {
  return 'file://' + path.resolve(p).split('/').map(encodeURIComponent).join('/');
}

function uriToPath(u) {
  if (!u.startsWith('file://')) throw new Error(`not a file URI: ${u}`);
  return decodeURIComponent(u.slice('file://'.length));
}

// ---- text helpers (utf-16 positions, as LSP and JavaScript strings both use) ----

function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\r' && text[i + 1] === '\n') { starts.push(i + 2); i++; } else if (text[i] === '\n' || text[i] === '\r') starts.push(i + 1);
  }
  return starts;
}

function offsetAt(text, pos) {
  const starts = lineStarts(text);
  if (pos.line === starts.length && pos.character === 0) return text.length;
  if (pos.line < 0 || pos.line >= starts.length) throw new Error(`line ${pos.line} outside the document`);
  const off = starts[pos.line] + pos.character;
  const lineEnd = pos.line + 1 < starts.length ? starts[pos.line + 1] : text.length;
  if (off > lineEnd) throw new Error(`character ${pos.character} past the end of line ${pos.line}`);
  return off;
}

function positionAt(text, offset) {
  const starts = lineStarts(text);
  let line = 0;
  while (line + 1 < starts.length && starts[line + 1] <= offset) line++;
  return { line, character: offset - starts[line] };
}

// Position of the first occurrence of needle (after `from`, a string that must come first).
function find(text, needle, from) {
  let base = 0;
  if (from) {
    base = text.indexOf(from);
    if (base < 0) throw new Error(`text has no ${JSON.stringify(from)}`);
  }
  const i = text.indexOf(needle, base);
  if (i < 0) throw new Error(`text has no ${JSON.stringify(needle)}`);
  return positionAt(text, i);
}

function rangeText(text, r) {
  return text.slice(offsetAt(text, r.start), offsetAt(text, r.end));
}

// Applies TextEdits (all against the same original text, LSP semantics) and returns the new text.
function applyTextEdits(text, edits) {
  const withOffsets = edits.map((e, i) => ({ s: offsetAt(text, e.range.start), e: offsetAt(text, e.range.end), t: e.newText, i }));
  withOffsets.sort((a, b) => a.s - b.s || a.i - b.i);
  for (let k = 1; k < withOffsets.length; k++)
    if (withOffsets[k].s < withOffsets[k - 1].e) throw new Error('overlapping edits');
  let out = '';
  let at = 0;
  for (const w of withOffsets) {
    out += text.slice(at, w.s) + w.t;
    at = w.e;
  }
  return out + text.slice(at);
}

// The TextEdits of a WorkspaceEdit for one uri, and the document version it names (or null).
function editsFor(wsEdit, uri) {
  const out = { edits: [], version: undefined, versioned: false };
  if (wsEdit.documentChanges) {
    for (const dc of wsEdit.documentChanges) {
      if (!dc.textDocument) throw new Error(`unexpected resource operation ${JSON.stringify(dc)}`);
      if (dc.textDocument.uri !== uri) continue;
      out.versioned = true;
      out.version = dc.textDocument.version;
      out.edits.push(...dc.edits);
    }
  } else if (wsEdit.changes && wsEdit.changes[uri]) {
    out.edits.push(...wsEdit.changes[uri]);
  }
  return out;
}

function hoverText(h) {
  if (!h || !h.contents) return '';
  const c = h.contents;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((x) => (typeof x === 'string' ? x : x.value)).join('\n');
  return c.value || '';
}

// Finds processes whose command line contains every needle (Linux /proc); [{pid, cmd}].
function processesWith(...needles) {
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let cmd;
    try {
      cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ');
    } catch (_) { continue; }
    if (needles.every((n) => cmd.includes(n))) out.push({ pid: Number(d), cmd });
  }
  return out;
}

function hasNvidiaGpu() {
  if (fs.existsSync('/dev/nvidia0')) return true;
  try {
    cp.execFileSync('nvidia-smi', ['-L'], { stdio: 'ignore', timeout: 10000 });
    return true;
  } catch (_) {
    return false;
  }
}

module.exports = {
  REPO, Client, makeWorkspace, pathToUri, uriToPath, sleep, find, offsetAt, positionAt,
  rangeText, applyTextEdits, editsFor, hoverText, processesWith, hasNvidiaGpu, hklsPath,
};
