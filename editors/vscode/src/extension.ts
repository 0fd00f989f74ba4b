// VS Code client of hkls: starts the server over stdio with vscode-languageclient, passes the
// hyperkernel.* settings, and adds the UI around optimization episodes (commands, status bar,
// output channel). Code actions, code lenses, progress, diagnostics and applying versions are
// plain LSP handled by vscode-languageclient; the server's command ids (hyperkernel.optimize,
// ...) are registered by the client itself, so the UI commands here use hyperkernel.ui.*.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CodeActionRequest,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import {
  EpisodeInfo,
  ExtensionSettings,
  RunningEpisodes,
  historyMarkdown,
  isFinalStatus,
  targetFamily,
  toServerSettings,
  findServer,
  serverMissingMessage,
} from './settings';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
const running = new RunningEpisodes();

const SELECTOR = [
  { scheme: 'file', language: 'cuda-cpp' },
  { scheme: 'file', language: 'cuda' },
  { scheme: 'file', language: 'hip' },
  { scheme: 'file', pattern: '**/*.{cu,cuh,hip}' },
];

function readSettings(): ExtensionSettings {
  const c = vscode.workspace.getConfiguration('hyperkernel');
  return {
    defaultTarget: c.get<string>('defaultTarget'),
    engines: c.get<unknown>('engines'),
    budget: c.get<number>('budget'),
    minutes: c.get<number>('minutes'),
    database: c.get<string>('database'),
    isTrusted: vscode.workspace.isTrusted,
  };
}

function serverSettings(): object {
  const { settings, problems } = toServerSettings(readSettings(), vscode.l10n);
  for (const p of problems) output.appendLine(vscode.l10n.t('settings: {0}', p));
  return settings;
}

function log(msg: string): void {
  output.appendLine(`[${new Date().toISOString()}] ${msg}`);
}

function errorText(e: unknown): string {
  if (e && typeof e === 'object' && 'message' in e) return String((e as { message: unknown }).message);
  return String(e);
}

function updateStatus(): void {
  const { text, tooltip } = running.render(vscode.l10n);
  if (!text) {
    statusItem.hide();
    return;
  }
  statusItem.text = text;
  statusItem.tooltip = tooltip + '\n' + vscode.l10n.t('(click: list episodes)');
  statusItem.show();
}

function onEpisodeChanged(e: EpisodeInfo): void {
  running.update(e);
  updateStatus();
  const pct = typeof e.percent === 'number' ? ` ${Math.round(e.percent)}%` : '';
  log(vscode.l10n.t('episode {0} {1} {2} {3}{4}{5}', String(e.episode), e.kernel ?? '', e.status ?? '', e.stage ?? '', pct,
    e.message ? ': ' + e.message : ''));
  if (isFinalStatus(e.status) && e.status === 'failed')
    void vscode.window.showErrorMessage(vscode.l10n.t('Hyper Kernel: optimizing {0} failed: {1}',
      e.kernel ?? vscode.l10n.t('the kernel'), e.message ?? vscode.l10n.t('see the output channel')));
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('hyperkernel');
  const found = findServer({
    configured: cfg.get<string>('serverPath'),
    pathEnv: process.env.PATH,
    extensionPath: context.extensionPath,
    isExecutable: (file) => {
      try {
        fs.accessSync(file, fs.constants.X_OK);
        return fs.statSync(file).isFile();
      } catch {
        return false;
      }
    },
  });
  if (!found.command) {
    log(serverMissingMessage(found.tried, vscode.l10n));
    void vscode.window.showErrorMessage(serverMissingMessage(found.tried, vscode.l10n));
    return;
  }
  const command = found.command;
  const args = cfg.get<string[]>('serverArgs') ?? [];
  const serverOptions: ServerOptions = { run: { command, args }, debug: { command, args } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: SELECTOR,
    outputChannel: output,
    initializationOptions: serverSettings(),
    middleware: {
      // The server answers hyperkernel.applied / applyVersion with {ok, message}: it
      // checked the document text itself, so a refusal is shown rather than lost.
      executeCommand: async (cmd, cmdArgs, next) => {
        const result = await next(cmd, cmdArgs);
        if (cmd === 'hyperkernel.applied' || cmd === 'hyperkernel.applyVersion') {
          const r = result as { ok?: boolean; message?: string } | null;
          if (r && r.ok === false)
            void vscode.window.showWarningMessage(vscode.l10n.t('Hyper Kernel: {0}', r.message ?? vscode.l10n.t('the version was not applied')));
          else if (r && r.message) log(r.message);
        } else if (cmd === 'hyperkernel.optimize') {
          const r = result as { episode?: number; token?: string } | null;
          if (r && r.episode !== undefined) log(vscode.l10n.t('started episode {0}', r.episode));
        }
        return result;
      },
    },
  };
  client = new LanguageClient('hyperkernel', 'Hyper Kernel', serverOptions, clientOptions);
  context.subscriptions.push(
    client.onNotification('hyperkernel/episodeChanged', (e: EpisodeInfo) => onEpisodeChanged(e)),
    client.onDidChangeState((ev) => {
      if (ev.newState === State.Stopped) {
        running.clear();
        updateStatus();
      }
    }),
  );
  try {
    await client.start();
    log(vscode.l10n.t('started {0} {1}', command, args.join(' ')));
  } catch (e) {
    const hint = command.includes('/') ? '' : vscode.l10n.t(' (is it on PATH? set hyperkernel.serverPath)');
    void vscode.window.showErrorMessage(vscode.l10n.t('Hyper Kernel: could not start {0}{1}: {2}', command, hint, errorText(e)));
  }
}

