import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RUN_CONFIG_KEYS, fieldMeta } from '../../src/core/run/config';
import { getEnvSpec } from '../../src/core/envs/registry';
import { buildTokenizer, createPolicy, disposePolicy, savePolicy } from '../../src/core/model/policy';
import { decodeSafetensors, encodeSafetensors } from '../../src/core/model/io';
import { Rng } from '../../src/core/rng';
import { useBackend } from '../helpers/backend';
import { loadBaseFiles } from '../../cli/base';
import { unwrapHelp } from '../helpers/help-text';

/** Run a CLI script with tsx; returns exit code, stdout and stderr. */
function cli(script: string, args: string[]) {
  const r = spawnSync('node_modules/.bin/tsx', [`cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('train / eval / bench CLIs: bad input exits 2 naming the flag and the accepted values', () => {
  it.each([
    [['--model', 'huge'], /--model must be one of: nano, nano-deep, small, base \(got "huge"\)\n/],
    [['--env', 'kitchen'], /--env must be one of: household, shop, searchqa \(got "kitchen"\)\n/],
    [['--algo', 'ppo'], /--algo must be one of: grpo, opid, skill-grpo, agentic-opd \(got "ppo"\)\n/],
    [
      ['--algo', 'op'],
      /--algo must be one of: grpo, opid, skill-grpo, agentic-opd \(got "op"\); did you mean opid\?\n/,
    ],
    [['--backend', 'wsm'], /--backend must be one of: cpu, wasm, webgpu \(got "wsm"\); did you mean wasm\?\n/],
    [
      ['--preset', 'esy'],
      /--preset: household has no preset "esy"; one of default, easy, easy-pick2; did you mean easy\?\n/,
    ],
    [['--backend', 'tpu'], /--backend must be one of: cpu, wasm, webgpu/],
    [['--steps', 'ten'], /--steps must be an integer, got "ten" \(accepted: an integer in \[1, 100000\]\)/],
    [['--step-adv-weight', 'abc'], /--step-adv-weight must be a number, got "abc" \(accepted: a number in \[0, 10\]\)/],
    [
      ['--step-adv-gamma', '1.5'],
      /--step-adv-gamma must be a number in \[0, 1\], got "1\.5"; give e\.g\. --step-adv-gamma \S+ \(the default\)/,
    ],
    [['--lr-schedule', 'step'], /--lr-schedule must be one of: constant, linear, cosine \(got "step"\)\n/],
    [
      ['--lr-schedule', 'cosin'],
      /--lr-schedule must be one of: constant, linear, cosine \(got "cosin"\); did you mean cosine\?\n/,
    ],
    [
      ['--min-lr-ratio', '2'],
      /--min-lr-ratio must be a number in \[0, 1\], got "2"; give e\.g\. --min-lr-ratio \S+ \(the default\)/,
    ],
    [['--steps', '0'], /--steps must be an integer in \[1, 100000\], got "0"; give e\.g\. --steps 120 \(the default\)/],
    [
      ['--tasks', '1', '--group', '2'],
      new RegExp(
        '--mini-batches: is 8 \\(the default\\), more than --tasks·--group \\(2\\): each mini-batch needs a ' +
          'sample; set --mini-batches to 2 or fewer, or raise B·G',
      ),
    ],
    [['--lr', '-1'], /--lr must be a number in \[1e-7, 1\], got "-1"; give e\.g\. --lr 0\.0001 \(the default\)/],
    [['--adam-beta2', '1'], /--adam-beta2 must be a number in \[0, 0.99999\], got "1"; give e\.g\. --adam-beta2 /],
    [['--target-kl', '-0.01'], /--target-kl must be a number in \[0, 10\], got "-0\.01"; give e\.g\. --target-kl /],
    [
      ['--kl-backtracks', '11'],
      /--kl-backtracks must be an integer in \[0, 10\], got "11"; give e\.g\. --kl-backtracks /,
    ],
    [['--temperature', '9'], /--temperature must be a number in \[0.05, 5\], got "9"; give e\.g\. --temperature /],
    [['--clip', 'wide'], /--clip must be a number, got "wide" \(accepted: a number in \[0, 1\]\)/],
    [['--adv-group-by', 'batch'], /--adv-group-by must be one of: trajectory, step \(got "batch"\)\n/],
    [['--dual-clip', '0.5'], /--dual-clip: dual-clip constant must be > 1/],
    [['--max-action-tokens'], /--max-action-tokens needs a value \(an integer in \[2, 64\]\)/],
    [['--skill-zscore=maybe'], /--skill-zscore takes no value or true\|false, got "maybe"/],
    [['--no-such-flag'], /unknown flag --no-such-flag; accepted flags: --env, .*--temperature/],
    [['extra'], /unexpected argument "extra"/],
    [
      ['--kl-backtracks', '2'],
      new RegExp(
        '--kl-backtracks: the KL line search only shrinks steps that break --max-step-kl, which is 0 \\(off\\); ' +
          'set --max-step-kl \\(e.g. 0.03\\) or set --kl-backtracks to 0',
      ),
    ],
  ])('train %j', (args, msg) => {
    const r = cli('train', args as string[]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(msg);
  });

  it(
    'train --help: every schema field with a flag, grouped, with accepted values, default, unit, symbol ' +
      'and recommended value',
    () => {
      const r = cli('train', ['--help']);
      expect(r.code).toBe(0);
      r.out = unwrapHelp(r.out);
      for (const key of RUN_CONFIG_KEYS) {
        const flag = fieldMeta(key).flag;
        if (flag) expect(r.out).toMatch(new RegExp(`^  --${flag} `, 'm'));
      }
      for (const flag of [
        'temperature',
        'clip',
        'dual-clip',
        'adv-group-by',
        'adv-eps',
        'invalid-penalty',
        'max-action-tokens',
        'max-grad-norm',
        'eval-temperature',
        'skill-memory-top-k',
      ])
        expect(r.out).toMatch(new RegExp(`^  --${flag} `, 'm'));
      const lines = r.out.split('\n');
      const t = lines.findIndex((l) => l.startsWith('  --temperature '));
      expect(lines[t]).toMatch(/Temperature — Rollout sampling temperature/);
      expect(lines[t + 1]).toMatch(
        /accepted: a number in \[0.05, 5\]; default 1; unit: T; symbol: T; recommended: 1 \(on-policy\)/,
      );
      expect(
        lines
          .slice(0, t)
          .reverse()
          .find((l) => /^\S+:$/.test(l)),
      ).toBe('rollouts:');
      expect(r.out).toMatch(/^ {2}--backend .*\n\s+accepted: one of cpu, wasm, webgpu; default wasm/m);
      expect(r.out).toMatch(/^ {2}--init .*\n\s+accepted: base .*scratch .*\.safetensors/m);
      expect(r.out).not.toContain('--schema-version');
      expect(r.out).toMatch(/^output:\n {2}--save /m);
    },
  );

  it(
    'weights made with another environment version: train --init and eval --policy warn (stderr, JSON); ' +
      'another vocabulary is refused',
    async () => {
      await useBackend('cpu');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
      const spec = getEnvSpec('household');
      const p = createPolicy('nano', buildTokenizer(spec), new Rng(1));
      const bytes = await savePolicy(p, 'nano', { household: 'household-v1' }, { historyTurns: '0' });
      disposePolicy(p);
      const old = path.join(dir, 'old.safetensors');
      fs.writeFileSync(old, bytes);
      const warning =
        `weights ${old} were made with environment version household-v1; this is ${spec.version}: ` +
        `the tasks may differ, so success rates are not comparable`;

      const e = cli('eval', ['--policy', old, '--split', 'test-seen', '--episodes', '2', '--backend', 'cpu', '--json']);
      expect(e.code).toBe(0);
      expect(e.err).toContain(`eval: warning: ${warning}`);
      const summary = JSON.parse(e.out.trim().split('\n').at(-1)!);
      expect(summary).toMatchObject({
        event: 'summary',
        episodes: 2,
        envVersions: { household: spec.version },
        envVersionWarning: { kind: 'env-version', weights: old, made: 'household-v1', current: spec.version },
      });
      const text = cli('eval', ['--policy', old, '--episodes', '1', '--backend', 'cpu']);
      expect(text.code).toBe(0);
      expect(text.err).toContain(`eval: warning: ${warning}`);
      // Weights of the current version: no warning.
      const ex = cli('eval', ['--policy', 'expert', '--episodes', '1', '--json']);
      expect(ex.err).toBe('');
      expect(JSON.parse(ex.out.trim().split('\n').at(-1)!)).toMatchObject({
        envVersions: { household: spec.version },
        envVersionWarning: null,
      });

      const t = cli('train', [
        '--init',
        old,
        '--steps',
        '1',
        '--tasks',
        '1',
        '--group',
        '2',
        '--mini-batches',
        '1',
        '--history',
        '0',
        '--eval-every',
        '0',
        '--backend',
        'cpu',
        '--json',
      ]);
      expect(t.code).toBe(0);
      expect(t.err).toContain(`train: warning: ${warning}`);
      const events = t.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(events[0]).toEqual({
        event: 'warning',
        kind: 'env-version',
        weights: old,
        made: 'household-v1',
        current: spec.version,
      });
      expect(events[1].event).toBe('start');

      // Same weights, another vocabulary hash in the metadata: refused with exit 2 by both.
      const w = decodeSafetensors(bytes);
      const other = path.join(dir, 'other-vocab.safetensors');
      fs.writeFileSync(other, encodeSafetensors(p.cfg, w.values, { ...w.meta, vocabHash: '0'.repeat(16) }));
      const ev = cli('eval', ['--policy', other, '--episodes', '1', '--backend', 'cpu']);
      expect(ev.code).toBe(2);
      expect(ev.err).toMatch(/--policy .*other-vocab\.safetensors: .*vocab/i);
      const tr = cli('train', ['--init', other, '--steps', '1', '--backend', 'cpu']);
      expect(tr.code).toBe(2);
      expect(tr.err).toMatch(/--init .*other-vocab\.safetensors: .*vocab/i);
    },
  );

  it('train --init with a corrupt or wrong-vocabulary weights file exits 2 and writes nothing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    const bad = path.join(dir, 'bad.safetensors');
    fs.writeFileSync(bad, Buffer.from('not a weights file at all'));
    const save = path.join(dir, 'out.safetensors');
    const r = cli('train', ['--init', bad, '--steps', '1', '--save', save]);
    expect(r.code).toBe(2);
    // Named as no safetensors first (text here), with what to give, then the loader's detail.
    expect(r.err).toMatch(
      new RegExp(
        '--init .*bad\\.safetensors: not a safetensors weights file \\(it looks like text\\); ' +
          'give a \\.safetensors file written by train --save.* \\(weights file: header length \\d+',
      ),
    );
    expect(fs.existsSync(save)).toBe(false);
  });

  it('train --init base refuses a model size the shipped base policy is not, on each preset (exit 2)', () => {
    for (const preset of ['easy', 'default']) {
      const m = JSON.parse(fs.readFileSync(`public/base/household-${preset}.json`, 'utf8'));
      const other = m.model === 'small' ? 'nano' : 'small';
      const r = cli('train', ['--preset', preset, '--model', other, '--steps', '1']);
      expect(r.code).toBe(2);
      expect(r.err).toContain(
        `--init base: the shipped base policy for household/${preset} is a ${m.model} model; pass --model ` +
          `${m.model}, or --init scratch`,
      );
    }
  });

  it('a preset without a base policy: loading it names the missing manifest and the pretrain command', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    const spec = getEnvSpec('household');
    await expect(loadBaseFiles(spec, 'default', buildTokenizer(spec), empty)).rejects.toThrow(
      new RegExp(
        '^no base policy for household\\/default \\(.*base\\/household-default\\.json is missing\\); ' +
          'make one with npm run pretrain -- --env household --preset default$',
      ),
    );
  });

  it('pretrain rejects bad flags with exit 2 and writes nothing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    expect(cli('pretrain', ['--model', 'huge']).err).toMatch(/--model must be one of: nano, nano-deep, small, base/);
    expect(cli('pretrain', ['--iters', '0']).err).toMatch(/--iters must be an integer in 1\.\.100000/);
    expect(cli('pretrain', ['--noise', '2']).err).toMatch(/--noise must be a number in 0\.\.1/);
    expect(cli('pretrain', ['--mix', 'noisy=1,foo=2']).err).toMatch(/--mix: "foo=2" is not kind=weight/);
    expect(cli('pretrain', ['--env', 'searchqa', '--type-weights', 'popqa=0.2,musiqe=2']).err).toMatch(
      /--type-weights: "musiqe=2" is not type=weight with type one of nq, .*; did you mean musique=2\?/,
    );
    const allZero = 'nq=0,triviaqa=0,popqa=0,hotpotqa=0,2wiki=0,musique=0';
    expect(cli('pretrain', ['--env', 'searchqa', '--type-weights', allZero]).err).toMatch(
      /^pretrain: --type-weights: every task type the train split holds \(nq, .*\) weighs 0 .*; give at least one/m,
    );
    expect(cli('pretrain', ['--env', 'searchqa', '--type-weights', 'bamboogle=1']).err).toMatch(
      /--type-weights: bamboogle is not among the train split's task types \(nq, .*\); leave it out/,
    );
    expect(cli('pretrain', ['--rename', '0.5']).err).toMatch(
      /--rename: household has no names to rename \(only an env with a demoRenamer does\); leave --rename at 0/,
    );
    expect(cli('pretrain', ['--noise-actions', 'plausible']).err).toContain(
      '--noise-actions plausible: household has no plausible mistakes (only an env with a plausibleMistake has); ' +
        'leave --noise-actions at random',
    );
    expect(cli('pretrain', ['--env', 'searchqa', '--rename-names', 'fresh']).err).toMatch(
      /--rename-names fresh renames nothing with --rename 0: give --rename P \(0 < P ≤ 1\) too/,
    );
    const noMistake =
      '--noise-actions plausible changes nothing without noisy steps: give --noise P > 0 and a noisy share in ' +
      '--mix, or leave --noise-actions at random';
    expect(cli('pretrain', ['--env', 'searchqa', '--noise-actions', 'plausible', '--noise', '0']).err).toContain(
      noMistake,
    );
    expect(
      cli('pretrain', ['--env', 'searchqa', '--noise-actions=plausible', '--mix', 'noisy=0,step=1']).err,
    ).toContain(noMistake);
    expect(cli('pretrain', ['--type-weights', 'popqa=1']).err).toMatch(
      /"popqa=1" is not type=weight with type one of /,
    );
    const r = cli('pretrain', ['--out', path.join(dir, 'x.bin')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--out must end in \.safetensors/);
    expect(cli('pretrain', ['--out', path.join(dir, 'no', 'b.safetensors')]).err).toMatch(
      /--out: folder ".*" does not exist/,
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it(
    'pretrain writes the weights and a manifest before measuring, then adds the measurements to the ' + 'manifest',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
      const out = path.join(dir, 'b.safetensors'),
        man = path.join(dir, 'b.json');
      const child = spawn('node_modules/.bin/tsx', [
        'cli/pretrain.ts',
        '--model',
        'nano',
        '--iters',
        '2',
        '--tasks',
        '4',
        '--batch',
        '4',
        '--measure-episodes',
        '1',
        '--out',
        out,
      ]);
      let text = '';
      const seenAtMeasuring = await new Promise<{ weights: boolean; measured: boolean }>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          text += d.toString();
          // When the measuring line appears, the weights and a manifest without measurements are already on disk.
          if (text.includes('; measuring'))
            resolve({ weights: fs.existsSync(out), measured: 'measured' in JSON.parse(fs.readFileSync(man, 'utf8')) });
        });
        child.on('exit', (code) => reject(new Error(`pretrain exited ${code} before measuring: ${text}`)));
      });
      expect(seenAtMeasuring).toEqual({ weights: true, measured: false });
      const code = await new Promise((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      const m = JSON.parse(fs.readFileSync(man, 'utf8'));
      expect(Object.keys(m.measured).sort()).toEqual(['test-seen', 'test-unseen']);
      expect(text.indexOf('; measuring')).toBeLessThan(text.indexOf('test-seen hints none'));
    },
    120_000,
  );

  it('train checks --save before training: a folder, a missing folder or an empty path exit 2', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    expect(cli('train', ['--save', dir]).err).toMatch(/--save: ".*" is a folder/);
    const r = cli('train', ['--save', path.join(dir, 'no', 'such', 'w.safetensors')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--save: folder ".*" does not exist/);
    expect(cli('train', ['--save', '']).err).toMatch(/--save needs a file path/);
    expect(cli('train', ['--init', dir]).err).toMatch(
      /--init: ".*" is a directory, not a weights file; give the path of a \.safetensors file/,
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('train --save-best needs evaluations and a path of its own (exit 2, nothing written)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    const w = path.join(dir, 'w.safetensors');
    const noEval = cli('train', ['--init', 'scratch', '--eval-every', '0', '--save-best', w]);
    expect(noEval.code).toBe(2);
    expect(noEval.err).toMatch(/--save-best needs evaluations: set --eval-every/);
    expect(cli('train', ['--init', 'scratch', '--save', w, '--save-best', w]).err).toMatch(
      /--save and --save-best name the same file/,
    );
    expect(cli('train', ['--save-best', dir]).err).toMatch(/--save-best: ".*" is a folder/);
    expect(cli('train', ['--save-best', '']).err).toMatch(/--save-best needs a file path/);
    expect(cli('train', ['--save-best', path.join(dir, 'new') + '/']).err).toMatch(
      /--save-best: ".*new\/" is a folder/,
    );
    const file = path.join(os.tmpdir(), `opd-file-${process.pid}`);
    fs.writeFileSync(file, 'x');
    expect(cli('train', ['--save', path.join(file, 'w.safetensors')]).err).toMatch(
      /--save: ".*" is a file, not a folder/,
    );
    fs.rmSync(file);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it(
    'train --save-best writes the weights of each new best evaluation and says so; eval --first-task ' +
      'plays tasks k..k+n−1',
    () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
      const best = path.join(dir, 'best.safetensors');
      const r = cli('train', [
        '--init',
        'scratch',
        '--lr',
        '5e-3',
        '--history',
        '0',
        '--steps',
        '3',
        '--tasks',
        '2',
        '--group',
        '2',
        '--mini-batches',
        '1',
        '--eval-every',
        '1',
        '--eval-episodes',
        '6',
        '--backend',
        'cpu',
        '--save-best',
        best,
        '--json',
      ]);
      expect(r.code).toBe(0);
      const lines = r.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const evals = lines.filter((l) => l.event === 'eval');
      const bests = lines.filter((l) => l.event === 'best');
      expect(evals.map((e) => e.step)).toEqual([0, 1, 2, 3]);
      // Replay the selection rule by hand: a best line follows exactly the evaluations that beat every earlier one.
      let top = -1;
      const expected: number[] = [];
      for (const e of evals) {
        const s = (e.splits['test-seen'].successRate + e.splits['test-unseen'].successRate) / 2;
        if (s > top) {
          top = s;
          expected.push(e.step);
        }
      }
      expect(bests.map((b) => b.step)).toEqual(expected);
      expect(bests.at(-1).score).toBeCloseTo(top, 12);
      expect(fs.existsSync(best)).toBe(true);
      const header = fs.readFileSync(best);
      const meta = JSON.parse(header.subarray(8, 8 + Number(header.readBigUInt64LE(0))).toString('utf8')).__metadata__;
      expect(meta.bestStep).toBe(String(expected.at(-1)));
      // The kept weights load in eval; --first-task 4 plays tasks 4, 5, 6.
      // No --history: eval takes H = 0 from the weights file's metadata.
      const e = cli('eval', [
        '--policy',
        best,
        '--split',
        'test-seen',
        '--first-task',
        '4',
        '--episodes',
        '3',
        '--backend',
        'cpu',
        '--json',
      ]);
      expect(e.code).toBe(0);
      const eps = e.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(eps.filter((x) => x.event === 'episode').map((x) => x.index)).toEqual([4, 5, 6]);
      expect(eps.at(-1)).toMatchObject({ event: 'summary', firstTask: 4, episodes: 3, historyTurns: 0 });
      const ex = cli('eval', [
        '--policy',
        'expert',
        '--split',
        'test-unseen',
        '--first-task',
        '100',
        '--episodes',
        '2',
        '--json',
      ]);
      expect(
        ex.out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .filter((x) => x.event === 'episode')
          .map((x) => x.index),
      ).toEqual([100, 101]);
      expect(cli('eval', ['--first-task', '-1']).code).toBe(2);
    },
  );

  it(
    'train --save to a path that passes the checks but cannot be written keeps the weights in the ' +
      'temporary folder (exit 1)',
    () => {
      const r = cli('train', [
        '--steps',
        '1',
        '--tasks',
        '2',
        '--group',
        '2',
        '--mini-batches',
        '2',
        '--eval-every',
        '0',
        '--save',
        '/proc/opd-w.safetensors',
      ]);
      expect(r.code).toBe(1);
      const m = /the weights are saved at (\S+) instead/.exec(r.err);
      expect(m).not.toBeNull();
      expect(fs.statSync(m![1]).size).toBeGreaterThan(100_000);
      fs.rmSync(m![1]);
    },
  );

  it(
    'train --profile: step events carry phaseMs (seven phases, ms, summing to at most the step time); ' +
      'without it they do not',
    () => {
      const args = [
        '--steps',
        '1',
        '--tasks',
        '2',
        '--group',
        '2',
        '--mini-batches',
        '2',
        '--eval-every',
        '0',
        '--json',
      ];
      const steps = (out: string) =>
        out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .filter((e) => e.event === 'step');
      const p = cli('train', [...args, '--profile']);
      expect(p.code).toBe(0);
      const [e] = steps(p.out);
      expect(Object.keys(e.phaseMs)).toEqual(['sample', 'env', 'old', 'ref', 'algorithm', 'update', 'guard']);
      const total = Object.values(e.phaseMs as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThan(0);
      expect(total).toBeLessThanOrEqual(e.stepMs + 1);
      for (const v of Object.values(e.phaseMs as Record<string, number>)) expect(v).toBeGreaterThanOrEqual(0);
      const q = cli('train', args);
      expect(steps(q.out)[0].phaseMs).toBeUndefined();
    },
  );

  it(
    'eval, pretrain and experiment: a near-miss of a choice names the choices and the one it most likely meant; ' +
      "eval refuses a model policy's flags with the expert or random policy",
    () => {
      expect(cli('eval', ['--split', 'test-seen,tset-unseen']).err.split('\n')[0]).toBe(
        'eval: --split: unknown split "tset-unseen" (accepted: train, test-seen, test-unseen, val, or ' +
          'several separated by commas); did you mean test-unseen?',
      );
      expect(cli('eval', ['--preset', 'esy']).err.split('\n')[0]).toBe(
        'eval: --preset: household has no preset "esy"; one of default, easy, easy-pick2; did you mean easy?',
      );
      expect(cli('eval', ['--policy', 'random', '--hints', 'step', '--temperature', '1']).err.split('\n')[0]).toBe(
        'eval: --hints, --temperature apply to a model policy (--policy base or a weights file); the random policy ' +
          'takes no hints and samples nothing: leave them out',
      );
      expect(cli('eval', ['--history=2']).err.split('\n')[0]).toBe(
        'eval: --history applies to a model policy (--policy base or a weights file); the expert policy takes no ' +
          'hints and samples nothing: leave it out',
      );
      expect(cli('eval', ['--hints', 'stp']).err.split('\n')[0]).toBe(
        'eval: --hints must be one of: none, episode, step, both, correct (got "stp"); did you mean step?',
      );
      expect(cli('pretrain', ['--preset', 'Default']).err.split('\n')[0]).toBe(
        'pretrain: --preset: household has no preset "Default"; one of default, easy, easy-pick2; did you mean ' +
          'default?',
      );
      expect(cli('experiment', ['opid-tabel']).err.split('\n')[0]).toBe(
        'experiment: the first argument names the experiment: opid-table (got "opid-tabel"); did you mean opid-table?',
      );
    },
  );

  it('eval rejects a bad split, a missing weights file and a corrupt one', () => {
    expect(cli('eval', ['--split', 'validation']).err).toMatch(
      new RegExp(
        '--split: unknown split "validation" ' +
          '\\(accepted: train, test-seen, test-unseen, val, or several separated by commas\\)',
      ),
    );
    const missing = cli('eval', ['--policy', '/nonexistent/w.safetensors']);
    expect(missing.code).toBe(2);
    expect(missing.err.split('\n')[0]).toBe(
      'eval: --policy: no weights file at "/nonexistent/w.safetensors" (expert, random, base or a ' +
        '.safetensors file written by train --save)',
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-'));
    const bad = path.join(dir, 'w.safetensors');
    fs.writeFileSync(bad, Buffer.alloc(64, 7));
    const corrupt = cli('eval', ['--policy', bad, '--backend', 'cpu']);
    expect(corrupt.code).toBe(2);
    expect(corrupt.err).toMatch(/weights file/);
  });

  it('eval --policy expert: the last JSON line is the summary with success 1 on test-unseen', () => {
    const r = cli('eval', [
      '--env',
      'household',
      '--preset',
      'default',
      '--split',
      'test-unseen',
      '--episodes',
      '30',
      '--policy',
      'expert',
      '--json',
    ]);
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
