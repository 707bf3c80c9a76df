import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Run a CLI script with tsx; returns exit code, stdout and stderr. */
function cli(script: string, args: string[]) {
  const r = spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('train / eval / bench CLIs: bad input exits 2 naming the flag and the accepted values', () => {
  it.each([
    [['--model', 'huge'], /--model: .*accepted: one of nano, small, base/],
    [['--env', 'kitchen'], /--env: .*accepted: one of household/],
    [['--algo', 'ppo'], /--algo: .*accepted: one of grpo/],
    [['--backend', 'tpu'], /--backend must be one of: cpu, wasm, webgpu/],
    [['--steps', 'ten'], /--steps must be an integer, got "ten" \(accepted: an integer in \[1, 100000\]\)/],
    [['--step-adv-weight', 'abc'], /--step-adv-weight must be a number, got "abc" \(accepted: a number in \[0, 10\]\)/],
    [['--step-adv-gamma', '1.5'], /--step-adv-gamma: .*accepted: a number in \[0, 1\]/],
    [['--lr-schedule', 'step'], /--lr-schedule: .*accepted: one of constant, linear, cosine/],
    [['--min-lr-ratio', '2'], /--min-lr-ratio: .*accepted: a number in \[0, 1\]/],
    [['--steps', '0'], /--steps: .*accepted: an integer in \[1, 100000\]/],
    [['--tasks', '1', '--group', '2', '--mini-batches', '8'], /--mini-batches: must be ≤ --tasks·--group \(2\); lower --mini-batches or raise B·G/],
    [['--lr', '-1'], /--lr: .*accepted: a number in/],
    [['--adam-beta2', '1'], /--adam-beta2: .*accepted: a number in \[0, 0.99999\]/],
    [['--target-kl', '-0.01'], /--target-kl: .*accepted: a number in \[0, 10\]/],
    [['--kl-backtracks', '11'], /--kl-backtracks: .*accepted: an integer in \[0, 10\]/],
    [['--kl-backtracks', '2'], /--kl-backtracks: the KL line search only shrinks steps that break --max-step-kl, which is 0 \(off\); set --max-step-kl \(e.g. 0.03\) or set --kl-backtracks to 0/],
  ])('train %j', (args, msg) => {
    const r = cli('train', args as string[]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(msg);
  });

  it('train --init with a corrupt or wrong-vocabulary weights file exits 2 and writes nothing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    const bad = path.join(dir, 'bad.safetensors');
    fs.writeFileSync(bad, Buffer.from('not a weights file at all'));
    const save = path.join(dir, 'out.safetensors');
    const r = cli('train', ['--init', bad, '--steps', '1', '--save', save]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--init .*bad\.safetensors: weights file/);
    expect(fs.existsSync(save)).toBe(false);
  });

  it('train --init base refuses a model size the shipped base policy is not, and a preset without one (exit 2)', () => {
    const m = JSON.parse(fs.readFileSync('public/base/household-easy.json', 'utf8'));
    const other = m.model === 'small' ? 'nano' : 'small';
    const r = cli('train', ['--model', other, '--steps', '1']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--init base: the shipped base policy for household/easy is a ${m.model} model; pass --model ${m.model}, or --init scratch`);
    const d = cli('train', ['--preset', 'default', '--steps', '1']);
    expect(d.code).toBe(2);
    expect(d.err).toMatch(/--init base: no base policy for household\/default .*npm run pretrain -- --env household --preset default, or start from scratch/);
  });

  it('pretrain rejects bad flags with exit 2 and writes nothing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    expect(cli('pretrain', ['--model', 'huge']).err).toMatch(/--model must be one of: nano, small, base/);
    expect(cli('pretrain', ['--iters', '0']).err).toMatch(/--iters must be an integer in 1\.\.100000/);
    expect(cli('pretrain', ['--noise', '2']).err).toMatch(/--noise must be a number in 0\.\.1/);
    expect(cli('pretrain', ['--mix', 'noisy=1,foo=2']).err).toMatch(/--mix: "foo=2" is not kind=weight/);
    const r = cli('pretrain', ['--out', path.join(dir, 'x.bin')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--out must end in \.safetensors/);
    expect(cli('pretrain', ['--out', path.join(dir, 'no', 'b.safetensors')]).err).toMatch(/--out: folder ".*" does not exist/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('train checks --save before training: a folder, a missing folder or an empty path exit 2', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    expect(cli('train', ['--save', dir]).err).toMatch(/--save: ".*" is a folder/);
    const r = cli('train', ['--save', path.join(dir, 'no', 'such', 'w.safetensors')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--save: folder ".*" does not exist/);
    expect(cli('train', ['--save', '']).err).toMatch(/--save needs a file path/);
    expect(cli('train', ['--init', dir]).err).toMatch(/--init: no weights file at/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('train --save-best needs evaluations and a path of its own (exit 2, nothing written)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    const w = path.join(dir, 'w.safetensors');
    const noEval = cli('train', ['--init', 'scratch', '--eval-every', '0', '--save-best', w]);
    expect(noEval.code).toBe(2);
    expect(noEval.err).toMatch(/--save-best needs evaluations: set --eval-every/);
    expect(cli('train', ['--init', 'scratch', '--save', w, '--save-best', w]).err).toMatch(/--save and --save-best name the same file/);
    expect(cli('train', ['--save-best', dir]).err).toMatch(/--save-best: ".*" is a folder/);
    expect(cli('train', ['--save-best', '']).err).toMatch(/--save-best needs a file path/);
    expect(cli('train', ['--save-best', path.join(dir, 'new') + '/']).err).toMatch(/--save-best: ".*new\/" is a folder/);
    const file = path.join(os.tmpdir(), `opd-file-${process.pid}`);
    fs.writeFileSync(file, 'x');
    expect(cli('train', ['--save', path.join(file, 'w.safetensors')]).err).toMatch(/--save: ".*" is a file, not a folder/);
    fs.rmSync(file);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('train --save-best writes the weights of each new best evaluation and says so; eval --first-task plays tasks k..k+n−1', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    const best = path.join(dir, 'best.safetensors');
    const r = cli('train', ['--init', 'scratch', '--lr', '5e-3', '--history', '0', '--steps', '3', '--tasks', '2', '--group', '2', '--mini-batches', '1',
      '--eval-every', '1', '--eval-episodes', '6', '--backend', 'cpu', '--save-best', best, '--json']);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l));
    const evals = lines.filter((l) => l.event === 'eval');
    const bests = lines.filter((l) => l.event === 'best');
    expect(evals.map((e) => e.step)).toEqual([0, 1, 2, 3]);
    // Replay the selection rule by hand: a best line follows exactly the evaluations that beat every earlier one.
    let top = -1;
    const expected: number[] = [];
    for (const e of evals) {
      const s = (e.splits['test-seen'].successRate + e.splits['test-unseen'].successRate) / 2;
      if (s > top) { top = s; expected.push(e.step); }
    }
    expect(bests.map((b) => b.step)).toEqual(expected);
    expect(bests.at(-1).score).toBeCloseTo(top, 12);
    expect(fs.existsSync(best)).toBe(true);
    const header = fs.readFileSync(best);
    const meta = JSON.parse(header.subarray(8, 8 + Number(header.readBigUInt64LE(0))).toString('utf8')).__metadata__;
    expect(meta.bestStep).toBe(String(expected.at(-1)));
    // The kept weights load in eval; --first-task 4 plays tasks 4, 5, 6.
    // No --history: eval takes H = 0 from the weights file's metadata.
    const e = cli('eval', ['--policy', best, '--split', 'test-seen', '--first-task', '4', '--episodes', '3', '--backend', 'cpu', '--json']);
    expect(e.code).toBe(0);
    const eps = e.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(eps.filter((x) => x.event === 'episode').map((x) => x.index)).toEqual([4, 5, 6]);
    expect(eps.at(-1)).toMatchObject({ event: 'summary', firstTask: 4, episodes: 3, historyTurns: 0 });
    const ex = cli('eval', ['--policy', 'expert', '--split', 'test-unseen', '--first-task', '100', '--episodes', '2', '--json']);
    expect(ex.out.trim().split('\n').map((l) => JSON.parse(l)).filter((x) => x.event === 'episode').map((x) => x.index)).toEqual([100, 101]);
    expect(cli('eval', ['--first-task', '-1']).code).toBe(2);
  });

  it('eval rejects a bad split, a missing weights file and a corrupt one', () => {
    expect(cli('eval', ['--split', 'validation']).err).toMatch(/--split must be one of: train, test-seen, test-unseen/);
    const missing = cli('eval', ['--policy', '/nonexistent/w.safetensors']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no file at .*accepted: expert, random/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    const bad = path.join(dir, 'w.safetensors');
    fs.writeFileSync(bad, Buffer.alloc(64, 7));
    const corrupt = cli('eval', ['--policy', bad, '--backend', 'cpu']);
    expect(corrupt.code).toBe(2);
    expect(corrupt.err).toMatch(/weights file/);
  });

  it('eval --policy expert: the last JSON line is the summary with success 1 on test-unseen', () => {
    const r = cli('eval', ['--env', 'household', '--preset', 'default', '--split', 'test-unseen', '--episodes', '30', '--policy', 'expert', '--json']);
    expect(r.code).toBe(0);
    const last = JSON.parse(r.out.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ event: 'summary', successRate: 1, episodes: 30 });
    expect(Object.keys(last.byTaskType).sort()).toEqual(['clean', 'cool', 'heat', 'look', 'pick', 'pick2']);
  });

  it('bench rejects a sequence longer than it supports', () => {
    const r = cli('bench', ['--seq', '100000']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--seq must be an integer in 2\.\.512/);
  });
});
