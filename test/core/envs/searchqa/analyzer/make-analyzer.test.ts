/**
 * The searchqa env's analyzers as a run builds them (`makeAnalyzer`, src/core/analyzer/index.ts): `--analyzer
 * heuristic` is the embedded one (K and failedOnly passed through, a bad K refused); the privileged `oracle` replays
 * searchqa tasks with its expert (the expert's plan as the episode skill, its actions, names in their case, at the
 * steps that differ); beside the expert's success the heuristic's every step skill names the action the oracle's
 * expert takes there (150 tasks, seeded sloppy policies); and the generic `http` analyzer's prompt for searchqa
 * carries the env's command forms, its worked examples and its passages quoted as `(i) text`.
 */
import { describe, expect, it } from 'vitest';
import { makeAnalyzer, type AnalyzerConfig } from '../../../../../src/core/analyzer';
import { replayExpert } from '../../../../../src/core/analyzer/oracle';
import { DEFAULT_HTTP_PROMPT, promptEnv, renderPrompt } from '../../../../../src/core/analyzer/prompt';
import { searchqa, SearchQaAnalyzer } from '../../../../../src/core/envs/searchqa';
import { SEARCHQA_PROMPT } from '../../../../../src/core/envs/searchqa/analyzer/prompt-examples';
import { readPassages } from '../../../../../src/core/envs/searchqa/analyzer/read';
import { Rng } from '../../../../../src/core/rng';
import { actionOf, play, playActions } from './helpers';

const T1 = { split: 'train', index: 1 } as const;

/** A run's analyzer fields for env searchqa. */
const config = (over: Partial<AnalyzerConfig> = {}): AnalyzerConfig => ({
  analyzer: 'heuristic',
  maxStepSkills: 2,
  failedOnly: false,
  analyzerUrl: 'http://127.0.0.1:9/v1',
  analyzerModel: 'none',
  analyzerTimeoutMs: 1000,
  env: 'searchqa',
  preset: 'default',
  ...over,
});

describe('searchqa analyzers through makeAnalyzer', () => {
  const win = playActions(T1, ['search[The Rising Compass]', 'search[Wystan Morrow]', 'answer[Raven Gate]']);
  const early = playActions(T1, ['search[The Rising Compass]', 'answer[Wystan Morrow]']);
  const withRefs = [win, early].map((r) => ({ ...r.traj, ref: r.ref }));

  it('heuristic on searchqa is the embedded analyzer; K and failedOnly pass through', async () => {
    const a = makeAnalyzer(config());
    expect(a).toBeInstanceOf(SearchQaAnalyzer);
    expect(await a.analyze({ env: 'searchqa', trajectories: [win.traj, early.traj] })).toEqual(
      SEARCHQA_PROMPT.examples.map((e) => e.skills),
    );
    expect(a.stats().calls).toBe(2);
    const only = makeAnalyzer(config({ failedOnly: true, maxStepSkills: 0 }));
    expect(await only.analyze({ env: 'searchqa', trajectories: [win.traj, early.traj] })).toEqual([
      null,
      { episodeSkill: SEARCHQA_PROMPT.examples[1].skills.episodeSkill, stepSkills: {} },
    ]);
    expect(() => makeAnalyzer(config({ maxStepSkills: -1 }))).toThrow('maxStepSkills must be an integer ≥ 0, got -1');
  });

  it('the oracle replays searchqa tasks: the expert plan, and its action as written where a step differs', async () => {
    const oracle = makeAnalyzer(config({ analyzer: 'oracle', maxStepSkills: 5 }));
    const out = await oracle.analyze({ env: 'searchqa', trajectories: withRefs });
    const plan = 'plan: search[The Rising Compass], then search[Wystan Morrow], then answer[Raven Gate].';
    expect(out).toEqual([
      { episodeSkill: plan, stepSkills: {} },
      { episodeSkill: plan, stepSkills: { 1: 'next, search[Wystan Morrow].' } },
    ]);
    expect(oracle.stats()).toMatchObject({ calls: 2, failures: 0 });
    // The heuristic names the same action at the failure's mistake.
    const heuristic = await makeAnalyzer(config()).analyze({ env: 'searchqa', trajectories: withRefs });
    expect(heuristic[1]?.stepSkills).toEqual(out[1]?.stepSkills);
  });

  it("beside the expert's success, a failure's every heuristic step skill names the expert's action", async () => {
    const rng = new Rng(7);
    let checked = 0;
    for (let index = 0; index < 150; index++) {
      const ref = { split: 'train', index } as const;
      const runs = [playActions(ref, [null, null, null, null])];
      for (let k = 0; k < 3; k++)
        runs.push(
          play(ref, (env, _step, _expert, obs) => {
            if (rng.next() < 0.5) return null;
            const titles = readPassages(obs).map((p) => p.title);
            const words = env.state.task.question.text.split(/[^A-Za-z0-9]+/).filter(Boolean);
            const c = rng.int(3);
            if (c === 0 && titles.length) return `answer[${rng.pick(titles)}]`;
            if (c === 1 && titles.length) return `search[${rng.pick(titles)}]`;
            return `search[${rng.pick(words)}]`;
          }),
        );
      const out = await makeAnalyzer(config({ maxStepSkills: 4 })).analyze({
        env: 'searchqa',
        trajectories: runs.map((r) => r.traj),
      });
      runs.forEach((r, k) => {
        if (r.traj.success) return;
        const { written } = replayExpert(searchqa, 'default', { ...r.traj, ref });
        for (const [i, skill] of Object.entries(out[k]!.stepSkills)) {
          expect(actionOf(skill), `${r.traj.task} | ${r.actions.join(' | ')}`).toBe(written[Number(i)]);
          checked++;
        }
      });
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('the http prompt for searchqa shows its command forms, worked examples and passages as (i) text', () => {
    const env = promptEnv(searchqa, 'default');
    expect(env.commands).toEqual(['search[…]', 'answer[…]']);
    expect(env.examples).toBe(SEARCHQA_PROMPT.examples);
    const { system, user } = renderPrompt(DEFAULT_HTTP_PROMPT, early.traj, 2, 200, env);
    expect(system).toContain("The environment's commands: search[…], answer[…].");
    expect(system).toContain(
      'Example (success; steps 0-2 were search[The Rising Compass], search[Wystan Morrow], answer[Raven Gate]):',
    );
    expect(system).toContain(
      '"episodeSkill":"avoid: answer[Wystan Morrow]. warning sign: the task target is a town. instead: ' +
        'search[Wystan Morrow]."',
    );
    const texts = readPassages(early.traj.steps[1].observation).map((p, i) => `(${i + 1}) ${p.text}`);
    expect(texts[0]).toBe('(1) The Rising Compass is a novel by Wystan Morrow, published in 1883.');
    expect(user).toContain(`step 1: obs=${JSON.stringify(texts.join(' '))} action="answer[Wystan Morrow]" return=0.00`);
    expect(() => searchqa.analyzerPrompt!('hard')).toThrow('searchqa: unknown preset "hard"; accepted: default');
  });
});
