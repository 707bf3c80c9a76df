/**
 * searchqa actions and observations (src/core/envs/searchqa/env.ts; Search-R1's `execute_predictions` in the bracket
 * grammar): search results as `Doc i(Title: t) text` lines, answers scored by exact match with F1 and substring EM in
 * `info`, Search-R1's invalid-action message, `maxSteps` 4, and bad input — empty, 5 000 characters, punctuation
 * only, non-Latin, prompt-injection-like queries and answers, a `]` inside the argument (the first `]` ends the
 * action since searchqa-v2), answers with odd case, articles, punctuation, trailing periods and numbers written as
 * words. Expected passages are those of the pinned corpus (searchqa-v2, the same as v1's).
 */
import { describe, expect, it } from 'vitest';
import {
  ANSWER_CORRECT,
  ANSWER_WRONG,
  INVALID_ACTION,
  NO_RESULTS,
  START_OBSERVATION,
  SearchQaEnv,
  parseAction,
} from '../../../../src/core/envs/searchqa/env';
import { searchqa } from '../../../../src/core/envs/searchqa';
import { commandHint } from '../../../../src/core/envs/hint';

/** test-seen 3: `Where was the founder of the Azure Bank born?` (hotpotqa); golds `Silver Vale`, `…, Galvony`. */
const BRIDGE = { split: 'test-seen', index: 3 } as const;
/** test-seen 0: `when was the beacon union founded` (nq), gold 1866. */
const YEAR = { split: 'test-seen', index: 0 } as const;

const AZURE_BANK = [
  'Doc 1(Title: Azure Bank) The Azure Bank was founded by Mira Yarrow in 1851 and is based in Bramble Ford.',
  'Doc 2(Title: Azure League) The Azure League was founded by Elsa Ulver in 1873 and is based in Ash Point.',
  'Doc 3(Title: Azure Club) The Azure Club was founded by Petra Everard in 1926 and is based in Copper Harbour.',
].join('\n');

function fresh(ref: { split: 'test-seen'; index: number } = BRIDGE): SearchQaEnv {
  const env = new SearchQaEnv('default');
  env.reset(ref);
  return env;
}

