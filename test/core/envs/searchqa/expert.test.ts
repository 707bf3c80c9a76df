/**
 * The searchqa expert (src/core/envs/searchqa/expert.ts): 100% success on every subset of every split (tasks 0–699;
 * the conformance suite runs 0–199), at most one search per hop then the answer (a search that returns two hops'
 * passages saves one); every question is answerable from the corpus
 * — the expert's searches return every hop's passage and the gold answer is written in one of them; its actions fit
 * the env's maxActionTokens with room to spare; it answers on the last step whatever it found, and has nothing to do
 * once the episode is over.
 */
import { describe, expect, it } from 'vitest';
import { buildTokenizer } from '../../../../src/core/model/policy';
import { actionTokens } from '../../../../src/core/rollout/prompt';
import { SPLITS } from '../../../../src/core/envs/types';
import { searchqa, type SearchQaEnv } from '../../../../src/core/envs/searchqa';
import { corpus } from '../../../../src/core/envs/searchqa/corpus';
import { hopQuery } from '../../../../src/core/envs/searchqa/expert';
import { SUBSETS } from '../../../../src/core/envs/searchqa/questions';

const TASKS = 700;

describe('searchqa expert', () => {
  const tok = buildTokenizer(searchqa);

  for (const split of SPLITS)
    it(`solves tasks 0–${TASKS - 1} of ${split}, every subset, from passages its searches returned`, () => {
      const env = searchqa.create('default') as SearchQaEnv;
      const expert = searchqa.expert(env);
      const solved: Record<string, [number, number]> = {};
      let longest = 0;
      for (let index = 0; index < TASKS; index++) {
        const r = env.reset({ split, index });
        const q = env.state.task.question;
        const shown: string[] = [];
        let st;
        do {
          const a = expert.act();
          longest = Math.max(longest, actionTokens(tok, a).length + 1);
          st = env.step(a);
          if (a.startsWith('search[')) shown.push(st.observation);
        } while (!st.done);
        const e = (solved[r.taskType] ??= [0, 0]);
        e[1]++;
        if (st.success && st.reward === 1 && env.steps <= q.hops.length + 1) e[0]++;
        // Answerable from the corpus: every hop's passage was shown, and the gold is written in one of them.
        const hops = q.hops.map((h) => corpus()[h]);
        for (const p of hops) expect(shown.some((o) => o.includes(`(Title: ${p.title}) ${p.text}`))).toBe(true);
        expect(hops.some((p) => p.title === q.golds[0] || p.text.includes(q.golds[0]))).toBe(true);
      }
      const types = split === 'train' || split === 'val' ? SUBSETS.filter((s) => s !== 'bamboogle') : SUBSETS;
      expect(Object.keys(solved).sort()).toEqual([...types].sort());
      for (const [type, [ok, n]] of Object.entries(solved)) expect(ok, `${split} ${type}`).toBe(n);
      expect(longest).toBeLessThanOrEqual(8);
      expect(longest).toBeLessThan(searchqa.maxActionTokens!);
    });

  it('searches by name, a TriviaQA clue by its facts', () => {
    const env = searchqa.create('default') as SearchQaEnv;
    const expert = searchqa.expert(env);
    env.reset({ split: 'test-seen', index: 3 });
    expect(expert.act()).toBe('search[Azure Bank]');
    env.step('search[Azure Bank]');
    expect(expert.act()).toBe('search[Mira Yarrow]');
    env.step('search[Mira Yarrow]');
    expect(expert.act()).toBe('answer[Silver Vale]');
    for (let i = 0; i < 200; i++) {
      env.reset({ split: 'train', index: i });
      const q = env.state.task.question;
      if (q.subset !== 'triviaqa') continue;
      expect(hopQuery(q, q.hops[0])).toBe(q.clue);
      expect(expert.act()).toBe(`search[${q.clue}]`);
    }
  });

  it('after a detour it picks up the next unfound hop, and answers on the last step whatever it found', () => {
    const env = searchqa.create('default') as SearchQaEnv;
    const expert = searchqa.expert(env);
    env.reset({ split: 'test-seen', index: 3 });
    env.step('xyzzy');
    env.step('search[Arvenia]');
    expect(expert.act()).toBe('search[Azure Bank]');
    env.step('search[Azure Bank]');
    // Step 4 of 4: Mira Yarrow's passage is still unfound, but only an answer can score now.
    expect(env.state.retrieved.has(env.state.task.question.hops[1])).toBe(false);
    expect(expert.act()).toBe('answer[Silver Vale]');
    expect(env.step(expert.act())).toMatchObject({ done: true, success: true });
    expect(() => expert.act()).toThrow('searchqa expert: the episode is done');
    // A search that returns two hops' passages saves a step: Mira Yarrow's search also shows the Azure Bank.
    env.reset({ split: 'test-seen', index: 3 });
    env.step('search[Mira Yarrow]');
    expect(expert.act()).toBe('answer[Silver Vale]');
  });
});