function needClient(): LanguageClient {
  if (!client || client.state !== State.Running)
    throw new Error(vscode.l10n.t('the hkls server is not running (see the "Hyper Kernel" output channel)'));
  return client;
}

// ---- kernel at the cursor, asked of the server ----

interface ServerCommand { title: string; command: string; arguments?: unknown[] }
interface ServerAction { title: string; command?: ServerCommand | string; arguments?: unknown[]; disabled?: { reason: string } }

// The optimize commands the server offers at the cursor (it knows the kernel around
// the cursor or at a launch site), as {title, command, arguments}.
async function optimizeActionsAtCursor(c: LanguageClient, editor: vscode.TextEditor): Promise<ServerCommand[]> {
  const sel = editor.selection;
  const actions = (await c.sendRequest(CodeActionRequest.type, {
    textDocument: { uri: c.code2ProtocolConverter.asUri(editor.document.uri) },
    range: c.code2ProtocolConverter.asRange(new vscode.Range(sel.start, sel.end)),
    context: { diagnostics: [] },
  })) as ServerAction[] | null;
  const out: ServerCommand[] = [];
  for (const a of actions ?? []) {
    if (a.disabled) continue;
    // A Command has a string `command`; a CodeAction nests it.
    const cmd: ServerCommand | undefined = typeof a.command === 'string'
      ? { title: a.title, command: a.command, arguments: a.arguments }
      : a.command ? { ...a.command, title: a.title } : undefined;
    if (cmd && cmd.command === 'hyperkernel.optimize') out.push(cmd);
  }
  return out;
}

