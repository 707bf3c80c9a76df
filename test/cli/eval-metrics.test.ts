/**
 * `npm run eval` with an env that reports numbers besides the reward (searchqa's `StepResult.info`: EM, token F1 and
 * substring EM of the answer): the text output prints their means under the success line and a column each in the
 * per-type table (`metricText`: three decimals); `--json` adds `metrics` to every episode line, to the summary and to
 * each `byTaskType` entry; a model policy's split jobs run in worker threads (cli/eval-pool.ts) bring them back as
 * in this thread. An env that reports none prints as before (test/cli/eval-text.test.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { getEnvSpec } from '../../src/core/envs/registry';
import { buildTokenizer, createPolicy, disposePolicy, savePolicy } from '../../src/core/model/policy';
import { runEvalJob, type EvalJob } from '../../src/core/rollout/eval-job';
import { EvalPool } from '../../cli/eval-pool';
import { Rng } from '../../src/core/rng';
import { useBackend } from '../helpers/backend';

/** Run `npm run eval` with `args`. */
const evalCli = (args: string[]) =>
  spawnSync('node_modules/.bin/tsx', ['cli/eval.ts', '--env', 'searchqa', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });

describe('eval: the means of the env metrics', () => {
  const pool = new EvalPool(2, 'wasm');
  afterAll(() => pool.close());

  it("the expert's text output: EM, F1 and substring EM 1 overall and per subset", () => {
    const r = evalCli(['--policy', 'expert', '--split', 'test-seen', '--episodes', '14']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        'expert on searchqa/default test-seen: success 100.0% of 14 episodes (tasks 0..13)',
        '  mean em 1.000, f1 1.000, subEm 1.000',
        '  task type  success  episodes     em     f1  subEm',
        // subsets in the env's order (nq, triviaqa, popqa, hotpotqa, 2wiki, musique, bamboogle)
        '  nq          100.0%         1  1.000  1.000  1.000',
        '  triviaqa    100.0%         1  1.000  1.000  1.000',
        '  popqa       100.0%         2  1.000  1.000  1.000',
        '  hotpotqa    100.0%         4  1.000  1.000  1.000',
        '  2wiki       100.0%         3  1.000  1.000  1.000',
        '  musique     100.0%         3  1.000  1.000  1.000',
        '',
      ].join('\n'),
    );
  }, 120_000);

  it('--json: metrics on every episode line, in the summary and per task type', () => {
    const r = evalCli(['--policy', 'expert', '--split', 'test-unseen', '--episodes', '3', '--json']);
    expect(r.status).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const one = { em: 1, f1: 1, subEm: 1 };
    expect(lines.slice(0, 3).map((l) => [l.event, l.metrics])).toEqual([
      ['episode', one],
      ['episode', one],
      ['episode', one],
    ]);
    const summary = lines[3];
    expect(summary).toMatchObject({ event: 'summary', episodes: 3, successRate: 1, metrics: one });
    for (const v of Object.values(summary.byTaskType)) expect(v).toMatchObject({ metrics: one });
  }, 120_000);

  it("a model policy's jobs in worker threads bring the metrics back as in this thread", async () => {
    await useBackend('wasm');
    const spec = getEnvSpec('searchqa');
    const policy = createPolicy('nano', buildTokenizer(spec), new Rng(11).fork('init'));
    const weights = await savePolicy(policy, 'nano', { [spec.name]: spec.version });
    const job = (split: 'test-seen' | 'val'): EvalJob => ({
      env: 'searchqa',
      preset: 'default',
      split,
      firstTask: 0,
      episodes: 6,
      temperature: 1,
      decoding: 'admissible',
      historyTurns: 2,
      maxActionTokens: spec.maxActionTokens!,
      seed: 3,
      streams: [split],
      hints: 'none',
      episodeSkills: null,
    });
    const jobs = [job('test-seen'), job('val')];
    const here = [];
    for (const j of jobs) here.push(await runEvalJob(policy, spec, j));
    const there = await Promise.all(jobs.map((j) => pool.evaluate(j, weights)));
    expect(there).toEqual(here);
    for (const r of there) {
      expect(Object.keys(r.eval.metrics!)).toEqual(['em', 'f1', 'subEm']);
      expect(r.episodes.every((e) => e.metrics !== undefined)).toBe(true);
      for (const v of Object.values(r.eval.byTaskType)) expect(Object.keys(v.metrics!)).toEqual(['em', 'f1', 'subEm']);
    }
    disposePolicy(policy);
  }, 300_000);
});
