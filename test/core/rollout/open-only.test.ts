/**
 * Rollouts on an env whose every admissible action is an open form (searchqa: `search[` and `answer[`, envs/types.ts
 * `isOpenAction`). Under admissible decoding the trie's root allows exactly the two verbs' first tokens (never
 * <eos>: a bare `search[` is no action), the bracket follows, then free text up to `]` (the `]` only once some text
 * is not blank), then only <eos>. A random nano policy's rollout therefore only sends `search[…]` / `answer[…]`
 * actions with text in them, each valid unless it was cut at maxActionTokens before its `]` — and the act panel's
 * scores sum to 1 over the two open forms.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { buildTokenizer, createPolicy, disposePolicy } from '../../../src/core/model/policy';
import { runEpisodes } from '../../../src/core/rollout/runner';
import { actionTokens, buildPrompt } from '../../../src/core/rollout/prompt';
import { admissibleTrie, freeTextSlot } from '../../../src/core/rollout/trie';
import { scoreActions } from '../../../src/core/rollout/act-topk';
import { Rng } from '../../../src/core/rng';
import { useBackend } from '../../helpers/backend';

const spec = getEnvSpec('searchqa');
const tok = buildTokenizer(spec);
const eos = tok.special('<eos>');
const id = (piece: string) => tok.tokens.indexOf(piece);
const byte = (c: string) => tok.byteOffset + c.charCodeAt(0);

beforeAll(() => useBackend('wasm'));

describe('an env whose every action is open (searchqa)', () => {
  const adm = spec.create('default');
  adm.reset({ split: 'train', index: 0 });
  const admissible = adm.admissibleActions();

  it('offers only open forms, and the trie allows only their verbs, then `[`, then free text, then `]`, <eos>', () => {
    expect(admissible).toEqual(['search[', 'answer[']);
    expect(actionTokens(tok, 'search[')).toEqual([id(' search'), byte('[')]);
    expect(actionTokens(tok, 'answer[')).toEqual([id(' answer'), byte('[')]);
    const trie = admissibleTrie(tok, admissible);
    expect([...trie.allowed([])]).toEqual([id(' search'), id(' answer')].sort((a, b) => a - b));
    expect([...trie.allowed([id(' answer')])]).toEqual([byte('[')]);
    const slot = freeTextSlot(tok);
    expect(trie.allowed([id(' search'), byte('[')])).toBe(slot.free); // no `]` before some text
    expect(trie.allowed([id(' search'), byte('['), byte(' ')])).toBe(slot.free);
    expect(trie.allowed([id(' search'), byte('['), id('Azure'), id(' Bank')])).toBe(slot.inside);
    expect([...trie.allowed([id(' search'), byte('['), id('Azure'), byte(']')])]).toEqual([eos]);
    expect(trie.allowed([id(' search'), byte('['), id('Azure'), byte(']'), eos]).length).toBe(0);
  });

  it('a random policy’s rollout sends only search[…] and answer[…] with text, valid unless cut', async () => {
    const policy = createPolicy('nano', tok, new Rng(4).fork('init'));
    const refs = Array.from({ length: 8 }, (_, index) => ({ split: 'train' as const, index }));
    const maxActionTokens = spec.maxActionTokens!;
    const roll = await runEpisodes(policy, spec, 'default', refs, {
      decoding: 'admissible',
      temperature: 1,
      historyTurns: 3,
      maxActionTokens,
      rng: new Rng(9),
    });
    let steps = 0;
    for (const t of roll.trajectories) {
      expect(t.steps.length).toBeGreaterThan(0);
      for (const s of t.steps) {
        steps++;
        expect(s.admissible).toEqual(['search[', 'answer[']);
        expect(s.action).toMatch(/^(search|answer)\[/);
        const closed = s.response[s.response.length - 1] === eos;
        if (!closed) expect(s.response.length).toBe(maxActionTokens);
        if (closed) expect(s.action).toMatch(/^(search|answer)\[[^\]]*\S[^\]]*\]$/);
        expect(s.valid).toBe(closed);
        expect([...s.allowed[0]!]).toEqual([id(' search'), id(' answer')].sort((a, b) => a - b));
      }
      const last = t.steps[t.steps.length - 1].action;
      expect(t.steps.length === 4 || (last.startsWith('answer[') && t.steps[t.steps.length - 1].valid)).toBe(true);
    }
    expect(steps).toBeGreaterThan(8);
    disposePolicy(policy);
  });

  it('the act panel scores the two open forms as entering their slots; their probabilities sum to 1', async () => {
    const policy = createPolicy('nano', tok, new Rng(5).fork('init'));
    const env = spec.create('default');
    const r = env.reset({ split: 'train', index: 1 });
    const prompt = buildPrompt(
      tok,
      { task: r.task, history: [], observation: r.observation, admissible, historyTurns: 3 },
      policy.cfg.maxSeq - 16,
    );
    const scores = await scoreActions(policy, prompt, admissible, {
      decoding: 'admissible',
      temperature: 1,
      maxActionTokens: 16,
    });
    expect(scores.map((s) => [s.action, s.tokens])).toEqual([
      ['search[', 2],
      ['answer[', 2],
    ]);
    expect(scores[0].prob + scores[1].prob).toBeCloseTo(1, 6);
    disposePolicy(policy);
  });
});
