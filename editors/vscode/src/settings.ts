// Maps the extension's VS Code settings (hyperkernel.*) onto the server's settings keys
// (docs/config.md, issue 4 contract). Pure: no vscode import, so the node tests can check it.
import * as path from 'path';

// The translator of the extension's own sentences: vscode.l10n in the editor (its t() takes
// the English sentence with {0}, {1}... and looks it up in l10n/bundle.l10n.<language>.json),
// PLAIN here and in the node tests (English, the placeholders filled in). Every sentence is
// written as a literal in a call of l10n.t, so that test/l10n.test.js finds it and checks its
// zh-cn entry.
export interface L10n {
  t(message: string, ...args: Array<string | number | boolean>): string;
}

export function formatMessage(message: string, args: Array<string | number | boolean>): string {
  return message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
}

export const PLAIN: L10n = { t: (message, ...args) => formatMessage(message, args) };

export interface EngineSetting {
  name: string;
  kind: 'builtin' | 'openai' | 'anthropic';
  endpoint?: string;
  model?: string;
}

export interface ExtensionSettings {
  defaultTarget?: string;
  engines?: unknown;
  budget?: number;
  minutes?: number;
  database?: string;
  // vscode.workspace.isTrusted: the user trusts this workspace (VS Code's workspace trust)
  isTrusted?: boolean;
}

export interface ServerSettings {
  // The folder's .hyperkernel.json may name compilers, flags, engines and the simulated
  // GPU only when the workspace is trusted (docs/config.md, "Trusted folders").
  isTrusted?: boolean;
  target?: string;
  engines?: EngineSetting[];
  episodes?: { budget?: number; minutes?: number; db?: string };
}

const ENGINE_KINDS = new Set(['builtin', 'openai', 'anthropic']);

// The server's `target` key is a compile target and needs an architecture
// ("nvidia:sm_90", "dcu:gfx906", "sm_80"); a bare family ("nvidia") only chooses the
// default Optimize action on the client, so it is not sent.
export function isPreciseTarget(t: string): boolean {
  return /^(nvidia:sm_|dcu:gfx|amd:gfx|sm_|gfx)[a-z0-9_+:-]+$/.test(t);
}

// The family ("nvidia" | "dcu") a target string names, or undefined.
export function targetFamily(t: string | undefined): 'nvidia' | 'dcu' | undefined {
  if (!t) return undefined;
  if (/^(nvidia|sm_)/.test(t)) return 'nvidia';
  if (/^(dcu|amd|gfx)/.test(t)) return 'dcu';
  return undefined;
}

// Settings for initializationOptions / didChangeConfiguration. Malformed entries are
// dropped and described in `problems` (shown in the output channel), never sent.
export function toServerSettings(s: ExtensionSettings, l10n: L10n = PLAIN): { settings: ServerSettings; problems: string[] } {
  const problems: string[] = [];
  const out: ServerSettings = {};
  if (typeof s.isTrusted === 'boolean') out.isTrusted = s.isTrusted;
  const target = (s.defaultTarget ?? '').trim();
  if (target && isPreciseTarget(target)) out.target = target;
  else if (target && !targetFamily(target))
    problems.push(l10n.t('hyperkernel.defaultTarget "{0}" is not nvidia, dcu, nvidia:sm_XX or dcu:gfxNNN; ignored', target));

  if (Array.isArray(s.engines)) {
    const engines: EngineSetting[] = [];
    s.engines.forEach((e: unknown, i: number) => {
      const o = e as Record<string, unknown>;
      if (!o || typeof o !== 'object' || typeof o.name !== 'string' || !o.name ||
          typeof o.kind !== 'string' || !ENGINE_KINDS.has(o.kind)) {
        problems.push(l10n.t('hyperkernel.engines[{0}] needs a name and a kind (builtin, openai, anthropic); ignored', i));
        return;
      }
      const eng: EngineSetting = { name: o.name, kind: o.kind as EngineSetting['kind'] };
      if (typeof o.endpoint === 'string' && o.endpoint) eng.endpoint = o.endpoint;
      if (typeof o.model === 'string' && o.model) eng.model = o.model;
      engines.push(eng);
    });
    out.engines = engines;
  } else if (s.engines !== undefined && s.engines !== null) {
    problems.push(l10n.t('hyperkernel.engines must be an array; ignored'));
  }

  const episodes: { budget?: number; minutes?: number; db?: string } = {};
  if (typeof s.budget === 'number' && Number.isInteger(s.budget) && s.budget >= 1) episodes.budget = s.budget;
  else if (s.budget !== undefined) problems.push(l10n.t('hyperkernel.budget must be an integer >= 1; ignored'));
  if (typeof s.minutes === 'number' && s.minutes > 0) episodes.minutes = s.minutes;
  else if (s.minutes !== undefined) problems.push(l10n.t('hyperkernel.minutes must be a number > 0; ignored'));
  if (typeof s.database === 'string' && s.database.trim()) episodes.db = s.database.trim();
  if (Object.keys(episodes).length) out.episodes = episodes;
  return { settings: out, problems };
}

// One episode as hyperkernel/episodeChanged and hyperkernel/episodes describe it.
export interface EpisodeInfo {
  episode?: number | string;
  id?: number | string;
  kernel?: string;
  uri?: string;
  status?: string;
  stage?: string;
  percent?: number;
  message?: string;
  target?: string;
  engine?: string;
  speedup?: number;
  baselineMs?: number;
  bestMs?: number;
  started?: string;
  ended?: string;
  report?: string;
  // ran on the simulated GPU (CI's test double): its numbers are not measurements
  simulated?: boolean;
}

