/** The one-file run pack (src/core/run-files/pack.ts): round trip, and clear refusals of damaged or foreign files. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/core/run/config';
import {
  MAX_PACK_BYTES,
  PackError,
  packRun,
  readPackHeader,
  textFile,
  unpackRun,
} from '../../../src/core/run-files/pack';
import { encodeTensors } from '../../../src/core/model/io';

const runJson = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    format: 'opd-playground-run',
    version: 1,
    config: { ...DEFAULT_CONFIG, steps: 4 },
    envVersions: { household: 'household-v2' },
    command: 'page',
    argv: [],
    backend: 'wasm',
    params: 1,
    vocabSize: 2,
    initWeights: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    resumes: [],
    ...over,
  });
const weights = (modelSize: string) =>
  encodeTensors([{ name: 'w', shape: [2], data: Float32Array.of(1.5, -2) }], { format: 'opd-playground', modelSize });
const events = [
  { event: 'step', step: 1, successRate: 0.5, rewardMean: 0.5, policyLoss: 0.125 },
  { event: 'checkpoint', step: 1, file: 'ckpt-1.safetensors', stateFile: 'ckpt-1.state' },
]
  .map((e) => JSON.stringify(e) + '\n')
  .join('');
const traj =
  JSON.stringify({
    step: 1,
    group: [
      {
        task: 't',
        taskType: 'pick',
        success: true,
        reward: 1,
        initialObservation: 'o',
        steps: [{ observation: 'o', action: 'a', valid: true }],
      },
    ],
  }) + '\n';

function files(modelSize = 'nano', run = runJson()): Map<string, Uint8Array> {
  return new Map([
    ['ckpt-1.state', Uint8Array.of(9, 8, 7)],
    ['ckpt-1.safetensors', weights(modelSize)],
    ['events.jsonl', textFile(events)],
    ['run.json', textFile(run)],
    ['trajectories.jsonl', textFile(traj)],
  ]);
}
const here = { envVersions: { household: 'household-v2' } };

describe('packRun / unpackRun', () => {
  it('round-trips every file byte for byte, in a fixed order, with the records parsed', () => {
    const f = files();
    const packed = packRun('grpo seed 1', f, { init: 'base' });
    const u = unpackRun(packed, here);
    expect(u.header.name).toBe('grpo seed 1');
    expect(u.header.meta).toEqual({ init: 'base' });
    expect(u.header.files.map((x) => x.name)).toEqual([
      'run.json',
      'events.jsonl',
      'trajectories.jsonl',
      'ckpt-1.safetensors',
      'ckpt-1.state',
    ]);
    expect([...u.files.keys()].sort()).toEqual([...f.keys()].sort());
    for (const [n, b] of f) expect(Array.from(u.files.get(n)!)).toEqual(Array.from(b));
    expect(u.run.config.steps).toBe(4);
    expect(u.events.map((e) => e.event)).toEqual(['step', 'checkpoint']);
    expect(u.trajectories[0].group[0].steps[0].action).toBe('a');
    expect(u.checkpoints).toEqual([1]);
    expect(u.val).toBeNull();
    // The header is the first line; the body is the files back to back.
    const headerLen = new TextEncoder().encode(JSON.stringify(u.header) + '\n').length;
    expect(packed.length).toBe(headerLen + [...f.values()].reduce((a, b) => a + b.length, 0));
    expect(packRun('grpo seed 1', new Map([...f].reverse()), { init: 'base' })).toEqual(packed);
  });
  it('refuses a truncated file and trailing bytes, saying which', () => {
    const p = packRun('r', files());
    expect(() => unpackRun(p.subarray(0, p.length - 1), here)).toThrow(
      /truncated: its header lists \d+ bytes of files but \d+ follow/,
    );
    expect(() => unpackRun(new Uint8Array([...p, 0]), here)).toThrow(/1 byte after the last file/);
    expect(() => unpackRun(p.subarray(0, 10), here)).toThrow(/no header line/);
    expect(() => unpackRun(new Uint8Array(0), here)).toThrow(/the file is empty/);
  });
  it('says how large a file without a header line is, and that a run file cut inside its header is truncated', () => {
    const p = packRun('r', files());
    const headerOnly = p.subarray(0, readPackHeader(p).bodyAt - 1); // the header line without its line break
    expect(() => unpackRun(headerOnly, here)).toThrow(
      new PackError(
        `no header line: the file is truncated inside its header (its ${headerOnly.length} bytes end ` +
          `before the header line does; an interrupted download or copy?); export the run again`,
      ),
    );
    expect(() => unpackRun(new TextEncoder().encode('hello'), here)).toThrow(
      new PackError(
        'no header line (no line break in its 5 bytes): not an OPD Playground run file (.opdrun, written ' +
          "by the Runs view's Export or cli/pack.ts)",
      ),
    );
  });
  it('refuses a future version and another format with their names', () => {
    const p = packRun('r', files());
    const { header, bodyAt } = readPackHeader(p);
    const withHeader = (h: object) =>
      new Uint8Array([...new TextEncoder().encode(JSON.stringify(h) + '\n'), ...p.subarray(bodyAt)]);
    expect(() => unpackRun(withHeader({ ...header, version: 2 }), here)).toThrow(
      /newer version of OPD Playground \(pack version 2; this one reads version 1\)/,
    );
    expect(() => unpackRun(withHeader({ ...header, recordVersion: 5 }), here)).toThrow(/record version 5/);
    expect(() => unpackRun(withHeader({ ...header, format: 'zip' }), here)).toThrow(
      /format is "zip", not "opd-playground-run-pack"/,
    );
    const { format: _, ...noFormat } = header;
    expect(() => unpackRun(withHeader(noFormat), here)).toThrow(
      'the header line has no "format" field (a run file\'s first line holds "format": ' +
        '"opd-playground-run-pack"): not an OPD Playground run file (.opdrun, written by the Runs view\'s ' +
        'Export or cli/pack.ts)',
    );
    expect(() =>
      unpackRun(withHeader({ ...header, files: [{ name: '../etc/passwd', size: 3 }, ...header.files.slice(1)] }), here),
    ).toThrow(PackError);
  });
  it('refuses a checkpoint of another model size than the run, and another environment version', () => {
    expect(() => unpackRun(packRun('r', files('small')), here)).toThrow(
      /ckpt-1.safetensors is model size small but the run's config says nano/,
    );
    expect(() => unpackRun(packRun('r', files()), { envVersions: { household: 'household-v9' } })).toThrow(
      /environment version household-v2; this is household-v9/,
    );
  });
  it('names the file and line of a corrupt record inside', () => {
    const f = files();
    f.set('events.jsonl', textFile(events + '{"event":"step","step":2\n'));
    expect(() => unpackRun(packRun('r', f), here)).toThrow(/corrupt run record: events.jsonl line 3: not valid JSON/);
    expect(() =>
      unpackRun(packRun('r', files('nano', runJson({ config: { ...DEFAULT_CONFIG, tasksPerStep: 0 } }))), here),
    ).toThrow(/run.json: config.tasksPerStep/);
  });
  it('refuses a file over the size limit before reading it', () => {
    expect(MAX_PACK_BYTES).toBe(200 * 1024 * 1024);
    const p = packRun('r', files());
    expect(() => unpackRun(p, { ...here, maxBytes: p.length - 1 })).toThrow(
      new RegExp(`the most a run file may be is ${((p.length - 1) / 1048576).toFixed(1)} MB`),
    );
    expect(() => packRun('r', new Map([['events.jsonl', Uint8Array.of(1)]]))).toThrow(/needs run.json/);
    expect(() =>
      packRun(
        'r',
        new Map([
          ['run.json', Uint8Array.of(1)],
          ['notes.txt', Uint8Array.of(1)],
        ]),
      ),
    ).toThrow(/"notes.txt" is not a run-directory file/);
  });
});
