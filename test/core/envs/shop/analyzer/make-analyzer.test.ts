/**
 * The shop's embedded analyzer as a run builds it: `makeAnalyzer` (src/core/analyzer/index.ts) with `--analyzer
 * heuristic` on env shop returns it (K and failedOnly passed through, a bad K refused); on a missed option its step
 * skill names the action the privileged oracle (the expert) names there; and the generic `http` analyzer's prompt for
 * shop carries the env's command forms and worked examples.
 */
import { describe, expect, it } from 'vitest';
import { makeAnalyzer, type AnalyzerConfig } from '../../../../../src/core/analyzer';
import { DEFAULT_HTTP_PROMPT, promptEnv, renderPrompt } from '../../../../../src/core/analyzer/prompt';
import { shop, ShopAnalyzer } from '../../../../../src/core/envs/shop';
import { SHOP_PROMPT } from '../../../../../src/core/envs/shop/analyzer/prompt-examples';
import { playActions } from './helpers';

const T7 = { split: 'train', index: 7 } as const;
const Q7 = 'search[short sleeve moisture wicking cotton blend polo shirt olive green xx-large]';

/** A run's analyzer fields for env shop. */
const config = (over: Partial<AnalyzerConfig> = {}): AnalyzerConfig => ({
  analyzer: 'heuristic',
  maxStepSkills: 5,
  failedOnly: false,
  analyzerUrl: 'http://127.0.0.1:9/v1',
  analyzerModel: 'none',
  analyzerTimeoutMs: 1000,
  env: 'shop',
  preset: 'default',
  ...over,
});

describe('shop analyzer through makeAnalyzer', () => {
  const win = playActions(T7, Array(10).fill(null));
  const miss = playActions(T7, [Q7, 'click[b55q83]', 'click[olive green]', 'click[buy now]']);
  const withRefs = [win, miss].map((r) => ({ ...r.traj, ref: r.ref }));

  it('heuristic on shop is the embedded analyzer; K and failedOnly pass through', async () => {
    const a = makeAnalyzer(config());
    expect(a).toBeInstanceOf(ShopAnalyzer);
    expect(a.name).toBe('heuristic');
    const out = await a.analyze({ env: 'shop', trajectories: [win.traj, miss.traj] });
    expect(out[0]?.episodeSkill).toBe(
      `plan: ${Q7}, then click[b55q83], then click[olive green], then click[xx-large], then click[buy now].`,
    );
    expect(Object.keys(out[0]!.stepSkills)).toEqual(['0', '1', '2', '3', '4']);
    expect(out[1]).toEqual(SHOP_PROMPT.examples[1].skills);
    expect(a.stats().calls).toBe(2);

    const only = makeAnalyzer(config({ failedOnly: true, maxStepSkills: 0 }));
    expect(await only.analyze({ env: 'shop', trajectories: [win.traj, miss.traj] })).toEqual([
      null,
      { episodeSkill: SHOP_PROMPT.examples[1].skills.episodeSkill, stepSkills: {} },
    ]);
    expect(only.stats().calls).toBe(1);
    expect(() => makeAnalyzer(config({ maxStepSkills: -2 }))).toThrow('maxStepSkills must be an integer ≥ 0, got -2');
  });

  it('on the missed option the heuristic names what the privileged oracle names at the mistake', async () => {
    const heuristic = await makeAnalyzer(config()).analyze({ env: 'shop', trajectories: withRefs });
    const oracle = await makeAnalyzer(config({ analyzer: 'oracle' })).analyze({ env: 'shop', trajectories: withRefs });
    expect(oracle[1]?.stepSkills).toEqual({ 3: 'next, click[xx-large].' });
    expect(heuristic[1]?.stepSkills).toEqual(oracle[1]?.stepSkills);
    // The oracle's plan is the expert's, which the successful trajectory followed.
    expect(heuristic[0]?.episodeSkill).toBe(oracle[0]?.episodeSkill);
  });

  it('the http prompt for shop shows its command forms and worked examples', () => {
    const env = promptEnv(shop, 'default');
    expect(env.commands).toEqual(['search[…]', 'click[…]']);
    expect(env.examples).toBe(SHOP_PROMPT.examples);
    const { system } = renderPrompt(DEFAULT_HTTP_PROMPT, miss.traj, 5, 200, env);
    expect(system).toContain("The environment's commands: search[…], click[…].");
    expect(system).toContain(`Example (success; steps 0-4 were ${Q7}, click[b55q83], click[olive green],`);
    expect(system).toContain(
      '"episodeSkill":"avoid: click[buy now]. warning sign: the task names size: xx-large. instead: click[xx-large]."',
    );
    expect(() => shop.analyzerPrompt!('hard')).toThrow('shop: unknown preset "hard"; accepted: default');
  });
});