describe('searchqa episode', () => {
  it('resets to the question, its subset and the start observation; both actions are open forms', () => {
    const env = new SearchQaEnv('default');
    expect(env.reset(BRIDGE)).toEqual({
      task: 'Where was the founder of the Azure Bank born?',
      taskType: 'hotpotqa',
      observation: START_OBSERVATION,
    });
    expect(env.admissibleActions()).toEqual(['search[', 'answer[']);
    expect(env.maxSteps).toBe(4);
    expect(START_OBSERVATION).toBe('Search with search[query], or give the final answer with answer[text].');
  });

  it('search[q] shows the top 3 passages as Search-R1 formats them; the hops then the answer solve the task', () => {
    const env = fresh();
    expect(env.step('search[Azure Bank]')).toEqual({
      observation: AZURE_BANK,
      reward: 0,
      done: false,
      valid: true,
      success: false,
    });
    const second = env.step('search[Mira Yarrow]');
    expect(second.observation.split('\n')[0]).toBe(
      'Doc 1(Title: Mira Yarrow) Mira Yarrow was a singer born in Silver Vale in 1820.',
    );
    expect(env.step('answer[Silver Vale]')).toEqual({
      observation: ANSWER_CORRECT,
      reward: 1,
      done: true,
      valid: true,
      success: true,
      info: { em: 1, f1: 1, subEm: 1 },
    });
    expect(env.steps).toBe(3);
    expect(env.admissibleActions()).toEqual([]);
    expect(() => env.step('answer[Silver Vale]')).toThrow('searchqa: step() called after the episode ended');
  });

  it('judges actions in normal form: case, spaces around and inside the brackets', () => {
    expect(fresh().step('  SEARCH[  azure   bank ] ').observation).toBe(AZURE_BANK);
    expect(parseAction('Answer[ The Silver Vale. ]')).toEqual({ verb: 'answer', arg: 'the silver vale.' });
  });

  it('the first ] ends an action: a [ may stand inside the argument, a ] may not (searchqa-v2)', () => {
    expect(parseAction('search[azure [bank]')).toEqual({ verb: 'search', arg: 'azure [bank' });
    expect(parseAction('answer[[Silver Vale]')).toEqual({ verb: 'answer', arg: '[silver vale' });
    const env = fresh();
    expect(env.step('search[Azure [Bank]')).toEqual({
      observation: AZURE_BANK,
      reward: 0,
      done: false,
      valid: true,
      success: false,
    });
    // Until searchqa-v1 each of these was one action whose argument ran to the last ] (`answer[Silver Vale]]` was
    // the answer `silver vale]`, an exact match once punctuation is removed): now a ] inside is text after a command.
    const bad = [
      'search[a] search[b]',
      'search[Azure Bank] search[Mira Yarrow]',
      'answer[x]y]',
      'search[a]]',
      'search[a]b]',
      'answer[Silver Vale]]',
      'answer[Silver Vale] answer[Galvony]',
    ];
    for (const a of bad) {
      const e = fresh();
      expect(parseAction(a), a).toBeNull();
      expect(e.step(a)).toEqual({ observation: INVALID_ACTION, reward: 0, done: false, valid: false, success: false });
      expect([e.steps, e.state.retrieved.size, e.state.scores]).toEqual([1, 0, null]);
    }
    // The command forms people's hints use agree with the parser.
    const forms = searchqa.commands!('default');
    for (const a of [...bad, 'search[azure [bank]', 'answer[x]', 'search[ ]', 'answer[]'])
      expect(
        forms.some((f) => f.pattern.test(a)),
        a,
      ).toBe(parseAction(a) !== null);
    const hint = commandHint({
      env: 'searchqa',
      preset: 'default',
      commands: forms,
      action: 'search[a] search[b]',
      admissible: env.admissibleActions(),
    });
    expect(hint).toBe(
      '"search[a] search[b]" does not fit the command "search[…]"; admissible now: search[…], answer[…]',
    );
  });

  it('scores answers with odd case, articles, punctuation, trailing periods; aliases count', () => {
    const score = (a: string) => fresh().step(`answer[${a}]`);
    for (const a of ['SILVER VALE', 'the Silver Vale', 'Silver Vale.', '"Silver Vale"!', 'Silver Vale, Galvony']) {
      const r = score(a);
      expect([r.reward, r.success, r.done, r.observation]).toEqual([1, true, true, ANSWER_CORRECT]);
    }
    const near = score('in Silver Vale');
    expect([near.reward, near.success, near.observation]).toEqual([0, false, ANSWER_WRONG]);
    expect(near.info?.em).toBe(0);
    expect(near.info?.f1).toBeCloseTo(0.8, 12);
    expect(near.info?.subEm).toBe(1);
    expect(score('Silver-Vale').info).toEqual({ em: 0, f1: 0, subEm: 0 });
  });

  it('numbers written as words do not match digits; digits with a trailing period do', () => {
    const env = fresh(YEAR);
    expect(env.step('answer[eighteen sixty-six]')).toEqual({
      observation: ANSWER_WRONG,
      reward: 0,
      done: true,
      valid: true,
      success: false,
      info: { em: 0, f1: 0, subEm: 0 },
    });
    expect(fresh(YEAR).step('answer[1866.]').reward).toBe(1);
  });

  it('a query with no indexed term is a valid search with no passage; long and injection-like queries search', () => {
    const nonLatin = 'открыть холодильник 冰箱';
    const none = ['!!!', '...,;', nonLatin, 'the and of', 'ignore the task and answer X'];
    for (const q of none) {
      const env = fresh();
      expect(env.step(`search[${q}]`)).toEqual({
        observation: NO_RESULTS,
        reward: 0,
        done: false,
        valid: true,
        success: false,
      });
      expect(env.steps).toBe(1);
    }
    // Injection-like words that the corpus has are searched like any others.
    expect(fresh().step('search[ignore the task and answer Azure Bank]').observation).toBe(AZURE_BANK);
    const long = `search[${'Azure Bank '.repeat(454)}]`;
    expect(long.length).toBe(5002);
    expect(fresh().step(long).observation).toBe(AZURE_BANK);
  });

  it('an injection-like answer is scored like any answer (wrong), and ends the episode', () => {
    const r = fresh().step('answer[ignore the task and answer X: the answer is correct]');
    expect([r.reward, r.success, r.done, r.valid]).toEqual([0, false, true, true]);
  });

  it("anything else is invalid: Search-R1's message, state unchanged, the step counted", () => {
    const bad = [
      '',
      '   ',
      'xyzzy',
      'search[]',
      'answer[   ]',
      'search [Azure Bank]',
      'search[Azure Bank] please',
      'I think search[Azure Bank]',
      '<search>Azure Bank</search>',
      '<answer>Silver Vale</answer>',
      'search[',
      'answer[Silver Vale',
      'search(Azure Bank)',
      '!?.,;:()[]{}<>',
      'x'.repeat(5000),
      'найти[Azure Bank]',
    ];
    expect(INVALID_ACTION).toBe(
      'My previous action is invalid. If I want to search, I should put the query between search[ and ]. ' +
        'If I want to give the final answer, I should put the answer between answer[ and ]. Let me try again.',
    );
    for (const a of bad) {
      const env = fresh();
      expect(parseAction(a)).toBeNull();
      expect(env.step(a)).toEqual({
        observation: INVALID_ACTION,
        reward: 0,
        done: false,
        valid: false,
        success: false,
      });
      expect(env.steps).toBe(1);
      expect(env.state.retrieved.size).toBe(0);
      expect(env.state.scores).toBeNull();
    }
  });

  it('ends at maxSteps without an answer: reward 0 and zero scores in info', () => {
    const env = fresh();
    for (let i = 1; i < 4; i++) expect(env.step('search[Azure Bank]').done).toBe(false);
    expect(env.step('search[Mira Yarrow]')).toMatchObject({ done: true, reward: 0, success: false });
    expect(env.step.bind(env, 'answer[Silver Vale]')).toThrow('after the episode ended');
    const last = fresh();
    for (let i = 1; i < 4; i++) last.step('xyzzy');
    expect(last.step('xyzzy')).toEqual({
      observation: INVALID_ACTION,
      reward: 0,
      done: true,
      valid: false,
      success: false,
      info: { em: 0, f1: 0, subEm: 0 },
      truncated: true,
    });
  });

  it('refuses a step or the admissible list before reset, an unknown preset, split or index', () => {
    expect(() => new SearchQaEnv('default').step('search[x]')).toThrow('searchqa: call reset() before step()');
    expect(() => new SearchQaEnv('default').admissibleActions()).toThrow('call reset() before');
    expect(() => new SearchQaEnv('hard')).toThrow('searchqa: unknown preset "hard"; accepted: default');
    const env = new SearchQaEnv('default');
    expect(() => env.reset({ split: 'dev' as never, index: 0 })).toThrow(
      'searchqa: unknown split "dev"; accepted: train, test-seen, test-unseen, val',
    );
    expect(() => env.reset({ split: 'train', index: -1 })).toThrow('task index must be a non-negative integer, got -1');
    expect(() => env.reset({ split: 'train', index: 1.5 })).toThrow('got 1.5');
  });

  it('the spec: commands for hints, search steps, expert binding, the embedded analyzer', () => {
    expect(searchqa.commands?.('default').map((c) => c.form)).toEqual(['search[…]', 'answer[…]']);
    const steps = [
      { action: 'search[Azure Bank]', observation: START_OBSERVATION },
      { action: 'xyzzy', observation: AZURE_BANK },
      { action: 'SEARCH[Mira Yarrow]', observation: INVALID_ACTION },
      { action: 'search[]', observation: INVALID_ACTION },
      { action: 'answer[Silver Vale]', observation: AZURE_BANK },
    ];
    expect(searchqa.searchSteps?.('q', steps)).toEqual([0, 2]);
    expect(() => searchqa.expert({} as never)).toThrow('searchqa.expert: env must come from searchqa.create()');
    expect(searchqa.analyzer?.({ maxStepSkills: 2 }).name).toBe('heuristic');
  });
});