const FINAL = new Set(['completed', 'succeeded', 'done', 'stopped', 'failed', 'cancelled', 'canceled']);
export function isFinalStatus(status: string | undefined): boolean {
  return !!status && FINAL.has(status);
}

// Tracks running episodes from hyperkernel/episodeChanged for the status bar.
export class RunningEpisodes {
  private readonly map = new Map<string, EpisodeInfo>();
  update(e: EpisodeInfo): void {
    const id = String(e.episode ?? e.id ?? '');
    if (!id) return;
    if (isFinalStatus(e.status)) this.map.delete(id);
    else this.map.set(id, { ...this.map.get(id), ...e });
  }
  clear(): void { this.map.clear(); }
  list(): EpisodeInfo[] { return [...this.map.values()]; }
  get size(): number { return this.map.size; }
  // Status bar text ('' when nothing runs) and tooltip.
  render(l10n: L10n = PLAIN): { text: string; tooltip: string } {
    if (this.map.size === 0) return { text: '', tooltip: '' };
    const items = this.list();
    const first = items[0];
    const pct = (e: EpisodeInfo) => (typeof e.percent === 'number' ? ` ${Math.round(e.percent)}%` : '');
    const text = items.length === 1
      ? `$(sync~spin) ${first.kernel ?? l10n.t('episode')}: ${first.stage ?? first.status ?? l10n.t('running')}${pct(first)}`
      : `$(sync~spin) ${l10n.t('{0} episodes', items.length)}`;
    const tooltip = items
      .map((e) => `#${e.episode ?? e.id} ${e.kernel ?? '?'} - ${e.stage ?? e.status ?? l10n.t('running')}${pct(e)}${e.message ? ': ' + e.message : ''}`)
      .join('\n');
    return { text, tooltip };
  }
}

// Markdown table of hyperkernel/history's answer (for the history view).
export interface HistoryVersion {
  episode?: number; version?: number | string; status?: string; ms?: number; speedup?: number;
  bandwidthGBs?: number; maxRelErr?: number; engine?: string; created?: string;
  simulated?: boolean;
}
export function historyMarkdown(h: { kernel?: string; versions?: HistoryVersion[] }, file: string, l10n: L10n = PLAIN): string {
  const num = (v: number | undefined, d: number, suffix = '') => (typeof v === 'number' ? v.toFixed(d) + suffix : '-');
  const lines = [l10n.t('# History of `{0}`', h.kernel ?? '?'), '', l10n.t('File: {0}', file), ''];
  const vs = h.versions ?? [];
  if (!vs.length) {
    lines.push(l10n.t('No versions yet: run "Hyper Kernel: Optimize kernel at cursor".'));
    return lines.join('\n') + '\n';
  }
  if (vs.some((v) => v.simulated))
    lines.push(l10n.t('**Simulated GPU**: the rows marked *simulated* ran on the test double, not on hardware; their numbers are not measurements.'), '');
  lines.push(l10n.t('| episode | version | status | time (ms) | speedup | bandwidth (GB/s) | max rel err | engine | created |'));
  lines.push('|---:|---|---|---:|---:|---:|---:|---|---|');
  for (const v of vs) {
    const err = typeof v.maxRelErr === 'number' ? v.maxRelErr.toExponential(1) : '-';
    const sim = (s: string) => (v.simulated && s !== '-' ? `${s} *${l10n.t('simulated')}*` : s);
    lines.push(`| ${v.episode ?? '-'} | v${v.version ?? '?'} | ${v.status ?? '-'} | ${sim(num(v.ms, 3))} | ${sim(num(v.speedup, 2, 'x'))} | ${sim(num(v.bandwidthGBs, 0))} | ${err} | ${v.engine ?? '-'} | ${v.created ?? '-'} |`);
  }
  return lines.join('\n') + '\n';
}

// Where the hkls to start is: the hyperkernel.serverPath setting when it names one (a bare
// name is left to PATH, as the spawn does), else hkls on PATH, else the build/hkls of the
// checkout this extension runs from (editors/vscode -> ../../build/hkls). isExecutable is
// the file system check (injected, so this stays pure). command undefined: none was found;
// tried lists every place looked at, for the message.
export interface ServerLookup {
  configured?: string;
  pathEnv?: string;
  extensionPath: string;
  isExecutable: (file: string) => boolean;
}

export function findServer(o: ServerLookup): { command?: string; tried: string[] } {
  const configured = (o.configured ?? '').trim();
  if (configured !== '' && configured !== 'hkls')
    return { command: configured, tried: [configured] };
  const tried: string[] = [];
  for (const dir of (o.pathEnv ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, 'hkls');
    tried.push(file);
    if (o.isExecutable(file)) return { command: file, tried };
  }
  const built = path.resolve(o.extensionPath, '..', '..', 'build', 'hkls');
  tried.push(built);
  if (o.isExecutable(built)) return { command: built, tried };
  return { tried };
}

// The message when no hkls was found: what was looked at and the three ways out.
export function serverMissingMessage(tried: string[], l10n: L10n = PLAIN): string {
  const where = tried.length > 4 ? [...tried.slice(0, 2), '...', ...tried.slice(-2)] : tried;
  return l10n.t('Hyper Kernel: hkls was not found (looked at {0}). Build it with `./hk build` in the Hyper Kernel ' +
    'checkout, put it on PATH with `./hk install`, or set hyperkernel.serverPath to the hkls binary.', where.join(', '));
}
