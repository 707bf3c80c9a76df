/**
 * The worker builds the page run's analyzer: `http` with the page's key and prompt template (sent apart
 * from the config), nothing for `heuristic`, `oracle` and `grpo` (the trainer's default). The key never enters the
 * config the trainer gets; a key set after a run started waits for the next run.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRunConfig, type RunConfig } from '../../src/core/run/config';
import type { TrainEvent } from '../../src/core/train/events';
import { HttpAnalyzer } from '../../src/core/analyzer/http';
import { DEFAULT_HTTP_PROMPT } from '../../src/core/analyzer/prompt';
import type { Analyzer } from '../../src/core/analyzer/types';
import { runAnalyzer } from '../../src/worker/analyzer';
import { makeAnalyzer } from '../../src/core/analyzer';
import { OracleAnalyzer } from '../../src/core/analyzer/oracle';
import { TrainingSession, type TrainFn } from '../../src/worker/session';

const KEY = 'sk-worker-test-key-42';
const TEMPLATE = { system: 'CUSTOM SYSTEM: write skills for {task}', user: 'CUSTOM USER {steps}' };
const HTTP: Partial<RunConfig> = {
  algo: 'opid',
  analyzer: 'http',
  analyzerUrl: 'http://127.0.0.1:9',
  analyzerModel: 'tiny',
  steps: 2,
  evalEvery: 0,
  tasksPerStep: 1,
  groupSize: 2,
  miniBatches: 1,
};

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(null));
  server = undefined;
});

describe('runAnalyzer', () => {
  it('leaves grpo and the heuristic analyzer to the trainer', () => {
    expect(
      runAnalyzer(parseRunConfig({ algo: 'grpo', analyzer: 'http', analyzerUrl: 'http://x', analyzerModel: 'm' }), {
        apiKey: KEY,
      }),
    ).toBeUndefined();
    expect(runAnalyzer(parseRunConfig({ algo: 'opid' }), { apiKey: KEY })).toBeUndefined();
  });

  it("oracle (privileged): left to the trainer, whose default factory builds it from the run's env and preset", () => {
    const cfg = parseRunConfig({ algo: 'opid', analyzer: 'oracle', preset: 'default' });
    expect(runAnalyzer(cfg, { apiKey: KEY, promptTemplate: TEMPLATE })).toBeUndefined();
    const a = makeAnalyzer(cfg);
    expect(a).toBeInstanceOf(OracleAnalyzer);
    expect(a.name).toBe('oracle');
  });

  it('http: sends the page template and the key (only in the header)', async () => {
    const seen: { headers: IncomingHttpHeaders; body: { messages: { content: string }[] } }[] = [];
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body: JSON.parse(raw) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            choices: [{ message: { content: '{"episodeSkill": "<script>x</script>", "stepSkills": {"0": "s"}}' } }],
          }),
        );
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const a = runAnalyzer(parseRunConfig({ ...HTTP, analyzerUrl: url }), { apiKey: KEY, promptTemplate: TEMPLATE });
    expect(a).toBeInstanceOf(HttpAnalyzer);
    const traj = {
      task: 'put an apple in fridge.',
      success: false,
      finalObservation: 'x',
      steps: [{ observation: 'o', action: 'go to fridge 1', valid: true, return: 0 }],
    };
    const r = await a!.analyze({ env: 'household', trajectories: [traj] });
    expect(r).toEqual([{ episodeSkill: '<script>x</script>', stepSkills: { 0: 's' } }]);
    expect(seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0].body.messages[0].content).toBe('CUSTOM SYSTEM: write skills for put an apple in fridge.');
    expect(seen[0].body.messages[1].content).toMatch(/^CUSTOM USER step 0: /);
    expect(JSON.stringify(seen[0].body)).not.toContain(KEY);
    expect(JSON.stringify(a!.stats())).not.toContain(KEY);
  });

  it('http without a template uses the default prompt', async () => {
    const a = runAnalyzer(parseRunConfig(HTTP), {}) as HttpAnalyzer;
    expect(a).toBeInstanceOf(HttpAnalyzer);
    expect(a.endpoint).toBe('http://127.0.0.1:9/v1/chat/completions');
    expect(DEFAULT_HTTP_PROMPT.system).toContain('{K}');
  });
});

describe('TrainingSession analyzer extras', () => {
  /** A trainer that records the options of each run and yields one step per pull. */
  function recorder() {
    const runs: { config: RunConfig; analyzer?: Analyzer }[] = [];
    const trainFn: TrainFn = async function* (config, opts) {
      runs.push({ config, analyzer: opts.analyzer });
      yield { event: 'start', config, backend: 'cpu', params: 1, vocabSize: 1 } as TrainEvent;
      for (let step = 1; step <= config.steps; step++) {
        yield { event: 'step', step } as TrainEvent;
        yield { event: 'trajectories', step, group: [] };
      }
      yield { event: 'done', steps: config.steps, elapsedMs: 0, undoneSteps: 0, shrunkSteps: 0, envVersions: {} };
    };
    return { runs, trainFn };
  }

  it('passes an http analyzer built from the key set before the run; the config never holds the key', async () => {
    const { runs, trainFn } = recorder();
    const s = new TrainingSession(trainFn, () => 'cpu');
    s.setAnalyzerExtras({ apiKey: KEY, promptTemplate: TEMPLATE });
    await s.configure(HTTP);
    await s.stepOnce(() => undefined);
    expect(runs).toHaveLength(1);
    expect(runs[0].analyzer).toBeInstanceOf(HttpAnalyzer);
    expect(JSON.stringify(runs[0].config)).not.toContain(KEY);
  });

  it('a started run keeps its analyzer; the next configured run gets the new extras', async () => {
    const { runs, trainFn } = recorder();
    const s = new TrainingSession(trainFn, () => 'cpu');
    await s.configure(HTTP);
    await s.stepOnce(() => undefined);
    const first = runs[0].analyzer;
    s.setAnalyzerExtras({ apiKey: KEY });
    await s.stepOnce(() => undefined);
    expect(runs).toHaveLength(1); // same generator, same analyzer
    await s.configure(HTTP);
    await s.stepOnce(() => undefined);
    expect(runs).toHaveLength(2);
    expect(runs[1].analyzer).not.toBe(first);
  });

  it('grpo and heuristic runs get no analyzer from the worker', async () => {
    const { runs, trainFn } = recorder();
    const s = new TrainingSession(trainFn, () => 'cpu');
    s.setAnalyzerExtras({ apiKey: KEY });
    await s.configure({ ...HTTP, analyzer: 'heuristic' });
    await s.stepOnce(() => undefined);
    await s.configure({ ...HTTP, algo: 'grpo' });
    await s.stepOnce(() => undefined);
    expect(runs.map((r) => r.analyzer)).toEqual([undefined, undefined]);
  });
});