// The kernel under the cursor by the server's document symbols: a __global__ function
// containing the cursor, or the kernel of a launch site (`k<<<...>>>`, `hipLaunchKernelGGL(k, ...)`).
async function kernelAtCursor(editor: vscode.TextEditor): Promise<string | undefined> {
  const syms = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>(
    'vscode.executeDocumentSymbolProvider', editor.document.uri);
  const pos = editor.selection.active;
  let found: string | undefined;
  const walk = (list: vscode.DocumentSymbol[] | undefined) => {
    for (const s of list ?? []) {
      if (!s.range || !s.range.contains(pos)) continue;
      if (s.detail && s.detail.startsWith('__global__')) found = s.name;
      else if (s.kind === vscode.SymbolKind.Event) {
        const m = /^(?:hipLaunchKernelGGL\(|cudaLaunchKernel\()?\s*([A-Za-z_][A-Za-z0-9_:]*)/.exec(s.name);
        if (m) found = m[1];
      }
      walk(s.children);
    }
  };
  walk(syms);
  return found;
}

// ---- UI commands ----

async function uiOptimize(target?: string): Promise<void> {
  const c = needClient();
  const editor = vscode.window.activeTextEditor;
  if (!editor) throw new Error(vscode.l10n.t('open a CUDA or HIP file and put the cursor in a kernel'));
  let cmds = await optimizeActionsAtCursor(c, editor);
  if (!cmds.length) throw new Error(vscode.l10n.t('no kernel at the cursor (put it inside a __global__ function or on its launch)'));
  const argOf = (x: ServerCommand) => (x.arguments?.[0] ?? {}) as { target?: string; engine?: string };
  if (target) {
    const fam = targetFamily(target);
    const exact = cmds.filter((x) => argOf(x).target === target);
    cmds = exact.length ? exact : cmds.filter((x) => targetFamily(argOf(x).target) === fam);
    if (!cmds.length) throw new Error(vscode.l10n.t('the server offers no optimization for target {0} here', target));
  }
  let chosen: ServerCommand | undefined = cmds[0];
  if (cmds.length > 1) {
    const fam = targetFamily(vscode.workspace.getConfiguration('hyperkernel').get<string>('defaultTarget'));
    // Default target first, then the rest in the server's order.
    const ordered = [...cmds].sort((a, b) =>
      Number(targetFamily(argOf(b).target) === fam && !argOf(b).engine) -
      Number(targetFamily(argOf(a).target) === fam && !argOf(a).engine));
    const pick = await vscode.window.showQuickPick(
      ordered.map((x) => ({ label: x.title, cmd: x })), { placeHolder: vscode.l10n.t('Optimize with which target and engine?') });
    chosen = pick?.cmd;
  }
  if (!chosen) return;
  if (target && argOf(chosen).target !== target && target.includes(':'))
    chosen = { ...chosen, arguments: [{ ...(chosen.arguments?.[0] as object), target }] };
  const r = (await c.sendRequest(ExecuteCommandRequest.type, {
    command: chosen.command, arguments: chosen.arguments as never[],
  })) as { episode?: number; token?: string } | null;
  log(vscode.l10n.t('{0}: episode {1}', chosen.title, r?.episode ?? '?'));
}

interface EpisodeRow extends EpisodeInfo { name?: string }

async function listEpisodes(c: LanguageClient, params: object): Promise<EpisodeRow[]> {
  const r = await c.sendRequest<EpisodeRow[] | null>('hyperkernel/episodes', params);
  return Array.isArray(r) ? r : [];
}

function episodeLabel(e: EpisodeRow): vscode.QuickPickItem & { row: EpisodeRow } {
  const sp = typeof e.speedup === 'number' ? ` ${e.speedup.toFixed(2)}x${e.simulated ? ' ' + vscode.l10n.t('simulated') : ''}` : '';
  const file = e.uri ? path.basename(vscode.Uri.parse(e.uri).fsPath) : '';
  return {
    label: `#${e.id ?? e.episode} ${e.kernel ?? '?'}`,
    description: `${e.status ?? ''}${e.stage && !isFinalStatus(e.status) ? ' (' + e.stage + ')' : ''}${sp}`,
    detail: [file, e.target, e.engine, e.started].filter(Boolean).join(' - '),
    row: e,
  };
}

async function pickEpisode(c: LanguageClient, params: object, placeHolder: string): Promise<EpisodeRow | undefined> {
  const rows = await listEpisodes(c, params);
  if (!rows.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Hyper Kernel: no matching episodes'));
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(rows.map(episodeLabel), { placeHolder, matchOnDetail: true });
  return pick?.row;
}

function episodeId(arg: unknown): number | undefined {
  if (typeof arg === 'number') return arg;
  if (typeof arg === 'string' && /^\d+$/.test(arg)) return Number(arg);
  if (arg && typeof arg === 'object') return episodeId((arg as { episode?: unknown; id?: unknown }).episode ?? (arg as { id?: unknown }).id);
  return undefined;
}

async function uiCancel(arg?: unknown): Promise<void> {
  const c = needClient();
  let id = episodeId(arg);
  if (id === undefined) {
    const row = await pickEpisode(c, { status: ['running'] }, vscode.l10n.t('Cancel which running episode?'));
    id = episodeId(row);
  }
  if (id === undefined) return;
  const r = await c.sendRequest<{ ok?: boolean; message?: string }>('hyperkernel/cancel', { episode: id });
  if (r && r.ok === false) void vscode.window.showWarningMessage(vscode.l10n.t('Hyper Kernel: episode {0}: {1}', id, r.message ?? vscode.l10n.t('not cancelled')));
  else log(vscode.l10n.t('cancelled episode {0}', id));
}

async function uiHistory(): Promise<void> {
  const c = needClient();
  const editor = vscode.window.activeTextEditor;
  if (!editor) throw new Error(vscode.l10n.t('open a CUDA or HIP file and put the cursor in a kernel'));
  const kernel = await kernelAtCursor(editor);
  if (!kernel) throw new Error(vscode.l10n.t('no kernel at the cursor'));
  const h = await c.sendRequest<{ kernel?: string; versions?: [] }>('hyperkernel/history', {
    uri: c.code2ProtocolConverter.asUri(editor.document.uri), kernel,
  });
  const doc = await vscode.workspace.openTextDocument({
    language: 'markdown', content: historyMarkdown(h ?? { kernel }, editor.document.uri.fsPath, vscode.l10n),
  });
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
}

async function uiReport(arg?: unknown): Promise<void> {
  const c = needClient();
  let id = episodeId(arg);
  if (id === undefined) {
    const row = await pickEpisode(c, { status: ['completed', 'stopped', 'failed'] }, vscode.l10n.t('Report of which episode?'));
    id = episodeId(row);
  }
  if (id === undefined) return;
  const r = await c.sendRequest<{ html?: string; md?: string; json?: string }>('hyperkernel/report', { episode: id });
  if (!r || (!r.html && !r.md)) throw new Error(vscode.l10n.t('episode {0} has no report', id));
  log(vscode.l10n.t('report of episode {0}: {1} {2} {3}', id, r.html ?? '', r.md ?? '', r.json ?? ''));
  const openHtml = vscode.l10n.t('Open HTML');
  const openMd = vscode.l10n.t('Open Markdown');
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t('Hyper Kernel: report of episode {0}', id), ...(r.html ? [openHtml] : []), ...(r.md ? [openMd] : []));
  if (choice === openHtml && r.html) await vscode.env.openExternal(vscode.Uri.file(r.html));
  else if (choice === openMd && r.md) await vscode.window.showTextDocument(vscode.Uri.file(r.md));
}

async function uiEpisodes(): Promise<void> {
  const c = needClient();
  const row = await pickEpisode(c, { limit: 200 }, vscode.l10n.t('Episodes (newest first): pick one for its actions'));
  if (!row) return;
  const id = episodeId(row);
  const showReport = vscode.l10n.t('Show report');
  const cancel = vscode.l10n.t('Cancel');
  const actions = isFinalStatus(row.status) ? [showReport] : [cancel];
  const a = await vscode.window.showQuickPick(actions, { placeHolder: vscode.l10n.t('Episode {0}', String(id)) });
  if (a === cancel) await uiCancel(id);
  else if (a === showReport) await uiReport(id);
}

function guarded(name: string, fn: (...a: unknown[]) => Promise<void>): (...a: unknown[]) => Promise<void> {
  return async (...a: unknown[]) => {
    try {
      await fn(...a);
    } catch (e) {
      log(`${name}: ${errorText(e)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Hyper Kernel: {0}', errorText(e)));
    }
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('Hyper Kernel');
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  statusItem.command = 'hyperkernel.ui.episodes';
  context.subscriptions.push(
    output,
    statusItem,
    vscode.commands.registerCommand('hyperkernel.ui.optimize', guarded('optimize', (t) => uiOptimize(typeof t === 'string' ? t : undefined))),
    vscode.commands.registerCommand('hyperkernel.ui.cancel', guarded('cancel', (e) => uiCancel(e))),
    vscode.commands.registerCommand('hyperkernel.ui.history', guarded('history', () => uiHistory())),
    vscode.commands.registerCommand('hyperkernel.ui.report', guarded('report', (e) => uiReport(e))),
    vscode.commands.registerCommand('hyperkernel.ui.episodes', guarded('episodes', () => uiEpisodes())),
    vscode.commands.registerCommand('hyperkernel.ui.restart', guarded('restart', async () => {
      if (client) await client.stop();
      await startClient(context);
    })),
    vscode.workspace.onDidChangeConfiguration(async (ev) => {
      if (!ev.affectsConfiguration('hyperkernel')) return;
      if (ev.affectsConfiguration('hyperkernel.serverPath') || ev.affectsConfiguration('hyperkernel.serverArgs')) {
        log(vscode.l10n.t('server path changed: restarting'));
        if (client) await client.stop();
        await startClient(context);
        return;
      }
      if (client && client.state === State.Running)
        await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { hyperkernel: serverSettings() } });
    }),
    // Workspace trust granted (Restricted Mode left): the server may now use the folder's
    // .hyperkernel.json in full (compilers, flags, engines). Trust cannot be taken back
    // without VS Code restarting the extension.
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      log(vscode.l10n.t('workspace trusted: the folder\'s .hyperkernel.json applies in full'));
      if (client && client.state === State.Running)
        await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { hyperkernel: serverSettings() } });
    }),
  );
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
}
