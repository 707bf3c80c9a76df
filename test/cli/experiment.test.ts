/**
 * `npm run experiment -- opid-table` end to end at a tiny size: six methods × one seed, each a run directory; the
 * table (md, json; the json reads back with the page's parser, curves included) and the curves (svg) are written; a
 * second call on the same folder runs nothing and prints the same table. Bad input exits 2, as does a folder whose runs
 * were made with other settings (run.json's config, else the start line's) or whose finished runs have a corrupt line
 * or lack an evaluation. `--protocol reference`: the four runs of the OPID authors' protocol with its settings in
 * run.json, the protocol and the named comparisons in table.json, a second call that trains nothing, the protocol's
 * defaults, and a folder of one protocol refused under the other.
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseResultsTable } from '../../src/core/run/table-schema';

const run = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/experiment.ts', ...args], { encoding: 'utf8', timeout: 1_200_000 });

describe('experiment opid-table', () => {
  it('runs every method, writes the table, and a second call does no work', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-table-'));
    const args = [
      'opid-table',
      '--preset',
      'easy',
      '--seeds',
      '1',
      '--steps',
      '1',
      '--episodes',
      '2',
      '--eval-every',
      '1',
      '--tasks',
      '1',
      '--group',
      '2',
      '--parallel',
      '2',
      '--out',
      out,
    ];
    const a = run(args);
    expect(a.stderr).toBe('');
    expect(a.status).toBe(0);
    expect(a.stdout).toMatch(/0 of 6 runs already finished; 6 to run, 2 at a time/);
    const table = fs.readFileSync(path.join(out, 'table.md'), 'utf8');
    for (const m of ['grpo', 'opid', 'opid-no-episode', 'opid-no-step', 'opid-additive', 'skill-grpo']) {
      expect(table).toContain(`| ${m} | 1 |`);
      expect(fs.existsSync(path.join(out, `${m}-1.jsonl`))).toBe(true);
    }
    const json = JSON.parse(fs.readFileSync(path.join(out, 'table.json'), 'utf8'));
    expect(json.final.map((r: { method: string }) => r.method)).toEqual([
      'grpo',
      'opid',
      'opid-no-episode',
      'opid-no-step',
      'opid-additive',
      'skill-grpo',
    ]);
    expect(json.final[0].diff['test-seen']).toBeNull();
    expect(json.final[1].diff['test-seen'].n).toBe(1);
    // table.json is version 2 and reads back with the page's parser; each method's curve has its evaluations at steps 0
    // and 1
    const parsed = parseResultsTable(fs.readFileSync(path.join(out, 'table.json'), 'utf8'));
    expect([parsed.format, parsed.version, parsed.baseline, parsed.command]).toEqual([
      'opd-table',
      2,
      'grpo',
      `npm run experiment -- ${args.join(' ')}`,
    ]);
    expect(parsed.curves!.map((c) => [c.method, c.steps])).toEqual(
      json.final.map((r: { method: string }) => [r.method, [0, 1]]),
    );
    expect(parsed.curves![0].splits['test-seen'][1]!.mean).toBe(parsed.final[0].cells['test-seen'].mean);
    expect(fs.readFileSync(path.join(out, 'curves.svg'), 'utf8')).toMatch(/^<svg/);
    const b = run(args);
    expect(b.status).toBe(0);
    expect(b.stdout).toMatch(/6 of 6 runs already finished; 0 to run/);
    expect(fs.readFileSync(path.join(out, 'table.md'), 'utf8')).toBe(table);

    // Damaged or foreign finished runs are refused before anything is trained or written, naming the file and the fix.
    const damaged = (name: string, damage: (dir: string) => void) => {
      const copy = fs.mkdtempSync(path.join(os.tmpdir(), `opd-table-${name}-`));
      fs.cpSync(out, copy, { recursive: true });
      damage(copy);
      const before = fs.readFileSync(path.join(copy, 'table.md'), 'utf8');
      const r = run(args.map((x) => (x === out ? copy : x)));
      expect(r.status).toBe(2);
      expect(fs.readFileSync(path.join(copy, 'table.md'), 'utf8')).toBe(before);
      fs.rmSync(copy, { recursive: true, force: true });
      return r.stderr;
    };
    const events = (dir: string, run: string) => path.join(dir, 'runs', run, 'events.jsonl');
    // every run records the sha256 of the base policy it began from (the shipped household-easy weights)
    const baseSha = crypto
      .createHash('sha256')
      .update(fs.readFileSync('public/base/household-easy.safetensors'))
      .digest('hex');
    const recorded = (d: string, r: string) => JSON.parse(fs.readFileSync(path.join(d, 'runs', r, 'run.json'), 'utf8'));
    expect(recorded(out, 'grpo-1').initSha256).toBe(baseSha);
    // a run begun from another base policy (the shipped one replaced since): refused, naming both hashes
    expect(
      damaged('base', (d) => {
        const r = recorded(d, 'opid-1');
        fs.writeFileSync(
          path.join(d, 'runs', 'opid-1', 'run.json'),
          JSON.stringify({ ...r, initSha256: 'ab'.repeat(32) }),
        );
      }),
    ).toMatch(
      new RegExp(
        '^experiment: \\S+opd-table-base-\\w+ holds runs begun from another base policy ' +
          '\\(\\S+/runs/opid-1/run\\.json: ' +
          `"initSha256" abababab…; public/base/household-easy\\.safetensors is now ${baseSha.slice(0, 8)}…\\); ` +
          'restore that base policy \\(its weights and manifest, e\\.g\\. from git history\\) to continue that ' +
          "table, move the run's folder away \\(it is trained again from step 0\\) or use another --out\n$",
      ),
    );
    // a value that is no sha256: named as such, not read as another base
    expect(
      damaged('base-bad', (d) => {
        const r = recorded(d, 'opid-1');
        fs.writeFileSync(path.join(d, 'runs', 'opid-1', 'run.json'), JSON.stringify({ ...r, initSha256: 'xyz' }));
      }),
    ).toMatch(
      new RegExp(
        'runs/opid-1/run\\.json: field "initSha256" must be the hex sha256 of the weights the run began from ' +
          '\\(64 digits 0-9a-f\\), got "xyz"; restore the file, or move the run\'s folder away',
      ),
    );
    // another method's run in OPID's folder (a copy between tables gone wrong)
    expect(
      damaged('foreign', (d) => {
        fs.rmSync(path.join(d, 'runs', 'opid-1'), { recursive: true });
        fs.cpSync(path.join(d, 'runs', 'skill-grpo-1'), path.join(d, 'runs', 'opid-1'), { recursive: true });
      }),
    ).toMatch(
      new RegExp(
        'holds runs made with other settings ' +
          '\\(opid-1 algo skill-grpo → opid;.* ' +
          'opid-1 lambdaSkill 0\\.3 → 0\\.1',
      ),
    );
    // without run.json the start line's config is compared: another seed
    expect(
      damaged('seed', (d) => {
        fs.rmSync(path.join(d, 'runs', 'grpo-1', 'run.json'));
        const f = events(d, 'grpo-1');
        fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('"seed":1,', '"seed":7,'));
      }),
    ).toMatch(/\(grpo-1 seed 7 → 1\)/);
    // a garbled evaluation line: named by file and line, not skipped
    expect(
      damaged('garbled', (d) => {
        const f = events(d, 'grpo-1');
        fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('"successRate":', '"successRate":"zz,'));
      }),
    ).toMatch(
      /runs\/grpo-1\/events\.jsonl line \d+: not valid JSON \(a cut or corrupt line\); repair or delete that line/,
    );
    // the last evaluation deleted: the final row would fall back to step 0
    expect(
      damaged('lost-eval', (d) => {
        const f = events(d, 'grpo-1');
        const lines = fs.readFileSync(f, 'utf8').split('\n');
        let last = -1;
        lines.forEach((l, i) => (last = l.includes('"event":"eval"') ? i : last));
        fs.writeFileSync(f, lines.filter((_, i) => i !== last).join('\n'));
      }),
    ).toMatch(
      new RegExp(
        'grpo-1\\/events\\.jsonl: the run finished but holds no evaluation at step 1; ' +
          "restore the file, or move the run's folder away",
      ),
    );
    // a `done` line cut by a stop mid-write: refused, named; with the line deleted the run counts as finished
    // (its checkpoint is at the last step) and the table is the same
    const cut = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-table-cut-'));
    fs.cpSync(out, cut, { recursive: true });
    const f = events(cut, 'opid-1');
    const text = fs.readFileSync(f, 'utf8').trimEnd();
    const doneAt = text.lastIndexOf('\n') + 1;
    expect(text.slice(doneAt)).toMatch(/^\{"event":"done"/);
    fs.writeFileSync(f, text.slice(0, doneAt + 12));
    const cutArgs = args.map((x) => (x === out ? cut : x));
    const c1 = run(cutArgs);
    expect(c1.status).toBe(2);
    expect(c1.stderr).toMatch(
      /opid-1\/events\.jsonl line \d+: not valid JSON \(a cut or corrupt line\); repair or delete that line/,
    );
    fs.writeFileSync(f, text.slice(0, doneAt));
    const c2 = run(cutArgs);
    expect(c2.status).toBe(0);
    expect(c2.stdout).toMatch(/6 of 6 runs already finished; 0 to run/);
    expect(fs.readFileSync(path.join(cut, 'table.md'), 'utf8')).toBe(table.replaceAll(out, cut));
    fs.rmSync(cut, { recursive: true, force: true });
    fs.rmSync(out, { recursive: true, force: true });
  });

  it(
    'writes the table so far after every finished run, so a call stopped mid-table leaves it ' + '(INCOMPLETE)',
    async () => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-table-stop-'));
      const args = [
        'opid-table',
        '--preset',
        'easy',
        '--seeds',
        '1',
        '--steps',
        '1',
        '--episodes',
        '2',
        '--eval-every',
        '1',
        '--tasks',
        '1',
        '--group',
        '2',
        '--parallel',
        '1',
        '--out',
        out,
      ];
      const child = spawn('node_modules/.bin/tsx', ['cli/experiment.ts', ...args], {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const tableMd = path.join(out, 'table.md');
      // stop the whole call (its train child too) once the first run's table is on disk
      await new Promise<void>((resolve, reject) => {
        const t = setInterval(() => {
          if (stdout.includes('runs finished 1/6') && fs.existsSync(tableMd)) {
            clearInterval(t);
            process.kill(-child.pid!, 'SIGKILL');
            resolve();
          }
        }, 50);
        child.on(
          'close',
          () => (clearInterval(t), reject(new Error(`the call ended before it was stopped:\n${stdout}`))),
        );
      });
      const table = fs.readFileSync(tableMd, 'utf8');
      expect(table).toContain('INCOMPLETE: 5 of 6 runs have not finished; call the command again to continue them');
      expect(table).toContain('| grpo | 1 |');
      expect(table).not.toContain('| opid | 1 |');
      expect(fs.existsSync(path.join(out, 'grpo-1.jsonl'))).toBe(true);
      expect(
        JSON.parse(fs.readFileSync(path.join(out, 'table.json'), 'utf8')).final.map(
          (r: { method: string; n?: number }) => r.method,
        ),
      ).toContain('grpo');
      fs.rmSync(out, { recursive: true, force: true });
    },
  );

  it("--protocol reference: the authors' four rows with their configs, the comparisons, resumable", () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-table-ref-'));
    const args = [
      'opid-table',
      '--protocol',
      'reference',
      '--preset',
      'easy',
      '--seeds',
      '1',
      '--steps',
      '2',
      '--episodes',
      '2',
      '--eval-every',
      '2',
      '--tasks',
      '1',
      '--group',
      '2',
      '--parallel',
      '2',
      '--out',
      out,
    ];
    const a = run(args);
    expect(a.stderr).toBe('');
    expect(a.status).toBe(0);
    expect(a.stdout).toMatch(/0 of 4 runs already finished; 4 to run, 2 at a time/);
    const config = (m: string) =>
      JSON.parse(fs.readFileSync(path.join(out, 'runs', `${m}-1`, 'run.json'), 'utf8')).config;
    // the protocol's shared settings (docs/experiments/opid-protocols.md, COMMON), mini-batches capped at B·G = 2
    const common = {
      env: 'household',
      preset: 'easy',
      model: 'nano',
      init: 'base',
      seed: 1,
      steps: 2,
      tasksPerStep: 1,
      groupSize: 2,
      historyTurns: 5,
      decoding: 'admissible',
      temperature: 1,
      advGroupBy: 'step',
      advEps: 1e-6,
      invalidPenalty: 0,
      stepAdvWeight: 0,
      clipEps: 0.2,
      clipEpsHigh: 0,
      dualClip: 3,
      lossAgg: 'token-mean',
      miniBatches: 2,
      ppoEpochs: 1,
      learningRate: 1e-4,
      lrSchedule: 'constant',
      adamBeta1: 0.9,
      adamBeta2: 0.999,
      maxGradNorm: 1,
      oldLogProbs: 'sampler',
      evalEvery: 2,
      evalEpisodes: 2,
      evalTemperature: 0.4,
      checkpointEvery: 10,
    };
    const opid = {
      algo: 'opid',
      advNorm: 'mean-std',
      klBeta: 0.01,
      entropyCoef: 0.001,
      lambdaSkill: 0.001,
      skillClip: 0,
      skillZscore: false,
      ablation: 'none',
      episodeSkillOnSearch: true,
      maxStepSkills: 5,
      failedOnly: false,
      silentSkillScale: 1,
      skillTopK: 0,
    };
    const rows: Record<string, Record<string, unknown>> = {
      'grpo-mean': { algo: 'grpo', advNorm: 'mean-only', klBeta: 0.001, entropyCoef: 0.0001 },
      'grpo-mean-std': { algo: 'grpo', advNorm: 'mean-std', klBeta: 0.01, entropyCoef: 0.001 },
      'opid-ref': { ...opid, analyzer: 'heuristic' },
      'opid-ref-oracle': { ...opid, analyzer: 'oracle' },
    };
    for (const [m, own] of Object.entries(rows)) {
      expect(config(m), m).toMatchObject({ ...common, ...own });
      expect(fs.existsSync(path.join(out, `${m}-1.jsonl`))).toBe(true);
    }
    const table = fs.readFileSync(path.join(out, 'table.md'), 'utf8');
    const json = fs.readFileSync(path.join(out, 'table.json'), 'utf8');
    const parsed = parseResultsTable(json);
    expect([parsed.protocol, parsed.baseline, parsed.command]).toEqual([
      'reference',
      'grpo-mean',
      `npm run experiment -- ${args.join(' ')}`,
    ]);
    expect(parsed.final.map((r) => r.method)).toEqual(Object.keys(rows));
    const comparisons = [
      ['normalisation', 'grpo-mean-std', 'grpo-mean'],
      ['skill term, heuristic', 'opid-ref', 'grpo-mean-std'],
      ['skill term, oracle', 'opid-ref-oracle', 'grpo-mean-std'],
      ['as published', 'opid-ref', 'grpo-mean'],
    ];
    for (const pick of ['final', 'best'] as const) {
      expect(parsed.comparisons![pick].map((c) => [c.label, c.method, c.baseline])).toEqual(comparisons);
      // each is the paired difference of the two rows' cells (one seed: their difference)
      for (const c of parsed.comparisons![pick]) {
        const cell = (m: string) => parsed[pick].find((r) => r.method === m)!.cells['test-seen'].mean;
        expect(c.diff['test-seen']!.mean).toBeCloseTo(cell(c.method) - cell(c.baseline), 12);
      }
    }
    for (const [label, m, b] of comparisons) expect(table).toContain(`| ${label}: ${m} − ${b} | 1 |`);
    expect(table).toContain("# OPID authors' reference protocol: decomposition table");
    expect(table).toContain('- opid-ref-oracle: --algo opid --adv-norm mean-std --kl-beta 0.01');

    // a second call trains nothing and writes the same table
    const b = run(args);
    expect(b.status).toBe(0);
    expect(b.stdout).toMatch(/4 of 4 runs already finished; 0 to run/);
    expect(fs.readFileSync(path.join(out, 'table.md'), 'utf8')).toBe(table);
    expect(fs.readFileSync(path.join(out, 'table.json'), 'utf8')).toBe(json);

    // a clone holds the events but not the ignored ckpt-<k> files: a run cut after its step-1 checkpoint event, its
    // files gone, is trained again from step 0 (not refused by train --resume), and the table comes out the same
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-table-ref-clone-'));
    fs.cpSync(out, clone, { recursive: true });
    const dir = path.join(clone, 'runs', 'opid-ref-1');
    const lines = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trimEnd().split('\n');
    const step1 = lines.findIndex((l) => l.startsWith('{"event":"step","step":1,'));
    const ckpt = lines.find((l) => l.startsWith('{"event":"checkpoint","step":2,'))!;
    expect(step1).toBeGreaterThan(0);
    const cutLines = [...lines.slice(0, step1 + 1), ckpt.replace('"step":2,', '"step":1,').replaceAll('-2.', '-1.')];
    fs.writeFileSync(path.join(dir, 'events.jsonl'), cutLines.join('\n') + '\n');
    for (const f of fs.readdirSync(dir)) if (f.startsWith('ckpt-')) fs.rmSync(path.join(dir, f));
    const cloneArgs = args.map((x) => (x === out ? clone : x));
    const r = run(cloneArgs);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      'opid-ref-1: no checkpoint to continue from (stopped before its first, or its ckpt-<k> files are not in this ' +
        'checkout); training it again from step 0',
    );
    expect(r.stdout).toMatch(/3 of 4 runs already finished; 1 to run/);
    expect(fs.readFileSync(path.join(clone, 'table.json'), 'utf8')).toBe(json.replaceAll(out, clone));
    fs.rmSync(clone, { recursive: true, force: true });

    // the same folder under the default protocol: refused, nothing trained or written
    const c = run(args.filter((x, i) => x !== '--protocol' && args[i - 1] !== '--protocol'));
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(
      new RegExp(
        'holds a table of --protocol reference ' +
          '\\(runs grpo-mean-1, grpo-mean-std-1, opid-ref-1, opid-ref-oracle-1\\), not of --protocol table; ' +
          'give --protocol reference to continue that table, or another --out for a new one',
      ),
    );
    expect(fs.readdirSync(path.join(out, 'runs')).sort()).toEqual(
      Object.keys(rows)
        .map((m) => `${m}-1`)
        .sort(),
    );
    expect(fs.readFileSync(path.join(out, 'table.md'), 'utf8')).toBe(table);
    fs.rmSync(out, { recursive: true, force: true });
  });

  it("--protocol reference: the protocol's defaults; a folder of the table protocol is refused", () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-exp-'));
    fs.mkdirSync(path.join(out, 'runs', 'grpo-1'), { recursive: true });
    fs.writeFileSync(path.join(out, 'runs', 'grpo-1', 'run.json'), JSON.stringify({ config: { steps: 100 } }));
    const r = run(['opid-table', '--protocol', 'reference', '--out', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /holds a table of --protocol table \(runs grpo-1\), not of --protocol reference; give --protocol table to/,
    );
    // the header, printed before the check: B 16 × G 8, 160 steps, evaluation every 20, mini-batches 13
    expect(r.stdout).toContain(
      '160 steps of B 16 × G 8, 3 seeds per method, evaluation every 20 steps on 210 episodes',
    );
    expect(r.stdout).toMatch(/--steps 160 --tasks 16 --group 8 --history 5 --decoding admissible .* --mini-batches 13/);
    expect(r.stdout).toMatch(/--eval-every 20 --eval-episodes 210 --eval-temperature 0\.4 --checkpoint-every 10 /);
    // each default still gives way to its flag
    const s = run(['opid-table', '--protocol', 'reference', '--steps', '30', '--tasks', '2', '--out', out]);
    expect(s.status).toBe(2);
    expect(s.stdout).toContain('30 steps of B 2 × G 8,');
    expect(s.stdout).toContain('--mini-batches 13 ');
    // a table.json that records the other protocol is refused too (no runs needed)
    fs.rmSync(path.join(out, 'runs', 'grpo-1'), { recursive: true });
    fs.writeFileSync(path.join(out, 'table.json'), JSON.stringify({ protocol: 'reference' }));
    const t = run(['opid-table', '--seeds', '1', '--steps', '3', '--out', out]);
    expect(t.status).toBe(2);
    expect(t.stderr).toMatch(/holds a table of --protocol reference \(table\.json\), not of --protocol table/);
    expect(fs.readdirSync(path.join(out, 'runs'))).toEqual([]);
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('names the experiment and bad flags (exit 2)', () => {
    const r = run(['table']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/the first argument names the experiment: opid-table \(got "table"\)/);
    const s = run(['opid-table', '--seeds', '0']);
    expect(s.status).toBe(2);
    expect(s.stderr).toMatch(/--seeds/);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'opd-exp-')), 'a-file');
    fs.writeFileSync(file, 'x');
    const f = run(['opid-table', '--out', file]);
    expect(f.status).toBe(2);
    expect(f.stderr).toMatch(/--out .*a-file: cannot make the folder .*\(ENOTDIR\); give a folder/);
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
    const e = run(['opid-table', '--out', '']);
    expect(e.status).toBe(2);
    expect(e.stderr).toMatch(/--out needs a folder \(got an empty value\); give a path, e\.g\. --out runs\/opid-table/);
    const p = run(['opid-table', '--protocol', 'ref']);
    expect(p.status).toBe(2);
    expect(p.stderr).toContain(
      '--protocol must be one of: table, reference, map-easy, map-update (got "ref"); did you mean reference?',
    );
  });

  it('refuses a folder whose runs were made with other settings, naming them (nothing trained or rewritten)', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-exp-'));
    fs.mkdirSync(path.join(out, 'runs', 'grpo-1'), { recursive: true });
    const cfg = { preset: 'default', steps: 2, tasksPerStep: 4, groupSize: 8, evalEvery: 1, evalEpisodes: 4 };
    fs.writeFileSync(path.join(out, 'runs', 'grpo-1', 'run.json'), JSON.stringify({ config: cfg }));
    const r = run(['opid-table', '--seeds', '1', '--steps', '3', '--episodes', '4', '--eval-every', '1', '--out', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        'holds runs made with other settings \\(grpo-1 steps 2 → 3\\); ' +
          'give the settings they were made with to continue that table, or another --out for a new one',
      ),
    );
    expect(fs.readdirSync(path.join(out, 'runs'))).toEqual(['grpo-1']);
    expect(fs.existsSync(path.join(out, 'table.md'))).toBe(false);
  });
});
