// The extension's own words in zh-CN (issue 14, docs/i18n.md "The editors' own words"):
// package.json's %key% placeholders have an entry in package.nls.json (English) and in
// package.nls.zh-cn.json; every sentence the code says through l10n.t('...') has an entry
// in l10n/bundle.l10n.zh-cn.json with the same {N} placeholders, and the bundle holds no
// sentence the code no longer says. Plain node: no server, no VS Code.
'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const EXT = path.resolve(__dirname, '..');
const read = (f) => fs.readFileSync(path.join(EXT, f), 'utf8');
const json = (f) => JSON.parse(read(f));

// Every '%key%' string in the manifest, with where it is.
function placeholders(node, where, out) {
  if (typeof node === 'string') {
    const m = /^%([^%\s]+)%$/.exec(node);
    if (m) out.push({ key: m[1], where });
  } else if (Array.isArray(node)) {
    node.forEach((x, i) => placeholders(x, `${where}[${i}]`, out));
  } else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) placeholders(v, `${where}.${k}`, out);
  }
  return out;
}

// The value of a JS/TS string literal ('...', "..." or `...` without ${}) starting at s[i]:
// [value, index after it], or null.
function literal(s, i) {
  const q = s[i];
  if (q !== "'" && q !== '"' && q !== '`') return null;
  let v = '';
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') {
      const n = s[++j];
      v += ({ n: '\n', t: '\t', r: '\r' })[n] ?? n;
    } else if (c === q) {
      return [v, j + 1];
    } else if (q === '`' && c === '$' && s[j + 1] === '{') {
      return null; // an interpolated template: not a fixed sentence
    } else {
      v += c;
    }
  }
  return null;
}

// The sentences of every l10n.t(...) call in the sources: the first argument, one literal
// or literals joined by +. A call whose first argument is anything else is an error (its
// sentence could not be checked).
function sentences(file) {
  const s = read(file);
  const found = [];
  const bad = [];
  const re = /\bl10n\.t\(\s*/g;
  let m;
  while ((m = re.exec(s))) {
    let i = m.index + m[0].length;
    let v = '';
    let ok = false;
    for (;;) {
      const lit = literal(s, i);
      if (!lit) break;
      v += lit[0];
      ok = true;
      i = lit[1];
      const plus = /^\s*\+\s*/.exec(s.slice(i));
      if (!plus || !literal(s, i + plus[0].length)) break;
      i += plus[0].length;
    }
    const line = s.slice(0, m.index).split('\n').length;
    if (ok) found.push({ text: v, where: `${file}:${line}` });
    else bad.push(`${file}:${line}`);
  }
  return { found, bad };
}

const holes = (t) => (t.match(/\{\d+\}/g) || []).sort().join(' ');

describe('package.json in zh-CN', () => {
  const pkg = json('package.json');
  const en = json('package.nls.json');
  const zh = json('package.nls.zh-cn.json');
  const used = placeholders(pkg, 'package.json', []);

  it('says its human text through %key% placeholders', () => {
    const keys = used.map((u) => u.key);
    for (const k of ['extension.description', 'untrustedWorkspaces.description', 'command.optimize.title', 'config.serverPath.description'])
      assert.ok(keys.includes(k), `package.json uses %${k}%`);
    for (const c of pkg.contributes.commands) assert.match(c.title, /^%.+%$/, `${c.command}'s title is a placeholder`);
    for (const [name, p] of Object.entries(pkg.contributes.configuration.properties))
      assert.match(p.description, /^%.+%$/, `${name}'s description is a placeholder`);
    assert.equal(pkg.l10n, './l10n', 'package.json names the runtime bundles\' folder');
  });

  it('has every key in package.nls.json and package.nls.zh-cn.json, and no other', () => {
    for (const u of used) {
      assert.equal(typeof en[u.key], 'string', `package.nls.json lacks ${u.key} (${u.where})`);
      assert.equal(typeof zh[u.key], 'string', `package.nls.zh-cn.json lacks ${u.key} (${u.where})`);
      assert.match(zh[u.key], /[\u4e00-\u9fff]/, `package.nls.zh-cn.json's ${u.key} is Chinese`);
    }
    const keys = new Set(used.map((u) => u.key));
    for (const k of Object.keys(en)) assert.ok(keys.has(k), `package.nls.json's ${k} is used by package.json`);
    for (const k of Object.keys(zh)) assert.ok(keys.has(k), `package.nls.zh-cn.json's ${k} is used by package.json`);
  });
});

describe('runtime sentences in zh-CN', () => {
  const bundle = json('l10n/bundle.l10n.zh-cn.json');
  const all = [];
  for (const f of fs.readdirSync(path.join(EXT, 'src')).filter((x) => x.endsWith('.ts'))) {
    const { found, bad } = sentences(`src/${f}`);
    assert.deepEqual(bad, [], 'l10n.t takes its sentence as a literal');
    all.push(...found);
  }

  it('finds the sentences of extension.ts and settings.ts', () => {
    const texts = all.map((x) => x.text);
    assert.ok(all.length >= 40, `only ${all.length} l10n.t sentences found`);
    assert.ok(texts.includes('Hyper Kernel: no matching episodes'));
    assert.ok(texts.some((t) => t.startsWith('Hyper Kernel: hkls was not found (looked at {0}). Build it with `./hk build`')));
  });

  it('has a Chinese entry with the same placeholders for each', () => {
    for (const x of all) {
      const zh = bundle[x.text];
      assert.equal(typeof zh, 'string', `l10n/bundle.l10n.zh-cn.json lacks ${JSON.stringify(x.text)} (${x.where})`);
      assert.equal(holes(zh), holes(x.text), `${JSON.stringify(x.text)}: the Chinese has the same {N}`);
      if (/[a-z]{3}/.test(x.text.replace(/\{\d+\}|hkls|Hyper Kernel|hyperkernel\.[\w.[\]{}]+|\.\/hk \w+|PATH|__global__|\.hyperkernel\.json|nvidia[\w:]*|dcu[\w:]*|sm_XX|gfxNNN|builtin|openai|anthropic|HTML|Markdown|GB\/s|ms/g, '')))
        assert.match(zh, /[\u4e00-\u9fff]/, `the zh-cn entry of ${JSON.stringify(x.text)} is Chinese`);
    }
  });

  it('holds no sentence the code does not say', () => {
    const texts = new Set(all.map((x) => x.text));
    for (const k of Object.keys(bundle)) assert.ok(texts.has(k), `l10n/bundle.l10n.zh-cn.json has ${JSON.stringify(k)}, which no l10n.t says`);
  });
});
