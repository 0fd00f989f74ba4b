// Without a GPU and without the simulator, starting an optimization from the editor must end
// quickly with a clear "no GPU" message (issue 4). Skipped where a GPU exists, or in the
// real-GPU mode (HK_EDITOR_REAL_GPU=1), where flow.test.js runs on it instead.
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const h = require('./harness');

const skip = process.env.HK_EDITOR_REAL_GPU === '1' || h.hasNvidiaGpu()
  ? 'a GPU is present: the no-GPU path cannot be seen here' : false;
const QUICK_MS = 60000;

describe('optimizing without a GPU', { skip }, () => {
  let ws;
  let client;
  before(async () => {
    ws = h.makeWorkspace([{ file: 'saxpy.cu', kernel: 'saxpy' }]);
    client = new h.Client({
      rootDir: ws.dir,
      workspace: ws.ws,
      initOptions: { episodes: { db: ws.db }, compile: { enabled: false } },
      env: { CUDA_VISIBLE_DEVICES: '' },
    });
    await client.start();
  });
  after(async () => {
    if (client) await client.stop();
    if (ws) ws.cleanup();
  });

  it('ends quickly with a clear "no GPU" message, a Warning diagnostic and a failed episode', async () => {
    const file = ws.paths['saxpy.cu'];
    const uri = h.pathToUri(file);
    const text = fs.readFileSync(file, 'utf8');
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'cuda-cpp', version: 1, text } });
    const pos = h.find(text, 'blockIdx');
    const actions = await client.request('textDocument/codeAction', {
      textDocument: { uri }, range: { start: pos, end: pos }, context: { diagnostics: [] },
    });
    const opt = actions.find((a) => a.title === 'Optimize for NVIDIA');
    assert.ok(opt, `Optimize for NVIDIA offered: ${actions.map((a) => a.title)}`);
    const t0 = Date.now();
    const r = await client.request('workspace/executeCommand', opt.command);
    assert.ok(Number.isInteger(r.episode), JSON.stringify(r));
    const fin = await client.waitFor('the end of the episode', () =>
      client.episodes.find((e) => e.episode === r.episode && ['completed', 'stopped', 'failed'].includes(e.status)), QUICK_MS);
    const took = Date.now() - t0;
    assert.equal(fin.status, 'failed');
    assert.ok(took < QUICK_MS, `ended in ${took} ms`);
    const err = await client.waitFor('window/showMessage (Error) about the GPU',
      () => client.messages.find((m) => m.kind === 'show' && m.type === 1 && /no GPU/i.test(m.message)), 10000);
    assert.ok(err.message.length < 400, `the message is short and plain: ${err.message}`);
    const d = await client.waitFor('a Warning diagnostic on the kernel',
      () => client.latestDiagnostics(uri).find((x) => x.severity === 2 && /^optimization failed: .*no GPU/i.test(x.message)), 10000);
    assert.equal(h.rangeText(text, d.range), 'saxpy');
    const prog = client.progress.get(r.token) || [];
    assert.ok(prog.some((p) => p.kind === 'end'), 'the progress ends too');
    const rows = await client.request('hyperkernel/episodes', { status: ['failed'] });
    assert.ok(rows.some((x) => x.id === r.episode), `listed as failed: ${JSON.stringify(rows)}`);
  });
});
