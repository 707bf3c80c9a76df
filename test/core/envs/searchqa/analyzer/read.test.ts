/**
 * What the searchqa analyzer reads back from text: actions as written (case kept, judged as env.ts judges them),
 * search results (`Doc i(Title: t) text`), a passage's facts (corpus.ts's six sentences), and the question (the env's
 * templates) solved from passages — on the expert's episodes of tasks 0–699 of every split, the hops read are the
 * question's hops and the answer read is its canonical gold, and a TriviaQA clue's words are the expert's query.
 */
import { describe, expect, it } from 'vitest';
import { SPLITS } from '../../../../../src/core/envs/types';
import { searchqa, type SearchQaEnv } from '../../../../../src/core/envs/searchqa';
import { corpus } from '../../../../../src/core/envs/searchqa/corpus';
import { parseAction } from '../../../../../src/core/envs/searchqa/env';
import {
  nameKey,
  readAction,
  readFacts,
  readPassages,
  skillArg,
  type Facts,
} from '../../../../../src/core/envs/searchqa/analyzer/read';
import { readQuestion, solveQuestion } from '../../../../../src/core/envs/searchqa/analyzer/question';

/** The facts of `passages` keyed by title. */
const pool = (passages: Facts[]) => new Map(passages.map((f) => [nameKey(f.title), f]));
/** The facts of the corpus passage titled `title`. */
const factsOf = (title: string) => readFacts(corpus().find((p) => p.title === title)!)!;

describe('searchqa analyzer: reading text', () => {
  it('reads actions as env.ts judges them, keeping the case of the argument', () => {
    expect(readAction('  Search[ Azure   Bank ] ')).toEqual({
      action: 'search[Azure Bank]',
      verb: 'search',
      arg: 'Azure Bank',
    });
    expect(readAction('Search[Azure [Bank]')).toEqual({
      action: 'search[Azure [Bank]',
      verb: 'search',
      arg: 'Azure [Bank',
    });
    // The first ] ends the action (searchqa-v2): a ] inside the argument is text after a command.
    expect(readAction('answer[a]b]')).toEqual({ action: 'answer[a]b]', verb: null, arg: null });
    const bad = ['', 'search[]', 'answer[  ]', 'search [x]', '<search>x</search>', 'answer[a] b'];
    const closedEarly = ['answer[a]b]', 'search[a] search[b]', 'answer[x]y]', 'search[a]]'];
    for (const a of [...bad, ...closedEarly]) expect(readAction(a).verb, a).toBeNull();
    // The same verdict as the env's parser on every one of these.
    for (const a of ['  Search[ Azure   Bank ] ', 'search[a [b]', ...bad, ...closedEarly])
      expect(readAction(a).verb, a).toBe(parseAction(a)?.verb ?? null);
    expect(skillArg(' a[b] ')).toBe('a b');
    expect(skillArg('[]')).toBeNull();
  });

  it("reads search results and the six passages' facts", () => {
    const obs = [
      'Doc 1(Title: Azure Bank) The Azure Bank was founded by Mira Yarrow in 1851 and is based in Bramble Ford.',
      'Doc 2(Title: Mira Yarrow) Mira Yarrow was a singer born in Silver Vale in 1820.',
    ].join('\n');
    const ps = readPassages(obs);
    expect(ps.map((p) => p.title)).toEqual(['Azure Bank', 'Mira Yarrow']);
    expect(readFacts(ps[0])).toEqual({
      kind: 'org',
      title: 'Azure Bank',
      text: ps[0].text,
      fields: { founder: 'Mira Yarrow', year: '1851', base: 'Bramble Ford' },
    });
    expect(readFacts(ps[1])?.fields).toEqual({ occupation: 'singer', birthplace: 'Silver Vale', year: '1820' });
    expect(readPassages('No passage matches the query.')).toEqual([]);
    expect(readFacts({ title: 'Azure Bank', text: 'Something else.' })).toBeNull();
    // Every passage of the corpus has one of the six forms.
    const kinds = new Map<string, number>();
    for (const p of corpus()) {
      const f = readFacts(p);
      expect(f, p.text).not.toBeNull();
      kinds.set(f!.kind, (kinds.get(f!.kind) ?? 0) + 1);
    }
    expect(Object.fromEntries(kinds)).toEqual({
      country: 30,
      town: 300,
      person: 1200,
      org: 300,
      work: 600,
      event: 240,
    });
  });

  it('solves a chain as far as the passages go: the next hop is named by the last passage found', () => {
    const q = readQuestion('Where was the founder of the Azure Bank born?')!;
    expect(q).toEqual({ form: 'chain', name: 'Azure Bank', path: ['founder', 'birthplace'] });
    expect(solveQuestion(q, pool([]))).toEqual({
      hops: [{ name: 'Azure Bank', title: null, fromQuestion: true, clue: false }],
      answer: null,
      answerKind: 'a town',
    });
    expect(solveQuestion(q, pool([factsOf('Azure Bank')])).hops).toEqual([
      { name: 'Azure Bank', title: 'Azure Bank', fromQuestion: true, clue: false },
      { name: 'Mira Yarrow', title: null, fromQuestion: false, clue: false },
    ]);
    expect(solveQuestion(q, pool([factsOf('Azure Bank'), factsOf('Mira Yarrow')])).answer).toBe('Silver Vale');
    // NQ's lower-case names find their passage too.
    const nq = readQuestion('who founded the azure bank')!;
    expect(solveQuestion(nq, pool([factsOf('Azure Bank')])).answer).toBe('Mira Yarrow');
    expect(readQuestion('Name a town.')).toBeNull();
  });

  for (const split of SPLITS)
    it(`on the expert's episodes of ${split} tasks 0–699: the question's hops, its gold and clue`, () => {
      const env = searchqa.create('default') as SearchQaEnv;
      const expert = searchqa.expert(env);
      const forms = new Map<string, number>();
      for (let index = 0; index < 700; index++) {
        const r = env.reset({ split, index });
        const q = env.state.task.question;
        const seen: Facts[] = [];
        let st;
        do {
          st = env.step(expert.act());
          seen.push(...readPassages(st.observation).map((p) => readFacts(p)!));
        } while (!st.done);
        const read = readQuestion(r.task);
        expect(read, r.task).not.toBeNull();
        forms.set(read!.form, (forms.get(read!.form) ?? 0) + 1);
        const s = solveQuestion(read!, pool(seen));
        expect(
          s.hops.map((h) => h.title),
          r.task,
        ).toEqual(q.hops.map((h) => corpus()[h].title));
        expect(s.answer, r.task).toBe(q.golds[0]);
        if (read!.form === 'clue') expect(read!.words).toBe(q.clue);
      }
      expect([...forms.keys()].sort()).toEqual(['chain', 'clue', 'compare']);
    });
});
