/**
 * `npm run serve`'s Search-R1 `/retrieve` (cli/serve/retrieve.ts) over the corpus of the env that has one
 * (`EnvSpec.retrieve`: searchqa): both request shapes, both answer shapes, the same ranking the env's `search[…]`
 * shows, and the refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_SPECS, getEnvSpec } from '../../src/core/envs/registry';
import { EXAMPLE_QUERY } from '../../cli/serve/retrieve';
import { post, testServer } from '../helpers/serve';

let srv: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  srv = await testServer({ expert: true });
});
afterAll(() => srv.close());

const spec = getEnvSpec('searchqa');
/** What `/retrieve` answers for `q` with scores, from the env's own retrieval. */
const scored = (q: string, k: number) =>
  spec.retrieve!(q, k).map((p) => ({ document: { contents: `${p.title}\n${p.text}` }, score: p.score }));

describe('/retrieve', () => {
  it('is served by the only env with a corpus', () => {
    expect(ENV_SPECS.filter((s) => s.retrieve !== undefined).map((s) => s.name)).toEqual(['searchqa']);
  });

  it("Search-R1's batch shape and verl-agent's single query; documents alone with return_scores false", async () => {
    const env = spec.create(spec.defaultPreset);
    const questions = [0, 1, 2].map((index) => env.reset({ split: 'train', index }).task);
    const batch = await post(srv.base, '/retrieve', { queries: questions, topk: 3, return_scores: true });
    expect(batch.status).toBe(200);
    expect(batch.body).toEqual({ result: questions.map((q) => scored(q, 3)) });
    expect(batch.body.result.every((r: unknown[]) => r.length === 3)).toBe(true);
    const one = await post(srv.base, '/retrieve', { query: questions[0] });
    expect(one.body).toEqual({ result: [scored(questions[0], 3)] });
    const five = await post(srv.base, '/retrieve', { query: questions[1], topk: 5, return_scores: false });
    expect(five.body).toEqual({ result: [scored(questions[1], 5).map((h) => h.document)] });
    expect(five.body.result[0].length).toBe(5);
    const none = await post(srv.base, '/retrieve', { queries: ['!!! ???'] });
    expect(none.body).toEqual({ result: [[]] });
  });

  it("ranks as the env's search[…] shows: the expert's first query, the same titles in the same order", async () => {
    const id = (await post(srv.base, '/create', { env: 'searchqa' })).body.id;
    await post(srv.base, '/reset', { env_idx: id, split: 'test-seen', index: 4 });
    const action: string = (await fetch(`${srv.base}/expert_action?env_idx=${id}`).then((r) => r.json())).action;
    const query = /^search\[(.*)\]$/.exec(action)![1];
    const observation: string = (await post(srv.base, '/step', { env_idx: id, action })).body.observation;
    const shown = [...observation.matchAll(/Doc \d+\(Title: ([^)]*)\)/g)].map((m) => m[1]);
    const got = (await post(srv.base, '/retrieve', { query, topk: 3 })).body.result[0];
    expect(got.map((h: { document: { contents: string } }) => h.document.contents.split('\n')[0])).toEqual(shown);
  });

  it('refuses a body without query or queries, a bad topk, an env without a corpus, bad JSON', async () => {
    const err = (status: number, re: RegExp) => ({ status, body: { error: expect.stringMatching(re) } });
    expect(await post(srv.base, '/retrieve', { topk: 3 })).toEqual(err(400, /send "queries" \(an array\) or "query"/));
    expect(await post(srv.base, '/retrieve', { query: 'x', topk: 0 })).toEqual(
      err(400, /field "topk" must be an integer in 1\.\.100, got 0/),
    );
    expect(await post(srv.base, '/retrieve', { queries: 'x' })).toEqual(err(400, /field "queries" must be an array/));
    expect(await post(srv.base, '/retrieve', { query: 'x', env: 'household' })).toEqual(
      err(400, /env "household" has no corpus; the envs with one: searchqa/),
    );
    expect(await post(srv.base, '/retrieve', '{"query": ')).toEqual(err(400, /the body is not JSON/));
  });

  it('refuses a query over 1000 characters, over 256 queries, a bad item, and query with queries', async () => {
    const fix = '; send e.g. {"queries":["who founded the Azure Club?"],"topk":3,"return_scores":true}';
    const refused = (error: string) => ({ status: 400, body: { error: `POST /retrieve: ${error}` } });
    expect(await post(srv.base, '/retrieve', { queries: ['Falcon Regatta', 7] })).toEqual(
      refused(`field "queries[1]" must be a string of at most 1000 characters, got a number${fix}`),
    );
    expect(await post(srv.base, '/retrieve', { queries: ['a', 'b'.repeat(1001)] })).toEqual(
      refused(`field "queries[1]" must be a string of at most 1000 characters, got a string of 1001 characters${fix}`),
    );
    expect(await post(srv.base, '/retrieve', { query: 'q'.repeat(1001) })).toEqual(
      refused(`field "query" must be a question as text, at most 1000 characters, got a text of 1001 characters${fix}`),
    );
    expect(await post(srv.base, '/retrieve', { queries: Array(257).fill('who founded the Azure Club?') })).toEqual(
      refused(`field "queries" must be an array of at most 256 questions, got an array of 257 items${fix}`),
    );
    expect(await post(srv.base, '/retrieve', { query: 'x', queries: ['y'] })).toEqual(
      refused(
        'send "queries" (an array) or "query" (one question), not both; send e.g. ' +
          '{"queries": ["who founded the Azure Club?"], "topk": 3, "return_scores": true}',
      ),
    );
    // the example a refusal shows finds a passage of this corpus, the one it asks about first
    const example = await post(srv.base, '/retrieve', { queries: [EXAMPLE_QUERY], topk: 3, return_scores: true });
    expect(example.body.result[0][0].document.contents).toBe(
      'Azure Club\nThe Azure Club was founded by Petra Everard in 1926 and is based in Copper Harbour.',
    );
    const most = await post(srv.base, '/retrieve', { queries: Array(256).fill('q'.repeat(1000)), topk: 1 });
    expect(most.status).toBe(200);
    expect(most.body.result.length).toBe(256);
  });
});
